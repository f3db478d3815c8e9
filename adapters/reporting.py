"""MetricFrame-based before/after reports and plots of fairness, accuracy and privacy spent; their private
counterpart (:func:`private_report`, one :class:`~fairlearn_dp.metrics.DPMetricFrame` release per prediction
vector).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from fairlearn.metrics import MetricFrame, mean_prediction
from sklearn.metrics import mean_squared_error

from fairlearn_dp.metrics import DPMetricFrame, ks_statistical_parity

from ._sweeps import SweepResult, metric, plot_tradeoff, privacy_fairness_sweep

__all__ = ["before_after_report", "private_report", "plot_group_cdfs", "allocation_bias_report",
           "privacy_fairness_sweep", "SweepResult", "metric", "plot_tradeoff"]


def _ks_distance_to(reference):
    """A per-group metric for ``MetricFrame``: the KS distance between a group's ``y_pred`` and ``reference``."""
    reference = np.asarray(reference, dtype=float).ravel()

    def ks_to_all(y_true, y_pred):
        # The KS distance of two samples is the parity of the two "groups" they form (one pair, so the max is it).
        y_pred = np.asarray(y_pred, dtype=float).ravel()
        both = np.concatenate([y_pred, reference])
        return ks_statistical_parity(None, both, sensitive_features=np.repeat([0, 1], [y_pred.size, reference.size]))

    return ks_to_all


def _regression_fairness_frame(y_true, y_pred, *, sensitive_features):
    """A ``MetricFrame`` with MSE, mean output and each group's KS distance to all outputs."""
    return MetricFrame(
        metrics={"mse": mean_squared_error, "mean_output": mean_prediction, "ks_to_all": _ks_distance_to(y_pred)},
        y_true=y_true, y_pred=y_pred, sensitive_features=sensitive_features)


def before_after_report(y_true: Any, predictions: Mapping[str, Any], *, sensitive_features: Any,
                        privacy_spent: Any = None) -> tuple[pd.DataFrame, dict[str, MetricFrame]]:
    """One table comparing several prediction vectors (e.g. ``{"before": ..., "after": ...}``).

    Rows: ``overall`` and each group; columns: ``(name, metric)``. A final row ``KS parity`` holds
    :func:`~fairlearn_dp.metrics.ks_statistical_parity` (max pairwise KS) under the ``ks_to_all`` column.

    Returns
    -------
    table : pandas.DataFrame
    frames : dict of MetricFrame
        For drill-down.
    """
    frames, blocks = {}, {}
    for name, y_pred in predictions.items():
        frame = _regression_fairness_frame(y_true, y_pred, sensitive_features=sensitive_features)
        frames[name] = frame
        block = pd.concat([frame.overall.to_frame().T.rename(index={0: "overall"}), frame.by_group])
        block.index = ["overall"] + [str(g) for g in frame.by_group.index]
        parity = pd.DataFrame({"ks_to_all": [ks_statistical_parity(y_true, y_pred,
                                                                   sensitive_features=sensitive_features)]},
                              index=["KS parity (max pairwise)"])
        blocks[name] = pd.concat([block, parity])
    table = pd.concat(blocks, axis=1)
    if privacy_spent is not None:
        table.attrs["privacy_spent"] = privacy_spent
    return table, frames


