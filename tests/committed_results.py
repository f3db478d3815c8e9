"""The committed results of the example scripts (``docs/img``) and the check that a run writes their format.

``COMMITTED`` maps each script whose full run is committed to ``{file in docs/img: the file the script writes under
--out}``. :func:`check_committed_columns` checks that a run's files (a ``--quick`` run in a fresh interpreter,
``tests/examples/test_examples_fresh_subprocess.py``) have the committed files' columns, so the committed files are
that script's output format; ``tests/examples/test_reproduction_results.py`` checks what the gallery pages read of
them.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

IMG = Path(__file__).resolve().parents[1] / "docs" / "img"

#: script -> {committed file in docs/img: the file the script writes under --out}
COMMITTED = {
    "blind_fair_regression.py": {"blind_fair_regression_summary.csv": "summary.csv"},
    "jagielski2019_postprocessing.py": {"jagielski2019_postprocessing_summary.csv": "summary.csv"},
    "jagielski2019_inprocessing.py": {"jagielski2019_inprocessing_summary.csv": "summary.csv"},
    "zhu2022_allocation.py": {"zhu2022_table1.csv": "table1_data_release.csv",
                              "zhu2022_table1_entities.csv": "table1_entities.csv",
                              "zhu2022_table2.csv": "table2_allocation.csv",
                              "zhu2022_table2_children_5_17.csv": "table2_allocation.csv"},
}


def check_committed_columns(out: Path, script_name: str) -> None:
    """The files a run of ``script_name`` wrote to ``out`` have the columns of its committed files (if any)."""
    for committed, written in COMMITTED.get(script_name, {}).items():
        path = out / written
        assert path.is_file(), f"the quick run did not write {written}"
        assert list(pd.read_csv(path, nrows=0).columns) == list(pd.read_csv(IMG / committed, nrows=0).columns), (
            f"{written} (quick run) and docs/img/{committed} have different columns: re-run the script in full "
            "and copy its output")
