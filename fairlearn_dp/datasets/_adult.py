"""Loader for the UCI Adult (Census Income) data, train and test files together, read from the bundled raw files."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
from sklearn.utils import Bunch

from .._utils._row_bounds import publish_row_norm_bounds
from .._utils._validation import check_choice
from ._base import check_loaded, data_path, make_bunch

__all__ = ["fetch_adult", "adult_categories"]

_TRAIN_FILE = "adult.data"
_TEST_FILE = "adult.test"
_NAMES_FILE = "adult.names"
_TARGET = "class"
_LABELS = ("<=50K", ">50K")
_SENSITIVE = ("sex", "race")
_N_TRAIN = 32_561
_N_TEST = 16_281

# Attribute lines of adult.names, e.g. "age: continuous." or "sex: Female, Male."
_ATTRIBUTE_LINE = re.compile(r"^([A-Za-z][\w-]*):\s*(.*?)\.?\s*$", flags=re.MULTILINE)

_DESCR = """\
UCI Adult / Census Income (Kohavi & Becker 1996), income classification
=======================================================================

Rows: 48,842 adults (adult.data, 32,561 rows, followed by adult.test, 16,281 rows). Features: the 14 attributes of
adult.names (age, workclass, fnlwgt, education, education-num, marital-status, occupation, relationship, race,
sex, capital-gain, capital-loss, hours-per-week, native-country); the 6 numeric ones as int64, the 8 others as
pandas 'category'. Target: "class", '<=50K' or '>50K' (23.9% '>50K'). Sensitive features: a DataFrame with the
columns sex (Female 16,192 / Male 32,650) and race (White 41,762, Black 4,685, Asian-Pac-Islander 1,519,
Amer-Indian-Eskimo 470, Other 406).

Source: the raw UCI files adult.data, adult.test and adult.names, bundled from GitHub YuzhongHuangCS/fairness,
commit 10dcbc38734e5f95a574c44de972b8e084229d38, restored byte for byte to the UCI originals: md5
5d7c39d7b8804f071cdd1f2a7c460872 (adult.data), 35238206dfdf7f1fe215bbb874adecdc (adult.test),
1a7cdb3ff7a1b709968b1c7a11def63e (adult.names).

Licence: UCI distributes this dataset under CC BY 4.0 (attribution: Becker, B. & Kohavi, R. (1996). Adult. UCI
Machine Learning Repository). See data/PROVENANCE.md.

