"""DPThresholdOptimizer at finite epsilon exposes Fairlearn's introspection (``interpolated_thresholder_`` with its
``interpolation_dict``, ``x_metric_``/``y_metric_``, what ``plot_threshold_optimizer`` reads), built from the
released table and the solved mixing only, and describing exactly the randomised thresholding ``predict`` uses."""

import json
import math
import pickle

import numpy as np
import pandas as pd
import pytest
from diffprivlib import BudgetAccountant
from fairlearn.postprocessing import ThresholdOptimizer, plot_threshold_optimizer
from fairlearn.postprocessing._interpolated_thresholder import InterpolatedThresholder
from fairlearn.postprocessing._threshold_operation import ThresholdOperation
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

import fairlearn_dp.postprocessing._introspection as introspection
import fairlearn_dp.postprocessing._threshold_optimizer as module
from fairlearn_dp.exceptions import FairnessWarning, UtilityWarning
from fairlearn_dp.postprocessing import DPThresholdOptimizer, ThresholdOptimizerOptions
from fairlearn_dp.privacy import PrivacySpend

SIMPLE_FIELDS = ["p0", "operation0", "p1", "operation1"]                   # Fairlearn's simple-constraint entry
EO_FIELDS = ["p_ignore", "prediction_constant", "p0", "operation0", "p1", "operation1"]   # its equalized-odds one
CONSTRAINTS = ["demographic_parity", "selection_rate_parity", "equalized_odds", "true_positive_rate_parity",
               "false_negative_rate_parity", "false_positive_rate_parity", "true_negative_rate_parity"]
# The dict reproduces mixing_rates_ up to the rounding of Fairlearn's three-term formula (a few units of 2**-52)
# plus the steps of at most _JUMP_TOL that the decomposition reads as solver round-off (at most B - 1 of them).
N_BINS = 10
PMF_TOL = (N_BINS - 1) * introspection._JUMP_TOL + 8 * np.finfo(float).eps


def problem(m=3000, seed=0, n_groups=3):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, n_groups, m)
    X = rng.normal(size=(m, 3))
    X[:, 0] += 0.6 * a
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=m) > 0.6).astype(int)
    return X, y, a


def fitted(constraints="demographic_parity", *, X=None, y=None, a=None, **params):
    if X is None:
        X, y, a = problem()
    settings = {"estimator": LogisticRegression().fit(X, y), "prefit": True, "constraints": constraints,
                    "predict_method": "predict_proba", "epsilon": 1.0, "groups": sorted(set(np.asarray(a).tolist())),
                    "options": ThresholdOptimizerOptions(n_score_bins=N_BINS), "accountant": BudgetAccountant(),
                "random_state": 0}
    settings.update(params)
    return DPThresholdOptimizer(**settings).fit(X, y, sensitive_features=a)


def fairlearns_thresholder(model):
    """Fairlearn's own class on our dict and base estimator (not our subclass)."""
    base = model.interpolated_thresholder_.estimator_
    return InterpolatedThresholder(base, model.interpolated_thresholder_.interpolation_dict, prefit=True,
                                   predict_method=model._predict_method).fit(None, None)


def released_points(model, group_index):
    """Released (FP, TP) masses of each threshold "bin >= j" of a group (and, with flip, "bin < j"), and its
    masses. Summed from the top bin down: a threshold that differs from another only by empty bins gets exactly
    its masses (the curves' ends depend on it: FNR is exactly 0 when the lowest bin holds no positives)."""
    t = model.table_[group_index]
    tails = np.vstack([np.cumsum(t[::-1], axis=0)[::-1], np.zeros(2)])
    negatives, positives = tails[0]
    if model.flip:
        tails = np.vstack([tails, [negatives, positives] - tails])
    return tails[:, 0], tails[:, 1], negatives, positives


