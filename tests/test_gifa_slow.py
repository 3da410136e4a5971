"""Statistical tests of the GIFA family (slow: run with `make test-slow`).

Published numbers are cited where they are checked. Tolerances come from the number of
runs: with n runs, a standard error of the mean is std / sqrt(n).
"""

import numpy as np
import pytest

from bandits import run
from bandits.instances import drug_repurposing_epilepsy, reda_classic, soare
from bandits.reproduce.reda import FIGURE1A_CONFIGS

pytestmark = pytest.mark.slow

DELTA = 0.05


def replicate_samples(name, inst, n, **kw):
    res = [run(name, inst, seed=s, delta=DELTA, **kw) for s in range(n)]
    assert all(r.stopped_by == "rule" for r in res)
    return np.array([r.samples for r in res]), np.mean([not r.correct for r in res])


def test_reda_figure1a_ordering():
    # Réda, Kaufmann & Delahaye-Duriez (2021) Fig. 1(a): classic instance K = 4, m = 2,
    # omega = pi/6, sigma = 0.5, delta = 0.05, eps = 0, lambda = sigma/20, 500 runs.
    # Published ordering: paired-index linear algorithms far below LUCB and UGapE; greedy
    # and optimized m-LinGapE similar; Table 3: every error frequency 0.0.
    # The authors' stored means (500 runs, their repository): m-LinGapE greedy 2,942,
    # optimized 3,014, LinGIFA 4,087, LinGIFA greedy 3,020, LUCB 10,444, UGapE 14,003.
    inst = reda_classic(K=4, m=2, omega=np.pi / 6, sigma=0.5)
    means, errors = {}, {}
    for label, name, kw in FIGURE1A_CONFIGS:
        samples, err = replicate_samples(name, inst, 500, **kw)
        means[label], errors[label] = samples.mean(), err
    assert all(e <= DELTA for e in errors.values()), errors
    classical = min(means["lucb"], means["ugape"])
    for label in ["m-lingape greedy", "m-lingape optimized", "lingifa", "lingifa greedy"]:
        assert means[label] < 0.4 * classical, (label, means)
    # paired indices below individual ones (Fig. 1a)
    assert means["lingifa"] < means["lingifa individual"]
    # greedy and optimized m-LinGapE within 10% of each other (std ~ 850 over 500 runs)
    assert abs(means["m-lingape greedy"] / means["m-lingape optimized"] - 1) < 0.1
    # greedy/optimized slightly better than largest variance
    assert means["m-lingape greedy"] < means["lingifa"]
    # with reg = (sigma/20)^2 (their code's V_0 = lambda^2 I) the LinGIFA means agree with
    # the stored ones within 4 standard errors (std ~1,000 and ~800 over 500 runs)
    assert abs(means["lingifa"] - 4086.6) < 4 * 1100 / np.sqrt(500)
    assert abs(means["lingifa greedy"] - 3019.6) < 4 * 850 / np.sqrt(500)


def test_reda_figure1c_drug_repurposing_features_halve_lucb():
    # Réda et al. (2021) Fig. 1(c): drug repurposing for epilepsy, K = 10, m = 5, features
    # in R^71, heuristic threshold for all algorithms: "using features cuts the sample
    # complexity by approximately a factor 1/2" (authors' stored means: m-LinGapE 7,582,
    # LUCB 15,006, ratio 0.51).
    inst = drug_repurposing_epilepsy()
    lin, err_lin = replicate_samples("m-lingape", inst, 200, threshold="heuristic")
    lucb, err_lucb = replicate_samples("lucb", inst, 200, threshold="heuristic")
    assert err_lin <= DELTA and err_lucb <= DELTA
    assert 0.35 < lin.mean() / lucb.mean() < 0.7


@pytest.mark.parametrize(("name", "kw"), [
    ("m-lingape", {}), ("m-lingape", {"selection": "optimized"}), ("lingifa", {}),
    ("lingifa", {"selection": "greedy"}), ("lucb", {}), ("ugape", {}),
])
def test_pac_on_reda_classic(name, kw):
    # delta-PAC: error frequency <= delta over 1000 runs (theoretical threshold for the
    # linear algorithms, LUCB1 threshold for the unstructured ones).
    inst = reda_classic(K=4, m=2, omega=np.pi / 6, sigma=0.5)
    _, err = replicate_samples(name, inst, 1000, **kw)
    assert err <= DELTA


@pytest.mark.parametrize(("name", "kw"), [
    ("lingape", {}), ("lingape", {"selection": "optimized"}), ("m-lingape", {}),
    ("m-lingape", {"threshold": "theoretical", "selection": "optimized"}),
    ("lingifa", {"selection": "greedy"}),
])
def test_pac_on_soare_d2(name, kw):
    # Soare instance d = 2, omega = 0.1 (gap 2 (1 - cos 0.1) = 0.01), N(0, 1) noise.
    # LinGIFA with largest variance and LUCB/UGapE need 1.5-10 million samples per run
    # here (they never pull e_2), so they are checked on reda_classic only.
    inst = soare(d=2, omega=0.1)
    _, err = replicate_samples(name, inst, 1000, **kw)
    assert err <= DELTA


@pytest.mark.parametrize("selection", ["greedy", "optimized"])
def test_xu_table1_distribution(selection):
    # Xu, Honda & Sugiyama (2018) Table 1 (d = 5, omega = 0.01, theta = 2 e_1, lambda = 1):
    # one LinGapE run used 431,119 samples, 99.5% on e_2, arm 1 : arm 2 = 1 : 201.
    # A faithful reimplementation lands at 0.4-1.2 million (spec notes: 10-seed means
    # 8.3e5 greedy, 8.0e5 ratio rule).
    inst = soare(d=5, omega=0.01)
    res = [run("lingape", inst, seed=s, selection=selection) for s in range(20)]
    n = np.array([r.samples for r in res])
    counts = np.array([r.counts for r in res]).sum(axis=0)
    assert all(r.correct for r in res)
    assert 4e5 <= n.mean() <= 1.2e6
    assert counts[1] / counts.sum() > 0.99
    assert 180 <= counts[1] / counts[0] <= 220
