"""Count release mechanisms: the DP release path (diffprivlib) and their simulation counterparts (numpy).

Two neighbouring relations, chosen by what is public:

- ``invariant_total=False`` (default), **add/remove**: one person added to or removed from the population. Each
  person is counted in exactly one entity (district, county), so the count vector changes by 1 in one coordinate:
  L1 and L2 sensitivity 1. The total ``sum(x)`` changes too, so it is private: it is neither recorded nor usable
  as a public total (the released total is the sum of the noisy counts).
- ``invariant_total=True``, **substitution**: the total ``C = sum(x)`` is a public invariant (the census setting
  of Zhu, Fioretto & Van Hentenryck 2022, Sec. 6: the population total is published exactly). Neighbours then
  have the same total, so one person *moves* from one entity to another: one coordinate falls by 1 and another
  rises by 1, L1 sensitivity 2 and L2 sensitivity ``sqrt(2)``. The release is calibrated for that and records the
  public total, which the projections use.

Publishing the exact total next to an add/remove release is an epsilon = infinity release of the total (it differs
by one between neighbours). :class:`CountRelease` records the relation so the projections can refuse that
combination.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from .._utils._validation import as_real_array, check_bool, check_choice, check_real, check_seed, validate_params
from ..privacy import PrivacySpend
from ..privacy._accountant import charge, check_spend, validate_epsilon_delta
from ..privacy._release import noise_scale, release_gaussian, release_laplace

if TYPE_CHECKING:
    from diffprivlib import BudgetAccountant

__all__ = ["release_counts", "CountRelease", "count_sensitivity", "COUNT_SENSITIVITY", "LaplaceNoise",
           "GaussianNoise"]

#: L1 and L2 sensitivity of a vector of counts under adding or removing one person.
COUNT_SENSITIVITY = 1.0

ADD_REMOVE = "add/remove"
SUBSTITUTION = "substitution"

#: :func:`release_counts`' public parameters besides epsilon and delta, checked before the budget.
_RELEASE_PARAMETERS = {"invariant_total": check_bool, "random_state": check_seed}


def count_sensitivity(*, invariant_total: bool = False) -> tuple[float, float]:
    """``(l1, l2)`` sensitivity of a count vector: ``(1, 1)`` under add/remove, ``(2, sqrt 2)`` under substitution.

    Parameters
    ----------
    invariant_total : bool, default=False
        Whether the total is a public invariant (then neighbours are substitutions: one person moves between
        entities, one count falls by 1 and another rises by 1).
    """
    if check_bool(invariant_total, "invariant_total"):
        return 2.0, math.sqrt(2.0)
    return COUNT_SENSITIVITY, COUNT_SENSITIVITY


def _check_counts(counts, name="counts"):
    """Counts: a non-empty 1-D array of non-negative integers (numbers, not booleans or strings)."""
    if isinstance(counts, CountRelease):
        raise TypeError(f"{name} must be the true counts, got a CountRelease (noisy counts).")
    values = as_real_array(counts, name)
    if values.ndim != 1 or values.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array.")
    if not np.all(np.isfinite(values)):
        raise ValueError(f"{name} contains NaN or infinite values.")
    if np.any(values < 0) or np.any(values != np.round(values)):
        raise ValueError(f"{name} must be non-negative integers.")
    return values


@dataclass(frozen=True, eq=False, repr=False)
class CountRelease:
    """A released vector of noisy counts and what makes it safe to post-process.

    Returned by :func:`release_counts`; not built by hand. Pass it (not its ``noisy`` array) to the projections
    (``project_sum``, :func:`~fairlearn_dp.allocation.project_nonnegative_sum`, ``project_with_invariants``) so they
    take the total from the release, and to
    the allocation mechanisms (``allocate(release)``). It also converts to an array (``np.asarray(release)``).

    Attributes
    ----------
    noisy : ndarray of shape (n,)
        The released noisy counts (read-only).
    spend : PrivacySpend
        What the release charged.
    neighbouring : {"add/remove", "substitution"}
        The neighbouring relation the noise is calibrated for.
    l1_sensitivity, l2_sensitivity : float
        The sensitivities used (1 and 1 under add/remove; 2 and sqrt(2) under substitution).
    mechanism : {"Laplace", "GaussianAnalytic"}
        The diffprivlib mechanism that drew the noise.
    public_total : float or None
        The total ``C``, public by declaration, when the release was made with ``invariant_total=True``; None
        under add/remove (the true total is private there).
    """

    noisy: np.ndarray
    spend: PrivacySpend
    neighbouring: str
    l1_sensitivity: float
    l2_sensitivity: float
    mechanism: str
    public_total: float | None = None

    def __post_init__(self):
        check_choice(self.neighbouring, "neighbouring", (ADD_REMOVE, SUBSTITUTION))
        if (self.public_total is None) != (self.neighbouring == ADD_REMOVE):
            raise ValueError("public_total is recorded exactly when the release is under substitution "
                             "(invariant total).")
        # The noise was calibrated to a sensitivity: relabelling an add/remove release as a substitution one (to pair
        # it with the exact total) would keep its smaller noise, so the sensitivities must match the relation.
        expected = count_sensitivity(invariant_total=self.neighbouring == SUBSTITUTION)
        if not np.allclose((float(self.l1_sensitivity), float(self.l2_sensitivity)), expected):
            raise ValueError(f"a {self.neighbouring!r} count release has sensitivities {expected}, got "
                             f"({self.l1_sensitivity}, {self.l2_sensitivity}): the noise does not fit the relation.")
        array = np.array(self.noisy, dtype=float)
        array.setflags(write=False)
        object.__setattr__(self, "noisy", array)
        object.__setattr__(self, "l1_sensitivity", float(self.l1_sensitivity))
        object.__setattr__(self, "l2_sensitivity", float(self.l2_sensitivity))
        if self.public_total is not None:
            object.__setattr__(self, "public_total", float(self.public_total))

    @property
    def invariant_total(self) -> bool:
        """True when the total is a public invariant (substitution neighbours)."""
        return self.neighbouring == SUBSTITUTION

    @property
    def released_total(self) -> float:
        """The sum of the noisy counts: post-processing of the release, public whatever the relation."""
        return float(self.noisy.sum())

    def __array__(self, dtype=None, copy=None):
        if dtype is None and not copy:
            return self.noisy
        return np.array(self.noisy, dtype=dtype, copy=True)

    def __len__(self):
        return self.noisy.size

    def __repr__(self):
        total = "" if self.public_total is None else f", public_total={self.public_total:g}"
        return (f"CountRelease(n={self.noisy.size}, {self.mechanism}, neighbouring={self.neighbouring!r}, "
                f"epsilon={self.spend.epsilon:g}, delta={self.spend.delta:g}{total})")


def release_counts(counts: ArrayLike, *, epsilon: float, delta: float = 0.0, invariant_total: bool = False,
                   accountant: BudgetAccountant | None = None,
                   random_state: int | np.random.RandomState | None = None) -> CountRelease:
    """Release a vector of counts with noise from a diffprivlib mechanism; charge the accountant once.

    Parameters
    ----------
    counts : array-like of shape (n,)
        True counts (non-negative integers; booleans and strings are refused).
    epsilon : float
        Privacy budget (> 0, finite).
    delta : float, default=0.0
        0 for Laplace noise (epsilon-DP); > 0 for analytic Gaussian noise ((epsilon, delta)-DP).
    invariant_total : bool, default=False
        False: the add/remove relation (sensitivity 1); the true total is private and the release carries none.
        True: the total ``sum(counts)`` is a public invariant, published exactly; neighbours are substitutions
        (one person moves between entities) and the noise is calibrated for L1 sensitivity 2 (Laplace scale
        ``2 / epsilon``) or L2 sensitivity ``sqrt(2)`` (Gaussian). The release records the public total and the
        projections use it. Declare it only if the total really is published.
    accountant : diffprivlib BudgetAccountant or None, default=None
        Checked before the counts are read, charged once after the release (None: diffprivlib's default).
    random_state : None, int or numpy.random.RandomState, default=None
        None draws from diffprivlib's secure source; a seed makes the release reproducible (experiments only).

    Returns
    -------
    CountRelease
        The raw noisy vector (``.noisy``, not post-processed), the spend (``.spend``), the neighbouring relation
        and, with ``invariant_total=True``, the public total. Post-process it with the projections or allocation
        mechanisms of this package: they cost no further privacy.

    Privacy
    -------
    Laplace (``delta == 0``) or analytic Gaussian (``delta > 0``) noise on every entity, independently, from
    diffprivlib; sensitivities as in ``count_sensitivity``. Public: the number of entities ``n`` and, only
    with ``invariant_total=True``, the total. Errors depend only on the parameters and on whether ``counts`` is in
    the domain (non-negative integers); messages carry no counts.
    """
    epsilon, delta = validate_epsilon_delta(epsilon, delta, allow_inf=False)
    validate_params(SimpleNamespace(invariant_total=invariant_total, random_state=random_state), _RELEASE_PARAMETERS)
    l1, l2 = count_sensitivity(invariant_total=invariant_total)
    noise_scale(epsilon, delta, l1, l2)                 # epsilon and delta with the sensitivity: a finite scale
    spend = PrivacySpend(epsilon, delta)
    check_spend(accountant, spend)
    values = _check_counts(counts)
    if delta == 0:
        noisy = release_laplace(values, epsilon=epsilon, l1_sensitivity=l1, random_state=random_state)
    else:
        noisy = release_gaussian(values, l2_sensitivity=l2, epsilon=epsilon, delta=delta, random_state=random_state)
    charge(accountant, spend)
    return CountRelease(noisy=noisy, spend=spend, neighbouring=SUBSTITUTION if invariant_total else ADD_REMOVE,
                        l1_sensitivity=l1, l2_sensitivity=l2,
                        mechanism="Laplace" if delta == 0 else "GaussianAnalytic",
                        public_total=float(values.sum()) if invariant_total else None)


@dataclass(frozen=True)
class LaplaceNoise:
    """SIMULATION of the Laplace count mechanism with scale ``lam`` (the paper's parameter lambda).

    For Monte-Carlo evaluation only (numpy ``Generator`` draws): never used to release anything.

    Examples
    --------
    >>> import numpy as np
    >>> from fairlearn_dp.allocation import LaplaceNoise
    >>> noise = LaplaceNoise.from_epsilon(0.5)            # the scale release_counts uses at epsilon 0.5
    >>> noise, noise.describe()
    (LaplaceNoise(lam=2.0), 'Laplace(lambda=2)')
    >>> noise.sample(np.random.default_rng(0), (1000, 3)).shape
    (1000, 3)
    """

    lam: float

    def __post_init__(self):
        object.__setattr__(self, "lam", check_real(self.lam, "lam", low=0.0, low_open=True))

    @classmethod
    def from_epsilon(cls, epsilon: float, *, invariant_total: bool = False) -> LaplaceNoise:
        """The scale :func:`release_counts` uses: ``1 / epsilon`` (add/remove) or ``2 / epsilon`` (public total)."""
        epsilon, _ = validate_epsilon_delta(epsilon, 0.0, allow_inf=False)
        l1, l2 = count_sensitivity(invariant_total=invariant_total)
        return cls(noise_scale(epsilon, 0.0, l1, l2))

    def sample(self, rng: np.random.Generator, shape: int | tuple[int, ...]) -> np.ndarray | float:
        """``shape`` independent Laplace(0, ``lam``) draws from ``rng``, exactly, a row (last axis) at a time.

        A row of ``n < 2,048`` draws (``_SIGN_BIT_MIN_LENGTH``) is ``lam (E1 - E2)`` of ``2 n`` consecutive standard
        exponentials (the first ``n`` minus the last ``n``; the difference of two i.i.d. Exp(1) is standard Laplace).
        A longer row is ``lam S E``: ``n`` exponentials, then ``ceil(n / 48)`` uniforms whose 53-bit integers
        (``Generator.random`` returns ``k / 2**53``) give, by their lowest 48 bits, fair signs ``S`` independent of
        ``E`` (an exponential with a fair random sign is standard Laplace). numpy's ``standard_exponential`` is a
        ziggurat sampler, faster than ``Generator.laplace``'s log transform of a uniform; the signs save one
        exponential a draw but cost a fixed ~13 us a row, which pays from about 2,000 draws on (sampling was half of
        a Monte-Carlo draw over the 13,545 school districts; tests/benchmarks/bench_allocation.py). Rows are drawn
        one after the other, so drawing rows in batches gives the same numbers as drawing them at once.
        """
        shape = (int(shape),) if np.ndim(shape) == 0 else tuple(int(s) for s in shape)
        if not shape:
            return float(self.sample(rng, 1)[0])
        out = np.empty(shape)
        if out.size:
            self._sample_into(rng, out.reshape(-1, shape[-1]), _laplace_scratch(shape[-1]))
        return out

    def _sample_into(self, rng, out, scratch):
        """``out[...] = self.sample(rng, out.shape)`` for a 2-D ``out``, the same numbers, drawn a row at a time with
        the buffers of ``_laplace_scratch(out.shape[1])``: the draws of a row, not of the batch, pass through
        memory. A sign is applied by setting the sign bit of the exponential (exact: a negation). Returns ``out``.
        """
        n = out.shape[1]
        if n < _SIGN_BIT_MIN_LENGTH:
            for row in out:
                rng.standard_exponential(out=scratch)
                np.subtract(scratch[0], scratch[1], out=row)
        else:
            uniforms, integers, signs = scratch
            for row in out:
                rng.standard_exponential(out=row)
                rng.random(out=uniforms)                                     # k / 2**53, k uniform below 2**53
                np.multiply(uniforms, 2.0 ** 53, out=uniforms)               # k, exactly
                np.copyto(integers, uniforms, casting="unsafe")
                bits = np.unpackbits(integers.view(np.uint8).reshape(-1, 8)[:, :6], count=n)  # k's low 48 bits
                np.left_shift(bits, np.uint64(63), out=signs, casting="unsafe")    # 0 or a double's sign bit
                np.bitwise_xor(row.view(np.uint64), signs, out=row.view(np.uint64))
        out *= self.lam
        return out

    def describe(self) -> str:
        """``Laplace(lambda=...)``."""
        return f"Laplace(lambda={self.lam:g})"


#: Rows of at least this many Laplace draws take a sign bit and one exponential a draw, shorter ones two
#: exponentials (``LaplaceNoise.sample``).
_SIGN_BIT_MIN_LENGTH = 2048


def _laplace_scratch(n):
    """Buffers of ``LaplaceNoise._sample_into`` for rows of ``n`` draws: the exponential pairs of a short row, or the
    uniforms, their integers (little-endian, so that their first six bytes are their lowest 48 bits) and the sign
    words of a long one.
    """
    if n < _SIGN_BIT_MIN_LENGTH:
        return np.empty((2, n))
    words = -(-n // 48)
    return np.empty(words), np.empty(words, dtype=np.dtype("<u8")), np.empty(n, dtype=np.uint64)


def _batch_sampler(noise, n, batch_rows):
    """``draw(rng, rows)``: ``noise.sample(rng, (rows, n))``, the same numbers; for Laplace noise written into
    buffers allocated once a chunk (a view of them: the next call overwrites it).
    """
    if not isinstance(noise, LaplaceNoise):
        return lambda rng, rows: noise.sample(rng, (rows, n))
    draws, scratch = np.empty((batch_rows, n)), _laplace_scratch(n)
    return lambda rng, rows: noise._sample_into(rng, draws[:rows], scratch)


@dataclass(frozen=True)
class GaussianNoise:
    """SIMULATION of the Gaussian count mechanism with standard deviation ``sigma``.

    For Monte-Carlo evaluation only (numpy ``Generator`` draws): never used to release anything.

    Examples
    --------
    >>> import numpy as np
    >>> from fairlearn_dp.allocation import GaussianNoise
    >>> GaussianNoise(sigma=2.0).describe()
    'Gaussian(sigma=2)'
    >>> noise = GaussianNoise.from_epsilon(1.0, 1e-5)     # the sigma release_counts uses at (1, 1e-5)
    >>> bool(noise.sigma > 0), noise.sample(np.random.default_rng(0), (1000, 3)).shape
    (True, (1000, 3))
    """

    sigma: float

    def __post_init__(self):
        object.__setattr__(self, "sigma", check_real(self.sigma, "sigma", low=0.0, low_open=True))

    @classmethod
    def from_epsilon(cls, epsilon: float, delta: float, *, invariant_total: bool = False) -> GaussianNoise:
        """The sigma of diffprivlib's analytic Gaussian mechanism that :func:`release_counts` uses.

        L2 sensitivity 1 (add/remove) or ``sqrt(2)`` (``invariant_total=True``).
        """
        epsilon, delta = validate_epsilon_delta(epsilon, delta, allow_inf=False)
        if delta <= 0:
            raise ValueError("delta must be > 0 for the Gaussian mechanism.")
        l1, l2 = count_sensitivity(invariant_total=invariant_total)
        return cls(noise_scale(epsilon, delta, l1, l2))

    def sample(self, rng: np.random.Generator, shape: int | tuple[int, ...]) -> np.ndarray | float:
        """``shape`` independent normal(0, ``sigma``) draws from ``rng``."""
        return rng.normal(0.0, self.sigma, size=shape)

    def describe(self) -> str:
        """``Gaussian(sigma=...)``."""
        return f"Gaussian(sigma={self.sigma:g})"
