"""Loaders for the census count data of Zhu, Fioretto & Van Hentenryck's allocation experiments (stand-ins).

Two offline loaders of count vectors x_i used by :mod:`fairlearn_dp.allocation`: SAIPE 2012 school-district counts of
children in poverty (stand-in for the Title I data) and Hawaii county household counts (stand-in for the paper's
2010 Census counts). Neither file is the paper's own data; ``DESCR`` and ``data/PROVENANCE.md`` say how they differ.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from numbers import Real

import pandas as pd
from sklearn.utils import Bunch

from ._base import check_loaded, data_path

__all__ = ["fetch_hawaii_counties", "fetch_school_districts"]

# --- SAIPE 2012 school districts (Title I stand-in) ----------------------------------------------------------------

_SAIPE_FILENAME = "school_districts_saipe.csv"
_SAIPE_TEXT_COLUMNS = ("state", "state_fips", "leaid", "district_id", "district_name")
_SAIPE_COUNT = "children_5_17_in_poverty"
_SAIPE_N_ROWS = 13_545
_SAIPE_TOTAL = 11_428_672
_PUERTO_RICO = "PR"
_PUERTO_RICO_COUNT = 342_935
_WEIGHT_NAME = "weight"

_SAIPE_DESCR = """\
SAIPE 2012 school districts: children 5-17 in poverty (stand-in for the Title I data of Zhu et al.)
==================================================================================================

Rows: 13,545 school districts of the 50 states, DC and Puerto Rico (Puerto Rico is a single district, 7200030,
with 342,935 poor children; include_puerto_rico=False leaves 13,544 districts with 11,085,737 poor children).
Counts x_i: children_5_17_in_poverty, the SAIPE estimate of "relevant children 5 to 17 years old in poverty who
are related to the householder" (the Title I formula count), total 11,428,672, min 0 (28 districts), median 188,
max 380,293 (New York City Department of Education, leaid 3620580). Index: leaid, the 7-digit NCES LEA id
(2-digit state FIPS + 5-digit district id), kept as text with its leading zeros.

Relation to the paper: Zhu, Fioretto & Van Hentenryck (IJCAI 2022), "Post-processing of Differentially Private Data:
A Fairness Perspective", allocate Title I funds as P_i = a_i x_i / sum_j a_j x_j over ~16,000 school districts
using 2010 counts and per-district weights a_i. Those data and weights are NOT available here: this is the SAIPE
2012 release (13,545 rows incl. Puerto Rico), and the weights default to a_i = 1 (allocation proportional to the
counts). To use state-level weights, e.g. each state's per-pupil expenditure (the SPPE factor of the Title I
formula), pass state_weights={"AL": ..., "AK": ..., ...}, a positive finite weight for every state present;
district i then gets a_i = state_weights[state of i]. No such weights are shipped.

Source: US Census Bureau, Small Area Income and Poverty Estimates, "2012 Poverty Estimates for School Districts"
(released December 2013), file ussd12.xls bundled here from GitHub bellwetherorg/edfinr_data_cleaning,
data/raw/saipe/ussd12.xls (blob eafb069c4dd9297d9b25e1d07a0dd1318ca833ba, last changed in commit
8a73e9939e2a534a930b45e260a8b312aeb0b5d7), converted to school_districts_saipe.csv (columns renamed, leaid and
saipe_year added, no row dropped, no value altered), md5 04a58f36503224244b37ee9d86991321.

Licence: US-government work (US Census Bureau), public domain. See data/PROVENANCE.md.

