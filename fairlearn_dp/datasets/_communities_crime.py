"""Loader for the UCI Communities and Crime data as used by Xian et al. (violent-crime rate, two groups)."""

from __future__ import annotations

import math
import re

import pandas as pd
from sklearn.utils import Bunch

from .._utils._row_bounds import publish_row_norm_bounds
from ._base import check_loaded, data_path, make_bunch

__all__ = ["COMMUNITIES_CRIME_BOUNDS", "fetch_communities_crime"]

#: Public range of the target ``ViolentCrimesPerPop`` (normalised to [0, 1] by the UCI donors).
COMMUNITIES_CRIME_BOUNDS = (0.0, 1.0)

_DATA_FILE = "communities.data"
_NAMES_FILE = "communities.names"
_IDENTIFIERS = ("state", "county", "community", "communityname", "fold")
_TARGET = "ViolentCrimesPerPop"
_GROUP_SOURCE = "racepctblack"
_GROUP_THRESHOLD = 0.06
_GROUP_NAME = "black"
_N_ROWS = 1_994
_N_BLACK = 970

_ATTRIBUTE_LINE = re.compile(r"^@attribute\s+(\S+)\s+\S+", flags=re.MULTILINE)

_DESCR = """\
UCI Communities and Crime (Redmond 2009), violent-crime-rate regression
=======================================================================

Rows: 1,994 US communities. Features: the 99 numeric attributes without missing values (all normalised to [0, 1]
by the donors; they include racepctblack and the other race-share columns; a row's L2 norm is at most sqrt(99),
published as data.attrs["row_norm_bound"], see fetch_communities_crime). Target: ViolentCrimesPerPop, total
violent crimes per 100K population normalised to [0, 1], public bounds COMMUNITIES_CRIME_BOUNDS = (0.0, 1.0).
Sensitive feature: "black" = 1 if racepctblack > 0.06 (970 communities) else 0 (1,024, called "white" in the
paper), the group definition of Xian, Li, Kamath & Zhao (ICML 2024), "Differentially Private Post-Processing for
Fair Regression".

Source: the raw UCI files communities.data and communities.names, bundled from GitHub
HanaSturlan/Communities-and-Crime-Data-Set, commit 109972458a21f35e4973bd559cde88ca750a8d85; CRLF line endings
converted to LF (values unchanged), md5 4b2433c94afe43119fae78309a22778e (communities.data) and
676f2f6e6f86d68cec0fc606c10ac06e (communities.names).

Licence: UCI distributes this dataset under CC BY 4.0 (attribution: Redmond, M. (2009). Communities and Crime.
UCI Machine Learning Repository). See data/PROVENANCE.md.

Preprocessing applied by fetch_communities_crime:
- column names from the 128 @attribute lines of communities.names; '?' read as missing;
- drop the identifier columns state, county, community, communityname and fold;
- drop every column with at least one missing value (22 LEMAS police columns with 1,675 missing each, and
  OtherPerCap with one), as Xian et al. do; no row is dropped;
- target = ViolentCrimesPerPop, removed from the features.
"""


def _attribute_names(path):
    """Column names, in file order, from the ARFF-style ``@attribute`` lines of ``communities.names``."""
    return _ATTRIBUTE_LINE.findall(path.read_text(encoding="ascii"))


def fetch_communities_crime(*, as_frame: bool = True, return_X_y: bool = False) -> Bunch | tuple:
    """Load the UCI Communities and Crime data (regression of the violent-crime rate, two groups), offline.

    ==============   ============================================
    Samples total                                            1994
    Dimensionality                                             99
    Features         numeric, all in [0, 1]
    Target           ViolentCrimesPerPop, in COMMUNITIES_CRIME_BOUNDS
    Groups           black: 1 if racepctblack > 0.06, else 0
    ==============   ============================================

    Preprocessing and group definition follow the Communities and Crime experiment of Xian et al. [1]_ on the UCI
    data [2]_. The bundled files and what is done to them are described in ``DESCR`` and in
    ``data/PROVENANCE.md``.

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

        data : DataFrame or ndarray of shape (1994, 99)
            Numeric features without missing values, identifiers removed. As a DataFrame, its
            ``attrs["row_norm_bound"]`` publishes the public bound ``sqrt(99)`` on a row's L2 norm
            (``attrs["row_norm_bound_l1"]``: 99; every feature lies in [0, 1] by the donors' normalisation); the
            DP estimators that clip rows under ``privacy_unit="record"`` read it when their own bound is None. It
            survives row and column selections (``train_test_split``), not ``to_numpy()``.
        target : Series or ndarray of shape (1994,)
            ``ViolentCrimesPerPop``.
        frame : DataFrame of shape (1994, 100) or None
            ``data`` and ``target`` together; None when ``as_frame`` is False.
        feature_names : list of str
            The 99 feature names, in file order.
        target_names : list of str
            ``["ViolentCrimesPerPop"]``.
        sensitive_features : Series or ndarray of shape (1994,)
            Series named ``"black"`` of int 0/1 (970 ones, 1,024 zeros).
        DESCR : str
            Description, provenance, licence and preprocessing.

    (data, target) : tuple if ``return_X_y`` is True

    Notes
    -----
    The public bounds of the target are exported as :data:`COMMUNITIES_CRIME_BOUNDS`.

    References
    ----------
    .. [1] Xian, R., Li, Q., Kamath, G., & Zhao, H. (2024). Differentially Private Post-Processing for Fair
       Regression. ICML.
    .. [2] Redmond, M. (2009). Communities and Crime. UCI Machine Learning Repository. CC BY 4.0.
    """
    names = _attribute_names(data_path(_NAMES_FILE))
    raw = pd.read_csv(data_path(_DATA_FILE), header=None, names=names, na_values="?")
    check_loaded(raw.shape == (_N_ROWS, 128), "communities and crime", f"{_N_ROWS} rows x 128 columns")

    frame = raw.drop(columns=list(_IDENTIFIERS)).dropna(axis="columns", how="any")
    check_loaded(_TARGET in frame and _GROUP_SOURCE in frame, "communities and crime", "target and group source")
    target = frame.pop(_TARGET)
    black = (frame[_GROUP_SOURCE] > _GROUP_THRESHOLD).astype(int).rename(_GROUP_NAME)
    check_loaded(int(black.sum()) == _N_BLACK, "communities and crime", f"{_N_BLACK} communities in group black")

    # Every feature lies in [0, 1] (the donors' normalisation): a row's squares and absolute values sum to <= d.
    publish_row_norm_bounds(frame, l2=math.sqrt(frame.shape[1]), l1=frame.shape[1])
    return make_bunch(
        data=frame,
        target=target,
        sensitive_features=black,
        descr=_DESCR,
        as_frame=as_frame,
        return_X_y=return_X_y,
    )
