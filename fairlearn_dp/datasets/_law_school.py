"""Loader for the LSAC Law School data as used by Xian et al. (undergraduate GPA, four race groups)."""

from __future__ import annotations

import math

import pandas as pd
from sklearn.utils import Bunch

from .._utils._row_bounds import publish_row_norm_bounds
from ._base import check_loaded, data_path, make_bunch

__all__ = ["LAW_SCHOOL_BOUNDS", "fetch_law_school"]

#: Public range of the target ``ugpa`` (a GPA on a 4-point scale), the bound ``(1, 4)`` of Xian et al.
LAW_SCHOOL_BOUNDS = (1.0, 4.0)

_FILENAME = "bar_pass_prediction.csv"
_TARGET = "ugpa"
_GROUP_SOURCE = "race1"
_GROUP_NAME = "race"
_GROUPS = ("asian", "black", "hisp", "white")
_GROUP_COUNTS = {"asian": 897, "black": 1_343, "hisp": 1_027, "white": 18_716}
_N_ROWS = 21_983

# Numeric columns that carry no copy of the target, no encoding of the group and no NaN in the 21,983 kept rows.
# Every other numeric column fails one of these tests (see the DESCR below for the column-by-column reasons).
_FEATURES = ("lsat", "pass_bar")
# Their public ranges: the LSAT score scale of 1982-1991 (10-48), on which the study's scores are given (observed
# 11-48), and a 0/1 indicator. A row's L2 norm is at most sqrt(48^2 + 1^2), its L1 norm at most 49.
_FEATURE_RANGES = {"lsat": (10.0, 48.0), "pass_bar": (0.0, 1.0)}

_DESCR = """\
LSAC National Longitudinal Bar Passage Study (Wightman 1998), law-school GPA regression
=======================================================================================

Rows: 21,983 students (asian 897, black 1,343, hisp 1,027, white 18,716). Features: lsat (LSAT score, 11-48
observed, on the 1982-1991 LSAT scale 10-48), pass_bar (1 if the student eventually passed the bar exam); a row's L2
norm is at most sqrt(48^2 + 1) ~ 48.01 (published as data.attrs["row_norm_bound"], see fetch_law_school). Target:
ugpa, undergraduate GPA, observed range [1.5, 3.9], public bounds LAW_SCHOOL_BOUNDS = (1.0, 4.0). Sensitive feature:
"race" (from column race1) with values 'asian', 'black', 'hisp', 'white'. This is the population and group variable
of Xian, Li, Kamath & Zhao (ICML 2024), "Differentially Private Post-Processing for Fair Regression".

Source: bar_pass_prediction.csv (22,407 rows x 38 columns), the copy hosted at
storage.googleapis.com/lawschool_dataset/ (TensorFlow Constrained Optimization examples) that the Xian et al.
notebook downloads; bundled here from GitHub
TheRohanVerma/CMPUT622_FairSMOTE_vs_FairClassBal, data/bar_pass_prediction.csv, commit
a895803f7e2a09010dc2185653081b790a164096, md5 c1a96f051a9a1db838b0a80eef68d1d6 (file unchanged).

Licence: unknown. The source repository has no licence file and no licence from LSAC for this extract was found;
the data are redistributed widely in the fairness literature. See data/PROVENANCE.md.

Preprocessing applied by fetch_law_school:
- read with index_col=0 as Xian et al. do (the first column, decile1b, becomes the index and is discarded;
  the returned objects have a fresh RangeIndex);
- keep rows with race1 in {asian, black, hisp, white} (drops 424 rows: 408 "other", 16 missing race1);
- features = lsat and pass_bar only. Excluded: gpa (an exact copy of ugpa), index6040 (= 15.789473 * lsat
  + 100 * ugpa + const, exactly), indxgrp/indxgrp2 (bins of index6040), dnn_bar_pass_prediction (a model output
  correlated 0.64 with ugpa but 0.14 with lsat, so it very likely uses ugpa), race/race1/race2/asian/black/hisp/
  other (encodings of the group; note hisp and other are all zero in this file), ID (identifier), text columns,
  and every numeric column with NaN in the kept rows (decile1, decile3, zfygpa, zgpa, cluster, tier, fam_inc,
  age, DOB_yr, sex, male, fulltime, parttime, bar1_yr, bar2_yr), so no row is dropped for missing values.
"""


