"""Seeded DPMetricFrame outputs equal the recorded ones: the release since before the many-groups speed-ups (issue
41.3), the Monte-Carlo draws since the vectorised interval simulation.

``data/metric_frame_reference.json`` was written by this module on the code before the first speed-up (commit
c526cd7), for small frames covering each path of the release and of the interval simulation (Laplace and Gaussian,
both units, public predictions, control features, regression, declared classes, weights, several tables, a view of a
report, tiny and empty groups whose draws hold NaN, no intervals). Its release keys -- the noisy and released tables
and the values computed from them -- must still be the same numbers: same seed, same release.

The outputs of the interval draws (``noise_error_``, ``unreadable_`` and every interval) changed once, on purpose,
when the simulation was vectorised (issue 41.3: chunks with their own seeded generators, normal draws with the
multinomial's moments where the release noise hides the difference, Laplace noise from exponentials): they are
compared with ``data/metric_frame_reference_draws.json``, written by ``python <this file> --record`` on that code
(every output: its release keys equal the first file's, which a test checks).
Seeded draws and the release are compared exactly (no BLAS or solver in them), the values the metrics compute from
them to 1e-12 (``_EXACT``).
"""
import functools
import json
import math
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from diffprivlib import BudgetAccountant
from fairlearn.metrics import count, false_positive_rate, mean_prediction, selection_rate, true_positive_rate
from sklearn.metrics import accuracy_score, fbeta_score, mean_absolute_error, mean_squared_error

from fairlearn_dp.metrics import DPMetricFrame, DPReport, MetricFrameOptions

REFERENCE = Path(__file__).parent / "data" / "metric_frame_reference.json"
DRAWS_REFERENCE = Path(__file__).parent / "data" / "metric_frame_reference_draws.json"
#: The outputs of the release (compared with REFERENCE); every other output comes from the draws (DRAWS_REFERENCE).
_RELEASE_KEYS = {"noisy", "released", "by_group", "overall"}
BINARY = {"accuracy": accuracy_score, "selection_rate": selection_rate, "tpr": true_positive_rate,
          "fpr": false_positive_rate}


def _rows(n=900, seed=41):
    rng = np.random.default_rng(seed)
    groups = rng.choice(["a", "b", "c", "d"], n, p=[0.6, 0.3, 0.095, 0.005])   # "e" declared, never seen
    y = rng.integers(0, 2, n)
    pred = np.where(rng.random(n) < 0.8, y, 1 - y)
    return {"y": y, "pred": pred, "groups": groups, "site": rng.choice(["s", "t"], n),
            "w": rng.uniform(0, 2, n), "y3": rng.integers(0, 3, n), "pred3": rng.integers(0, 3, n),
            "yr": rng.normal(size=n), "predr": rng.normal(size=n)}


def _cases(r):
    common = {"groups": ["a", "b", "c", "d", "e"], "n_boot": 200, "random_state": 7}
    return {
        "laplace_attribute": dict(metrics=BINARY, y_true=r["y"], y_pred=r["pred"], sensitive_features=r["groups"],
                                  epsilon=1.0, **common),
        "gaussian_record_control": dict(metrics=BINARY, y_true=r["y"], y_pred=r["pred"],
                                        sensitive_features=r["groups"], control_features={"site": r["site"]},
                                        epsilon=0.7, delta=1e-6, privacy_unit="record",
                                        **{**common, "groups": {"sensitive_feature_0": common["groups"],
                                                                "site": ["s", "t"]}}),
        "public_predictions": dict(metrics=BINARY, y_true=r["y"], y_pred=r["pred"], sensitive_features=r["groups"],
                                   epsilon=0.5, options=MetricFrameOptions(public_predictions=True), **common),
        "tiny_epsilon_single": dict(metrics=selection_rate, y_true=r["y"], y_pred=r["pred"],
                                    sensitive_features=r["groups"], epsilon=0.05, **common),
        "regression": dict(metrics={"mse": mean_squared_error, "mae": mean_absolute_error, "mean": mean_prediction,
                                    "n": count}, y_true=r["yr"], y_pred=r["predr"], sensitive_features=r["groups"],
                           bounds=(-2.0, 2.0), epsilon=1.0, **common),
        "regression_record": dict(metrics={"mse": mean_squared_error}, y_true=r["yr"], y_pred=r["predr"],
                                  sensitive_features=r["groups"], bounds=(-2.0, 2.0), epsilon=1.0,
                                  privacy_unit="record", **common),
        "multiclass": dict(metrics={"accuracy": accuracy_score, "n": count,
                                    "f": functools.partial(fbeta_score, beta=0.6, average="macro")},
                           y_true=r["y3"], y_pred=r["pred3"], sensitive_features=r["groups"], epsilon=1.0,
                           options=MetricFrameOptions(labels=[0, 1, 2]), **common),
        "weighted": dict(metrics=BINARY, y_true=r["y"], y_pred=r["pred"], sensitive_features=r["groups"],
                         sample_params={name: {"sample_weight": r["w"]} for name in BINARY}, epsilon=1.0,
                         options=MetricFrameOptions(weight_bound=2.0), **common),
        "several_tables": dict(metrics={"sr": selection_rate, "sr_w": selection_rate}, y_true=r["y"],
                               y_pred=r["pred"], sensitive_features=r["groups"],
                               sample_params={"sr_w": {"sample_weight": r["w"]}}, epsilon=1.0,
                               options=MetricFrameOptions(weight_bound=2.0), **common),
        "no_intervals": dict(metrics=BINARY, y_true=r["y"], y_pred=r["pred"], sensitive_features=r["groups"],
                             epsilon=1.0, **{**common, "n_boot": None, "ci_quantiles": None}),
        "exact": dict(metrics=BINARY, y_true=r["y"], y_pred=r["pred"], sensitive_features=r["groups"],
                      epsilon=math.inf, **common),
    }


