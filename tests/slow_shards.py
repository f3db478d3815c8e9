"""The slow leg in shards: ``pytest -m slow --slow-shard K/N`` runs the K-th of N parts of the slow tests.

``.ci/run`` runs one shard per CI run (chosen from the commit, :func:`ci_shard`), so that a CI run on two cores stays
under 30 minutes; every shard runs in turn, and ``pytest -m slow`` (no option) runs them all. The parts are balanced
by the measured time of each test (:data:`TABLE`, ``tests/slow_shards.json``); a test not in the table (a new one)
goes to the shard its name hashes to, and the tests that share one run (one ``xdist_group``) always share a shard.

Refresh the table after the slow leg's times change (from a run with ``--durations=0``)::

    .venv/bin/python -m pytest -m slow --dist loadgroup --durations=0 -q > slow.txt
    .venv/bin/python tests/slow_shards.py slow.txt [default.txt ...]

Tests marked ``outside_ci`` as well run with ``pytest -m slow`` but in no shard: a single run longer than a whole CI
run's budget (docs/development.md says which and when to run them).
"""

from __future__ import annotations

import json
import re
import sys
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
TABLE_PATH = HERE / "slow_shards.json"
#: The number of shards ``.ci/run`` cycles through.
N_SHARDS = 3
#: The most measured test time (seconds, the table's) one part may hold. A part of 911 s took 10 minutes of the
#: 24-minute ``.ci/run`` measured on the 2-core machine (docs/performance.md, "The test suite"); 1,200 s would take
#: about 13 of them, 28 minutes in all, within the 30-minute goal. A larger part needs more parts or ``outside_ci``.
PART_BUDGET_SECONDS = 1200.0


def _load_table() -> dict:
    return json.loads(TABLE_PATH.read_text()) if TABLE_PATH.exists() else {"shards": N_SHARDS, "seconds": {}}


TABLE = _load_table()


def parse(spec: str) -> tuple[int, int]:
    """``"K/N"`` -> ``(K, N)`` with ``1 <= K <= N``; anything else is a ``ValueError`` naming the option."""
    match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", str(spec))
    if match is None or not 1 <= int(match.group(1)) <= int(match.group(2)):
        raise ValueError(f"--slow-shard must be K/N with 1 <= K <= N, e.g. 1/{N_SHARDS}; got {spec!r}.")
    return int(match.group(1)), int(match.group(2))


def key_of(nodeid: str, group: str | None) -> str:
    """The unit that goes to one shard: the ``xdist_group`` (its tests share a run), else the test."""
    return f"group:{group}" if group else nodeid


def _hash_shard(key: str, n: int) -> int:
    return zlib.crc32(key.encode()) % n + 1


def assign(seconds: dict[str, float], n: int) -> dict[str, int]:
    """Longest first, each unit to the shard with the least time so far (ties: the lower shard)."""
    totals = [0.0] * n
    shards = {}
    for key in sorted(seconds, key=lambda k: (-seconds[k], k)):
        shard = min(range(n), key=lambda i: (totals[i], i))
        totals[shard] += seconds[key]
        shards[key] = shard + 1
    return shards


def shard_map(keys, n: int, table: dict | None = None) -> dict[str, int]:
    """The shard (1..n) of each unit: balanced from the table's times when the table was made for ``n`` shards and
    lists the unit, otherwise the hash of its key."""
    table = TABLE if table is None else table
    balanced = assign(table["seconds"], n) if table.get("shards") == n else {}
    return {key: balanced.get(key) or _hash_shard(key, n) for key in keys}


def select(items, spec: str) -> tuple[list, list]:
    """``(kept, deselected)`` pytest items for ``--slow-shard spec``: the slow tests of the shard, none of the
    ``outside_ci`` ones; tests not marked slow are kept (the option only divides the slow leg)."""
    k, n = parse(spec)
    keys = {item.nodeid: key_of(item.nodeid, _group_of(item)) for item in items}
    shards = shard_map(set(keys.values()), n)
    kept, dropped = [], []
    for item in items:
        slow = item.get_closest_marker("slow") is not None
        outside = item.get_closest_marker("outside_ci") is not None
        (dropped if slow and (outside or shards[keys[item.nodeid]] != k) else kept).append(item)
    return kept, dropped


def _group_of(item) -> str | None:
    mark = item.get_closest_marker("xdist_group")
    if mark is None:
        return None
    return mark.args[0] if mark.args else mark.kwargs.get("name")


def ci_shard(commit: str, n: int = N_SHARDS) -> int:
    """The shard ``.ci/run`` runs for a commit (its full hexadecimal id): the same commit, the same shard."""
    if not re.fullmatch(r"[0-9a-f]{7,64}", commit):
        raise ValueError(f"commit must be a hexadecimal git object id; got {commit!r}.")
    return int(commit[:12], 16) % n + 1


def durations(text: str) -> dict[str, float]:
    """Per test, the seconds of its setup, call and teardown in pytest's ``--durations`` report."""
    seconds: dict[str, float] = {}
    for match in re.finditer(r"^([0-9.]+)s (?:setup|call|teardown)\s+(\S.*?)\s*$", text, flags=re.M):
        seconds[match.group(2)] = seconds.get(match.group(2), 0.0) + float(match.group(1))
    return seconds


def _groups() -> dict[str, str | None]:
    """nodeid -> xdist_group of every slow test, from a collection in a fresh pytest session."""
    import pytest

    # Run as a script, tests/ is first on sys.path; the repository root goes before it, as under `python -m pytest`
    # (otherwise tests/fairlearn_dp and the like shadow the packages' subpackages).
    sys.path.insert(0, str(HERE.parent))

    class Collect:
        def __init__(self):
            self.found: dict[str, str | None] = {}

        def pytest_collection_finish(self, session):             # after the -m selection
            self.found.update({item.nodeid: _group_of(item) for item in session.items})

    plugin = Collect()
    code = pytest.main(["-m", "slow and not outside_ci", "--collect-only", "-q", "-n", "0", str(HERE)],
                       plugins=[plugin])
    if code not in (0, 5):
        raise SystemExit(f"collection failed ({code})")
    return plugin.found


def main(argv: list[str]) -> None:
    """``--ci-shard COMMIT`` prints the ``K/N`` that ``.ci/run`` runs for a commit; ``FILE ...`` rewrites the table
    from ``--durations=0`` reports (the slow leg's; a test that moved to it since, from the report of its old leg)."""
    if len(argv) == 2 and argv[0] == "--ci-shard":
        print(f"{ci_shard(argv[1])}/{N_SHARDS}")
        return
    if not argv:
        raise SystemExit(__doc__)
    measured: dict[str, float] = {}
    for path in reversed(argv):          # a test in several reports: the first report's time
        measured.update(durations(Path(path).read_text()))
    seconds: dict[str, float] = {}
    for nodeid, group in _groups().items():
        key = key_of(nodeid, group)
        seconds[key] = round(seconds.get(key, 0.0) + measured.get(nodeid, 0.0), 2)
    TABLE_PATH.write_text(json.dumps({"shards": N_SHARDS, "seconds": dict(sorted(seconds.items()))}, indent=1)
                          + "\n")
    shards = assign(seconds, N_SHARDS)
    for shard in range(1, N_SHARDS + 1):
        total = sum(s for key, s in seconds.items() if shards[key] == shard)
        print(f"shard {shard}/{N_SHARDS}: {sum(v == shard for v in shards.values())} units, {total:.0f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
