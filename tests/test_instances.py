"""Instances: the Réda et al. (2021) classic / random / real-data instances, CSV loading,
the Instance dataclass (theta or reward table), the registry, and bad input."""

from importlib import resources

import numpy as np
import pytest

from bandits.instances import (
    INSTANCES,
    Instance,
    drug_repurposing_epilepsy,
    from_csv,
    get_instance,
    random_gaussian,
    reda_classic,
    reda_random_K10_N5,
    soare,
)

# ------------------------------------------------------------------------ classic instance


def test_reda_classic_K4_m2_matrix_and_means():
    w = np.pi / 6
    c, s = np.cos(w), np.sin(w)
    inst = reda_classic(K=4, m=2, omega=w)
    np.testing.assert_allclose(inst.X, [[1, 0, 0], [1, 1, 0], [c, 0, s], [0, 0, 1]], atol=1e-15)
    np.testing.assert_allclose(inst.theta, [1, 0, 0])
    np.testing.assert_allclose(inst.means, [1, 1, c, 0], atol=1e-15)
    assert inst.sigma == 0.5 and inst.m == 2
    assert sorted(inst.best.tolist()) == [0, 1]
    # Réda et al. (2021) §5: gap ~0.13 for omega = pi/6 (x_1 = e_1 as in their code)
    assert inst.gap == pytest.approx(1 - np.cos(np.pi / 6)) and round(inst.gap, 3) == 0.134


def test_reda_classic_K3_m1_matrix_and_gaps():
    w = 0.1
    inst = reda_classic(K=3, m=1, omega=w)
    np.testing.assert_allclose(inst.X, [[1, 0], [np.cos(w), np.sin(w)], [0, 1]], atol=1e-15)
    np.testing.assert_allclose(inst.means, [1, np.cos(w), 0], atol=1e-15)
    assert inst.best.tolist() == [0]
    assert round(inst.gap, 3) == 0.005  # paper: "~0.005" (the literal x_1 = 2 e_1 gives 1.005)
    assert reda_classic(K=4, m=2, omega=np.pi / 3).gap == pytest.approx(0.5)


def test_reda_classic_general_structure():
    w = 0.3
    inst = reda_classic(K=6, m=3, omega=w)
    E = np.eye(5)
    expected = [E[0], E[0] + E[1], E[0] + E[2], np.cos(w) * E[0] + np.sin(w) * E[3], E[3], E[4]]
    np.testing.assert_allclose(inst.X, expected, atol=1e-15)
    np.testing.assert_allclose(inst.means, [1, 1, 1, np.cos(w), 0, 0], atol=1e-15)
    # omega = pi/2 is allowed: x_{m+1} = e_{m+1}, mean 0, gap 1
    assert reda_classic(K=4, m=2, omega=np.pi / 2).gap == pytest.approx(1.0)


@pytest.mark.parametrize(
    "kwargs, name",
    [({"K": 2, "m": 1}, "K"), ({"K": 4, "m": 3}, "m"), ({"K": 4, "m": 4}, "m"),
     ({"m": 0}, "m"), ({"m": 1.5}, "m"), ({"omega": 0.0}, "omega"),
     ({"omega": 2.0}, "omega"), ({"omega": float("nan")}, "omega"),
     ({"omega": "x"}, "omega"), ({"sigma": 0.0}, "sigma"), ({"sigma": -1}, "sigma"),
     ({"K": 4.0}, "K"), ({"K": True}, "K")],
)
def test_reda_classic_bad_input(kwargs, name):
    with pytest.raises(ValueError, match=name):
        reda_classic(**kwargs)


# ------------------------------------------------------------------------ random instances


