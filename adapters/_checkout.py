"""What runs only from a source checkout of fairdp: the reproduction scripts of ``examples/`` and the privacy-audit
cases of ``tests/audit_cases.py`` (test-support code, which reads private engine names and so is not installed).

``fairdp reproduce`` and ``fairdp audit`` load them from the checkout this package was installed from
(``pip install -e .``); from any other install they stop with a message saying to run them from a clone. The
scripts share :func:`parse_seeded_args`.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

#: Where a clone comes from, named in the message of a command that needs one.
_CLONE_HINT = ("run it from a clone of the fairdp repository, installed with 'pip install -e .' "
               "(the installed package does not ship the repository's examples/ and tests/)")


class NotACheckoutError(SystemExit):
    """The command needs the repository's files, and this package was not installed from a source checkout."""


def checkout_root() -> Path | None:
    """The source checkout this package runs from (an editable install), or None for an installed package."""
    root = Path(__file__).resolve().parents[1]
    if (root / "examples").is_dir() and (root / "tests" / "audit_cases.py").is_file():
        return root
    return None


def require_checkout(command: str) -> Path:
    """The checkout's root; ``NotACheckoutError`` (exit status 1, a one-line message) without one."""
    root = checkout_root()
    if root is None:
        raise NotACheckoutError(f"fairdp: error: 'fairdp {command}' works only from a source checkout: {_CLONE_HINT}.")
    return root


def _load_file(path: Path, name: str, *, reuse: bool = False):
    if reuse and name in sys.modules and Path(getattr(sys.modules[name], "__file__", "") or "").resolve() == path.resolve():
        return sys.modules[name]                       # loaded already (e.g. by the tests): one module object
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    # joblib's worker processes cannot import a module loaded from a file path: send its functions by value.
    try:
        import cloudpickle  # joblib >= 1.6 depends on it
    except ImportError:                                       # older joblib vendors it
        from joblib.externals import cloudpickle
    cloudpickle.register_pickle_by_value(module)
    return module


def load_example(filename: str):
    """Import a reproduction script of the checkout's ``examples/`` folder as a module."""
    path = require_checkout("reproduce") / "examples" / filename
    if not path.is_file():
        raise NotACheckoutError(f"fairdp: error: {path} not found in the source checkout.")
    return _load_file(path, path.stem)


def load_audit_cases():
    """The checkout's privacy-audit cases (``tests/audit_cases.py``) as a module."""
    return _load_file(require_checkout("audit") / "tests" / "audit_cases.py", "audit_cases", reuse=True)


def parse_seeded_args(argv, *, doc, default_out, default_seeds, quick_seeds, quick_help, extra=None,
                      first_seed=None):
    """The common CLI of the seeded reproduction scripts: ``--out``, ``--seeds``, ``--quick``, ``--n-jobs``.

    ``extra(parser)`` may add script-specific options. ``--seeds`` defaults to ``default_seeds`` (``quick_seeds``
    with ``--quick``); ``--seeds`` and ``--n-jobs`` must be integers >= 1. A script whose seeds are
    ``first_seed, first_seed + 1, ...`` passes its default ``first_seed`` and gets ``--first-seed``: an integer
    >= 0, with the last seed at most ``2**32 - 1`` (numpy's and scikit-learn's seed range).
    """
    from .cli import _MAX_SEED, _positive_int, _seed

    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=default_out, help=f"output directory (default {default_out})")
    parser.add_argument("--seeds", type=_positive_int, default=None,
                        help=f"number of seeds (default {default_seeds}, or {quick_seeds} with --quick)")
    if first_seed is not None:
        parser.add_argument("--first-seed", type=_seed, default=first_seed,
                            help=f"the seeds are first-seed, first-seed + 1, ... (an integer >= 0, default "
                                 f"{first_seed})")
    parser.add_argument("--quick", action="store_true", help=f"smoke test: {quick_seeds} seeds and {quick_help}")
    parser.add_argument("--n-jobs", type=_positive_int, default=1, help="joblib workers over seeds (default 1)")
    if extra is not None:
        extra(parser)
    args = parser.parse_args(argv)
    if args.seeds is None:
        args.seeds = quick_seeds if args.quick else default_seeds
    if first_seed is not None and args.first_seed + args.seeds - 1 > _MAX_SEED:
        parser.error(f"argument --first-seed: the last seed, {args.first_seed} + {args.seeds} - 1, exceeds "
                     f"{_MAX_SEED}")
    return args