Preprocessing applied by fetch_school_districts: state, state_fips, leaid, district_id and district_name read as
text (leading zeros kept); optionally the Puerto Rico row dropped; nothing else. Caveat: in states with separate
elementary and secondary districts SAIPE counts the relevant children for each district's grade range.
"""


def fetch_school_districts(*, as_frame: bool = True, state_weights: Mapping[str, float] | None = None,
                           include_puerto_rico: bool = True) -> Bunch:
    """Load SAIPE 2012 school-district counts of children in poverty and Title I allocation weights, offline.

    ==============   ====================================================
    Districts        13545 (13544 without Puerto Rico)
    Counts x_i       children_5_17_in_poverty, total 11428672
    Weights a_i      1.0, or a positive weight per state (state_weights)
    Index            leaid (7-digit NCES id, text)
    ==============   ====================================================

    Stand-in for the Title I data of Zhu et al. [1]_, whose allocation is ``P_i = a_i x_i / sum_j a_j x_j``: the
    counts ``x_i`` are the SAIPE 2012 estimates [2]_ of poor children 5-17 per school district, and the weights
    ``a_i`` are all 1 unless a weight per state is supplied. The paper's 2010 data (~16,000 districts) and its
    per-district weights were not available; see ``DESCR`` and ``data/PROVENANCE.md``.

    Parameters
    ----------
    as_frame : bool, default=True
        If True, ``counts``, ``weights``, ``state`` and ``district_name`` are Series indexed by ``leaid`` and
        ``frame`` is the whole table. If False, they are numpy arrays (in the same order) and ``frame`` is None.
    state_weights : mapping of str to float, default=None
        Weight per state postal code (e.g. the state per-pupil expenditure); district ``i`` gets
        ``a_i = state_weights[state of i]``. Must hold a positive finite number for every state present
        (``"PR"`` only when ``include_puerto_rico`` is True); extra keys are ignored. None gives ``a_i = 1``.
    include_puerto_rico : bool, default=True
        If False, drop the Puerto Rico row (one district, 342,935 poor children).

    Returns
    -------
    dataset : :obj:`~sklearn.utils.Bunch`
        With fields:

        frame : DataFrame of shape (13545, 9) or None
            The whole table (``state``, ``state_fips``, ``leaid``, ``district_id``, ``district_name``,
            ``total_population``, ``children_5_17``, ``children_5_17_in_poverty``, ``saipe_year``) with a fresh
            RangeIndex; None when ``as_frame`` is False.
        counts : Series or ndarray of shape (13545,)
            int64 counts ``x_i``, Series named ``"children_5_17_in_poverty"`` indexed by ``leaid``.
        weights : Series or ndarray of shape (13545,)
            float64 weights ``a_i``, aligned with ``counts``.
        state : Series or ndarray of shape (13545,)
            State postal code of each district, aligned with ``counts``.
        district_name : Series or ndarray of shape (13545,)
            District name, aligned with ``counts``.
        DESCR : str
            Description, relation to the paper, provenance, licence and preprocessing.

    Raises
    ------
    TypeError
        If ``state_weights`` is not a mapping or one of its weights is not a real number.
    ValueError
        If ``state_weights`` misses a state present in the data (the message names them) or one of those states'
        weights is not positive and finite.

    References
    ----------
    .. [1] Zhu, K., Fioretto, F., & Van Hentenryck, P. (2022). Post-processing of Differentially Private Data: A
       Fairness Perspective. IJCAI.
    .. [2] US Census Bureau (2013). Small Area Income and Poverty Estimates: 2012 Poverty Estimates for School
       Districts.
    """
    raw = pd.read_csv(
        data_path(_SAIPE_FILENAME), dtype=dict.fromkeys(_SAIPE_TEXT_COLUMNS, str), keep_default_na=False
    )
    _check_saipe(raw)
    if not include_puerto_rico:
        raw = raw[raw["state"] != _PUERTO_RICO].reset_index(drop=True)

    leaid = pd.Index(raw["leaid"], name="leaid")
    counts = pd.Series(raw[_SAIPE_COUNT].to_numpy(dtype="int64"), index=leaid, name=_SAIPE_COUNT)
    state = pd.Series(raw["state"].to_numpy(), index=leaid, name="state")
    district_name = pd.Series(raw["district_name"].to_numpy(), index=leaid, name="district_name")
    weights = _allocation_weights(state, state_weights)

    if not as_frame:
        return Bunch(
            frame=None,
            counts=counts.to_numpy(),
            weights=weights.to_numpy(),
            state=state.to_numpy(),
            district_name=district_name.to_numpy(),
            DESCR=_SAIPE_DESCR,
        )
    return Bunch(
        frame=raw, counts=counts, weights=weights, state=state, district_name=district_name, DESCR=_SAIPE_DESCR
    )


def _check_saipe(raw):
    """Structural checks on the freshly parsed SAIPE file (see :func:`~._base.check_loaded`)."""
    name = "SAIPE school districts"
    check_loaded(len(raw) == _SAIPE_N_ROWS, name, f"{_SAIPE_N_ROWS} rows, got {len(raw)}")
    check_loaded(raw["leaid"].is_unique, name, "unique leaid")
    check_loaded(raw["leaid"].str.fullmatch(r"\d{7}").all(), name, "7-digit leaid")
    count = raw[_SAIPE_COUNT]
    check_loaded(pd.api.types.is_integer_dtype(count), name, f"integer {_SAIPE_COUNT}, got {count.dtype}")
    check_loaded(bool((count >= 0).all()), name, f"non-negative {_SAIPE_COUNT}")
    total = int(count.sum())
    check_loaded(total == _SAIPE_TOTAL, name, f"{_SAIPE_COUNT} totalling {_SAIPE_TOTAL}, got {total}")
    puerto_rico = count[raw["state"] == _PUERTO_RICO].tolist()
    check_loaded(puerto_rico == [_PUERTO_RICO_COUNT], name, f"one Puerto Rico row with {_PUERTO_RICO_COUNT}")


def _allocation_weights(state, state_weights):
    """Weights ``a_i`` of the allocation ``P_i = a_i x_i / sum_j a_j x_j``: 1, or the weight of district i's state.

    Parameters
    ----------
    state : pandas.Series
        State postal code of each district.
    state_weights : mapping of str to float or None
        Weight per state; must cover every state in ``state`` with a positive finite number.

    Returns
    -------
    pandas.Series
        float64 weights aligned with ``state``, named ``"weight"``.
    """
    if state_weights is None:
        return pd.Series(1.0, index=state.index, name=_WEIGHT_NAME, dtype="float64")
    if not isinstance(state_weights, Mapping):
        raise TypeError(
            "state_weights must be a mapping {state postal code: weight} or None, "
            f"got {type(state_weights).__name__}."
        )
    present = sorted(state.unique())
    missing = [code for code in present if code not in state_weights]
    if missing:
        raise ValueError(f"state_weights has no weight for state(s) {', '.join(missing)}.")
    for code in present:
        weight = state_weights[code]
        if isinstance(weight, bool) or not isinstance(weight, Real):
            raise TypeError(f"state_weights[{code!r}] must be a real number, got {type(weight).__name__}.")
    bad = {code: state_weights[code] for code in present if not _positive_finite(state_weights[code])}
    if bad:
        raise ValueError(f"state_weights must be positive and finite; invalid for {bad}.")
    return state.map({code: float(state_weights[code]) for code in present}).astype("float64").rename(_WEIGHT_NAME)


def _positive_finite(weight):
    return math.isfinite(weight) and weight > 0


# --- Hawaii counties (stand-in for the paper's 2010 household counts) ----------------------------------------------

_HAWAII_FILENAME = "hawaii_counties_usdata_2010.csv"
_HAWAII_COUNT = "households_acs5yr_2006_2010"
_HAWAII_POPULATION = "population_census2010"
_HAWAII_HOUSING = "housing_units_census2010"
_HAWAII_COUNTIES = ("Hawaii County", "Honolulu County", "Kalawao County", "Kauai County", "Maui County")
_HAWAII_TOTALS = {_HAWAII_COUNT: 442_267, _HAWAII_POPULATION: 1_360_301, _HAWAII_HOUSING: 519_508}

_HAWAII_DESCR = """\
Hawaii counties, households ACS 2006-2010 (STAND-IN, not the household counts of Zhu et al.)
===========================================================================================

