"""The model check behind a real experiment's certificate (bandits._core.model_check):
lack of fit and pure error against the model and the sigma a stopping rule assumes."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from scipy import stats

import bandits
from bandits import ModelCheck, ModelCheckWarning
from bandits._core.model_check import check_model
from bandits.registry import REGISTRY, entry, policy

#: A 5 x 5 grid in two factors with an intercept: the linear model's candidates.
GRID = np.array([[1.0, u, v] for u in np.linspace(-1, 1, 5) for v in np.linspace(-1, 1, 5)])


def _moments(arms: np.ndarray, rewards: np.ndarray, K: int):
    n = np.bincount(arms, minlength=K)
    means = np.bincount(arms, weights=rewards, minlength=K) / np.maximum(n, 1)
    ss = np.bincount(arms, weights=(rewards - means[arms]) ** 2, minlength=K)
    return n, means, ss


def test_lack_of_fit_and_pure_error_split_the_residual_sum_of_squares() -> None:
    """LOF + PE is the residual sum of squares of least squares on the single measurements
    (computed here independently, row by row), and the degrees of freedom are k - r and N - k."""
    rng = np.random.default_rng(0)
    arms = rng.integers(0, 12, 60)  # 12 of the 25 candidates, repeats
    rewards = GRID[arms] @ np.array([1.0, 2.0, -1.0]) + GRID[arms, 1] ** 2 + rng.normal(size=60)
    n, means, ss = _moments(arms, rewards, 25)
    c = check_model(GRID, n, means, ss, sigma=0.7)
    theta = np.linalg.lstsq(GRID[arms], rewards, rcond=None)[0]
    rss = float(np.sum((rewards - GRID[arms] @ theta) ** 2))
    k = int(np.count_nonzero(n))
    assert c.lack_of_fit_df == k - 3 and c.pure_error_df == 60 - k
    assert (c.lack_of_fit + c.pure_error) * 0.49 == pytest.approx(rss, rel=1e-10)
    assert c.f_p == pytest.approx(stats.f.sf(c.f_statistic, k - 3, 60 - k))


def test_a_correct_model_is_rejected_at_the_level_alpha() -> None:
    """Under the model with Gaussian noise of the sigma given, each test rejects with
    probability alpha: over 2,000 seeded experiments at alpha = 0.05 the rejection rate of
    the check (two tests) lies in the binomial 99.9% interval around 1 - 0.95^2 = 0.0975."""
    rng = np.random.default_rng(1)
    theta = np.array([3.0, 0.8, -0.5])
    runs, rejected = 2000, 0
    for _ in range(runs):
        arms = rng.integers(0, 25, 50)
        rewards = GRID[arms] @ theta + 2.0 * rng.normal(size=50)
        n, means, ss = _moments(arms, rewards, 25)
        rejected += check_model(GRID, n, means, ss, sigma=2.0, alpha=0.05).rejected
    lo, hi = stats.binom.ppf([0.0005, 0.9995], runs, 1 - 0.95**2)
    assert lo <= rejected <= hi


def test_curvature_and_an_underestimated_sigma_are_rejected() -> None:
    rng = np.random.default_rng(2)
    arms = np.repeat(np.arange(25), 2)
    base = GRID[arms] @ np.array([3.0, 0.8, -0.5])
    curved = base - 3.0 * (GRID[arms, 1] ** 2 + GRID[arms, 2] ** 2) + rng.normal(size=50)
    c = check_model(GRID, *_moments(arms, curved, 25), sigma=1.0)
    assert c.rejected and c.lack_of_fit_p < 1e-6 and "depart from the model" in c.message
    noisy = base + 3.0 * rng.normal(size=50)  # sigma 3 measured, 1 assumed
    c = check_model(GRID, *_moments(arms, noisy, 25), sigma=1.0)
    assert c.rejected and c.pure_error_p < 1e-6 and "larger sigma" in c.message


def test_no_check_without_degrees_of_freedom() -> None:
    """Three candidates spanning the three parameters, each measured once: nothing to
    test. Measured twice: the noise is tested, the model still is not (and says so)."""
    n, means = np.zeros(25), np.zeros(25)
    n[[0, 1, 5]], means[[0, 1, 5]] = 1, [1.0, 2.0, 3.0]
    c = check_model(GRID, n, means, np.zeros(25), sigma=1.0)
    assert not c.possible and not c.rejected and "no check possible" in c.message
    c = check_model(GRID, 2 * n, means, np.r_[0.5, 0.1, np.zeros(23)], sigma=1.0)
    assert c.pure_error_df == 3 and c.lack_of_fit_df == 0 and not c.rejected
    assert "the model itself is not checked" in c.message


@pytest.mark.parametrize("alpha", [0.0, 1.0, -0.1, float("nan")])
def test_bad_alpha_is_refused(alpha: float) -> None:
    with pytest.raises(ValueError, match="alpha"):
        check_model(GRID, np.ones(25), np.zeros(25), np.zeros(25), 1.0, alpha)


GAUSSIAN = [n for n in REGISTRY if entry(n).instance == "linear"]


def _policy(name: str):
    opts = {"threshold": "heuristic"} if "threshold" in entry(name).option_names() else {}
    if name == "xy-oracle":
        opts["theta"] = np.array([3.0, 0.8, -0.5])
    return policy(name, GRID, sigma=1.0, seed=0, **opts)


@pytest.mark.parametrize("name", GAUSSIAN)
def test_every_gaussian_policy_checks_its_model(name: str) -> None:
    """Every registered linear policy: the check of the rewards it used equals the check of
    the same measurements computed here, and refutes a curved response measured on every
    candidate twice (a warm start; the rewards after a stop are not used), except where
    each arm is its own mean (nothing to refute: the noise alone is checked)."""
    rng = np.random.default_rng(3)
    arms = np.repeat(np.arange(25), 2)
    mu = GRID @ np.array([3.0, 0.8, -0.5]) - 3.0 * (GRID[:, 1] ** 2 + GRID[:, 2] ** 2)
    rewards = mu[arms] + rng.normal(size=50)
    pol = _policy(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pol.observe(arms.tolist(), rewards.tolist())
    got = pol.model_check()
    used = pol.samples  # a rule may stop during the warm start: later rewards are not used
    assert used >= 26
    ref = check_model(pol.features, *_moments(arms[:used], rewards[:used], 25), sigma=1.0)
    structured = pol.features.shape[1] == 3  # LUCB, UGapE: each arm its own mean
    assert isinstance(got, ModelCheck) and got.rejected == structured
    assert got.lack_of_fit_df == ref.lack_of_fit_df == (22 if structured else 0)
    assert got.pure_error_df == ref.pure_error_df == used - 25
    assert got.pure_error == pytest.approx(ref.pure_error, rel=1e-6)
    assert got.lack_of_fit == pytest.approx(ref.lack_of_fit, rel=1e-6, nan_ok=True)


def test_within_arm_sums_of_squares_do_not_cancel_far_from_zero() -> None:
    """Rewards near 1e8 with noise 1: the policy's running sums of squares (Welford) give
    the two-pass value to 1e-6, where sum(y^2) - n ybar^2 would lose every digit."""
    rng = np.random.default_rng(4)
    arms = np.repeat(np.arange(25), 4)
    rewards = 1e8 + GRID[arms] @ np.array([3.0, 0.8, -0.5]) + rng.normal(size=100)
    pol = policy("m-lingape", GRID, sigma=1.0, threshold="heuristic", seed=0)
    pol.observe(arms.tolist(), rewards.tolist())
    used = pol.samples  # the rule may stop before the last rewards (not used then)
    assert used > 75
    ref = check_model(GRID, *_moments(arms[:used], rewards[:used], 25), sigma=1.0)
    assert pol.model_check().pure_error == pytest.approx(ref.pure_error, rel=1e-6)
    assert not pol.model_check().rejected


def test_logistic_policies_have_no_gaussian_check() -> None:
    name = next(n for n in REGISTRY if entry(n).instance == "logistic" and n == "war")
    pol = policy(name, GRID[:, 1:] / np.sqrt(2.0), S=2.0)
    with pytest.raises(ValueError, match="no Gaussian noise level"):
        pol.model_check()


def test_a_stop_on_a_rejected_model_warns_and_a_correct_one_does_not() -> None:
    """m-LinGapE on a curved response with a linear model stops on the wrong candidate (a
    corner) with the heuristic threshold: the stop warns that the set is not certified. The
    same run on a linear response stops silently; replaying the saved state warns no more."""
    curve = GRID[:, 1] ** 2 + GRID[:, 2] ** 2
    for a, expect in ((3.0, True), (0.0, False)):
        mu = GRID @ np.array([3.0, 0.8, 0.5]) - a * curve
        pol = policy("m-lingape", GRID, sigma=1.0, threshold="heuristic", seed=0)
        rng = np.random.default_rng(0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            while not pol.done:
                arm = pol.ask()
                pol.tell(arm, mu[arm] + rng.normal())
        hits = [w for w in caught if issubclass(w.category, ModelCheckWarning)]
        assert pol.stopped_by == "rule"
        assert (int(pol.recommendation[0]) != int(np.argmax(mu))) == expect
        assert bool(hits) == expect and pol.model_check().rejected == expect
        if expect:
            assert "not certified" in str(hits[0].message)


def test_replay_does_not_warn_again(tmp_path) -> None:
    mu = GRID @ np.array([3.0, 0.8, 0.5]) - 3.0 * (GRID[:, 1] ** 2 + GRID[:, 2] ** 2)
    pol = policy("m-lingape", GRID, sigma=1.0, threshold="heuristic", seed=0)
    rng = np.random.default_rng(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        while not pol.done:
            arm = pol.ask()
            pol.tell(arm, mu[arm] + rng.normal())
    pol.save(tmp_path / "s.json")
    with warnings.catch_warnings():
        warnings.simplefilter("error", ModelCheckWarning)
        again = bandits.load_policy(tmp_path / "s.json")
    assert again.model_check() == pol.model_check()


def _write(path, header, rows) -> None:
    path.write_text("\n".join([",".join(header)] + [",".join(map(str, r)) for r in rows])
                    + "\n")


def test_experiment_reports_a_rejected_model_and_carries_the_data_over(tmp_path, capsys
                                                                         ) -> None:
    """The lab loop: a linear model of a yield with an interior optimum stops on a corner;
    tell and status say the set is not certified, export writes every measurement, and a
    new experiment with the quadratic model observes them and recommends the true best."""
    from bandits.cli import main

    temps, hours = np.linspace(60, 90, 5), np.linspace(1, 5, 5)
    rows = [(f"C{i:02d}", t, h) for i, (t, h) in
            enumerate(((t, h) for t in temps for h in hours), 1)]
    truth = {r[0]: 70 - 0.05 * (r[1] - 80) ** 2 - 2.0 * (r[2] - 4) ** 2 for r in rows}
    _write(tmp_path / "c.csv", ("id", "temp", "hours"), rows)
    state, sheet = tmp_path / "lin.json", tmp_path / "b.csv"
    base = ["experiment"]
    assert main(base + ["new", "--arms", str(tmp_path / "c.csv"), "--id-column", "id",
                        "--sigma", "1", "--threshold", "heuristic", "--state", str(state)]) == 0
    rng = np.random.default_rng(0)
    capsys.readouterr()
    for _ in range(50):
        assert main(base + ["ask", "--n", "5", "--out", str(sheet), "--state", str(state)]) == 0
        ids = [line.split(",")[0] for line in sheet.read_text().splitlines()[1:]]
        _write(sheet, ("id", "reward"), [(i, truth[i] + rng.normal()) for i in ids])
        assert main(base + ["tell", str(sheet), "--state", str(state)]) == 0
        out = capsys.readouterr()
        if "stopped" in out.out:
            break
    assert "NOT certified" in out.out and "recommended (not certified): C25" in out.out
    assert "model check REJECTED: the measured means depart from the model" in out.out
    assert main(base + ["status", "--json", "--state", str(state)]) == 0
    st = json.loads(capsys.readouterr().out)
    assert st["model_rejected"] and st["best"] == ["C25"] != [max(truth, key=truth.get)]
    assert main(base + ["export", "--out", str(tmp_path / "m.csv"), "--state", str(state)]) == 0
    data = (tmp_path / "m.csv").read_text().splitlines()
    assert len(data) == 1 + st["samples"]
    quad = tmp_path / "quad.json"
    assert main(base + ["new", "--arms", str(tmp_path / "c.csv"), "--id-column", "id",
                        "--model", "quadratic", "--coded", "--sigma", "1", "--threshold",
                        "heuristic", "--state", str(quad)]) == 0
    assert main(base + ["observe", str(tmp_path / "m.csv"), "--state", str(quad)]) == 0
    capsys.readouterr()
    assert main(base + ["status", "--state", str(quad)]) == 0
    out = capsys.readouterr().out
    assert "model check      consistent" in out and "C19" in out