def test_random_gaussian_conventions_and_seed():
    a = random_gaussian(10, 5, m=3, seed=7)
    b = random_gaussian(10, 5, m=3, seed=7)
    np.testing.assert_array_equal(a.X, b.X)
    assert not np.array_equal(a.X, random_gaussian(10, 5, m=3, seed=8).X)
    assert a.X.shape == (10, 5) and a.m == 3 and a.sigma == 1.0
    assert np.linalg.norm(a.X, 2) == pytest.approx(1.0)  # repo convention: spectral norm 1
    np.testing.assert_allclose(a.theta, np.eye(5)[0])
    np.testing.assert_allclose(a.means, a.X[:, 0])
    cols = random_gaussian(10, 5, seed=7, normalize="columns")  # paper: unit-norm arms
    np.testing.assert_allclose(np.linalg.norm(cols.X, axis=1), 1.0)
    # same draw, only the normalisation differs (std cancels under normalisation)
    raw = random_gaussian(10, 5, seed=7, normalize=None, std=0.5)
    np.testing.assert_allclose(raw.X / np.linalg.norm(raw.X, 2), a.X)
    big = random_gaussian(400, 50, seed=1, normalize=None, std=0.5)
    assert big.X.std() == pytest.approx(0.5, rel=0.02)
    th = random_gaussian(4, 3, theta=[0, 1, 0], seed=0)
    np.testing.assert_allclose(th.means, th.X[:, 1])
    g = random_gaussian(4, 3, seed=np.random.default_rng(3))
    assert g.X.shape == (4, 3)


@pytest.mark.parametrize(
    "args, kwargs, name",
    [((1, 3), {}, "K"), ((5, 0), {}, "d"), ((5, 3), {"m": 5}, "m"), ((5, 3), {"m": 0}, "m"),
     ((5, 3), {"normalize": "rows"}, "normalize"), ((5, 3), {"std": 0.0}, "std"),
     ((5, 3), {"sigma": float("inf")}, "sigma"), ((5, 3), {"seed": "a"}, "seed"),
     ((5, 3), {"theta": [1, 0]}, "theta"), ((5, 3), {"theta": [1, np.nan, 0]}, "theta")],
)
def test_random_gaussian_bad_input(args, kwargs, name):
    with pytest.raises(ValueError, match=name):
        random_gaussian(*args, **kwargs)


def test_reda_random_K10_N5_table5_instance():
    inst = reda_random_K10_N5()
    assert inst.X.shape == (10, 5) and inst.m == 3 and inst.sigma == 1.0
    assert np.linalg.norm(inst.X, 2) == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(inst.means, inst.X[:, 0])
    # Réda et al. (2021), App. A.2: sorted means of this instance (spec §4.6)
    np.testing.assert_allclose(
        np.sort(inst.means)[::-1],
        [0.3347, 0.1876, 0.0596, -0.0159, -0.0273, -0.1148, -0.1281, -0.1532, -0.1822,
         -0.2034], atol=5e-5)
    # Table 5: mu_m - mu_{m+1} = 0.075 (m=3) and 0.029 (m=8)
    assert inst.gap == pytest.approx(0.075, abs=5e-4)
    inst8 = reda_random_K10_N5(m=8)
    assert inst8.gap == pytest.approx(0.029, abs=5e-4)
    assert inst.extra["table5"]["H_ugape"] == 5047.76
    assert inst8.extra["table5"]["H_mlingape_optimized"] == 32124.01
    assert "table5" not in reda_random_K10_N5(m=2).extra
    with pytest.raises(ValueError, match="m"):
        reda_random_K10_N5(m=10)


# ------------------------------------------------------------------------ drug repurposing


def test_drug_repurposing_means_and_shapes():
    inst = drug_repurposing_epilepsy()
    assert inst.X.shape == (10, 71) and inst.theta is None
    assert inst.reward_table.shape == (18, 10)
    assert inst.m == 5 and inst.sigma == 0.5
    np.testing.assert_allclose(np.linalg.norm(inst.X, axis=1), 1.0, atol=1e-12)
    assert np.linalg.matrix_rank(inst.X) == 10
    np.testing.assert_allclose(inst.means, inst.reward_table.mean(axis=0))
    # Réda et al. (2021) App. B / authors' repo: sorted means and mu_5 - mu_6 = 0.06645
    np.testing.assert_allclose(
        np.sort(inst.means)[::-1],
        [0.4915, 0.4849, 0.4817, 0.4780, 0.4650, 0.3986, 0.3968, 0.3927, 0.3826, 0.3818],
        atol=5e-5)
    assert inst.gap == pytest.approx(0.06645, abs=5e-6)
    # the top 5 are the five known anti-epileptics
    classes = inst.extra["drug_class"]
    assert {classes[a] for a in inst.best} == {"anti-epileptic"}
    assert sorted(inst.extra["drug_names"][a] for a in inst.best) == [
        "Acetazolamide", "Diazepam", "Hydroxyzine", "Pentobarbital", "Topiramate"]


