"""MetricFrame-based before/after reports and plots of fairness, accuracy and privacy spent."""

from __future__ import annotations

import numpy as np
import pandas as pd
from fairlearn.metrics import MetricFrame, mean_prediction
from sklearn.metrics import mean_squared_error

from fairlearn_dp.metrics import ks_distance_to, ks_statistical_parity

__all__ = ["regression_fairness_frame", "before_after_report", "plot_group_cdfs"]


def regression_fairness_frame(y_true, y_pred, *, sensitive_features):
    """A ``MetricFrame`` with MSE, mean output and each group's KS distance to all outputs."""
    return MetricFrame(
        metrics={"mse": mean_squared_error, "mean_output": mean_prediction, "ks_to_all": ks_distance_to(y_pred)},
        y_true=y_true, y_pred=y_pred, sensitive_features=sensitive_features)


def before_after_report(y_true, predictions, *, sensitive_features, privacy_spent=None):
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
        frame = regression_fairness_frame(y_true, y_pred, sensitive_features=sensitive_features)
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


def plot_group_cdfs(predictions, *, sensitive_features, path, title=None):
    """Plot each group's output CDF for every prediction vector (one panel each) and save to ``path``."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    groups = pd.Series(np.asarray(sensitive_features)).astype(str)
    fig, axes = plt.subplots(1, len(predictions), figsize=(5 * len(predictions), 3.6), sharey=True, squeeze=False)
    for ax, (name, y_pred) in zip(axes[0], predictions.items()):
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
