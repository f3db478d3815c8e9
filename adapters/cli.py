"""The fairdp command line: reproduce the papers' experiments, sweep an estimator, audit a DP estimator.

    fairdp reproduce {xian2024,jagielski2019,jagielski2019-inprocessing,zhu2022,budget2023,blind-fair-regression} [--dataset NAME] [--out DIR] [--quick] ...
    fairdp sweep --estimator NAME [--dataset NAME] --epsilon E [E ...] [--param k=v,...] [--seeds N] [--dry-run] ...
    fairdp audit NAME [--runs N] [--seed S] [--out DIR]

Each command writes CSV (and PNG where there is a plot) and prints a short table. A bad argument -- including a
parameter value the estimator itself rejects during a sweep -- ends with a one-line message naming the argument
on standard error and exit code 2 (argparse's convention), without a traceback; an audit that detects a violation
(lower bound on epsilon above the declared epsilon) exits with 1.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ._checkout import load_audit_cases, load_example, require_checkout

__all__ = ["main"]

_REPRODUCTIONS = {
    "xian2024": ("xian2024_reproduce.py", "Xian et al. 2024: DP fair regression post-processing (Sec. 4, Figs 2-4)"),
    "jagielski2019": ("jagielski2019_postprocessing.py",
                      "Jagielski et al. 2019: DP post-processing for classification (Fig. 1 right)"),
    "zhu2022": ("zhu2022_allocation.py", "Zhu et al. 2022: census release and allocation (Tables 1-2, Fig. 4)"),
    "jagielski2019-inprocessing": ("jagielski2019_inprocessing.py",
                                   "Jagielski et al. 2019: DP-oracle-learner, DP exponentiated gradient (Fig. 1 left)"),
    "budget2023": ("budget2023_group_budget.py",
                   "budget-tailoring paper: group-aware zCDP budget allocation, DPSE vs DPNoSE (Sec. 6.1, App. A)"),
    "blind-fair-regression": ("blind_fair_regression.py",
                              "attribute-blind DP fair regression post-processing vs the aware one (Law School)"),
}
#: Reproductions that take --seeds (zhu2022 uses Monte-Carlo draws) and --dataset.
_SEEDED_REPRODUCTIONS = ("xian2024", "jagielski2019", "jagielski2019-inprocessing", "budget2023",
                         "blind-fair-regression")
_DATASET_REPRODUCTIONS = ("xian2024",)
#: Reproductions that take --first-seed (their seeds are first-seed, first-seed + 1, ...).
_FIRST_SEED_REPRODUCTIONS = ("xian2024", "blind-fair-regression")
_SWEEP_DATASETS = ("law_school", "communities_crime", "adult")
#: Largest seed accepted by --seed (numpy's legacy RandomState, used by the audit, takes 32-bit seeds).
_MAX_SEED = 2 ** 32 - 1


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line error message (and exit code 2)."""

    def error(self, message):
        self.exit(2, f"fairdp: error: {_one_line(message)}\n")


class _UsageError(Exception):
    """A bad command-line argument, found after parsing: reported as ``fairdp: error: argument ARG: MESSAGE``."""

    def __init__(self, argument, message):
        super().__init__(f"argument {argument}: {message}")


def _one_line(text):
    return " ".join(str(text).split())


# ------------------------------------------------------------------------------------ argument value checks
def _integer_type(low, high=None, what="an integer >= 1"):
    """An argparse type: an integer in ``[low, high]`` (no upper bound when ``high`` is None)."""

    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"must be {what[len('an integer '):]}, got {value}")
        return value

    return parse


#: argparse type of --seeds, --n-jobs, --runs: an integer >= 1.
_positive_int = _integer_type(1)
#: argparse type of --seed: an integer in [0, 2**32 - 1].
_seed = _integer_type(0, _MAX_SEED, f"an integer in [0, {_MAX_SEED}]")


#: The spellings of infinity. A number that overflows a float (``float("1e400")`` is inf) is refused: only these ask
#: for infinity (for --epsilon, a non-private run).
_INFINITY = ("inf", "+inf", "infinity", "+infinity")


def _check_not_overflowed(value, text, what):
    if math.isinf(value) and text.strip().lower() not in _INFINITY:
        raise argparse.ArgumentTypeError(f"{what}{text!r} overflows a float (only 'inf' means infinity)")


def _epsilon(text):
    """Argparse type of --epsilon: a number > 0 and at most ``MAX_EPSILON``, or ``inf`` (no
    NaN, no number that overflows a float).
    """
    from fairlearn_dp.privacy._accountant import MAX_EPSILON  # the library's cap (the accountant's composition)

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number > 0 or 'inf', got {text!r}") from None
    if math.isnan(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be > 0 (or 'inf'), got {text!r}")
    _check_not_overflowed(value, text, "")
    if math.isfinite(value) and value > MAX_EPSILON:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_EPSILON:g} (beyond it the accountant's composition "
                                         f"overflows) or 'inf' for a non-private run, got {text!r}")
    return value