def hull_value(x, y, grid):
    """Upper concave envelope of the points at each grid value: the best interpolation of any two points."""
    left, right = x[None, :, None], x[None, None, :]
    g = grid[:, None, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        chord = y[None, :, None] + (y[None, None, :] - y[None, :, None]) * (g - left) / (right - left)
    ok = (left <= g) & (g <= right) & (left < right)
    on_point = np.where(x[None, :] == grid[:, None], y[None, :], -np.inf).max(axis=1)
    return np.maximum(np.where(ok, chord, -np.inf).max(axis=(1, 2)), on_point)


@pytest.mark.parametrize("constraints", CONSTRAINTS)
@pytest.mark.parametrize("flip", [False, True])
def test_fitted_attributes_have_fairlearns_format(constraints, flip):
    X, y, a = problem()
    ours = fitted(constraints, X=X, y=y, a=a, flip=flip)
    theirs = ThresholdOptimizer(estimator=LogisticRegression().fit(X, y), prefit=True, constraints=constraints,
                                predict_method="predict_proba", flip=flip).fit(X, y, sensitive_features=a)
    thresholder = ours.interpolated_thresholder_
    assert isinstance(thresholder, InterpolatedThresholder) and thresholder.estimator_ is ours.estimator_
    assert (ours.x_metric_, ours.y_metric_) == (theirs.x_metric_, theirs.y_metric_)
    entries = thresholder.interpolation_dict
    assert list(entries) == ours.groups_ == list(theirs.interpolated_thresholder_.interpolation_dict)
    for entry in entries.values():
        fields = list(entry)
        # Simple constraints: Fairlearn's four fields, or its six when the rule needs a constant; EO: the six.
        assert fields == EO_FIELDS if constraints == "equalized_odds" else fields in (SIMPLE_FIELDS, EO_FIELDS)
        assert entry.p0 >= 0 and entry.p1 >= 0 and entry.p0 + entry.p1 == pytest.approx(1.0, abs=1e-12)
        assert 0 <= entry.get("p_ignore", 0.0) <= 1
        for operation in (entry.operation0, entry.operation1):
            assert isinstance(operation, ThresholdOperation)
            assert operation.operator in ((">", "<") if flip else (">",))
    for group, curve in ours._tradeoff_curve.items():
        reference = theirs._tradeoff_curve[group]
        assert list(curve.columns) == list(reference.columns) and len(curve) == len(reference)
        np.testing.assert_array_equal(curve["x"], ours._x_grid)
    np.testing.assert_array_equal(ours._x_grid, theirs._x_grid)


CASES = {
    "dp": {"constraints": "demographic_parity"},
    "eo": {"constraints": "equalized_odds"},
    "eo flip": {"constraints": "equalized_odds", "flip": True, "objective": "balanced_accuracy_score"},
    "tpr tol": {"constraints": "true_positive_rate_parity", "tol": 0.02, "objective": "balanced_accuracy_score"},
    "tnr flip": {"constraints": "true_negative_rate_parity", "flip": True},
    "eo aif360 objective": {"constraints": "equalized_odds", "flip": True, "objective": "sum_of_group_tpr_minus_fpr"},
    "eo interior point": {"constraints": "equalized_odds",
                          "options": ThresholdOptimizerOptions(n_score_bins=N_BINS, solver="CLARABEL")},
    "dp interior point": {"constraints": "demographic_parity", "flip": True,
                          "options": ThresholdOptimizerOptions(n_score_bins=N_BINS, solver="CLARABEL")},
    "many bins": {"constraints": "equalized_odds", "options": ThresholdOptimizerOptions(n_score_bins=200),
                  "epsilon": 5.0},
    "gaussian": {"constraints": "demographic_parity", "delta": 1e-6},
}


@pytest.mark.parametrize("case", CASES)
def test_interpolation_dict_is_the_rule_predict_uses(case):
    X, y, a = problem()
    X_new, _, a_new = problem(m=2000, seed=5)
    model = fitted(X=X, y=y, a=a, **CASES[case])
    reference = fairlearns_thresholder(model)
    pmf = model._pmf_predict(X_new, sensitive_features=a_new)
    np.testing.assert_allclose(reference._pmf_predict(X_new, sensitive_features=a_new), pmf, rtol=0, atol=PMF_TOL)
    assert 0 < pmf[:, 1].mean() < 1
    # Same uniforms (Fairlearn's "p >= u", ours "u < p"): the same predictions, unless a uniform falls within
    # PMF_TOL of a probability (probability at most 2000 * PMF_TOL < 1e-7).
    for thresholder in (reference, model.interpolated_thresholder_):
        np.testing.assert_array_equal(thresholder.predict(X_new, sensitive_features=a_new, random_state=7),
                                      model.predict(X_new, sensitive_features=a_new, random_state=7))


@pytest.mark.parametrize("params", [
    {"predict_method": "predict_proba", "options": ThresholdOptimizerOptions(n_score_bins=7)},
    {"predict_method": "decision_function", "score_range": (-2.0, 3.0),
     "options": ThresholdOptimizerOptions(n_score_bins=9), "flip": True},
    {"predict_method": "predict_proba", "options": ThresholdOptimizerOptions(n_score_bins=1)},
])
def test_thresholds_are_exact_bin_boundaries(params):
    """Scores on every bin edge, one float either side, and outside the range: Fairlearn's thresholds on the dict
    give exactly our binning (estimator=None: X holds the scores)."""
    rng = np.random.default_rng(2)
    low, high = params.get("score_range", (0.0, 1.0))
    m = 4000
    a = rng.integers(0, 2, m)
    y = (rng.random(m) < 0.4 + 0.2 * a).astype(int)
    scores = np.clip(low + (high - low) * (0.35 * y + 0.3 * rng.random(m) + 0.1 * a), low, high)
    model = DPThresholdOptimizer(constraints="equalized_odds", epsilon=2.0, groups=[0, 1], random_state=1,
                                 accountant=BudgetAccountant(), **params).fit(scores[:, None], y, sensitive_features=a)
    edges = model.bin_edges_
    below, above = introspection.bin_thresholds(lambda s: model._discretize(s, warn_clipped=False), edges,
                                                binary=False)
    # Every boundary of the binning (which _discretize rounds ~5e-10 bin widths below the edges), one float either
    # side of it and of the edges, and scores outside the range.
    marks = np.concatenate([edges, below[1:-1], above[1:-1]])
    probes = np.concatenate([marks, np.nextafter(marks, -np.inf), np.nextafter(marks, np.inf),
                             [low - 1.0, high + 1.0], rng.uniform(low, high, 500)])
    groups = np.resize([0, 1], probes.size)
    with pytest.warns(UtilityWarning, match="outside score_range"):
        ours = model._pmf_predict(probes[:, None], sensitive_features=groups)
    theirs = fairlearns_thresholder(model)._pmf_predict(probes[:, None], sensitive_features=groups)
    np.testing.assert_allclose(theirs, ours, rtol=0, atol=PMF_TOL)
    bins = model._discretize(probes, warn_clipped=False)
    for j in range(edges.size):
        np.testing.assert_array_equal(probes > below[j], bins >= j)
        np.testing.assert_array_equal(probes < above[j], bins < j)


def test_binary_predictions_thresholds_at_one_half():
    X, y, a = problem()
    base = LogisticRegression().fit(X, y)
    model = fitted("equalized_odds", X=X, y=y, a=a, estimator=base, predict_method="predict", flip=True)
    for entry in model.interpolated_thresholder_.interpolation_dict.values():
        assert {op.threshold for op in (entry.operation0, entry.operation1)} <= {-np.inf, 0.5, np.inf}
    np.testing.assert_allclose(fairlearns_thresholder(model)._pmf_predict(X, sensitive_features=a),
                               model._pmf_predict(X, sensitive_features=a), rtol=0, atol=PMF_TOL)


def _released_rates(mixing, table):
    """Each group's released (FPR, TPR) under ``mixing`` (NaN where a group has no released mass of the label)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return tuple((mixing * table[:, :, label]).sum(1) / table[:, :, label].sum(1) for label in (0, 1))


def test_a_mixture_of_more_than_two_thresholds_gets_the_rule_with_its_released_rates():
    rng = np.random.default_rng(0)
    table = rng.random((3, 8, 2))
    table[2, :, 0] = 0.0                                   # a group without released negatives
    table /= table.sum()
    bins = np.arange(8)
    # 0.1 always + 0.2 [b >= 2] + 0.3 [b >= 4] + 0.1 [b >= 7]: three jumps, not Fairlearn's form.
    three_up = 0.1 + 0.2 * (bins >= 2) + 0.3 * (bins >= 4) + 0.1 * (bins >= 7)
    # 0.3 [b >= 2] + 0.4 [b < 5] + 0.3 [b >= 6]: with flipped thresholds.
    band = 0.3 * (bins >= 2) + 0.4 * (bins < 5) + 0.3 * (bins >= 6)
    simple = np.array([0, 0, 0.25, 0.25, 0.25, 1, 1, 1])            # two thresholds: kept bit for bit
    for flip, first in ((False, three_up), (True, band)):
        mixing = np.vstack([first, simple, three_up])
        assert introspection.rule_from_values(first) is None
        result = introspection.representable_mixing(mixing, table, flip=flip)
        np.testing.assert_array_equal(result[1], simple)
        rule = introspection.rule_from_values(result[0])
        assert rule is not None and (flip or {rule.op0[0], rule.op1[0]} == {">"})
        # The LP's rates and objectives are linear in each group's released (FPR, TPR): both are kept.
        fpr, tpr = _released_rates(mixing, table)
        new_fpr, new_tpr = _released_rates(result, table)
        np.testing.assert_allclose(new_fpr[:2], fpr[:2], rtol=0, atol=1e-12)
        np.testing.assert_allclose(new_tpr, tpr, rtol=0, atol=1e-12)
        assert np.ptp(result[2]) == 0                      # only its TPR is defined: a constant keeps it


def test_an_interior_point_solution_keeps_the_lps_released_rates(monkeypatch):
    """CLARABEL's solutions mix every threshold; the rewritten rule keeps each group's released FPR and TPR, so
    the LP's constraints and objective value on the released table are unchanged."""
    seen = []
    original = module.representable_mixing

    def spy(mixing, table, *, flip):
        result = original(mixing, table, flip=flip)
        seen.append((mixing.copy(), result, table))
        return result

    monkeypatch.setattr(module, "representable_mixing", spy)
    model = fitted("equalized_odds", options=ThresholdOptimizerOptions(n_score_bins=N_BINS, solver="CLARABEL"),
                   tol=0.01)
    (raw, result, table), = seen
    assert any(introspection.rule_from_values(row) is None for row in raw)      # a rewrite was needed
    np.testing.assert_array_equal(model.mixing_rates_, result)
    for before, after in zip(_released_rates(raw, table), _released_rates(result, table), strict=False):
        np.testing.assert_allclose(after, before, rtol=0, atol=1e-12)


def _lines(ax):
    return {line.get_label(): line for line in ax.get_lines()}


@pytest.mark.parametrize("constraints, params", [("equalized_odds", {}), ("equalized_odds", {"flip": True}),
                                                 ("demographic_parity", {}),
                                                 ("false_negative_rate_parity", {"tol": 0.05})])
def test_plot_threshold_optimizer_draws_the_released_curves(constraints, params):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    model = fitted(constraints, grid_size=200, **params)
    fig, ax = plt.subplots()
    try:
        plot_threshold_optimizer(model, ax=ax, show_plot=False)
        lines = _lines(ax)
    finally:
        plt.close(fig)
    metric = {"equalized_odds": (lambda fp, tp, n, p: fp / n, lambda fp, tp, n, p: tp / p),
              "demographic_parity": (lambda fp, tp, n, p: (fp + tp) / (n + p),
                                     lambda fp, tp, n, p: (tp + n - fp) / (n + p)),
              "false_negative_rate_parity": (lambda fp, tp, n, p: (p - tp) / p,
                                             lambda fp, tp, n, p: (tp + n - fp) / (n + p))}[constraints]
    grid = np.linspace(0, 1, 201)
    for index, group in enumerate(model.groups_):
        line = lines[f"sensitive feature = {group}"]
        fp, tp, negatives, positives = released_points(model, index)
        expected = hull_value(metric[0](fp, tp, negatives, positives), metric[1](fp, tp, negatives, positives), grid)
        np.testing.assert_allclose(line.get_xdata(), grid, rtol=0, atol=0)
        np.testing.assert_allclose(line.get_ydata(), expected, rtol=0, atol=1e-12)
    fitted_fp = (model.mixing_rates_ * model.table_[:, :, 0]).sum(axis=1)
    fitted_tp = (model.mixing_rates_ * model.table_[:, :, 1]).sum(axis=1)
    negatives, positives = model.table_[:, :, 0].sum(axis=1), model.table_[:, :, 1].sum(axis=1)
    if constraints == "equalized_odds":
        assert "overlap" in lines
        star = lines["solution"]
        assert star.get_xdata()[0] == pytest.approx(fitted_fp.sum() / negatives.sum(), abs=1e-12)
        assert star.get_ydata()[0] == pytest.approx(fitted_tp.sum() / positives.sum(), abs=1e-12)
    elif model.tol:
        per_group = metric[0](fitted_fp, fitted_tp, negatives, positives)
        for index, group in enumerate(model.groups_):
            drawn = lines[f"constraint (sensitive feature = {group})"].get_xdata()[0]
            assert drawn == pytest.approx(per_group[index], abs=1e-12)
    else:
        overall = lines["overall tradeoff curve"].get_ydata()
        shares = model.table_.sum(axis=(1, 2))
        expected = sum(share * lines[f"sensitive feature = {g}"].get_ydata() for g, share in zip(model.groups_, shares, strict=False))
        np.testing.assert_allclose(overall, expected, rtol=0, atol=1e-12)
        pooled = metric[0](fitted_fp.sum(), fitted_tp.sum(), negatives.sum(), positives.sum())
        assert lines["solution"].get_xdata()[0] == pytest.approx(pooled, abs=1e-12)


def _introspection(model):
    """Every introspection attribute as plain text (floats by repr, which round-trips)."""
    described = {name: repr(getattr(model, name)) for name in ("x_metric_", "y_metric_", "_x_best", "_y_best",
                                                                 "_x_best_per_group", "_between_groups")}
    described["dict"] = repr(model.interpolated_thresholder_.interpolation_dict)
    described["curves"] = {g: curve.astype(str).to_dict("list") for g, curve in model._tradeoff_curve.items()}
    described["overall"] = model._overall_tradeoff_curve.to_dict("list")
    return described


def test_introspection_is_a_function_of_the_released_table_only(monkeypatch):
    released = np.random.default_rng(3).random((2, 2 * N_BINS))
    released /= released.sum()

    def fake_release(counts, n, **kwargs):
        return released.copy(), PrivacySpend(1.0)

    monkeypatch.setattr(module, "release_counts", fake_release)
    models = []
    for seed in (1, 2):                                    # same m (public), otherwise unrelated data
        rng = np.random.default_rng(seed)
        scores, a = rng.random(1500), rng.integers(0, 2, 1500)
        y = (rng.random(1500) < scores ** seed).astype(int)
        models.append(DPThresholdOptimizer(epsilon=1.0, groups=[0, 1], flip=True,
                                           options=ThresholdOptimizerOptions(n_score_bins=N_BINS),
                                           predict_method="predict_proba", accountant=BudgetAccountant(),
                                           random_state=seed).fit(scores[:, None], y, sensitive_features=a))
    assert _introspection(models[0]) == _introspection(models[1])
    # ... and it is what the module computes from the fitted released attributes and the public parameters.
    model = models[0]
    rebuilt = introspection.fairlearn_introspection(
        table=model.table_, mixing_rates=model.mixing_rates_, groups=model.groups_, bin_edges=model.bin_edges_,
        binary=False, discretize=lambda s: model._discretize(s, warn_clipped=False), constraints=model.constraints,
        objective=model.objective, flip=True, grid_size=model.grid_size, estimator=None,
        predict_method=model._predict_method)
    assert repr(rebuilt["interpolated_thresholder_"].interpolation_dict) == _introspection(model)["dict"]


def test_fairlearn_example_lines_work_at_finite_epsilon():
    """Fairlearn's examples/plot_mitigation_pipeline.py, with a pipeline fitted on a raw DataFrame."""
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    X, y, a = problem(m=1500)
    frame = pd.DataFrame({"x0": X[:, 0], "x1": X[:, 1], "colour": np.where(X[:, 2] > 0, "red", "blue")})
    sex = pd.Series(np.where(a == 1, "female", "male"), name="sex")
    pipeline = Pipeline([("preprocessing", ColumnTransformer([("num", StandardScaler(), ["x0", "x1"]),
                                                              ("cat", OneHotEncoder(), ["colour"])])),
                         ("classifier", LogisticRegression())])
    threshold_optimizer = DPThresholdOptimizer(estimator=pipeline, constraints="demographic_parity",
                                               predict_method="predict_proba", prefit=False, epsilon=1.0,
                                               groups=["female", "male"], random_state=0,
                                               accountant=BudgetAccountant())
    threshold_optimizer.fit(frame, y, sensitive_features=sex)
    threshold_optimizer.predict(frame, sensitive_features=sex, random_state=0)
    text = json.dumps(threshold_optimizer.interpolated_thresholder_.interpolation_dict, default=str, indent=4)
    assert set(json.loads(text)) == {"female", "male"} and "[>" in text
    plot_threshold_optimizer(threshold_optimizer, show_plot=False)
    plt.close("all")


def test_built_on_first_access_from_the_fitted_state_and_kept_through_pickle():
    X, y, a = problem()
    model = fitted("equalized_odds", X=X, y=y, a=a)
    assert "interpolated_thresholder_" not in vars(model)          # nothing is built during fit
    restored = pickle.loads(pickle.dumps(model))
    first = model.interpolated_thresholder_
    assert model.interpolated_thresholder_ is first and "_tradeoff_curve" in vars(model)
    assert repr(restored.interpolated_thresholder_.interpolation_dict) == repr(first.interpolation_dict)
    again = pickle.loads(pickle.dumps(model))
    assert repr(again.interpolated_thresholder_.interpolation_dict) == repr(first.interpolation_dict)
    unfitted = DPThresholdOptimizer()
    assert not hasattr(unfitted, "interpolated_thresholder_") and not hasattr(unfitted, "_tradeoff_curve")
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        model.nope
    # A fit at epsilon=inf keeps Fairlearn's own attributes.
    exact = fitted("equalized_odds", X=X, y=y, a=a, epsilon=math.inf)
    assert "interpolated_thresholder_" in vars(exact) and not hasattr(exact, "mixing_rates_")


def test_an_attribute_error_while_building_is_a_runtime_error_not_a_missing_attribute(monkeypatch):
    """hasattr must not quietly answer False when building the introspection fails."""
    model = fitted()

    def broken(model, **kwargs):
        raise AttributeError("'DPThresholdOptimizer' object has no attribute 'estimator_'")

    monkeypatch.setattr(module, "set_fairlearn_introspection", broken)
    with pytest.raises(RuntimeError, match="'interpolated_thresholder_'.*no attribute 'estimator_'") as info:
        hasattr(model, "interpolated_thresholder_")
    assert isinstance(info.value.__cause__, AttributeError)


def test_an_introspection_name_the_constraint_does_not_set_is_a_missing_attribute():
    """Names in the introspection list that a constraint does not set (demographic parity sets no ``_y_min``):
    ``hasattr`` answers False (an ``AttributeError``), never a ``KeyError``."""
    model = fitted("demographic_parity")
    missing = [name for name in module.INTROSPECTION_ATTRIBUTES if not hasattr(model, name)]
    assert "_y_min" in missing
    with pytest.raises(AttributeError, match="no attribute '_y_min'"):
        model._y_min
    assert hasattr(fitted("equalized_odds"), "_y_min")


def test_a_group_without_released_negatives_has_no_curve_but_a_rule():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rng = np.random.default_rng(4)
    a = rng.integers(0, 3, 3000)
    scores = rng.random(3000)
    y = np.where(a == 2, 1, (rng.random(3000) < scores).astype(int))          # group 2: positives only
    with pytest.warns(FairnessWarning, match="group index 2 with label 0"):     # its FPR constraint is dropped
        model = DPThresholdOptimizer(constraints="equalized_odds", epsilon=math.inf, groups=[0, 1, 2],
                                     predict_method="predict_proba", accountant=BudgetAccountant()).fit(
            scores[:, None], y, sensitive_features=a)            # estimator=None: the exact LP, no noise
    assert set(model._tradeoff_curve) == {0, 1}
    assert set(model.interpolated_thresholder_.interpolation_dict) == {0, 1, 2}
    np.testing.assert_allclose(fairlearns_thresholder(model)._pmf_predict(scores[:, None], sensitive_features=a),
                               model._pmf_predict(scores[:, None], sensitive_features=a), rtol=0, atol=PMF_TOL)
    plot_threshold_optimizer(model, show_plot=False)
    plt.close("all")


def test_thresholder_predict_without_random_state_ignores_numpys_global_generator():
    model = fitted("equalized_odds")
    X_new, _, a_new = problem(m=3000, seed=6)
    p = model._pmf_predict(X_new, sensitive_features=a_new)[:, 1]
    # Each row with p in [0.05, 0.95] agrees between two independent draws with probability p^2 + (1-p)^2 <= 0.905:
    # with at least 200 such rows, two unseeded predictions coincide with probability below 0.905**200 < 1e-8.
    assert np.sum((p >= 0.05) & (p <= 0.95)) >= 200
    draws = []
    for _ in range(2):
        np.random.seed(0)
        draws.append(model.interpolated_thresholder_.predict(X_new, sensitive_features=a_new))
    assert not np.array_equal(*draws)
