"""Progress bars hold the warnings issued while they are open and show them once they have closed (issue 35): a
warning written in the middle of a bar breaks it, and the bar's next refresh overwrites it."""

import io
import sys
import warnings

import pytest

from fairlearn_dp._utils import _progress
from fairlearn_dp._utils._progress import progress_bar
from fairlearn_dp.exceptions import UtilityWarning, warn


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def _to_stderr(message, category, filename, lineno, file=None, line=None):
    """The default display of warnings (to the standard error of the moment), which pytest's capture replaces."""
    sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))


def test_a_warning_inside_a_bar_is_shown_after_the_bar_closes(capsys):
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = _to_stderr
        with progress_bar(True, total=3, desc="unit bar") as bar:
            bar.update()
            warn("issued inside the bar", UtilityWarning)
            bar.update(2)
        assert warnings.showwarning is _to_stderr                # restored when the bar closed
    err = capsys.readouterr().err
    assert "3/3" in err and err.count("UtilityWarning: issued inside the bar") == 1
    assert err.index("issued inside the bar") > err.rindex("unit bar")


def test_a_fits_rounds_show_their_warnings_after_the_rounds_bar(monkeypatch):
    """The bar of a long fit's rounds (``progress_rounds``, on a terminal), left by an early stop as well."""
    monkeypatch.setattr(_progress, "FIT_PROGRESS_DELAY", 0.0)
    monkeypatch.setattr(sys, "stderr", terminal := _Terminal())
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = _to_stderr
        for index in _progress.progress_rounds(0, 5, desc="rounds bar"):
            if index == 1:
                warn("issued in round 1", UtilityWarning)
            if index == 3:
                break
        assert warnings.showwarning is _to_stderr
    out = terminal.getvalue()
    assert "rounds bar" in out and "\r" not in out[out.index("issued in round 1"):]     # no bar output after it


def test_filters_still_apply_inside_a_bar(capsys):
    """Only the display is held: an "error" filter raises at once, and a recorder outside the bar (pytest.warns,
    ``catch_warnings(record=True)``) receives the held warnings with the user's line."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", UtilityWarning)
        with pytest.raises(UtilityWarning, match="raised inside the bar"), progress_bar(True, total=2, desc="unit bar"):
            warn("raised inside the bar", UtilityWarning)
    with pytest.warns(UtilityWarning, match="recorded after the bar") as record, \
            progress_bar(True, total=2, desc="unit bar"):
        warn("recorded after the bar", UtilityWarning)
    assert len(record) == 1 and record[0].filename == __file__
    assert "unit bar" in capsys.readouterr().err


def test_no_bar_holds_nothing():
    with warnings.catch_warnings():
        warnings.showwarning = _to_stderr
        with progress_bar(False, total=2) as bar:
            assert bar is None and warnings.showwarning is _to_stderr


def test_the_monte_carlo_bar_shows_a_statistics_warning_after_it(capsys):
    """The allocation Monte Carlo (chunks in this process with n_jobs=1): a statistic's warning comes after the bar."""
    from fairlearn_dp.allocation import LaplaceNoise, monte_carlo

    def loud_identity(batch):
        warnings.warn("a statistic's warning", UserWarning)
        return batch

    with warnings.catch_warnings():
        warnings.simplefilter("once", UserWarning)
        warnings.showwarning = _to_stderr
        monte_carlo([5, 10, 20], LaplaceNoise(1.0), {"identity": loud_identity}, n_draws=40, chunk_size=10,
                    random_state=0, progress=True)
    err = capsys.readouterr().err
    assert "4/4" in err and err.index("a statistic's warning") > err.rindex("Monte Carlo")
