"""Plumbing shared by the bundled loaders: where the raw files live and how the returned ``Bunch`` is built."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from sklearn.utils import Bunch

__all__ = ["DATA_DIR", "data_path", "check_loaded", "make_bunch"]

#: Folder holding the raw files shipped with the package (see ``data/PROVENANCE.md`` there).
DATA_DIR = Path(__file__).resolve().parent / "data"


def data_path(filename):
    """Path of a raw file shipped in :data:`DATA_DIR`.

    Parameters
    ----------
    filename : str
        Bare file name, e.g. ``"adult.data"``.

    Returns
    -------
    pathlib.Path
        Absolute path to the file.

    Raises
    ------
    FileNotFoundError
        If the file is missing, i.e. the package was installed without its data files.
    """
    path = DATA_DIR / filename
    if not path.is_file():
        raise FileNotFoundError(
            f"Bundled data file {filename!r} not found in {DATA_DIR}; the fairdp installation is incomplete "
            "(the files are package data of fairlearn_dp.datasets)."
        )
    return path


def check_loaded(condition, dataset, message):
    """Raise ``RuntimeError`` when a structural check on a freshly parsed bundled file fails.

    The shipped files are fixed (their md5 sums are recorded in ``data/PROVENANCE.md``), so a failed check means
    the file on disk is not the one shipped, not that the user did something wrong.

    Parameters
    ----------
    condition : bool
        The check; nothing happens when it holds.
    dataset : str
        Name of the dataset, used in the message.
    message : str
        What was expected.
    """
    if not condition:
        raise RuntimeError(f"Bundled {dataset} data do not match the shipped file: {message}.")


def make_bunch(*, data, target, sensitive_features, descr, as_frame, return_X_y):
    """Assemble the loader output with :func:`fairlearn.datasets` return conventions.

    Parameters
    ----------
    data : pandas.DataFrame
        Features, one column per feature.
    target : pandas.Series
        Target, named.
    sensitive_features : pandas.Series or pandas.DataFrame
        Group column(s) of the dataset's fairness study, aligned with ``data``.
    descr : str
        Text for the ``DESCR`` field.
    as_frame : bool
        Return pandas objects (True) or numpy arrays (False).
    return_X_y : bool
        Return ``(data, target)`` instead of the ``Bunch``.

    Returns
    -------
    sklearn.utils.Bunch or tuple
        ``Bunch`` with fields ``data``, ``target``, ``frame`` (``data`` and ``target`` side by side when
        ``as_frame`` is True, else None), ``feature_names``, ``target_names``, ``sensitive_features`` and ``DESCR``;
        or ``(data, target)`` when ``return_X_y`` is True.
    """
    feature_names = [str(name) for name in data.columns]
    target_names = [str(target.name)]
    if as_frame:
        frame = pd.concat([data, target], axis=1)
    else:
        data, target, sensitive_features = data.to_numpy(), target.to_numpy(), sensitive_features.to_numpy()
        frame = None
    if return_X_y:
        return data, target
    return Bunch(
        data=data,
        target=target,
        frame=frame,
        feature_names=feature_names,
        target_names=target_names,
        sensitive_features=sensitive_features,
        DESCR=descr,
    )
