"""Real datasets bundled with fairdp, loaded offline with :mod:`fairlearn.datasets` return conventions.

Each ``fetch_*`` function reads raw files shipped inside the package (``data/``, with their sources, md5 sums and
licences in ``data/PROVENANCE.md``; nothing is ever downloaded) and returns a :class:`sklearn.utils.Bunch` with
``data``, ``target``, ``frame``, ``feature_names``, ``target_names``, ``DESCR`` and additionally
``sensitive_features``, the group column(s) of the paper that uses the dataset, or ``(data, target)`` with
``return_X_y=True``. The regression datasets export the public bounds of their target (``*_BOUNDS``), which DP
mechanisms should use instead of the observed range.
"""

from ._adult import fetch_adult
from ._communities_crime import COMMUNITIES_CRIME_BOUNDS, fetch_communities_crime
from ._law_school import LAW_SCHOOL_BOUNDS, fetch_law_school

__all__ = [
    "fetch_adult",
    "fetch_communities_crime",
    "fetch_law_school",
    "COMMUNITIES_CRIME_BOUNDS",
    "LAW_SCHOOL_BOUNDS",
]