def _param_value(key, text):
    """One value of ``--param``: int, float (``inf`` included), true/false, none, or a string; never NaN."""
    if text == "":
        raise argparse.ArgumentTypeError(f"empty value for {key!r} (expected k=v1|v2)")
    lowered = text.lower()
    if lowered in {"true", "false"}:
        return lowered == "true"
    if lowered in {"none", "null"}:
        return None
    try:
        number = float(text)
    except ValueError:
        return text
    if math.isnan(number):
        raise argparse.ArgumentTypeError(f"{key}={text}: NaN is not a parameter value")
    _check_not_overflowed(number, text, f"{key}=")
    is_int = number.is_integer() and not any(c in lowered for c in ".ei")
    return int(text) if is_int else number


def _param(text):
    """Argparse type of --param: ``k=v1|v2,k2=v`` -> ``[(k, [(text, value), ...]), ...]`` (names and value types
    are checked against the estimator later, in :func:`_check_params`).
    """
    pairs = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        if "=" not in item:
            raise argparse.ArgumentTypeError(f"expected k=v1|v2 pairs separated by commas, got {item!r}")
        key, value = (part.strip() for part in item.split("=", 1))
        if not all(part.isidentifier() for part in key.split(".")):       # options.<field> names a field
            raise argparse.ArgumentTypeError(f"{key!r} is not a parameter name (in {item!r})")
        texts = [v.strip() for v in value.split("|")]
        pairs.append((key, [(text, _param_value(key, text)) for text in texts]))
    if not pairs:
        raise argparse.ArgumentTypeError(f"expected k=v1|v2 pairs, got {text!r}")
    return pairs


def _check_out(out):
    """--out must be a directory or creatable as one."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise _UsageError("--out", f"{str(out)!r} exists and is not a directory")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise _UsageError("--out", f"cannot create {str(out)!r}: {error.strerror or error}") from None
    return out


# ---------------------------------------------------------------------------------------------- reproduce
def _check_reproduce(args):
    require_checkout("reproduce")                       # before --out is created
    if args.dataset is not None and args.name not in _DATASET_REPRODUCTIONS:
        raise _UsageError("--dataset", f"applies to {', '.join(_DATASET_REPRODUCTIONS)} only, not {args.name}")
    if args.seeds is not None and args.name not in _SEEDED_REPRODUCTIONS:
        raise _UsageError("--seeds", f"does not apply to {args.name} (it uses Monte-Carlo draws)")
    if args.first_seed is not None and args.name not in _FIRST_SEED_REPRODUCTIONS:
        raise _UsageError("--first-seed", f"applies to {', '.join(_FIRST_SEED_REPRODUCTIONS)} only, not "
                                          f"{args.name}")
    if args.out is not None:
        _check_out(args.out)


def _reproduce(args):
    filename, _ = _REPRODUCTIONS[args.name]
    argv = []
    if args.out is not None:
        argv += ["--out", str(args.out)]
    if args.quick:
        argv.append("--quick")
    if args.n_jobs is not None:
        argv += ["--n-jobs", str(args.n_jobs)]
    if args.seeds is not None:
        argv += ["--seeds", str(args.seeds)]
    if args.first_seed is not None:
        argv += ["--first-seed", str(args.first_seed)]
    if args.dataset is not None:
        argv += ["--dataset", args.dataset]
    load_example(filename).main(argv)
    return 0


# -------------------------------------------------------------------------------------------------- sweep
#: Communities & Crime classification label: ``ViolentCrimesPerPop > 0.28``, its 70th percentile (the binarisation
#: of Kearns et al. 2018a that Jagielski et al. 2019 follow), fixed here as a public constant.
_CRIME_LABEL_THRESHOLD = 0.28
#: Public LSAT score range of the Law School cohort (1982-1991 scale), as in examples/budget2023_group_budget.py.
_LSAT_BOUNDS = (10.0, 48.0)
#: Law School race groups (declared, not read from the data).
_LAW_GROUPS = ["asian", "black", "hisp", "white"]
#: Parameters a sweep sets itself (with the argument to use instead).
_RESERVED_PARAMS = {"epsilon": "use --epsilon", "random_state": "the sweep seeds every fit (use --seed)",
                    "accountant": "the sweep gives every fit a fresh accountant",
                    "rho": "the sweep sets the budget through --epsilon"}
#: Object-valued parameters that define the sweep's problem; --param cannot express them.
_PROBLEM_PARAMS = frozenset({"estimator", "predictor", "hypotheses", "constraints", "prefit"})


@dataclass
class _Problem:
    """What a sweep runs: the estimator's public parameters (read no data), the data and the metrics."""

    params: dict             # constructor parameters fixed by the problem (public: bounds, groups, ...)
    data: object             # callable -> (X, y, sensitive_features, extra constructor parameters)
    metrics: dict
    axes: tuple              # (error metric, fairness metric) of the trade-off plot
    report: dict | None = None   # DPMetricFrame arguments of --private-report (metrics, groups, bounds), or None