def fetch_law_school(*, as_frame: bool = True, return_X_y: bool = False) -> Bunch | tuple:
    """Load the LSAC Law School data (regression of undergraduate GPA, four race groups), offline.

    ==============   ===================================
    Samples total                                  21983
    Dimensionality                                     2
    Features         numeric (lsat, pass_bar)
    Target           ugpa, in LAW_SCHOOL_BOUNDS = (1, 4)
    Groups           race: asian, black, hisp, white
    ==============   ===================================

    The population, target and groups are those of the Law School experiment of Xian et al. [1]_: students of
    the LSAC National Longitudinal Bar Passage Study [2]_ whose ``race1`` is asian, black, hisp or white. The
    bundled file and what is done to it are described in ``DESCR`` and in ``data/PROVENANCE.md``.

    Parameters
    ----------
    as_frame : bool, default=True
        If True, ``data`` is a DataFrame, ``target`` and ``sensitive_features`` are Series and ``frame`` is
        ``data`` and ``target`` side by side. If False, they are numpy arrays and ``frame`` is None.
    return_X_y : bool, default=False
        If True, return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    dataset : :obj:`~sklearn.utils.Bunch`
        With fields:

        data : DataFrame or ndarray of shape (21983, 2)
            Features ``lsat`` and ``pass_bar`` (float when returned as an array). As a DataFrame, its
            ``attrs["row_norm_bound"]`` publishes the public bound ``sqrt(48^2 + 1)`` on a row's L2 norm
            (``attrs["row_norm_bound_l1"]``: 49), from the public ranges lsat 10-48 (the LSAT scale of 1982-1991)
            and pass_bar 0/1; the DP estimators that clip rows under ``privacy_unit="record"`` read it when their
            own bound is None. It survives row and column selections (``train_test_split``), not ``to_numpy()``.
        target : Series or ndarray of shape (21983,)
            ``ugpa``, undergraduate GPA, observed range [1.5, 3.9].
        frame : DataFrame of shape (21983, 3) or None
            ``data`` and ``target`` together; None when ``as_frame`` is False.
        feature_names : list of str
            ``["lsat", "pass_bar"]``.
        target_names : list of str
            ``["ugpa"]``.
        sensitive_features : Series or ndarray of shape (21983,)
            Series named ``"race"`` with values ``'asian'``, ``'black'``, ``'hisp'``, ``'white'``.
        DESCR : str
            Description, provenance, licence and preprocessing.

    (data, target) : tuple if ``return_X_y`` is True

    Notes
    -----
    The public bounds of the target are exported as :data:`LAW_SCHOOL_BOUNDS`; DP mechanisms that need a
    data-independent output range should use them rather than the observed minimum and maximum.

    References
    ----------
    .. [1] Xian, R., Li, Q., Kamath, G., & Zhao, H. (2024). Differentially Private Post-Processing for Fair
       Regression. ICML.
    .. [2] Wightman, L. F. (1998). LSAC National Longitudinal Bar Passage Study. Law School Admission Council.
    """
    raw = pd.read_csv(data_path(_FILENAME), index_col=0)
    rows = raw[raw[_GROUP_SOURCE].isin(_GROUPS)].reset_index(drop=True)

    check_loaded(len(rows) == _N_ROWS, "law school", f"{_N_ROWS} rows in the four groups, got {len(rows)}")
    counts = rows[_GROUP_SOURCE].value_counts().to_dict()
    check_loaded(counts == _GROUP_COUNTS, "law school", f"group counts {_GROUP_COUNTS}, got {counts}")
    kept = rows[[*_FEATURES, _TARGET]]
    check_loaded(not kept.isna().any().any(), "law school", "no missing value in the features and target")

    highs = [max(abs(low), abs(high)) for low, high in _FEATURE_RANGES.values()]
    data = publish_row_norm_bounds(rows[list(_FEATURES)], l2=math.sqrt(sum(h * h for h in highs)), l1=sum(highs))
    return make_bunch(
        data=data,
        target=rows[_TARGET],
        sensitive_features=rows[_GROUP_SOURCE].rename(_GROUP_NAME),
        descr=_DESCR,
        as_frame=as_frame,
        return_X_y=return_X_y,
    )
