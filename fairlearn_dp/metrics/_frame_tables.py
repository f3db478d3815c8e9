"""A frame whose metrics are given different sample weights (or some none): several tables, one release.

MetricFrame lets ``sample_params`` weigh only some metrics, or weigh metrics with different weights. A private
frame then counts one ``(C, G, K)`` table per weights object (and one unweighted table for the metrics without
weights), releases them stacked as one vector with one noise scale (one mechanism call, one charge) at the summed
sensitivities -- one changed row moves in every table, by at most its weight bound ``B_t`` (1 unweighted): L1
``sum_t 2 B_t``, L2 ``sqrt(sum_t 2 B_t^2)`` (docs/privacy_analysis/metric_frame.md) -- and reads each metric from
its table, post-processed as a frame of that table alone. Everything after the release is post-processing.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pandas as pd

from ._frame_release import post_process, public_totals, release_table

__all__ = ["table_sensitivities", "release_tables", "views", "frame_parts", "merge_parts"]


def table_sensitivities(bounds):
    """``(l1, l2)`` of classification tables over the same rows, with weight bounds ``bounds`` (1: unweighted)."""
    return 2.0 * sum(bounds), math.sqrt(2.0 * sum(b * b for b in bounds))


def release_tables(exact, bounds, *, epsilon, delta, random_state):
    """The noisy tables (one release of their stack) and ``(scale, sd)``; ``exact``: the ``(C, G, K)`` tables."""
    l1, l2 = table_sensitivities(bounds)
    widths = [table.shape[-1] for table in exact]
    noisy, scale, sd = release_table(np.concatenate(exact, axis=-1), l1=l1, l2=l2, epsilon=epsilon, delta=delta,
                                     random_state=random_state)
    return np.split(noisy, np.cumsum(widths)[:-1], axis=-1), scale, sd


def views(exact, noisy, bounds, *, unit, classes, sf, cf, n, delta, scale, sd):
    """One view per table (what a frame of that table alone reads: :meth:`DPMetricFrame._init_view`)."""
    out = []
    for table, released, bound in zip(exact, noisy, bounds, strict=False):
        weighted = bound is not None
        totals = public_totals(table, kind="classification", unit=unit, public_predictions=False, weighted=weighted)
        post = post_process(released, kind="classification", unit=unit, totals=totals, n=n, weighted=weighted)
        out.append(SimpleNamespace(unit=unit, public_predictions=False, classes=classes, sf=sf, cf=cf, n=n,
                                   delta=delta, noise_scale=scale, noise_sd=sd, noisy=released, table=post))
    return out


def frame_parts(make_part, tables, table_views, bounds, metrics, sample_params, draws):
    """A frame per table, of that table's metrics: ``make_part(view, metrics, sample_params, draws, bound)``.

    ``draws``: the interval arguments, with ``random_state`` the frame's draw seed (or None).
    """
    seed = draws.pop("random_state")
    return [make_part(view, {key: f for key, f in metrics.items() if str(key) in names},
                      {key: p for key, p in (sample_params or {}).items() if str(key) in names},
                      SimpleNamespace(groups=None, control_groups=None, **draws,
                                      random_state=None if seed is None else seed.randint(2 ** 31)), bound)
            for (_, names), view, bound in zip(tables, table_views, bounds, strict=False)]


def merge_parts(states, order, bounds):
    """The state (``vars``) of one frame from the states of the frames of its tables, metrics in ``order``."""
    merged = {key: value for key, value in states[0].items() if key != "release_"}   # no report's view
    merged.update(_weight_bound=None, _single=False)

    def by_metric(values):
        return {name: value[name] for name in order for value in values if name in value}

    for key in ("_metrics", "_by_group_values", "_overall_values"):
        merged[key] = by_metric([state[key] for state in states])
    for key in ("_draws",):
        draws = [state[key] for state in states]
        merged[key] = None if draws[0] is None else tuple(by_metric([d[i] for d in draws]) for i in range(2))
    merged["noisy_counts_"] = np.concatenate([state["noisy_counts_"] for state in states], axis=-1)
    labels = ["unweighted" if bound is None else f"weighted {i}" for i, bound in enumerate(bounds)]
    merged["released_counts_"] = pd.concat([state["released_counts_"] for state in states], axis=1, keys=labels)
    for key in ("noise_error_", "unreadable_"):
        merged[key] = pd.concat([state[key] for state in states], axis=1)[order]
    return merged
