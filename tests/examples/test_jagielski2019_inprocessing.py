"""Tests of examples/jagielski2019_inprocessing.py (Jagielski et al. 2019, Fig. 1 left: DP-oracle-learner).

The --quick reproduction is marked slow (deselected by default; run with ``pytest -m slow``); the data preparation,
the doctests, the helpers and one tiny seed run are fast and run by default.
"""

import doctest
import math

import numpy as np
import pytest
from fairdp_adapters._checkout import load_example

from fairlearn_dp.datasets import fetch_communities_crime
from fairlearn_dp.privacy._composition import per_mechanism_epsilon


@pytest.fixture(scope="module")
def script():
    return load_example("jagielski2019_inprocessing.py")


@pytest.fixture(scope="module")
def data(script):
    return script.load_data()


def test_doctests(script):
    result = doctest.testmod(script, verbose=False)
    assert result.attempted >= 4          # group_rates and its doctest live in the sibling script
    assert result.failed == 0


def test_data_preparation(script, data):
    X, y, a, names = data
    bunch = fetch_communities_crime(as_frame=True)
    assert X.shape == (1994, 98) and len(names) == 98
    assert script.GROUP_SOURCE not in names                       # A-blind features
    assert X.min() == -1.0 and X.max() == 1.0                     # 2x - 1 of the public [0, 1] range
    np.testing.assert_allclose(X, 2 * bunch.data.drop(columns=["racepctblack"]).to_numpy() - 1)
    # Label: violent-crime rate above its 70th percentile (0.28 on the donors' scale), Kearns et al. 2018a.
    assert bunch.target.quantile(0.7) == pytest.approx(0.28)
    np.testing.assert_array_equal(y, (bunch.target.to_numpy() > 0.28).astype(int))
    assert y.sum() == 583
    # Group: the loader's racepctblack > 0.06.
    np.testing.assert_array_equal(a, (bunch.data["racepctblack"].to_numpy() > 0.06).astype(int))
    assert a.sum() == 970 and set(np.unique(a)) == set(script.GROUPS)
    # Every (group, label) cell is populated: the smallest one (a = 0, y = 1) drives the sensitivities.
    cells = {(g, label): int(np.sum((a == g) & (y == label))) for g in (0, 1) for label in (0, 1)}
    assert min(cells, key=cells.get) == (0, 1) and cells[(0, 1)] == 108


def test_same_data_as_the_postprocessing_sibling(data):
    """Fig. 1 left and right use the same rows, label and group (the sibling keeps features in [0, 1])."""
    X, y, a, names = data
    X_sib, y_sib, a_sib = load_example("jagielski2019_postprocessing.py").load_data()
    assert list(X_sib.columns) == names
    np.testing.assert_allclose(X, 2 * X_sib.to_numpy() - 1)
    np.testing.assert_array_equal(y, y_sib)
    np.testing.assert_array_equal(a, a_sib)


def test_scale_features_refuses_values_outside_the_public_range(script):
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        script.scale_features(np.array([[0.5, 1.2]]))


def test_upsampling_keeps_in_sample_rates(script, data):
    X, y, a, _ = data
    Xu, yu, au = script.upsample(X, y, a, script.UPSAMPLE)
    assert Xu.shape == (10 * len(y), X.shape[1])
    prob = (X[:, 0] > 0).astype(float) * 0.7 + 0.1            # any fixed randomised classifier
    original = script.group_rates(prob, y, a)
    copies = script.group_rates(np.tile(prob, 10), yu, au)
    for key, value in original.items():
        assert copies[key] == pytest.approx(value)


def test_paper_rounds_and_composition_check(script):
    # Algorithm 3's T is linear in epsilon (~0.075 epsilon here): the per-round budget does not grow with epsilon.
    t1, t2 = script.paper_rounds(1395, 98, 1e4), script.paper_rounds(1395, 98, 1e6)
    assert t2 == pytest.approx(100 * t1)
    assert 0.07 < t1 / 1e4 < 0.08
    # Every budget of the sweep composes (advanced composition used to overflow beyond epsilon ~ 788).
    for epsilon in (1e2, 1e7, 1e8):
        e0, _ = per_mechanism_epsilon(0.9 * epsilon, 2 * script.MAX_ITER, script.DELTA / 2)
        assert 0 < e0 < math.inf


def test_one_seed_non_private_regression_row(script, data):
    X, y, a, _ = data
    rows = script.run_seed(X, y, a, 0, (("regression", "regression", 1, (math.inf,)),), (0.0,))
    assert len(rows) == 1
    row = rows[0]
    assert row["T"] == script.MAX_ITER and row["m_fit"] == 1395
    assert row["privacy_spent_epsilon"] == math.inf
    assert row["min_count"] == 73                                 # the exact smallest cell of the train split
    assert 0.1 < row["error_train"] < 0.2 and row["eo_violation_train"] < 0.06


@pytest.mark.slow
def test_quick_reproduction(script, tmp_path):
    result = script.main(["--quick", "--out", str(tmp_path)])

    for name in ("per_seed.csv", "summary.csv", "pareto_fronts.csv", "fig1_left_inprocessing.png"):
        path = tmp_path / name
        assert path.is_file() and path.stat().st_size > 0, name

    summary = result["summary"]
    assert set(summary["gamma"]) == set(script.QUICK_GAMMAS)
    expected = {(name, eps) for name, _, _, epsilons in script.QUICK_SETTINGS for eps in epsilons}
    assert set(zip(summary["setting"], summary["epsilon"], strict=False)) == expected
    assert (summary["n_seeds"] == script.QUICK_SEEDS).all()         # every fit ran

    def point(setting, eps, gamma):
        rows = summary[(summary["setting"] == setting) & (summary["epsilon"] == eps) & (summary["gamma"] == gamma)]
        row = rows.iloc[0]
        return row["error_train_mean"], row["eo_violation_train_mean"]

    # Non-private game: tightening gamma trades error for fairness (gamma = 0 vs the unconstrained gamma = 1).
    for setting in ("regression", "exponential"):
        err0, viol0 = point(setting, math.inf, 0.0)
        err1, viol1 = point(setting, math.inf, 1.0)
        assert viol0 < viol1 - 0.03 and err0 > err1
        assert viol0 < 0.06
    # Regression oracle: at epsilon = 1e5 the plays are noise (error near 1/2 for Algorithm 3 alone), so the final
    # choice returns the constant classifier (exactly fair; its error is the positive rate, about 0.29); at 1e7 the
    # curve is close to the non-private one. The upsampled run at epsilon' = 1e6 matches the original at 1e7.
    for gamma in script.QUICK_GAMMAS:
        reference = point("regression", math.inf, gamma)
        noise_error, noise_violation = point("regression", 1e5, gamma)
        assert noise_violation == 0.0 and noise_error > 0.25
        close = point("regression", 1e7, gamma)
        assert abs(close[0] - reference[0]) < 0.03 and abs(close[1] - reference[1]) < 0.03
        upsampled = point("regression_upsampled10", 1e6, gamma)
        assert abs(upsampled[0] - close[0]) < 0.01 and abs(upsampled[1] - close[1]) < 0.01
        exponential = point("exponential", 1e4, gamma)
        assert abs(exponential[0] - point("exponential", math.inf, gamma)[0]) < 0.04

    fronts = result["pareto_fronts"]
    for _, front in fronts.groupby(["setting", "epsilon", "split"]):
        assert front["error_mean"].is_monotonic_increasing and front["eo_violation_mean"].is_monotonic_decreasing