Preprocessing applied by fetch_adult:
- column names from the attribute lines of adult.names, plus "class" for the label;
- adult.test's first line ("|1x3 Cross validator") skipped, the trailing "." of its labels removed;
- whitespace around values stripped; '?' read as missing (workclass 2,799, occupation 2,809, native-country 857
  values; 3,620 rows have at least one), rows kept, as in the OpenML copy fairlearn.datasets.fetch_adult returns
  (AIF360's AdultDataset drops them, leaving 45,222);
- train rows first, then test rows, index 0..48841.
"""


def _attribute_kinds(path):
    """``{name: is_continuous}`` in file order, from the attribute lines of ``adult.names``."""
    return {name: values == "continuous" for name, values in _ATTRIBUTE_LINE.findall(path.read_text(encoding="ascii"))}


def adult_categories() -> dict[str, list[str]]:
    """The public codebook: ``{attribute: [values]}`` for the 8 categorical attributes, from ``adult.names``.

    Use it (not the values found in the data) to declare ``groups`` and to one-hot encode: the codebook is
    public, whereas which values occur in a sample, and how often, is a property of the private records.
    """
    text = data_path(_NAMES_FILE).read_text(encoding="ascii")
    return {name: [value.strip() for value in values.split(",")]
            for name, values in _ATTRIBUTE_LINE.findall(text) if values != "continuous"}


#: Public bounds of the numeric Adult attributes (from ``adult.names`` and the census top codes), used by
#: :func:`adult_features` to scale them without reading the data: age 17-90, education-num 1-16, hours 1-99, and the
#: capital gain/loss top codes.
ADULT_PUBLIC_BOUNDS = {"age": (17, 90), "education-num": (1, 16), "capital-gain": (0, 99999),
                       "capital-loss": (0, 4356), "hours-per-week": (1, 99)}


def adult_features(sensitive: str = "sex") -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """Adult as a model-ready ``(X, y, a)`` whose feature set and scaling are public (read no statistic of the data).

    - ``X``: a float DataFrame. The five numeric attributes are clipped to :data:`ADULT_PUBLIC_BOUNDS` and mapped
      to [0, 1] (capital gain/loss as ``log1p(v) / log1p(top code)``); every categorical attribute is one-hot
      encoded over the public codebook (:func:`adult_categories`), plus one "missing" indicator per attribute.
      ``sex``, ``race`` and ``fnlwgt`` are not features. Every row has values in [0, 1] and exactly one indicator
      per categorical attribute is 1 (6 attributes), so its L2 norm is at most ``sqrt(5 + 6) ~ 3.32`` and its L1
      norm at most 11, for every possible record (one at the upper bound of all five numeric attributes reaches both).
      ``X.attrs["row_norm_bound"]`` publishes ``sqrt(11)`` (and ``X.attrs["row_norm_bound_l1"]`` 11): the DP
      estimators that clip rows under ``privacy_unit="record"`` use it when their own bound is None. It survives
      row and column selections such as ``train_test_split``; not ``X.to_numpy()`` (pass
      ``row_norm_bound=X.attrs["row_norm_bound"]`` then).
    - ``y``: 0/1 numpy array, 1 for income ``>50K``.
    - ``a``: the ``sensitive`` column (``"sex"`` or ``"race"``) as a numpy array of strings; declare its groups
      from the codebook, ``sorted(adult_categories()[sensitive])``, not from the data.

    Because the columns come from the codebook (not from the values found in the sample), the feature set is the
    same for every dataset: public under either privacy unit.
    """
    check_choice(sensitive, "sensitive", ("sex", "race"))
    data = fetch_adult()
    codebook = adult_categories()
    frame = data.data.drop(columns=["fnlwgt", "sex", "race"])
    y = (data.target.astype(str) == ">50K").astype(int).to_numpy()
    a = data.sensitive_features[sensitive].astype(str).to_numpy()
    columns = []
    for column, (low, high) in ADULT_PUBLIC_BOUNDS.items():
        values = frame[column].astype(float).clip(low, high)
        values = np.log1p(values) / np.log1p(high) if column.startswith("capital") else (values - low) / (high - low)
        columns.append(values.rename(column))
    for column in frame.columns.drop(list(ADULT_PUBLIC_BOUNDS)):
        values = frame[column].astype(object)
        for value in codebook[column]:
            columns.append((values == value).astype(float).rename(f"{column}_{value}"))
        columns.append(values.isna().astype(float).rename(f"{column}_missing"))
    # Each numeric column lies in [0, 1] and each categorical block holds exactly one 1: the squares (and the
    # absolute values) of a row sum to at most the number of attributes.
    n_attributes = len(ADULT_PUBLIC_BOUNDS) + len(frame.columns.drop(list(ADULT_PUBLIC_BOUNDS)))
    # .copy() consolidates the ~100 one-column blocks: else a user's X.assign(...) warns "highly fragmented".
    X = publish_row_norm_bounds(pd.concat(columns, axis=1).copy(), l2=math.sqrt(n_attributes), l1=n_attributes)
    return X, y, a


def _read_split(filename, columns, skiprows):
    """One of the two data files, values stripped, ``'?'`` as missing, trailing ``'.'`` removed from labels."""
    frame = pd.read_csv(
        data_path(filename), header=None, names=columns, skiprows=skiprows, skipinitialspace=True, na_values="?"
    )
    # Text columns are "object" under pandas 2 and "str" under pandas 3 (selecting "object" alone warns there).
    text = frame.select_dtypes(include=["object", "string"]).columns
    frame[text] = frame[text].apply(lambda column: column.str.strip())
    frame[_TARGET] = frame[_TARGET].str.rstrip(".")
    return frame


def fetch_adult(*, as_frame: bool = True, return_X_y: bool = False) -> Bunch | tuple:
    """Load the UCI Adult data (binary income classification), offline, from the bundled raw UCI files.

    ==============   ====================
    Samples total                   48842
    Dimensionality                     14
    Features         numeric, categorical
    Classes                             2
    ==============   ====================

    The same 48,842 rows and 14 features as :func:`fairlearn.datasets.fetch_adult` (OpenML data id 1590) [1]_,
    without a download. The bundled files and what is done to them are described in ``DESCR`` and in
    ``data/PROVENANCE.md``.

    Parameters
    ----------
    as_frame : bool, default=True
        If True, ``data`` is a DataFrame (numeric columns int64, the others 'category'), ``target`` a
        categorical Series, ``sensitive_features`` a DataFrame and ``frame`` is ``data`` and ``target`` side by
        side. If False, they are numpy arrays (object dtype for ``data`` and ``sensitive_features``) and
        ``frame`` is None.
    return_X_y : bool, default=False
        If True, return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    dataset : :obj:`~sklearn.utils.Bunch`
        With fields:

        data : DataFrame or ndarray of shape (48842, 14)
            The 14 attributes, missing values (``'?'`` in the files) as NaN.
        target : Series or ndarray of shape (48842,)
            ``class``: ``'<=50K'`` or ``'>50K'``.
        frame : DataFrame of shape (48842, 15) or None
            ``data`` and ``target`` together; None when ``as_frame`` is False.
        feature_names : list of str
            The 14 attribute names of ``adult.names``, in file order.
        target_names : list of str
            ``["class"]``.
        sensitive_features : DataFrame or ndarray of shape (48842, 2)
            Columns ``sex`` and ``race``.
        DESCR : str
            Description, provenance, licence and preprocessing.

    (data, target) : tuple if ``return_X_y`` is True

    References
    ----------
    .. [1] Kohavi, R., & Becker, B. (1996). Scaling Up the Accuracy of Naive-Bayes Classifiers: a Decision-Tree
       Hybrid. KDD. Data: Becker, B. & Kohavi, R. (1996). Adult. UCI Machine Learning Repository. CC BY 4.0.
    """
    kinds = _attribute_kinds(data_path(_NAMES_FILE))
    columns = [*kinds, _TARGET]
    train = _read_split(_TRAIN_FILE, columns, skiprows=0)
    test = _read_split(_TEST_FILE, columns, skiprows=1)
    check_loaded((len(train), len(test)) == (_N_TRAIN, _N_TEST), "adult", f"{_N_TRAIN} + {_N_TEST} rows")

    frame = pd.concat([train, test], ignore_index=True)
    labels = set(frame[_TARGET].unique())
    check_loaded(labels == set(_LABELS), "adult", f"labels {_LABELS}, got {sorted(map(str, labels))}")
    categorical = [name for name, continuous in kinds.items() if not continuous]
    frame[categorical] = frame[categorical].astype("category")
    target = frame.pop(_TARGET).astype("category")

    return make_bunch(
        data=frame,
        target=target,
        sensitive_features=frame[list(_SENSITIVE)].copy(),
        descr=_DESCR,
        as_frame=as_frame,
        return_X_y=return_X_y,
    )
