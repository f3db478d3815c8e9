"""The machinery every private ``fit`` shares that is not validation: atomic fits, clones that keep the accountant,
and the post-fit diagnostics.

- :func:`atomic_fit`: a fit that raises leaves the estimator as it was before the call;
- :class:`SharedAccountantCloneMixin`: :func:`sklearn.base.clone` keeps the same ``accountant`` object;
- :func:`warn_if_worse_than_constant`: a warning, from released values and public inputs only, that a private fit
  is likely no better than a constant classifier;
- :func:`warn_if_constant_chosen`, :func:`warn_if_constant_output`: the output is a constant (chosen, or the kept
  model predicts one label on almost every row).

This module imports nothing from :mod:`fairlearn_dp._utils._validation`, as :mod:`fairlearn_dp._utils._fit_order`
does: no import circle.
"""

from __future__ import annotations

import copy
import functools

import numpy as np
from sklearn.base import clone

from ..exceptions import UtilityWarning, warn
from ..privacy._post_release import warnings_after_release

__all__ = ["atomic_fit", "SharedAccountantCloneMixin", "warn_if_worse_than_constant", "warn_if_constant_chosen",
           "warn_if_constant_output", "linear_span"]


def atomic_fit(fit):
    """Decorate ``fit`` so that a fit that raises leaves the estimator exactly as it was before the call.

    A refit that fails half-way would otherwise leave a mixed object (e.g. a new bin grid with the old transport
    plans) that still predicts. The instance ``__dict__`` is snapshotted (shallowly: fits assign new attributes,
    they do not mutate fitted arrays in place) and restored on any exception; an estimator that was unfitted stays
    unfitted. Budget already charged by the failed call stays charged.

    Warnings issued after the fit's charge are issued after the fitted state is stored, outside the restore
    (``warnings_after_release``): turned into an exception, such a warning leaves the
    estimator fitted, and carries it as ``result``.
    """
    @functools.wraps(fit)
    def wrapper(self, *args, **kwargs):
        before = dict(self.__dict__)
        with warnings_after_release() as release:     # a block, not a wrapper: the fit's stack levels stay right
            try:
                value = fit(self, *args, **kwargs)
            except BaseException:
                self.__dict__.clear()
                self.__dict__.update(before)
                raise
            release.result = self
        return value

    return wrapper


class SharedAccountantCloneMixin:
    """Make :func:`sklearn.base.clone` keep the *same* ``accountant`` object.

    scikit-learn deep-copies non-estimator parameters when cloning, which would make a cloned DP estimator charge a
    private copy of the user's ``BudgetAccountant``, so spends in a ``GridSearchCV`` or a sweep would go unrecorded.
    """

    def __sklearn_clone__(self):
        params = self.get_params(deep=False)
        accountant = params.pop("accountant", None)
        new_params = {name: clone(value, safe=False) for name, value in params.items()}
        new = type(self)(**new_params, accountant=accountant)
        # As sklearn.base.clone does: keep the metadata-routing requests (set_fit_request(...)), without which
        # cross_validate / GridSearchCV with routed sensitive_features fail.
        if hasattr(self, "_metadata_request"):
            new._metadata_request = copy.deepcopy(self._metadata_request)
        return new


def warn_if_worse_than_constant(owner, error, positive_rate, noise, hint, *, costs=(1.0, 1.0)):
    """Warn (:class:`~fairlearn_dp.exceptions.UtilityWarning`) when a private fit's released error estimate is not
    below the best constant classifier's: ``error >= min(p, 1 - p)`` for the positive rate ``p`` (with public costs
    ``(c_FP, c_FN)`` of the errors: ``min(c_FN p, c_FP (1 - p))``, what predicting always 0 or always 1 costs).

    The estimate's noise (``noise``, its standard deviation, from public parameters) is the width of the guarantee:
    quoted in the message, never a reason to warn by itself (an estimate below the constant whose interval overlaps
    it does not warn; the estimator's fitted attributes carry the width). ``error`` and ``positive_rate`` must be
    released values or public ones, so that whether it fires and what it says reveal nothing else. Call it after
    the fit's spend is charged: a warning turned into an exception must not skip the charge.
    """
    constant = min(costs[1] * positive_rate, costs[0] * (1.0 - positive_rate))
    if error >= constant:
        warn(f"{owner}: the private fit is no better than a constant classifier by its released error estimate "
             f"({error:.3f}, noise sd {noise:.3f}, against {constant:.3f}); {hint} would help.", UtilityWarning)


