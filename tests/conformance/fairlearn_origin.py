"""pytest plugin: record which ``fairlearn`` package the upstream tests imported.

Loaded with ``-p fairlearn_origin`` (this folder on ``sys.path``) in every run of ``run_conformance.py``. At the
end of the session it writes ``{"file": fairlearn.__file__, "version": fairlearn.__version__}`` (``file`` is None if
nothing imported fairlearn) to the path in ``$FAIRDP_CONFORMANCE_ORIGIN``, so the runner can check that the tests
ran against the installed release and not against a source checkout's ``fairlearn/`` that a ``sys.path`` entry
(the working directory, or the rootdir that pytest's ``prepend`` import mode inserts) put first.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

ORIGIN_ENV = "FAIRDP_CONFORMANCE_ORIGIN"


def pytest_sessionfinish(session, exitstatus):
    target = os.environ.get(ORIGIN_ENV)
    if not target:
        return
    module = sys.modules.get("fairlearn")
    origin = {"file": getattr(module, "__file__", None), "version": getattr(module, "__version__", None)}
    Path(target).write_text(json.dumps(origin))