def private_report(y_true: Any, predictions: Mapping[str, Any], *, sensitive_features: Any, metrics: Any,
                   epsilon: float, groups: Any, accountant: Any = None, random_state: Any = None,
                   **frame_params: Any) -> tuple[pd.DataFrame, dict[str, DPMetricFrame]]:
    """:func:`before_after_report`'s table from private releases: one
    :class:`~fairlearn_dp.metrics.DPMetricFrame` per prediction vector.

    Each frame releases the per-group counts of its predictions once and charges ``(epsilon, delta)`` to
    ``accountant``: comparing ``k`` prediction vectors on the same rows spends ``k`` times ``epsilon`` on their
    sensitive features (sequential composition). Use it when the evaluation rows' sensitive features are private
    (docs/user_guide/private_reporting.md).

    Parameters
    ----------
    y_true : array-like
    predictions : dict of str -> array-like
        E.g. ``{"before": ..., "after": ...}``.
    sensitive_features : array-like
    metrics : dict of str -> callable
        Count metrics (:class:`~fairlearn_dp.metrics.DPMetricFrame`).
    epsilon : float
        Budget of each frame.
    groups : list
        The public groups.
    accountant, random_state, **frame_params
        Passed to every frame (``random_state`` seeds frame ``i`` with ``random_state + i``).

    Returns
    -------
    table : pandas.DataFrame
        Rows ``overall`` and each group; columns ``(name, metric)`` and ``(name, metric + " low"/" high")`` (the
        frame's first and last ``ci_quantiles``).
    frames : dict of DPMetricFrame
    """
    frames, blocks = {}, {}
    for index, (name, y_pred) in enumerate(predictions.items()):
        seed = None if random_state is None else random_state + index
        frame = DPMetricFrame(metrics=metrics, y_true=y_true, y_pred=y_pred, sensitive_features=sensitive_features,
                              epsilon=epsilon, groups=groups, accountant=accountant, random_state=seed,
                              **frame_params)
        frames[name] = frame
        low, high = frame.by_group_ci[0], frame.by_group_ci[-1]
        overall_low, overall_high = frame.overall_ci[0], frame.overall_ci[-1]
        block = {}
        for metric_name in metrics:
            block[metric_name] = [frame.overall[metric_name], *frame.by_group[metric_name]]
            block[f"{metric_name} low"] = [overall_low[metric_name], *low[metric_name]]
            block[f"{metric_name} high"] = [overall_high[metric_name], *high[metric_name]]
        blocks[name] = pd.DataFrame(block, index=["overall"] + [str(g) for g in frame.by_group.index])
    table = pd.concat(blocks, axis=1)
    table.attrs["privacy_spent"] = [frame.privacy_spent_ for frame in frames.values()]
    return table, frames