def test_drug_repurposing_arm_order_matches_authors_scores():
    """Arm a = feature column a; its rewards are column perm[a] of the reward file.

    The arm means must equal the authors' stored arm scores (github clreda/linear-top-m,
    Results/epilepsy_epilepsy_m=5_delta=0.05_epsilon=0.0/scores_epilepsy_epilepsy_K=10_N=71.csv),
    which are in feature-column order.
    """
    inst = drug_repurposing_epilepsy()
    authors_scores = [0.396771600150302, 0.39273916434433914, 0.4914991195233917,
                      0.4848804326955444, 0.39855619718580004, 0.4779776124997984,
                      0.3817798907966353, 0.4650079878486893, 0.4817360532494404,
                      0.3825958148918035]
    np.testing.assert_allclose(inst.means, authors_scores, rtol=0, atol=1e-12)
    raw = np.loadtxt(resources.files("bandits") / "data" / "drug_repurposing_epilepsy"
                     / "rewards_cosine_10drugs_18samples.csv")
    perm = inst.extra["reward_file_columns"]
    assert sorted(perm) == list(range(10))
    np.testing.assert_array_equal(inst.reward_table, raw[:, perm])
    F = np.loadtxt(resources.files("bandits") / "data" / "drug_repurposing_epilepsy"
                   / "features_K10_N71.csv")
    np.testing.assert_array_equal(inst.X, F.T)
    assert drug_repurposing_epilepsy(m=3).m == 3
    for kwargs, name in [({"m": 10}, "m"), ({"sigma": 0}, "sigma")]:
        with pytest.raises(ValueError, match=name):
            drug_repurposing_epilepsy(**kwargs)


def test_packaged_data_and_licence():
    root = resources.files("bandits") / "data"
    lic = (root / "LICENSE-linear-top-m.txt").read_text(encoding="utf-8")
    assert "MIT License" in lic and "Réda" in lic
    assert "clreda/linear-top-m" in (root / "README.md").read_text(encoding="utf-8")
    assert np.loadtxt(root / "topm_random_K10_N5" / "features_K10_N5.csv").shape == (5, 10)


# ------------------------------------------------------------------------ from_csv


def test_from_csv_orientations_header_and_rewards(tmp_path):
    X = np.arange(12, dtype=float).reshape(4, 3) / 10
    rows = tmp_path / "rows.txt"
    np.savetxt(rows, X)
    cols = tmp_path / "cols.csv"
    cols.write_text("f,a,b,c\n" + "\n".join(",".join(str(float(v)) for v in r) for r in X.T) + "\n")
    theta = [1.0, 0.0, -1.0]
    a = from_csv(rows, theta=theta, m=2)
    b = from_csv(str(cols), theta=theta, m=2, arms_as="columns")
    np.testing.assert_allclose(a.X, X)
    np.testing.assert_allclose(b.X, X)
    np.testing.assert_allclose(a.means, X @ theta)
    assert a.name == "csv(rows.txt)" and a.m == 2
    table = np.array([[0.1, 0.2, 0.3, 0.4], [0.3, 0.2, 0.1, 0.0]])
    rew = tmp_path / "rewards.txt"
    np.savetxt(rew, table)
    c = from_csv(rows, rewards=rew)
    assert c.theta is None
    np.testing.assert_allclose(c.means, [0.2, 0.2, 0.2, 0.2])
    d = from_csv(rows, rewards=table, theta=theta)
    np.testing.assert_allclose(d.means, table.mean(axis=0))  # the table wins over theta


