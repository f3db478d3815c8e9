"""The slow leg's shards (tests/slow_shards.py): every slow test in exactly one shard, the groups kept together, the
parts balanced by the table, and ``--slow-shard`` as pytest's option."""

from __future__ import annotations

import hashlib
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
import slow_shards

ROOT = Path(__file__).resolve().parents[1]


class _Mark:
    def __init__(self, *args):
        self.args, self.kwargs = args, {}


class _Item:
    """What select reads of a pytest item: its node id and its marks."""

    def __init__(self, nodeid, *marks, group=None):
        self.nodeid = nodeid
        self.marks = {name: _Mark() for name in marks}
        if group is not None:
            self.marks["xdist_group"] = _Mark(group)

    def get_closest_marker(self, name):
        return self.marks.get(name)


@pytest.mark.parametrize("spec", ["0/2", "3/2", "1", "a/b", "1/0", "", "1/2/3"])
def test_a_bad_spec_is_refused_with_the_option_named(spec):
    with pytest.raises(ValueError, match="--slow-shard must be K/N"):
        slow_shards.parse(spec)


def test_the_spec_is_parsed():
    assert slow_shards.parse("1/2") == (1, 2) and slow_shards.parse(" 3 / 3 ") == (3, 3)


def test_longest_first_balances_within_the_largest_unit():
    seconds = {f"t{i}": float(s) for i, s in enumerate([100, 70, 60, 40, 33, 20, 9, 5, 5, 1])}
    for n in (2, 3, 4):
        shards = slow_shards.assign(seconds, n)
        assert set(shards) == set(seconds) and set(shards.values()) == set(range(1, n + 1))
        totals = [sum(s for key, s in seconds.items() if shards[key] == k) for k in range(1, n + 1)]
        assert max(totals) - min(totals) <= max(seconds.values())


def test_every_slow_test_is_in_exactly_one_shard_and_groups_stay_together():
    items = [_Item("a.py::t1", "slow"), _Item("a.py::t2", "slow"), _Item("b.py::t[x]", "slow", group="g"),
             _Item("b.py::t[y]", "slow", group="g"), _Item("c.py::fast"), _Item("d.py::huge", "slow", "outside_ci")]
    runs = [slow_shards.select(items, f"{k}/3") for k in (1, 2, 3)]
    for kept, dropped in runs:
        assert sorted(i.nodeid for i in kept + dropped) == sorted(i.nodeid for i in items)
        assert "c.py::fast" in [i.nodeid for i in kept]                   # the option divides only the slow leg
        assert "d.py::huge" not in [i.nodeid for i in kept]               # outside_ci: in no shard
        grouped = {i.nodeid for i in kept} & {"b.py::t[x]", "b.py::t[y]"}
        assert len(grouped) in (0, 2)
    slow_kept = [i.nodeid for kept, _ in runs for i in kept if i.get_closest_marker("slow")]
    assert sorted(slow_kept) == ["a.py::t1", "a.py::t2", "b.py::t[x]", "b.py::t[y]"]


def test_the_table_is_made_for_the_shards_ci_runs_and_each_part_fits_a_ci_run():
    """Each part's measured time within the CI run's budget for it: a slow test that grows, or a new long one, fails
    here once the table is refreshed (then raise N_SHARDS or mark the test outside_ci)."""
    table = slow_shards.TABLE
    assert table["shards"] == slow_shards.N_SHARDS and table["seconds"]
    shards = slow_shards.shard_map(table["seconds"], slow_shards.N_SHARDS)
    totals = [sum(s for key, s in table["seconds"].items() if shards[key] == k)
              for k in range(1, slow_shards.N_SHARDS + 1)]
    assert max(totals) <= slow_shards.PART_BUDGET_SECONDS, totals


def test_a_commit_picks_its_shard_and_every_shard_is_picked():
    commits = [hashlib.sha1(str(i).encode()).hexdigest() for i in range(20)]
    picked = {slow_shards.ci_shard(commit) for commit in commits}
    assert picked == set(range(1, slow_shards.N_SHARDS + 1))
    assert slow_shards.ci_shard(commits[5]) == slow_shards.ci_shard(commits[5])
    with pytest.raises(ValueError, match="commit"):
        slow_shards.ci_shard("HEAD")


def test_the_option_deselects_the_other_shards_in_a_pytest_run():
    """One collection in a fresh process: shard 1 of 2 of a file's slow tests is what select computes."""
    path = "tests/benchmarks/test_bench_scripts_quick.py"
    proc = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0", "-m", "slow",
                           "--slow-shard", "1/2", path], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode in (0, 5), proc.stdout[-2000:] + proc.stderr[-2000:]
    collected = {line.strip() for line in proc.stdout.splitlines() if line.startswith(path + "::")}
    spec = importlib.util.spec_from_file_location("bench_scripts_quick", ROOT / path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)                       # the same parametrization as the subprocess collects
    scripts = [mark.args[1] for mark in module.test_quick_mode_runs_in_a_fresh_process.pytestmark
               if mark.name == "parametrize"][0]
    nodeids = [f"{path}::test_quick_mode_runs_in_a_fresh_process[{script}]" for script in scripts]
    expected = {nodeid for nodeid, shard in slow_shards.shard_map(nodeids, 2).items() if shard == 1}
    assert collected == expected