def plot_group_cdfs(predictions: Mapping[str, Any], *, sensitive_features: Any, path: str | Path,
                    title: str | None = None) -> Path:
    """Plot each group's output CDF for every prediction vector (one panel each) and save to ``path``."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    groups = pd.Series(np.asarray(sensitive_features)).astype(str)
    fig, axes = plt.subplots(1, len(predictions), figsize=(5 * len(predictions), 3.6), sharey=True, squeeze=False)
    for ax, (name, y_pred) in zip(axes[0], predictions.items(), strict=False):
        y_pred = np.asarray(y_pred, dtype=float)
        for group in sorted(groups.unique()):
            values = np.sort(y_pred[(groups == group).to_numpy()])
            ax.step(values, np.arange(1, values.size + 1) / values.size, where="post", label=group)
        ax.set_title(name)
        ax.set_xlabel("output")
    axes[0][0].set_ylabel("CDF within group")
    axes[0][-1].legend(title="group", fontsize=8)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def _size_deciles(counts):
    """Decile labels ("D1" smallest ... "D10" largest) of entities by true count, for grouping a report."""
    counts = np.asarray(counts, dtype=float)
    ranks = pd.Series(counts).rank(method="first").to_numpy()
    deciles = np.minimum((10 * (ranks - 1) / counts.size).astype(int), 9) + 1
    return pd.Series([f"D{d}" for d in deciles], name="size_decile")


def allocation_bias_report(true_shares: Any, expected_shares: Any, *, budget: float,
                           groupings: Mapping[str, Any]) -> dict[str, MetricFrame]:
    """``MetricFrame`` s of an allocation mechanism's biases, one per grouping of the entities.

    Parameters
    ----------
    true_shares : array-like of shape (n,)
        ``P^F(x)``, the allocation on the true counts.
    expected_shares : array-like of shape (n,)
        ``E[pi(x~)]``, the mechanism's expected allocation (e.g. a Monte-Carlo mean).
    budget : float
        Total budget (e.g. dollars) to express biases as money.
    groupings : dict of str -> array-like
        Group label per entity for each grouping, e.g. ``{"state": states, "size_decile": deciles}``.

    Returns
    -------
    dict of str -> MetricFrame
        Metrics per group: number of entities, mean bias, alpha-fairness within the group, net misallocated funds
        and the cost of privacy (funds owed to the group's under-allocated entities).
    """
    from functools import partial

    from fairlearn_dp.metrics import alpha_fairness, cost_of_privacy, mean_bias, misallocated_funds

    def entities(y_true, y_pred):
        return len(y_true)

    metrics = {"entities": entities, "mean_bias": mean_bias, "alpha_fairness": alpha_fairness,
               "misallocated_funds": partial(misallocated_funds, budget=budget),
               "cost_of_privacy": partial(cost_of_privacy, budget=budget)}
    true_shares = np.asarray(true_shares, dtype=float)
    expected_shares = np.asarray(expected_shares, dtype=float)
    return {name: MetricFrame(metrics=metrics, y_true=true_shares, y_pred=expected_shares,
                              sensitive_features=pd.Series(np.asarray(labels), name=name))
            for name, labels in groupings.items()}


def _share_axis(ax, share):
    """A log x axis for allocation shares that keeps entities with a true share of 0 on the plot.

    Without zeros: a plain log axis. With zeros: ``symlog`` whose linear part ``[0, 10^k]`` ends at the decade
    below the smallest positive share and is drawn one decade wide, with explicit major ticks at 0 and at the
    decades from ``10^k`` up. (matplotlib's default symlog ticks put a decade inside the linear part right next to
    0, where the two labels, e.g. "0" and "10^-8", overlap.)
    """
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

    positive = share[share > 0]
    if positive.size == 0:
        return
    if not np.any(share <= 0):
        ax.set_xscale("log")
        return
    low = int(np.floor(np.log10(positive.min())))
    high = int(np.ceil(np.log10(positive.max())))
    linthresh = 10.0 ** low
    ax.set_xscale("symlog", linthresh=linthresh, linscale=1.0)    # [0, linthresh] as wide as one decade
    decades = list(range(low, high + 1))
    step = max(1, int(np.ceil(len(decades) / 6)))          # at most ~7 labelled ticks
    labelled = decades[::-1][::step][::-1]
    ax.xaxis.set_major_locator(FixedLocator([0.0] + [10.0 ** k for k in labelled]))
    ax.xaxis.set_major_formatter(FuncFormatter(
        lambda v, _: "0" if v == 0 else f"$10^{{{int(round(np.log10(v)))}}}$"))
    minor = [m * 10.0 ** k for k in decades for m in range(2, 10) if m * 10.0 ** k < 10.0 ** high]
    minor += [10.0 ** k for k in decades if k not in labelled]
    ax.xaxis.set_minor_locator(FixedLocator(minor) if minor else NullLocator())


def _plot_allocation_biases(true_shares, biases, *, path, budget=None, title=None):
    """Figure-4-style scatter of bias against true allocation share: one panel per (row, column) key.

    ``biases`` maps ``(row_label, column_label)`` (e.g. ``("epsilon=0.01", "PoS")``) to a bias vector. With
    ``budget`` a second y axis shows the bias in money.
    """
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    rows = list(dict.fromkeys(r for r, _ in biases))
    cols = list(dict.fromkeys(c for _, c in biases))
    fig, axes = plt.subplots(len(rows), len(cols), figsize=(4.6 * len(cols), 3.2 * len(rows)), squeeze=False,
                             sharex=True)
    share = np.asarray(true_shares, dtype=float)
    for i, row in enumerate(rows):
        for j, col in enumerate(cols):
            ax = axes[i][j]
            if (row, col) in biases:
                ax.scatter(share, biases[(row, col)], s=4, alpha=0.5)
            ax.axhline(0.0, color="black", lw=0.6)
            _share_axis(ax, share)
            ax.set_title(f"{col}, {row}", fontsize=9)
            if j == 0:
                ax.set_ylabel("bias (share of budget)")
            if budget is not None and j == len(cols) - 1:
                secondary = ax.secondary_yaxis("right", functions=(lambda b: b * budget, lambda d: d / budget))
                secondary.set_ylabel("dollars")
            if i == len(rows) - 1:
                ax.set_xlabel("true allocation share")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