def test_from_csv_bad_input(tmp_path):
    good = tmp_path / "good.txt"
    np.savetxt(good, np.eye(3))
    nan = tmp_path / "nan.txt"
    nan.write_text("1 2\nnan 3\n")
    text = tmp_path / "text.txt"
    text.write_text("a b\nc d\n")
    ragged = tmp_path / "ragged.txt"
    ragged.write_text("1 2\n3\n")
    with pytest.raises(ValueError, match="path.*cannot read"):
        from_csv(tmp_path / "missing.csv", theta=[1, 0])
    with pytest.raises(ValueError, match="path.*NaN"):
        from_csv(nan, theta=[1, 0])
    with pytest.raises(ValueError, match="path"):
        from_csv(text, theta=[1, 0])
    with pytest.raises(ValueError, match="path"):
        from_csv(ragged, theta=[1, 0])
    with pytest.raises(ValueError, match="arms_as"):
        from_csv(good, theta=[1, 0, 0], arms_as="cols")
    with pytest.raises(ValueError, match="theta"):
        from_csv(good)
    with pytest.raises(ValueError, match="theta"):
        from_csv(good, theta=[1, 0])
    with pytest.raises(ValueError, match="rewards"):
        from_csv(good, rewards=np.ones((5, 2)))
    with pytest.raises(ValueError, match="rewards.*cannot read"):
        from_csv(good, rewards=tmp_path / "nope.txt")
    with pytest.raises(ValueError, match="m"):
        from_csv(good, theta=[1, 0, 0], m=3)


# ------------------------------------------------------------------------ Instance dataclass


def test_instance_validation_and_backwards_compatibility():
    inst = Instance("t", np.eye(3), np.array([1.0, 0.5, 0.0]))  # positional, as before
    assert inst.K == 3 and inst.d == 3 and inst.m == 1
    np.testing.assert_allclose(inst.means, [1, 0.5, 0])
    assert inst.gap == pytest.approx(0.5)
    assert soare().means[0] == 2.0  # the existing instance is unchanged
    table = Instance("t", np.eye(2), reward_table=[[1.0, 0.0], [0.0, 0.0]])
    np.testing.assert_allclose(table.means, [0.5, 0.0])
    transductive = Instance("t", np.eye(2), [1.0, 2.0], Z=[[1.0, 1.0], [1.0, -1.0], [0, 1]], m=2)
    np.testing.assert_allclose(transductive.means, [3, -1, 2])
    cases = [
        (dict(X=np.eye(2)), "theta"),
        (dict(X=np.eye(2), theta=[1.0]), "theta"),
        (dict(X=[[1.0, np.nan]], theta=[1.0, 0.0]), "X"),
        (dict(X=np.ones(3), theta=[1.0]), "X"),
        (dict(X=np.eye(2), theta=[1.0, 0.0], m=2), "m"),
        (dict(X=np.eye(2), theta=[1.0, 0.0], m=0), "m"),
        (dict(X=np.eye(2), theta=[1.0, 0.0], sigma=0.0), "sigma"),
        (dict(X=np.eye(2), reward_table=np.ones((3, 3))), "reward_table"),
        (dict(X=np.eye(2), reward_table=[[1.0, np.inf]]), "reward_table"),
        (dict(X=np.eye(2), theta=[1.0, 0.0], Z=np.ones((2, 3))), "Z"),
        (dict(X=np.eye(2), reward_table=np.ones((3, 2)), Z=np.eye(2)), "Z"),
    ]
    for kwargs, name in cases:
        with pytest.raises(ValueError, match=name):
            Instance("bad", **kwargs)


# ------------------------------------------------------------------------ registry


def test_registry_builds_every_instance():
    assert set(INSTANCES) == {"soare", "reda-classic", "random-gaussian", "drug-repurposing",
                              "reda-random-k10-n5"}
    assert get_instance("soare").K == 6
    assert get_instance("Reda_Classic", K=3, m=1, omega=0.1).gap == pytest.approx(
        1 - np.cos(0.1))
    assert get_instance("random-gaussian", K=6, d=2, m=2).X.shape == (6, 2)
    assert get_instance("drug-repurposing").K == 10
    assert get_instance("reda-random-k10-n5", m=8).m == 8
    with pytest.raises(ValueError, match="name.*unknown instance"):
        get_instance("nope")
    with pytest.raises(ValueError, match="omgea"):
        get_instance("reda-classic", omgea=0.1)
    with pytest.raises(ValueError, match="K, d: required"):
        get_instance("random-gaussian")
    with pytest.raises(ValueError, match="m"):
        get_instance("reda-classic", K=4, m=3)
