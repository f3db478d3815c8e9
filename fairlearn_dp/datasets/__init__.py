"""Real datasets bundled with fairdp, loaded offline with :mod:`fairlearn.datasets` return conventions.

Each ``fetch_*`` function reads raw files shipped inside the package (``data/``, with their sources, md5 sums and
licences in ``data/PROVENANCE.md``; nothing is ever downloaded). The supervised-learning loaders
(:func:`fetch_adult`, :func:`fetch_communities_crime`, :func:`fetch_law_school`) return a
:class:`sklearn.utils.Bunch` with ``data``, ``target``, ``frame``, ``feature_names``, ``target_names``, ``DESCR``
and additionally ``sensitive_features``, the group column(s) of the paper that uses the dataset, or
``(data, target)`` with ``return_X_y=True``. The regression datasets export the public bounds of their target
(``*_BOUNDS``), which DP mechanisms should use instead of the observed range.

Every feature frame with a public bound on the norm of its rows publishes it in ``attrs``: ``row_norm_bound`` (L2),
``row_norm_bound_l1`` (L1) and ``row_norm_bound_columns`` (the columns they cover), derived from the public domain,
not from the rows: :func:`adult_features` sqrt(11), :func:`fetch_law_school` sqrt(48^2 + 1),
:func:`fetch_communities_crime` sqrt(99). The record-level estimators read them when their own bound is None
(``row_norm_bound`` of ``DPExponentiatedGradient``, ``feature_norm_bound`` of ``DPGerryFairClassifier``). pandas
keeps ``attrs`` through row and column selections (``train_test_split``), not through ``to_numpy()``.

The census count loaders for the allocation experiments (:func:`fetch_school_districts`,
:func:`fetch_hawaii_counties`) have no features or target: their ``Bunch`` holds ``frame``, ``counts`` (the
counts x_i, indexed by district or county) and companion vectors aligned with them (e.g. the allocation weights
``weights``), plus ``DESCR``. Both files are stand-ins, not the data of the paper that motivates them; ``DESCR``
says how they differ.
"""

from ._adult import ADULT_PUBLIC_BOUNDS, adult_categories, adult_features, fetch_adult
from ._census import fetch_hawaii_counties, fetch_school_districts
from ._communities_crime import COMMUNITIES_CRIME_BOUNDS, fetch_communities_crime
from ._law_school import LAW_SCHOOL_BOUNDS, fetch_law_school

__all__ = [
    "adult_categories",
    "adult_features",
    "fetch_adult",
    "fetch_communities_crime",
    "fetch_law_school",
    "fetch_school_districts",
    "fetch_hawaii_counties",
    "COMMUNITIES_CRIME_BOUNDS",
    "LAW_SCHOOL_BOUNDS",
    "ADULT_PUBLIC_BOUNDS",
]