Rows: Hawaii's 5 counties (Hawaii, Honolulu, Kalawao, Kauai, Maui County), indexed by county name.
Counts: households_acs5yr_2006_2010, the American Community Survey 5-year (2006-2010) estimate of households:
64,382 / 304,827 / 67 / 21,710 / 51,281, sum 442,267. Also: population (2010 Census, sum 1,360,301) and
housing_units (2010 Census, sum 519,508).

WARNING - this is NOT the paper's data. Zhu, Fioretto & Van Hentenryck (IJCAI 2022) use 2010 Census household
counts of the 5 counties with total C = 453,558; those counts were not found. No column of this file sums to
453,558 (households ACS 2006-2010: 442,267; housing units: 519,508; persons: 1,360,301). The household counts here
are the closest available stand-in; results computed on them are not a reproduction of the paper's numbers.

Source: R package usdata (OpenIntroStat), data/county_complete.rda on GitHub OpenIntroStat/usdata (blob
fea6bae8c63ed1c04bb77d6da64eb2561e6a7d16, last changed in commit e03a18da03943e20af2c5504170815c9e968c040), usdata
variables pop2010, housing_units_2010 and households_2010 ("Households (2006-2010)"), reduced to the 5 Hawaii rows
and saved as hawaii_counties_usdata_2010.csv (columns renamed, fips zero-padded), md5
8b3ef16c546d3ab42b9a1de2a6e759f0.