def _to_unit(values, low, high):
    """Map values with public range [low, high] to [-1, 1]."""
    import numpy as np

    return 2.0 * (np.asarray(values, dtype=float) - low) / (high - low) - 1.0


def _crime_classification(scale_features):
    """Communities & Crime as a classification task: X without ``racepctblack`` (in the donors' public [0, 1]
    range, or mapped to [-1, 1]), y = 1[ViolentCrimesPerPop > 0.28], a = the loader's binary group.
    """
    from fairlearn_dp import datasets as ds

    bunch = ds.fetch_communities_crime()
    X = bunch.data.drop(columns=["racepctblack"]).to_numpy(dtype=float)
    y = (bunch.target.to_numpy(dtype=float) > _CRIME_LABEL_THRESHOLD).astype(int)
    return (_to_unit(X, 0.0, 1.0) if scale_features else X), y, bunch.sensitive_features.to_numpy()


def _error_and_gap(gap, name):
    """Metrics of a classification sweep: the error rate and the Fairlearn group-gap metric ``gap`` as ``name``."""
    import numpy as np

    from ._sweeps import metric

    return ({"error": metric(lambda yt, yp: float(np.mean(np.asarray(yt) != np.asarray(yp)))),
             name: metric(gap, uses_groups=True)}, ("error", name))


def _classification_report(groups):
    """``--private-report``'s DPMetricFrame arguments for a classification sweep (one release of the test split's
    per-group confusion counts).
    """
    from fairlearn.metrics import false_positive_rate, selection_rate, true_positive_rate
    from sklearn.metrics import zero_one_loss

    return {"metrics": {"error": zero_one_loss, "selection_rate": selection_rate, "tpr": true_positive_rate,
                         "fpr": false_positive_rate}, "groups": list(groups)}


def _worst_group(loss, name):
    """Metric: the largest per-group value of ``loss`` (bounded group loss)."""
    import numpy as np

    from ._sweeps import metric

    def worst(y_true, y_pred, groups):
        y_true, y_pred, groups = (np.asarray(v) for v in (y_true, y_pred, groups))
        return max(float(loss(y_true[groups == g], y_pred[groups == g])) for g in np.unique(groups))

    worst.__name__ = name
    return metric(worst, uses_groups=True)


def _fair_regression_problem(dataset):
    from sklearn.metrics import mean_squared_error

    from fairlearn_dp import datasets as ds
    from fairlearn_dp.metrics import ks_statistical_parity

    from ._sweeps import metric

    fetch, bounds, groups = {"law_school": (ds.fetch_law_school, ds.LAW_SCHOOL_BOUNDS, _LAW_GROUPS),
                             "communities_crime": (ds.fetch_communities_crime, ds.COMMUNITIES_CRIME_BOUNDS,
                                                   [0, 1])}[dataset]

    def data():
        bunch = fetch()
        y = bunch.target.to_numpy(dtype=float)
        return y[:, None], y, bunch.sensitive_features.to_numpy(), {}

    metrics = {"mse": metric(mean_squared_error), "ks_parity": metric(
        lambda yt, yp, sf: ks_statistical_parity(yt, yp, sensitive_features=sf), uses_groups=True)}
    report = {"metrics": {"mse": mean_squared_error}, "groups": list(groups), "bounds": tuple(bounds)}
    return _Problem({"bounds": bounds, "groups": groups, "n_bins": 36}, data, metrics, ("mse", "ks_parity"), report)