def warn_if_constant_chosen(owner, choice, hint):
    """Warn (:class:`~fairlearn_dp.exceptions.UtilityWarning`) when the private choice against the fair constants
    (:func:`fairlearn_dp.privacy._selection.choose_against_constants`, a released value) returned a constant: the
    estimator then predicts one label (or a fair coin) for everyone. Call it after the spend is charged.
    """
    if choice.is_constant:
        how = ("an exact comparison of the public training errors" if choice.epsilon == 0 else
               f"the exponential mechanism (epsilon {choice.epsilon:.3g}, selection error <= {choice.error_bound:.3f} "
               f"with probability {1 - choice.beta:.2f})")
        label = {0.0: "always 0", 1.0: "always 1"}.get(choice.constant, f"1 with probability {choice.constant:g}")
        warn(f"{owner}: the fitted model was no more accurate than a constant classifier on the training data, so "
             f"the constant ({label}, exactly fair) is returned; chosen by {how}. {hint} would help.",
             UtilityWarning)


#: Public tolerance of :func:`warn_if_constant_output`: a model that predicts the other label on fewer than one row in
#: a thousand is reported as predicting one label on (almost) every row (on Adult's 30,000 training rows: fewer than
#: 30 rows, far below any group the constraints can see).
CONSTANT_OUTPUT_RATE = 1e-3

#: Noise margin of a released positive rate, in noise standard deviations: a rate released with Gaussian noise within
#: ``CONSTANT_OUTPUT_Z`` sd of 0 or 1 (plus :data:`CONSTANT_OUTPUT_RATE`) warns (a one-sided 97.7% bound).
CONSTANT_OUTPUT_Z = 2.0


def linear_span(coef, radius, dual_ord):
    """``max |x . coef|`` over the public domain ``||x|| <= radius`` (``dual_ord`` the dual norm's order: 2 for an
    L2 ball, ``inf`` for an L1 ball, 1 for the box ``|x_j| <= radius``). 0 for zero weights, also on an unbounded
    domain.
    """
    norm = float(np.linalg.norm(np.asarray(coef, dtype=float).ravel(), ord=dual_ord))
    return 0.0 if norm == 0.0 else float(radius) * norm


def warn_if_constant_output(owner, low, high=None, *, source, hint, noise_sd=0.0, choice=None, labels=(0, 1)):
    """Warn (:class:`~fairlearn_dp.exceptions.UtilityWarning`) when the kept model predicts one label on (almost)
    every row: its positive rate lies within :data:`CONSTANT_OUTPUT_RATE` (plus ``CONSTANT_OUTPUT_Z`` noise sd) of 0
    or of 1.

    ``low`` and ``high`` bound the model's probability of predicting 1 (``high=None``: ``low`` is the rate itself):
    a public rate (the released model on public rows), a released one (``noise_sd`` its noise standard deviation,
    from public parameters), or bounds valid on the whole public domain (e.g. a linear threshold over a ball,
    :func:`linear_span`: then the check is sound, never a false warning, but misses a model that is constant only
    on the rows). They must be public or released values, so that whether it fires and what it says reveal nothing
    else. No warning when ``choice`` (the :class:`~fairlearn_dp.privacy._selection.ConstantChoice`) already returned
    a constant (:func:`warn_if_constant_chosen` said so), nor when the margin is at least 1/2 (the noise cannot tell
    the rate from a constant's; the estimators' noise warnings cover that). Call it after the spend is charged.
    """
    if choice is not None and choice.is_constant:
        return
    high = low if high is None else high
    margin = CONSTANT_OUTPUT_RATE + CONSTANT_OUTPUT_Z * float(noise_sd)
    if margin >= 0.5:
        return
    if high <= margin:
        label = labels[0]
    elif low >= 1.0 - margin:
        label = labels[1]
    else:
        return
    rate = f"{low:.3g}" if high == low else f"in [{low:.3g}, {high:.3g}]"
    noise = f", noise sd {noise_sd:.3g}" if noise_sd > 0 else ""
    warn(f"{owner}: the fitted model predicts {label} on (almost) every row ({source}: positive rate {rate}{noise}), "
         f"so its output is (nearly) a constant classifier; {hint} would help.", UtilityWarning)
