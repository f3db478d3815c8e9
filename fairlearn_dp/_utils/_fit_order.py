"""The order of every private ``fit``, written once: public parameters, budget, data, count, release, solve.

Everything a fit does is a release (whether it succeeds, every message, every fitted attribute), so every private
estimator runs the same steps in the same order (docs/design.md, "The order inside fit"):

1. validate every public parameter: the class's declarative table ``_public_parameter_checks`` (``{name: check}``,
   each check from :mod:`fairlearn_dp._utils._validation`), then the rules that relate several parameters
   (``_check_params_together``), which also resolve them (e.g. ``tol=None`` to 0); then the public layout of the
   fit's arguments (``X``'s column names, :mod:`._features`; ``_check_public_layout``: shapes, the metadata ``X``
   publishes, the partitions of Dask inputs, the keyword arguments), which never reads a value of the data;
2. check that the accountant can pay the fit's whole spend (``_planned_spend``), before anything reads the data;
3. read the data, with domain checks only;
4. count, in memory or on Dask workers (``fairlearn_dp/postprocessing/_counting.py`` for the post-processors);
5. release, through :mod:`fairlearn_dp.privacy`, charging the accountant once;
6. solve, on released values and public inputs only.

Steps 1 and 2 are :meth:`PrivateFitMixin.check_public_inputs`, called with ``fit``'s own arguments as the first
line of every ``fit``, and public so that a wrapper (the AIF360 faces) runs them, without the arguments, before it
reads a dataset. Steps 3 to 6 are the estimator's own.

The rest of the fit machinery is here too: :func:`atomic_fit` (a fit that raises leaves the estimator as it was)
and :class:`SharedAccountantCloneMixin` (a clone charges the same accountant), defined in ``_fit_support.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from ..privacy import PrivacySpend
from ..privacy._accountant import check_spend
from ._features import check_fit_features
from ._fit_support import SharedAccountantCloneMixin, atomic_fit
from ._validation import validate_params

__all__ = ["PrivateFitMixin", "atomic_fit", "SharedAccountantCloneMixin"]


class PrivateFitMixin:
    """Steps 1 and 2 of a private ``fit`` (module docstring): the parameter table, the joint rules, the budget.

    Subclasses declare ``_public_parameter_checks`` and override ``_check_params_together`` (joint rules and
    resolutions; it returns the resolved public inputs that ``fit`` uses) and ``_planned_spend`` (the spend the fit
    will charge, from the resolved inputs).
    """

    #: ``{parameter name: check(value, name)}``: every check raises a ``TypeError`` or ``ValueError`` naming the
    #: parameter and returns the checked value. Run in this order, before anything else.
    _public_parameter_checks: ClassVar[dict[str, Callable[[Any, str], Any]]] = {}

    def _check_public_parameters(self) -> Any:
        """Step 1: run ``_public_parameter_checks``, then ``_check_params_together``; return the resolved inputs."""
        checked = validate_params(self, self._public_parameter_checks)
        return self._check_params_together(checked)

    def _check_params_together(self, checked: dict[str, Any]) -> Any:
        """The rules that relate several parameters; returns the resolved public inputs (here: ``checked``)."""
        return checked

    def _check_public_layout(self, resolved: Any, X: Any, y: Any, sensitive_features: Any,
                             fit_kwargs: dict[str, Any]) -> Any:
        """The public layout of ``fit``'s arguments (no value of the data is read); returns the resolved inputs,
        completed with what the layout tells (e.g. the number of rows). Here: nothing to check.
        """
        return resolved

    def _planned_spend(self, resolved: Any) -> PrivacySpend:
        """The spend the fit will charge, from the resolved public inputs."""
        raise NotImplementedError

    def check_public_inputs(self, X: Any = None, y: Any = None, *, sensitive_features: Any = None,
                            check_budget: bool = True, **fit_kwargs: Any) -> Any:
        """Validate every public parameter (and, given ``fit``'s arguments, their public layout), then check that
        the accountant can pay the fit's spend; read no value of the data.

        What ``fit(X, y, sensitive_features=..., **fit_kwargs)`` does first. Returns the resolved public inputs.
        Raises ``TypeError``/``ValueError`` naming a bad parameter or argument, or diffprivlib's ``BudgetError``
        when the accountant cannot pay, whatever the data. Without ``X`` only the parameters are checked (a
        wrapper before it reads a dataset); ``check_budget=False`` validates only (a wrapper that learns some
        public inputs, such as a dataset's schema, before it checks the budget).
        """
        resolved = self._check_public_parameters()
        if X is not None:
            check_fit_features(X)                   # the column names: scikit-learn's rules (_features.py)
            resolved = self._check_public_layout(resolved, X, y, sensitive_features, fit_kwargs)
        if check_budget:
            check_spend(self.accountant, self._planned_spend(resolved))
        return resolved