def _threshold_optimizer_problem(dataset):
    from fairlearn.metrics import equalized_odds_difference

    groups = {"communities_crime": [0, 1], "adult": ["Female", "Male"]}[dataset]

    def data():
        from sklearn.linear_model import LogisticRegression
        from sklearn.model_selection import train_test_split
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        from fairlearn_dp import datasets as ds

        if dataset == "communities_crime":
            X, y, sf = _crime_classification(scale_features=False)
        else:
            bunch = ds.fetch_adult()
            X = bunch.data.select_dtypes("number").drop(columns=["fnlwgt"]).to_numpy(dtype=float)
            y = (bunch.target == ">50K").to_numpy().astype(int)
            sf = bunch.sensitive_features["sex"].to_numpy()
        # The base classifier is trained on a separate third of the rows (never seen by the sweep) and prefit.
        X_base, X, y_base, y, _, sf = train_test_split(X, y, sf, test_size=2 / 3, random_state=0, stratify=y)
        base = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)).fit(X_base, y_base)
        return X, y, sf, {"estimator": base}

    metrics, axes = _error_and_gap(equalized_odds_difference, "eo_difference")
    return _Problem({"prefit": True, "constraints": "equalized_odds", "predict_method": "predict_proba", "groups": groups},
                    data, metrics, axes, _classification_report(groups))


def _exponentiated_gradient_problem(dataset):
    from fairlearn.metrics import equalized_odds_difference
    from fairlearn.reductions import EqualizedOdds

    def data():
        X, y, sf = _crime_classification(scale_features=True)
        return X, y, sf, {}

    metrics, axes = _error_and_gap(equalized_odds_difference, "eo_difference")
    # Jagielski et al. 2019's Sec. 5 parameters (beta, delta, B, the regression oracle); T = 20 rounds keeps a fit
    # fast (the paper's formula for T, max_iter=None, asks for far more at large epsilon). min_count=None: the
    # smallest (group, label) cell is bounded privately with 10% of epsilon, which fails below epsilon ~ 10 on these
    # rows (the fit says so); --param min_count=N declares a public bound instead.
    return _Problem({"constraints": EqualizedOdds(), "groups": [0, 1], "max_iter": 20, "feature_bound": 1.0,
                         "oracle": "regression"}, data, metrics, axes, _classification_report([0, 1]))


def _statistics_game_problem(dataset):
    from fairlearn.metrics import equalized_odds_difference
    from fairlearn.reductions import EqualizedOdds

    def data():
        X, y, sf = _crime_classification(scale_features=True)
        return X, y, sf, {}

    metrics, axes = _error_and_gap(equalized_odds_difference, "eo_difference")
    # The statistics game with its defaults (least-squares Learner, Fairlearn's 50 rounds).
    return _Problem({"constraints": EqualizedOdds(), "groups": [0, 1]}, data, metrics, axes,
                    _classification_report([0, 1]))


def _exponential_mechanism_problem(dataset):
    from fairlearn.metrics import true_positive_rate_difference

    from fairlearn_dp.reductions import linear_threshold_hypotheses

    def data():
        X, y, sf = _crime_classification(scale_features=True)
        return X, y, sf, {}

    metrics, axes = _error_and_gap(true_positive_rate_difference, "tpr_difference")  # equal opportunity
    # A public class fixed before the data are seen: the 196 signed axes of the 98 features and 32 random
    # directions (public seed 0), 16 thresholds each, and the two constants.
    hypotheses = linear_threshold_hypotheses(98, n_directions=32, n_thresholds=16, feature_bound=1.0,
                                             random_state=0)
    # delta = 1e-6 rather than the paper's exp(-sqrt(n)) (~1e-16 here), whose margin ln(1/delta) / epsilon_size
    # leaves no positive bound on the smallest group's positives below epsilon ~ 3 on these ~1,400 training rows.
    return _Problem({"hypotheses": hypotheses, "groups": [0, 1], "delta": 1e-6}, data, metrics, axes,
                    _classification_report([0, 1]))


def _gerryfair_problem(dataset):
    from fairlearn.metrics import false_positive_rate_difference

    def data():
        X, y, sf = _crime_classification(scale_features=True)
        return X, y, sf.astype(float), {}

    metrics, axes = _error_and_gap(false_positive_rate_difference, "fpr_difference")  # fairness_def='FP'
    return _Problem({"max_iters": 10, "fairness_def": "FP"}, data, metrics, axes, _classification_report([0.0, 1.0]))


