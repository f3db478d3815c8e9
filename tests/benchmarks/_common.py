"""Helpers shared by the benchmark scripts: the machine/version header and the state of the timed sources."""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]


def machine_header(packages, mode, extra=""):
    """One line: CPUs, platform, Python and ``packages`` versions, UTC date, ``extra`` and the run mode."""
    versions = ", ".join(f"{name} {metadata.version(name)}" for name in packages)
    date = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    return (f"Machine: {os.cpu_count()} CPUs, {platform.platform()} ({platform.machine()}), "
            f"Python {platform.python_version()}, {versions}. Date: {date}.{extra} Mode: {mode}.")


def source_state(timed_sources):
    """HEAD commit and whether the timed modules differ from it (read-only git: rev-parse, hash-object without -w)."""
    def git(*arguments):
        return subprocess.run(["git", *arguments], cwd=REPOSITORY, capture_output=True, text=True,
                              check=True).stdout.strip()
    def committed(path):
        try:
            return git("rev-parse", f"HEAD:{path}")
        except subprocess.CalledProcessError:               # a file not in HEAD (new)
            return None
    try:
        head = git("rev-parse", "--short", "HEAD")
        changed = [path for path in timed_sources if git("hash-object", path) != committed(path)]
    except (OSError, subprocess.CalledProcessError):
        return "fairdp source: git state unknown."
    return (f"fairdp source: commit {head}; timed modules "
            + (f"modified vs HEAD: {', '.join(changed)}." if changed else "as committed."))


def run_parser(doc, *, default_output, quick_repeats, unit, quick_extra=""):
    """The options every benchmark has: ``--quick`` (``quick_repeats`` repeats, no file), ``--repeats`` (default 5)
    and ``--output`` (default ``default_output``). Scripts add their own options, then call
    :func:`resolve_run_options`."""
    parser = argparse.ArgumentParser(description=doc.split("\n", 1)[0])
    parser.add_argument("--quick", action="store_true",
                        help=f"smoke run: {quick_extra}{quick_repeats} repeats, no file")
    parser.add_argument("--repeats", type=int, default=None,
                        help=f"{unit} per median (default 5, or {quick_repeats} with --quick)")
    parser.add_argument("--output", type=Path, default=None,
                        help=f"markdown file to write (default {default_output}; none with --quick)")
    return parser


def resolve_run_options(parser, args, *, default_output, quick_repeats):
    """Fill the defaults of :func:`run_parser`'s options and check ``--repeats``."""
    if args.repeats is None:
        args.repeats = quick_repeats if args.quick else 5
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    if args.output is None and not args.quick:
        args.output = default_output
    return args


def publish(report, output):
    """Print ``report`` and, unless ``output`` is None, write it there (creating the folder)."""
    print(report)
    if output is not None:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(report)
        print(f"Written to {output}", file=sys.stderr)


def finish(report, output, name, ok, reason="see the FAIL lines above."):
    """:func:`publish` the report; the exit status: 0 if ``ok``, else 1 with ``"<name>: FAILED - <reason>"``."""
    publish(report, output)
    if not ok:
        print(f"{name}: FAILED - {reason}", file=sys.stderr)
        return 1
    return 0


def run_batched(jobs, batch_key, run_batch, n_jobs, *args):
    """``run_batch(batch, *args)`` over the jobs grouped by ``batch_key(job)`` (one data load per batch), on
    ``n_jobs`` joblib workers; the rows in the order of ``jobs``.
    """
    from joblib import Parallel, delayed

    batches = {}
    for index, job in enumerate(jobs):
        batches.setdefault(batch_key(job), []).append(index)
    results = Parallel(n_jobs=n_jobs, verbose=0)(
        delayed(run_batch)([jobs[i] for i in indices], *args) for indices in batches.values())
    rows = [None] * len(jobs)
    for indices, batch in zip(batches.values(), results, strict=False):
        for index, row in zip(indices, batch, strict=False):
            rows[index] = row
    return rows


def mean_sd(values):
    """``"mean ± sd"`` (sample sd; 0 for one value), three decimals."""
    import numpy as np

    values = np.asarray(values, dtype=float)
    sd = values.std(ddof=1) if values.size > 1 else 0.0
    return f"{values.mean():.3f} ± {sd:.3f}"
