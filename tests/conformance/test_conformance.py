"""Drop-in conformance against Fairlearn's own unit tests (skipped unless FAIRDP_FAIRLEARN_SRC points at a Fairlearn
source checkout of the installed version; see run_conformance.py and the README)."""

import os
from pathlib import Path

import pytest

SOURCE = os.environ.get("FAIRDP_FAIRLEARN_SRC")

pytestmark = pytest.mark.skipif(not SOURCE, reason="FAIRDP_FAIRLEARN_SRC (a Fairlearn source checkout) is not set")


def test_at_least_95_percent_of_fairlearns_passing_tests_pass_with_fairdp(tmp_path):
    import run_conformance

    baseline, still, lost, _ = run_conformance.compare(Path(SOURCE), tmp_path)
    assert len(baseline) > 1000, "the upstream suite did not run"
    assert len(still) >= 0.95 * len(baseline), f"{len(lost)} upstream tests lost, e.g. {lost[:5]}"