Licence: the usdata package is GPL-3; the figures are US Census Bureau data (US-government work, public domain).
See data/PROVENANCE.md.

Preprocessing applied by fetch_hawaii_counties: fips read as text; nothing else.
"""


def fetch_hawaii_counties(*, as_frame: bool = True) -> Bunch:
    """Load household counts of Hawaii's 5 counties (ACS 2006-2010 stand-in for the paper's data), offline.

    ==============   =========================================
    Counties         5
    Counts           households_acs5yr_2006_2010, sum 442267
    Also             population, housing_units (2010 Census)
    Index            county name
    ==============   =========================================

    Stand-in for the 2010 Census household counts of Hawaii's counties used by Zhu et al. [1]_ (total
    ``C = 453,558``). The counts shipped are ACS 2006-2010 household estimates summing to 442,267: **not** the
    paper's data, see ``DESCR`` and ``data/PROVENANCE.md``.

    Parameters
    ----------
    as_frame : bool, default=True
        If True, ``counts``, ``population`` and ``housing_units`` are Series indexed by county name and ``frame``
        is the whole table. If False, they are numpy arrays (in the same order) and ``frame`` is None.

    Returns
    -------
    dataset : :obj:`~sklearn.utils.Bunch`
        With fields:

        frame : DataFrame of shape (5, 5) or None
            The whole table (``fips``, ``county``, ``population_census2010``, ``housing_units_census2010``,
            ``households_acs5yr_2006_2010``); None when ``as_frame`` is False.
        counts : Series or ndarray of shape (5,)
            int64 households (ACS 2006-2010), Series named ``"households_acs5yr_2006_2010"`` indexed by county.
        population : Series or ndarray of shape (5,)
            int64 2010 Census population, aligned with ``counts``.
        housing_units : Series or ndarray of shape (5,)
            int64 2010 Census housing units, aligned with ``counts``.
        DESCR : str
            Description, the warning that these are not the paper's counts, provenance and licence.

    References
    ----------
    .. [1] Zhu, K., Fioretto, F., & Van Hentenryck, P. (2022). Post-processing of Differentially Private Data: A
       Fairness Perspective. IJCAI.
    """
    raw = pd.read_csv(data_path(_HAWAII_FILENAME), dtype={"fips": str, "county": str})
    name = "Hawaii counties"
    check_loaded(tuple(raw["county"]) == _HAWAII_COUNTIES, name, f"counties {_HAWAII_COUNTIES}")
    for column, total in _HAWAII_TOTALS.items():
        check_loaded(pd.api.types.is_integer_dtype(raw[column]), name, f"integer {column}")
        check_loaded(bool((raw[column] >= 0).all()), name, f"non-negative {column}")
        check_loaded(int(raw[column].sum()) == total, name, f"{column} totalling {total}, got {raw[column].sum()}")

    county = pd.Index(raw["county"], name="county")

    def series(column, series_name):
        return pd.Series(raw[column].to_numpy(dtype="int64"), index=county, name=series_name)

    fields = {
        "counts": series(_HAWAII_COUNT, _HAWAII_COUNT),
        "population": series(_HAWAII_POPULATION, "population"),
        "housing_units": series(_HAWAII_HOUSING, "housing_units"),
    }
    if not as_frame:
        return Bunch(frame=None, **{key: value.to_numpy() for key, value in fields.items()}, DESCR=_HAWAII_DESCR)
    return Bunch(frame=raw, **fields, DESCR=_HAWAII_DESCR)
