"""DPMetricFrame as a MetricFrame: Fairlearn's ``plot_metric_frame`` and MetricFrame's interval API (issue 38, item 3).

``plot_metric_frame`` checks ``isinstance(frame, MetricFrame)`` and reads ``by_group``, ``ci_quantiles`` and
``by_group_ci``; a DPMetricFrame must pass that check with every public member of MetricFrame answering from the
release (or raising), and its private intervals must be what the plot draws.
"""

import math
import warnings

import matplotlib
import numpy as np
import pandas as pd
import pytest
from diffprivlib import BudgetAccountant
from fairlearn.experimental.enable_metric_frame_plotting import plot_metric_frame
from fairlearn.metrics import MetricFrame, selection_rate, true_positive_rate
from matplotlib.container import ErrorbarContainer
from sklearn.metrics import accuracy_score

from fairlearn_dp.metrics import DPMetricFrame

matplotlib.use("Agg")

GROUPS = ["a", "b", "c"]
METRICS = {"accuracy": accuracy_score, "selection rate": selection_rate, "TPR": true_positive_rate}
#: MetricFrame's public members: what a DPMetricFrame must answer from its release.
PUBLIC = sorted(name for name in dir(MetricFrame) if not name.startswith("_"))
INTERVALS = ("overall_ci", "by_group_ci", "group_min_ci", "group_max_ci", "difference_ci", "ratio_ci")


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(7)
    n = 2000
    race = rng.choice(GROUPS, n, p=[0.6, 0.3, 0.1])
    sex = rng.choice(["F", "M"], n)
    y = rng.integers(0, 2, n)
    pred = np.where(rng.random(n) < 0.8, y, 1 - y)
    site = rng.choice(["north", "south"], n)
    return y, pred, race, sex, site


@pytest.fixture(autouse=True)
def close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


def _dp(y, pred, race, *, epsilon=1.0, accountant=None, **kwargs):
    kwargs.setdefault("metrics", METRICS)
    kwargs.setdefault("groups", GROUPS)
    return DPMetricFrame(y_true=y, y_pred=pred, sensitive_features={"race": race}, epsilon=epsilon,
                         accountant=BudgetAccountant() if accountant is None else accountant, random_state=0, **kwargs)


