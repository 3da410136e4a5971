"""Fast tests of bandits.phased (XY-adaptive, RAGE)."""

from __future__ import annotations

import numpy as np
import pytest

from bandits import run
from bandits.gifa import simulated_rewards
from bandits.instances import Instance, soare
from bandits.phased import AdaptivePolicy, RagePolicy, run_rage, run_xy_adaptive

EASY = soare(d=3, omega=0.3)


def _drive(pol, draw):
    while not pol.done:
        a = pol.ask()
        pol.tell(a, draw(a))
    return pol


@pytest.mark.parametrize("kw", [{}, {"normalization": "fig3"}, {"monotone": False},
                                {"phase_init": "all", "log_n": "phase"},
                                {"stop_in_phase": False}])
def test_adaptive_policy_reproduces_simulation(kw):
    sim = run_xy_adaptive(EASY, seed=3, refresh_every=64, simulation="per-sample", **kw)
    pol = _drive(AdaptivePolicy(EASY.X, seed=3, refresh_every=64, **kw),
                 simulated_rewards(EASY, 3))
    assert pol.samples == sim.samples and pol.stopped_by == sim.stopped_by == "rule"
    np.testing.assert_array_equal(pol.counts, sim.counts)
    assert pol.recommendation[0] == sim.recommendation[0]
    assert len(pol.phases) == sim.extra["n_phases"]


@pytest.mark.parametrize("variant", ["paper", "code"])
def test_rage_policy_reproduces_simulation(variant):
    sim = run_rage(EASY, seed=3, variant=variant, simulation="per-sample")
    pol = _drive(RagePolicy(EASY.X, variant=variant), simulated_rewards(EASY, 3))
    assert pol.samples == sim.samples and pol.stopped_by == "rule"
    np.testing.assert_array_equal(pol.counts, sim.counts)
    assert pol.recommendation[0] == sim.recommendation[0]


def test_adaptive_phase_length_rule():
    res = run_xy_adaptive(soare(d=4, omega=0.05), seed=1, stop_in_phase=False)
    ph = res.extra["phases"]
    assert len(ph) >= 2
    assert ph[0]["target"] == pytest.approx(0.1 / 21)
    for a, b in zip(ph[:-1], ph[1:], strict=True):
        assert b["target"] == pytest.approx(0.1 * a["uncertainty"])
    for p in ph:
        if p.get("stopped_in_phase"):  # the in-phase stopping rule ended the last phase
            assert p is ph[-1]
            continue
        assert p["uncertainty"] <= p["target"] and p["pulls"] >= 21
        assert p["active_after"] <= p["active_before"]  # monotone by default
    assert sum(p["pulls"] for p in ph) == res.samples


def test_phases_use_only_their_own_samples():
    """Rewards of phase 1 come from theta_1 = 0 (nothing is eliminated), later ones from
    theta_2 (noise-free): the phase-2 estimate must be exactly theta_2, which it cannot be
    if phase-1 data leak in."""
    X = soare(d=3, omega=0.3).X
    th1, th2 = np.zeros(3), np.array([0.3, 0.2, -0.1])
    pol = AdaptivePolicy(X, seed=0)
    while not pol.done and len(pol.phases) < 2:
        a = pol.ask()
        pol.tell(a, float(X[a] @ (th1 if len(pol.phases) == 0 else th2)))
    assert len(pol.phases) == 2
    np.testing.assert_allclose(pol._eng.theta_rec, th2, atol=1e-9)
    rp = RagePolicy(X)
    while not rp.done and len(rp.phases) < 2:
        a = rp.ask()
        rp.tell(a, float(X[a] @ (th1 if len(rp.phases) == 0 else th2)))
    assert len(rp.phases) == 2
    act = np.flatnonzero(rp._eng.active)
    Z = rp._eng.Z
    if act.shape[0] > 1:
        y = Z[act[0]] - Z[act[1:]]
        np.testing.assert_allclose(y @ rp._eng.theta_rec, y @ th2, atol=1e-9)


@pytest.mark.parametrize("algo", ["xy-adaptive", "rage"])
def test_best_never_dropped_with_large_gaps(algo):
    inst = Instance(name="gaps", X=np.eye(4), theta=np.array([1.0, 0.5, 0.2, 0.0]))
    for seed in range(30):
        res = run(algo, inst, seed=seed)
        assert res.stopped_by == "rule" and res.correct
        assert 0 in res.extra["active"]


@pytest.mark.parametrize("algo", ["xy-adaptive", "rage"])
def test_transductive(algo):
    X = np.eye(3)
    Z = np.array([[1.0, 1.0, 0.0], [1.0, 0.0, 1.0], [0.0, 1.0, 1.0], [0.5, 0.5, 0.5]])
    inst = Instance(name="transductive", X=X, theta=np.array([1.0, 0.6, 0.0]), Z=Z)
    for seed in range(5):
        res = run(algo, inst, seed=seed)
        assert res.recommendation[0] == 0 and res.correct and res.stopped_by == "rule"
        assert res.counts.shape == (3,)


@pytest.mark.parametrize("algo", ["xy-adaptive", "rage"])
def test_determinism_and_budget(algo):
    a = run(algo, EASY, seed=11)
    b = run(algo, EASY, seed=11)
    assert a.samples == b.samples and np.array_equal(a.counts, b.counts)
    c = run(algo, soare(d=5), seed=11, max_samples=3000)
    assert c.stopped_by == "budget" and c.samples == 3000 == c.counts.sum()


@pytest.mark.parametrize("c", [8.0, 2.0])
def test_rage_phase_sizes_follow_the_paper(c):
    # N_k = max(ceil(c (2^{k+1})^2 rho_k (1+eps) log(|Z|^2/delta_k)), r(eps)), delta_k = delta/k^2
    res = run_rage(soare(d=5), seed=0, n_constant=c)
    for ph in res.extra["phases"]:
        k = ph["phase"]
        assert ph["delta_k"] == pytest.approx(0.05 / k**2)
        base = c * 2 ** (2 * k + 2) * ph["rho"] * 1.1 * np.log(36 / ph["delta_k"])
        assert ph["N"] >= base and ph["N"] <= max(base + 1, 11 * ph["support"])


@pytest.mark.parametrize("kw, match", [
    (dict(alpha=1.5), "alpha"), (dict(normalization="x"), "normalization"),
    (dict(phase_init="x"), "phase_init"), (dict(log_n="x"), "log_n"),
    (dict(foo=1), "unknown"), (dict(rho0=0.0), "rho0"), (dict(n0=0), "n0"),
    (dict(delta=0.0), "delta"), (dict(confidence="x"), "confidence"),
])
def test_adaptive_bad_options(kw, match):
    with pytest.raises(ValueError, match=match):
        run("xy-adaptive", EASY, **kw)


@pytest.mark.parametrize("kw, match", [
    (dict(eps=0.0), "eps"), (dict(variant="x"), "variant"), (dict(foo=1), "unknown"),
    (dict(delta=2.0), "delta"), (dict(design_tol=-1.0), "design_tol"),
    (dict(max_samples=0), "max_samples"), (dict(n_constant=0.0), "n_constant"),
])
def test_rage_bad_options(kw, match):
    with pytest.raises(ValueError, match=match):
        run("rage", EASY, **kw)
    with pytest.raises(ValueError, match="X"):
        RagePolicy(np.array([[1.0, 0.0], [2.0, 0.0]]))
