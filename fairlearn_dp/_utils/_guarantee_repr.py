"""How wide a fitted estimator's guarantee is, shown in its repr (never a warning by itself).

A private fit guarantees a disparity only up to a width that depends on the noise: with probability at least ``1 -
beta``, no two groups' rates differ by more than a bound computed from the released values. That width is what the
epsilon buys, not a sign that the fit failed, so fairdp stores it as a fitted attribute (``{quantity:
GuaranteeBound}``) and :class:`GuaranteeReprMixin` appends it to scikit-learn's repr once the estimator is fitted::

    DPThresholdOptimizer(constraints='equalized_odds', epsilon=5.0, groups=[0, 1])
    fitted guarantee (probability >= 0.95, on the fitting data): fpr gap <= 0.0812 (groups 0, 1); tpr gap <= ...

The parameter part, the repr of an unfitted estimator and the repr of an estimator nested in another (a
``Pipeline``) stay exactly scikit-learn's.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .._compat import lay_out_as_estimator

__all__ = ["GuaranteeBound", "GuaranteeReprMixin", "describe_guarantee"]


class GuaranteeBound(NamedTuple):
    """A high-probability bound on one disparity of the fitted estimator, from released values and public inputs.

    ``bound``: with probability at least ``1 - beta``, the disparity is at most this (a rate gap: at most 1);
    ``groups``: the pair of group labels that attains it.
    """

    bound: float
    groups: tuple
    beta: float


def describe_guarantee(bounds: dict[str, GuaranteeBound]) -> str:
    """One line: the confidence, then ``<quantity> gap <= <bound> (groups <a>, <b>)`` for each quantity."""
    betas = sorted({item.beta for item in bounds.values()})
    confidence = ", ".join(f"{1.0 - beta:.3g}" for beta in betas)
    parts = [f"{quantity} gap <= {item.bound:.3g} (groups {item.groups[0]!r}, {item.groups[1]!r})"
             for quantity, item in bounds.items()]
    return f"fitted guarantee (probability >= {confidence}, on the fitting data): " + "; ".join(parts)


class GuaranteeReprMixin:
    """scikit-learn's repr, and once fitted one more line with the guarantee's width (``describe_guarantee``).

    The estimator names the fitted attribute holding ``{quantity: GuaranteeBound}`` in ``_guarantee_attribute``;
    while it is absent (unfitted, or a fit without such a bound) the repr is scikit-learn's alone.
    """

    _guarantee_attribute = "disparity_bound_"

    @lay_out_as_estimator
    def __repr__(self, N_CHAR_MAX: int = 700) -> str:  # noqa: N803 (scikit-learn's parameter name)
        text = super().__repr__(N_CHAR_MAX)
        bounds: Any = vars(self).get(self._guarantee_attribute)
        return f"{text}\n{describe_guarantee(bounds)}" if bounds else text