def _plain(value):
    return np.asarray(value, dtype=float).tolist()


def _outputs(frame):
    out = {"noisy": _plain(frame.noisy_counts_), "released": _plain(frame.released_counts_),
           "by_group": _plain(frame.by_group), "overall": _plain(frame.overall),
           "noise_error": _plain(frame.noise_error_), "unreadable": _plain(frame.unreadable_)}
    if frame.n_boot is None:
        return out
    out |= {"by_group_ci": [_plain(v) for v in frame.by_group_ci],
            "overall_ci": [_plain(v) for v in frame.overall_ci],
            "group_min_ci": [_plain(v) for v in frame.group_min_ci()],
            "group_max_ci": [_plain(v) for v in frame.group_max_ci()]}
    for method in ("between_groups", "to_overall"):
        out[f"difference_ci_{method}"] = [_plain(v) for v in frame.difference_ci(method)]
        out[f"ratio_ci_{method}"] = [_plain(v) for v in frame.ratio_ci(method)]
    return out


def _frame(kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return DPMetricFrame(accountant=BudgetAccountant(), **kwargs)


def _report_view(r):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = DPReport(y_true=r["y"], y_pred={"m": r["pred"]}, sensitive_features=r["groups"], epsilon=1.0,
                          groups=["a", "b", "c", "d", "e"], random_state=3, accountant=BudgetAccountant())
        return report.metric_frame(BINARY, model="m", n_boot=200, random_state=5)


def _all_outputs():
    r = _rows()
    outputs = {name: _outputs(_frame(kwargs)) for name, kwargs in _cases(r).items()}
    outputs["report_view"] = _outputs(_report_view(r))
    return outputs


#: Compared bit for bit: the seeded release and its projection (our code, elementwise), and the flags. The values,
#: noise errors and intervals also pass through the metrics (some scikit-learn's, whose arithmetic may be ordered
#: differently in another supported version): to 1e-12.
_EXACT = {"noisy", "released", "unreadable"}


@pytest.fixture(scope="module")
def recorded():
    release = json.loads(REFERENCE.read_text())
    draws = json.loads(DRAWS_REFERENCE.read_text())
    return {case: {key: (release if key in _RELEASE_KEYS else draws)[case][key] for key in release[case]}
            for case in release}


@pytest.fixture(scope="module")
def current():
    return _all_outputs()


@pytest.mark.parametrize("case", [*_cases(_rows()), "report_view"])
def test_seeded_outputs_equal_the_recorded_ones(recorded, current, case):
    assert set(current[case]) == set(recorded[case])
    for key, value in recorded[case].items():
        actual, expected = np.asarray(current[case][key], dtype=float), np.asarray(value, dtype=float)
        if key in _EXACT:
            np.testing.assert_array_equal(actual, expected, err_msg=f"{case}: {key}")
        else:       # the metrics' own arithmetic (scikit-learn's fbeta_score on cells): equal up to its rounding
            np.testing.assert_allclose(actual, expected, rtol=1e-12, atol=1e-15, err_msg=f"{case}: {key}")


def test_the_draws_reference_was_recorded_with_the_same_releases():
    """The draws file holds every output of its recording run: its release keys are the first file's numbers."""
    release = json.loads(REFERENCE.read_text())
    draws = json.loads(DRAWS_REFERENCE.read_text())
    assert set(draws) == set(release)
    for case, outputs in release.items():
        assert set(draws[case]) == set(outputs), case
        for key in _RELEASE_KEYS & set(outputs):
            np.testing.assert_array_equal(np.asarray(draws[case][key], dtype=float),
                                          np.asarray(outputs[key], dtype=float), err_msg=f"{case}: {key}")


if __name__ == "__main__" and "--record" in sys.argv:     # the release keys are compared with REFERENCE, not these
    DRAWS_REFERENCE.write_text(json.dumps(_all_outputs()))
    print(f"wrote {DRAWS_REFERENCE}")