def _group_budget_regression_problem(dataset):
    import numpy as np
    from sklearn.metrics import mean_squared_error

    from fairlearn_dp import datasets as ds

    from ._sweeps import metric

    if dataset == "law_school":
        low, high = ds.LAW_SCHOOL_BOUNDS
        scale = (high - low) / 2           # the target is fitted in [-1, 1]; errors are reported in GPA units

        def data():
            bunch = ds.fetch_law_school()
            X = np.column_stack([_to_unit(bunch.data["lsat"].to_numpy(dtype=float), *_LSAT_BOUNDS),
                                 2.0 * bunch.data["pass_bar"].to_numpy(dtype=float) - 1.0])
            y = _to_unit(bunch.target.to_numpy(dtype=float), low, high)
            return X, y, bunch.sensitive_features.to_numpy(), {}

        groups = _LAW_GROUPS
    else:
        scale = 1.0

        def data():
            bunch = ds.fetch_communities_crime()
            X = bunch.data.drop(columns=["racepctblack"]).to_numpy(dtype=float)
            return X, bunch.target.to_numpy(dtype=float), bunch.sensitive_features.to_numpy(), {}

        groups = [0, 1]

    def mse(y_true, y_pred):
        return scale ** 2 * mean_squared_error(y_true, y_pred)

    metrics = {"mse": metric(mse), "worst_group_mse": _worst_group(mse, "worst_group_mse")}
    return _Problem({"groups": groups, "data_bound": 1.0, "target_bound": 1.0}, data, metrics,
                    ("mse", "worst_group_mse"))


def _group_budget_classification_problem(dataset):
    import numpy as np
    from fairlearn.metrics import equalized_odds_difference

    def data():
        X, y, sf = _crime_classification(scale_features=True)
        return X, y, sf, {}

    metrics, axes = _error_and_gap(equalized_odds_difference, "eo_difference")
    metrics["worst_group_error"] = _worst_group(lambda t, p: float(np.mean(t != p)), "worst_group_error")
    return _Problem({"groups": [0, 1], "classes": [0, 1], "data_bound": 1.0}, data, metrics,
                    ("error", "worst_group_error"), _classification_report([0, 1]))


@dataclass(frozen=True)
class _SweepSpec:
    """How ``fairdp sweep`` runs one registry row: its datasets (the first is the default) and problem builder."""

    datasets: tuple
    problem: object          # problem(dataset) -> _Problem
    finite_epsilon: bool = False


#: Every Fairlearn-face registry row, on the bundled datasets that fit it (the AIF360 transformers wrap these
#: engines: sweep the engine). Tests check that this table, --help and the registry agree.
_SWEEPS = {
    "DPFairRegressionPostprocessor": _SweepSpec(("law_school", "communities_crime"), _fair_regression_problem),
    "DPThresholdOptimizer": _SweepSpec(("communities_crime", "adult"), _threshold_optimizer_problem),
    "DPExponentiatedGradient": _SweepSpec(("communities_crime",), _statistics_game_problem),
    # The grid search on the statistics game's releases: the same problem (least-squares best responses).
    "DPGridSearch": _SweepSpec(("communities_crime",), _statistics_game_problem),
    "JagielskiExponentiatedGradient": _SweepSpec(("communities_crime",), _exponentiated_gradient_problem),
    "ExponentialMechanismFairClassifier": _SweepSpec(("communities_crime",), _exponential_mechanism_problem),
    "DPGerryFairClassifier": _SweepSpec(("communities_crime",), _gerryfair_problem),
    "DPGroupBudgetRegressor": _SweepSpec(("law_school", "communities_crime"), _group_budget_regression_problem,
                                         finite_epsilon=True),
    "DPGroupBudgetClassifier": _SweepSpec(("communities_crime",), _group_budget_classification_problem,
                                          finite_epsilon=True),
}


def _is_scalar(value):
    import numbers

    return value is None or isinstance(value, (str, numbers.Number))


def _options_class(template):
    """The expert-settings dataclass of ``template``'s ``options`` parameter (``ThresholdOptimizerOptions``,
    ``StatisticsGameOptions``), read from its constructor's annotation; None when it has no such parameter.
    """
    import dataclasses
    import inspect
    import typing

    init = type(template).__init__
    parameter = inspect.signature(init).parameters.get("options")
    if parameter is None:
        return None
    hint = parameter.annotation
    # Postponed annotations are strings ("ThresholdOptimizerOptions | None"): names of the constructor's module.
    candidates = ([init.__globals__.get(name.strip()) for name in hint.split("|")] if isinstance(hint, str)
                  else typing.get_args(hint) or (hint,))
    return next((c for c in candidates if isinstance(c, type) and dataclasses.is_dataclass(c)), None)


def _sweepable(template, fixed):
    """Parameters ``--param`` may set: the estimator's scalar constructor parameters not set by the sweep itself
    and not object- or list-valued declarations of the problem (groups, bounds, the base estimator ...), and the
    scalar fields of its expert settings as ``options.<field>``.
    """
    import dataclasses

    own = template.get_params(deep=False)
    names = [name for name, value in own.items()
             if name not in _RESERVED_PARAMS and name not in _PROBLEM_PARAMS
             and _is_scalar(value) and _is_scalar(fixed.get(name))]
    options = _options_class(template)
    if options is not None and "options" not in fixed:
        current = own["options"] if own["options"] is not None else options()
        names += [f"options.{f.name}" for f in dataclasses.fields(options) if _is_scalar(getattr(current, f.name))]
    return sorted(names)