def _exact(y, pred, race, **kwargs):
    kwargs.setdefault("metrics", METRICS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return MetricFrame(y_true=y, y_pred=pred, sensitive_features={"race": race}, **kwargs)


def _axes(axes):
    return list(np.ravel(axes))


def _plotted(ax, kind):
    """The plotted values of one axes: the markers' heights (``point``) or the bars' (``bar``)."""
    if kind == "point":
        return np.asarray(ax.lines[0].get_ydata(), dtype=float)
    return np.array([patch.get_height() for patch in ax.patches], dtype=float)


def _error_bars(ax):
    """``(lower, upper)`` of the error bars drawn on one axes, in x order."""
    container = next(c for c in ax.containers if isinstance(c, ErrorbarContainer))
    segments = np.array(container.lines[2][0].get_segments())          # one [[x, lo], [x, hi]] per bar
    segments = segments[np.argsort(segments[:, 0, 0])]
    return segments[:, 0, 1], segments[:, 1, 1]


# ------------------------------------------------------------------------------------------------ plot_metric_frame
@pytest.fixture(scope="module")
def exact_with_intervals(data):
    """MetricFrame with bootstrap intervals (20 resamples, about 2 s), built once: the plots only read it."""
    y, pred, race, _, _ = data
    return _exact(y, pred, race, n_boot=20, ci_quantiles=[0.025, 0.975], random_state=0)


@pytest.mark.parametrize("kind", ["point", "bar"])
@pytest.mark.parametrize("metrics", [None, ["TPR", "accuracy"]])
def test_plot_at_epsilon_inf_plots_metricframes_values(data, exact_with_intervals, kind, metrics):
    y, pred, race, _, _ = data
    exact = exact_with_intervals
    private = _dp(y, pred, race, epsilon=math.inf)
    expected, got = _axes(plot_metric_frame(exact, kind=kind, metrics=metrics)), \
        _axes(plot_metric_frame(private, kind=kind, metrics=metrics))
    assert len(got) == len(expected) == (3 if metrics is None else 2)
    for ax_exact, ax_private in zip(expected, got, strict=False):
        assert ax_private.get_title() == ax_exact.get_title()
        assert [t.get_text() for t in ax_private.get_legend().get_texts()] == \
            [t.get_text() for t in ax_exact.get_legend().get_texts()]
        # counts divided by counts: equal to scikit-learn's / Fairlearn's values up to rounding
        np.testing.assert_allclose(_plotted(ax_private, kind), _plotted(ax_exact, kind), rtol=1e-12, atol=0)
        assert len(_error_bars(ax_private)[0]) == len(GROUPS)       # the intervals are drawn where Fairlearn's are
    assert [t.get_text() for t in got[-1].get_xticklabels()] == [t.get_text() for t in expected[-1].get_xticklabels()]


@pytest.mark.parametrize("kind", ["point", "bar"])
def test_plot_at_epsilon_1_draws_the_private_values_and_intervals(data, kind):
    y, pred, race, _, _ = data
    private = _dp(y, pred, race, epsilon=1.0)
    low, high = private.by_group_ci
    for ax, name in zip(_axes(plot_metric_frame(private, kind=kind)), METRICS, strict=False):
        assert ax.get_title() in ("", name)
        np.testing.assert_allclose(_plotted(ax, kind), private.by_group[name].to_numpy(), rtol=0, atol=1e-12)
        drawn_low, drawn_high = _error_bars(ax)
        # the bar is value - (value - low) .. value + (high - value): the interval up to rounding
        np.testing.assert_allclose(drawn_low, low[name].to_numpy(), rtol=0, atol=1e-12)
        np.testing.assert_allclose(drawn_high, high[name].to_numpy(), rtol=0, atol=1e-12)


def test_plot_of_a_single_metric_frame_and_of_three_quantiles_as_fairlearn(data):
    y, pred, race, _, _ = data
    single = _dp(y, pred, race, metrics=true_positive_rate)
    (ax,) = _axes(plot_metric_frame(single, kind="point"))
    np.testing.assert_allclose(_error_bars(ax), [q.to_numpy() for q in single.by_group_ci], rtol=0, atol=1e-12)
    three = _dp(y, pred, race, ci_quantiles=[0.975, 0.5, 0.025])
    with pytest.warns(UserWarning, match="outermost pair"):          # Fairlearn's own warning, as for MetricFrame
        axes = _axes(plot_metric_frame(three, kind="bar", metrics="TPR"))
    high, _, low = three.by_group_ci
    np.testing.assert_allclose(_error_bars(axes[0]), [low["TPR"], high["TPR"]], rtol=0, atol=1e-12)


@pytest.mark.parametrize("ci_quantiles", [None, []])
def test_without_intervals_the_plot_has_no_error_bars_as_for_metricframe(data, ci_quantiles):
    y, pred, race, _, _ = data
    private = _dp(y, pred, race, n_boot=None, ci_quantiles=ci_quantiles)      # MetricFrame's "no intervals"
    for ax in _axes(plot_metric_frame(private, kind="point")):
        assert not any(isinstance(c, ErrorbarContainer) for c in ax.containers)


def test_the_plot_reads_nothing_but_the_release_and_charges_nothing(data):
    y, pred, race, _, _ = data
    y, pred, race = y.copy(), pred.copy(), race.copy()
    accountant = BudgetAccountant()
    private = _dp(y, pred, race, epsilon=1.0, accountant=accountant)
    before = [(_plotted(ax, "bar"), _error_bars(ax)) for ax in _axes(plot_metric_frame(private, kind="bar"))]
    y[:], pred[:], race[:] = 1 - y, 1 - pred, "a"          # the rows change: a frame that read them again would too
    after = [(_plotted(ax, "bar"), _error_bars(ax)) for ax in _axes(plot_metric_frame(private, kind="bar"))]
    for (values, bars), (values_again, bars_again) in zip(before, after, strict=False):
        # the same stored release plotted twice: the same numbers
        np.testing.assert_array_equal(values_again, values)
        np.testing.assert_array_equal(np.asarray(bars_again), np.asarray(bars))
    for name in PUBLIC:
        member = getattr(private, name)
        member() if callable(member) else member
    assert accountant.spent_budget == [(1.0, 0.0)]


# ------------------------------------------------------------------------------------------------ MetricFrame's API
def test_every_public_member_of_metricframe_is_overridden_and_answers_from_the_release(data, monkeypatch):
    y, pred, race, _, _ = data
    assert issubclass(DPMetricFrame, MetricFrame)
    assert len(PUBLIC) == 16, PUBLIC                # Fairlearn 0.15's; a new member must be overridden here too
    inherited = [name for name in PUBLIC if getattr(DPMetricFrame, name) is getattr(MetricFrame, name)]
    assert not inherited, f"DPMetricFrame inherits MetricFrame's {inherited}"
    # MetricFrame's own machinery (its constructor and every private method) must never run on a DPMetricFrame
    for name, member in vars(MetricFrame).items():
        if (callable(member) and name.startswith("_") and not name.startswith("__")) or name == "__init__":
            monkeypatch.setattr(MetricFrame, name, _refuse(name), raising=True)
    private = _dp(y, pred, race, epsilon=1.0, control_features={"site": data[4]},
                  groups={"race": GROUPS, "site": ["north", "south"]})
    assert isinstance(private, MetricFrame) and not hasattr(private, "_result_cache")
    counts = private.released_counts_
    by_group = pd.DataFrame({"accuracy": (counts["tn"] + counts["tp"]) / counts.sum(axis=1),
                             "selection rate": (counts["fp"] + counts["tp"]) / counts.sum(axis=1),
                             "TPR": counts["tp"] / (counts["tp"] + counts["fn"])})
    site = by_group.groupby(level="site")
    sums = counts.groupby(level="site").sum()
    overall = pd.DataFrame({"accuracy": (sums["tn"] + sums["tp"]) / sums.sum(axis=1),
                            "selection rate": (sums["fp"] + sums["tp"]) / sums.sum(axis=1),
                            "TPR": sums["tp"] / (sums["tp"] + sums["fn"])})
    expected = {"by_group": by_group, "overall": overall, "group_max": site.max(), "group_min": site.min(),
                "difference": site.max() - site.min(), "ratio": site.min() / site.max()}
    for name in PUBLIC:
        member = getattr(private, name)
        value = member() if callable(member) else member
        if name in expected:            # the release's values: functions of the released counts
            pd.testing.assert_frame_equal(value, expected[name], check_exact=False, rtol=1e-12, check_names=False)
        elif name in INTERVALS:         # a list per quantile, around the release's value
            point = expected[name[:-3]]
            assert len(value) == 2
            assert (value[0] <= point + 1e-12).all().all() and (point <= value[1] + 1e-12).all().all()
        else:
            assert value == {"sensitive_levels": ["race"], "control_levels": ["site"], "n_boot": 1000,
                             "ci_quantiles": [0.025, 0.975]}[name]


def _refuse(name):
    def refuse(*args, **kwargs):
        raise AssertionError(f"MetricFrame.{name} ran on a DPMetricFrame")
    return refuse


@pytest.mark.parametrize("metrics", [accuracy_score, METRICS], ids=["callable", "dict"])
@pytest.mark.parametrize("several", [False, True], ids=["one_feature", "two_features"])
@pytest.mark.parametrize("control", [False, True], ids=["", "control"])
# Names and shapes only: 10 resamples, the fewest DPMetricFrame takes (MetricFrame refits per resample, 0.2 s).
@pytest.mark.parametrize("quantiles", [(10, [0.1, 0.5, 0.9]), (None, None)], ids=["intervals", "none"])
def test_interval_api_has_metricframes_names_and_shapes(data, metrics, several, control, quantiles):
    y, pred, race, sex, site = data
    n_boot, ci_quantiles = quantiles
    common = {"metrics": metrics, "y_true": y, "y_pred": pred,
                  "sensitive_features": {"race": race, "sex": sex} if several else {"race": race},
                  "control_features": {"site": site} if control else None, "n_boot": n_boot, "ci_quantiles": ci_quantiles,
                  "random_state": 0}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exact = MetricFrame(**common)
        private = DPMetricFrame(**common, epsilon=1.0, accountant=BudgetAccountant())
    assert (private.n_boot, private.ci_quantiles) == (exact.n_boot, exact.ci_quantiles)
    for name in INTERVALS:
        if n_boot is None:          # no intervals asked for: MetricFrame's error, word for word
            with pytest.raises(ValueError) as expected:
                _interval(exact, name)
            with pytest.raises(ValueError, match=r"^Could not compute confidence intervals") as got:
                _interval(private, name)
            assert str(got.value) == str(expected.value)
            continue
        want, have = _interval(exact, name), _interval(private, name)
        assert isinstance(have, list) and len(have) == len(want) == len(ci_quantiles), name
        for w, h in zip(want, have, strict=False):
            assert type(h) is type(w) or (np.isscalar(h) and np.isscalar(w)), name
            if isinstance(w, pd.DataFrame):
                pd.testing.assert_index_equal(h.columns, w.columns)
            if isinstance(w, (pd.Series, pd.DataFrame)):
                pd.testing.assert_index_equal(h.index, w.index)
                assert getattr(h, "name", None) == getattr(w, "name", None), name


def _interval(frame, name):
    member = getattr(frame, name)
    return member() if callable(member) else member


@pytest.mark.parametrize("n_boot, ci_quantiles", [(None, (0.025, 0.975)), (100, None), (100, [])])
def test_intervals_need_both_parameters_or_neither_and_are_refused_before_the_budget(data, n_boot, ci_quantiles):
    y, pred, race, _, _ = data
    accountant = BudgetAccountant()
    with pytest.raises(ValueError, match="Must specify both n_boot and ci_quantiles"):
        _dp(y, pred, race, accountant=accountant, n_boot=n_boot, ci_quantiles=ci_quantiles)
    assert accountant.spent_budget == []