def _typed_values(key, current, values):
    """The values of one ``--param`` key, typed by the parameter's current value."""
    import numbers

    checked = []
    for raw, value in values:
        if isinstance(current, str):
            value = raw                          # a string parameter takes the text as typed
        elif isinstance(current, bool) and not isinstance(value, bool):
            raise _UsageError("--param", f"{key} expects true or false, got {raw!r}")
        elif (isinstance(current, numbers.Real) and not isinstance(current, bool)
              and (isinstance(value, bool) or not isinstance(value, numbers.Real))):
            raise _UsageError("--param", f"{key} expects a number, got {raw!r}")
        checked.append(value)
    return checked


def _check_params(chunks, template, estimator_name, fixed):
    """``--param`` pairs -> grid entries, checked against the estimator's parameters and their types.

    ``options.<field>`` keys set fields of the expert-settings object: the grid gets one ``options`` entry, the
    product of the fields' values (each an options object, the other fields at their defaults).
    """
    import dataclasses
    import itertools

    own = template.get_params(deep=False)
    sweepable = _sweepable(template, fixed)
    grid, option_fields = {}, {}
    for key, values in (pair for chunk in chunks or [] for pair in chunk):
        if key in _RESERVED_PARAMS:
            raise _UsageError("--param", f"{key} cannot be set: {_RESERVED_PARAMS[key]}")
        if key not in sweepable:
            what = (f"{key!r} of {estimator_name} is fixed by the sweep's problem" if key in own
                    else f"{estimator_name} has no parameter {key!r}")
            raise _UsageError("--param", f"{what}; the parameters it sweeps: {', '.join(sweepable)}")
        if key in grid or key.partition(".")[2] in option_fields:
            raise _UsageError("--param", f"{key} is given twice")
        if key.startswith("options."):
            field = key.partition(".")[2]
            default = own["options"] if own["options"] is not None else _options_class(template)()
            option_fields[field] = _typed_values(key, getattr(default, field), values)
        else:
            grid[key] = _typed_values(key, own[key], values)
    if option_fields:
        base = own["options"] if own["options"] is not None else _options_class(template)()
        grid["options"] = [dataclasses.replace(base, **dict(zip(option_fields, combo, strict=True)))
                           for combo in itertools.product(*option_fields.values())]
    return grid


def _sweep_setup(args):
    """Check the sweep's arguments (no data read): ``(dataset, problem, DP class, grid)``."""
    from .registry import entries, get

    name = args.estimator
    supported = ", ".join(_SWEEPS)
    if name not in _SWEEPS:
        row = next((e for e in entries() if name in (e.name, e.dp_class)), None)
        if row is not None and row.toolkit == "aif360":
            raise _UsageError("--estimator", f"{name} is an AIF360 transformer; sweep runs the Fairlearn-face "
                                             f"estimators (the same engines): choose from {supported}")
        raise _UsageError("--estimator", f"invalid choice {name!r} (choose from {supported})")
    spec = _SWEEPS[name]
    dataset = args.dataset or spec.datasets[0]
    if dataset not in spec.datasets:
        raise _UsageError("--dataset", f"{name} sweeps {' or '.join(spec.datasets)}, not {dataset}")
    if spec.finite_epsilon and any(math.isinf(e) for e in args.epsilon):
        raise _UsageError("--epsilon", f"{name} takes finite budgets only (zCDP), got inf")
    problem = spec.problem(dataset)
    if getattr(args, "private_report", None) is not None and problem.report is None:
        raise _UsageError("--private-report", f"{name} on {dataset} has no count metrics to report privately "
                                              "(its target is rescaled): run without --private-report")
    cls = get(name).load()
    grid = {"epsilon": list(dict.fromkeys(args.epsilon))}
    grid.update(_check_params(args.param, cls(**problem.params), name, problem.params))
    return dataset, problem, cls, grid


def _sweep(args):
    from ._sweeps import plot_tradeoff, privacy_fairness_sweep

    dataset, problem, cls, grid = _sweep_setup(args)
    n_settings = math.prod(len(values) for values in grid.values())
    if args.dry_run:
        print(f"{args.estimator} on {dataset}: {n_settings} settings x {args.seeds} seeds = "
              f"{n_settings * args.seeds} fits; grid {grid}")
        return 0
    out = _check_out(args.out)
    X, y, sf, extra = problem.data()
    estimator = cls(**problem.params, **extra)
    private_report = None if args.private_report is None else {**problem.report, "epsilon": args.private_report}
    try:
        result = privacy_fairness_sweep(estimator, grid, X, y, sensitive_features=sf, metrics=problem.metrics,
                                        n_seeds=args.seeds, n_jobs=args.n_jobs, random_state=args.seed,
                                        private_report=private_report)
    except (ValueError, TypeError) as error:
        # The estimator's own validation of a swept value (fit raises ValueError/TypeError for bad parameters).
        raise _UsageError("--epsilon/--param", f"{args.estimator} rejected a setting: {_one_line(error)}") from None
    result.table.to_csv(out / "sweep.csv", index=False)
    result.summary.to_csv(out / "summary.csv", index=False)
    x_metric, y_metric = problem.axes
    plot_tradeoff(result.summary, x=x_metric, y=y_metric, by="epsilon", path=out / "tradeoff.png",
                  title=f"{args.estimator} on {dataset}")
    print(result.summary.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    print(f"\nWritten: {out / 'sweep.csv'}, {out / 'summary.csv'}, {out / 'tradeoff.png'}")
    return 0


# -------------------------------------------------------------------------------------------------- audit
def _audit_names():
    from .registry import entries

    return [e.name for e in entries()]


def _check_audit(args):
    require_checkout("audit")
    _check_out(args.out)


def _audit(args):
    audit_registered = load_audit_cases().audit_registered
    # A progress bar over the 2 x --runs fits on standard error, only when it is a terminal (as the Monte Carlo).
    result = audit_registered(args.name, n_runs=args.runs, random_state=args.seed, progress=None)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    import pandas as pd

    row = {"estimator": args.name, "declared_epsilon": result.declared_epsilon,
           "epsilon_lower_bound": result.epsilon_lower_bound, "passed": result.passed, "verdict": _verdict(result),
           "n_runs": result.n_runs}
    pd.DataFrame([row]).to_csv(out / f"audit_{args.name}.csv", index=False)
    _plot_audit(result, args.name, out / f"audit_{args.name}.png")
    print(f"{args.name}: declared epsilon {result.declared_epsilon:g}, empirical lower bound "
          f"{result.epsilon_lower_bound:.4f} over {result.n_runs} runs per dataset -> {_verdict(result)}")
    print(f"Written: {out / f'audit_{args.name}.csv'}, {out / f'audit_{args.name}.png'}")
    return 0 if result.passed else 1


#: Verdicts of ``fairdp audit``. The audit can only find a violation: a bound below the declared epsilon says that
#: this event on these neighbours did not show one, not that the estimator is private.
AUDIT_NO_VIOLATION = "no violation detected (a lower bound; not a proof of privacy)"
AUDIT_VIOLATION = "VIOLATION DETECTED: the lower bound on epsilon exceeds the declared epsilon"


def _verdict(result):
    return AUDIT_NO_VIOLATION if result.passed else AUDIT_VIOLATION


def _plot_audit(result, name, path):
    """Event frequencies on the two neighbouring datasets, and the lower bound against the declared epsilon."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(8, 3.2))
    left.bar(["D", "D'"], [h / result.n_runs for h in result.hits], color=["tab:blue", "tab:orange"])
    left.set_ylabel("P[event] (empirical)")
    left.set_title(f"{result.n_runs} runs per dataset", fontsize=9)
    right.bar(["declared", "lower bound"], [result.declared_epsilon, result.epsilon_lower_bound],
              color=["tab:gray", "tab:green" if result.passed else "tab:red"])
    right.set_ylabel("epsilon")
    right.set_title("no violation detected (not a proof of privacy)" if result.passed
                    else "violation detected: lower bound > declared", fontsize=9)
    fig.suptitle(f"Privacy audit: {name}", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _build_parser():
    parser = _Parser(prog="fairdp", description=__doc__.split("\n\n")[0],
                     formatter_class=argparse.RawDescriptionHelpFormatter,
                     epilog="Run 'fairdp COMMAND --help' for a command's options.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    _add_reproduce(commands)
    _add_sweep(commands)
    _add_audit(commands)
    return parser


def _add_reproduce(commands):
    """The ``fairdp reproduce`` subcommand."""
    reproduce = commands.add_parser("reproduce", help="run a paper's reproduction (CSV + PNG + table)",
                                    description="Reproductions: " + "; ".join(
                                        f"{k}: {v[1]}" for k, v in _REPRODUCTIONS.items()))
    reproduce.add_argument("name", choices=sorted(_REPRODUCTIONS), help="which paper")
    reproduce.add_argument("--dataset", choices=["law_school", "communities_crime"],
                           help="xian2024 only: run one dataset")
    reproduce.add_argument("--out", type=Path, help="output directory (default: examples/output/<paper>)")
    reproduce.add_argument("--quick", action="store_true", help="few seeds / draws: a smoke run in seconds")
    reproduce.add_argument("--n-jobs", type=_positive_int, help="joblib workers (>= 1)")
    reproduce.add_argument("--seeds", type=_positive_int,
                           help=f"number of seeds (>= 1; {', '.join(_SEEDED_REPRODUCTIONS)})")
    reproduce.add_argument("--first-seed", type=_seed,
                           help=f"the seeds are first-seed, first-seed + 1, ... (an integer >= 0; "
                                f"{', '.join(_FIRST_SEED_REPRODUCTIONS)})")
    reproduce.set_defaults(handler=_reproduce, check=_check_reproduce, parser=reproduce)


def _add_sweep(commands):
    """The ``fairdp sweep`` subcommand."""
    estimators = "; ".join(f"{name} ({', '.join(spec.datasets)})" for name, spec in _SWEEPS.items())
    sweep = commands.add_parser("sweep", help="privacy-fairness-accuracy sweep of a DP estimator",
                                description="Sweep epsilon (and other parameters) of a Fairlearn-face DP "
                                            "estimator on a bundled dataset; writes sweep.csv, summary.csv and "
                                            "tradeoff.png (Pareto fronts per epsilon).")
    sweep.add_argument("--estimator", required=True, metavar="NAME",
                       help=f"one of: {estimators} -- datasets in parentheses, the first is the default")
    sweep.add_argument("--dataset", choices=_SWEEP_DATASETS,
                       help="bundled dataset (default: the estimator's first)")
    sweep.add_argument("--epsilon", required=True, nargs="+", type=_epsilon,
                       help="privacy budgets > 0, e.g. 0.1 1 inf (the DPGroupBudget* estimators take finite "
                            "budgets only; JagielskiExponentiatedGradient bounds its cell counts privately and needs "
                            "epsilon >= ~10 unless --param min_count=N declares a public bound)")
    sweep.add_argument("--param", action="append", type=_param, metavar="K=V1|V2,...",
                       help="extra grid over the estimator's scalar parameters, k=v1|v2,k2=v (e.g. "
                            "alpha=0|0.05,n_bins=12|36; tol=0|0.05) and the fields of its expert settings "
                            "(options.n_score_bins=10|20); values: numbers, inf, true/false, none or text")
    sweep.add_argument("--seeds", type=_positive_int, default=5, help="seeds per setting (>= 1, default 5)")
    sweep.add_argument("--seed", type=_seed, default=0, help="random_state of the sweep (default 0)")
    sweep.add_argument("--n-jobs", type=_positive_int, default=1, help="joblib workers (>= 1, default 1)")
    sweep.add_argument("--out", type=Path, default=Path("fairdp_sweep"), help="output directory")
    sweep.add_argument("--private-report", type=_epsilon, default=None, metavar="EPSILON",
                       help="also report each test split privately with DPMetricFrame at this epsilon (one release "
                            "of the per-group counts; columns private_*, report_epsilon)")
    sweep.add_argument("--dry-run", action="store_true",
                       help="check the arguments and print the grid, without loading data or fitting")
    sweep.set_defaults(handler=_sweep, check=None, parser=sweep)


def _add_audit(commands):
    """The ``fairdp audit`` subcommand."""
    names = _audit_names()
    audit = commands.add_parser("audit", help="empirical privacy audit of a registered DP estimator",
                                description="Run the estimator many times on two neighbouring datasets (its "
                                            "declared neighbouring relation) and report a Clopper-Pearson lower "
                                            "bound on epsilon; exit 1 if it exceeds the declared epsilon (a "
                                            "violation detected). A bound below it means no violation was "
                                            "detected, not that the estimator is private.")
    audit.add_argument("name", choices=names, metavar="NAME", help=f"registry name, one of: {', '.join(names)}")
    audit.add_argument("--runs", type=_positive_int, default=5000, help="runs per dataset (>= 1, default 5000)")
    audit.add_argument("--seed", type=_seed, default=0, help="random_state of the audit (default 0)")
    audit.add_argument("--out", type=Path, default=Path("fairdp_audit"), help="output directory")
    audit.set_defaults(handler=_audit, check=_check_audit, parser=audit)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``fairdp`` console script; returns the exit code.

    A bad argument prints one line, ``fairdp: error: argument ARG: ...``, on standard error and exits with status 2
    (``SystemExit``), also when the estimator rejects a swept parameter value during ``fairdp sweep``.
    """
    args = _build_parser().parse_args(argv)
    try:
        if args.check is not None:
            args.check(args)
        return args.handler(args)
    except _UsageError as error:
        args.parser.error(str(error))


if __name__ == "__main__":
    sys.exit(main())
