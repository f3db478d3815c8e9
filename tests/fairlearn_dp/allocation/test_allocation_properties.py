"""Property-based tests (hypothesis) of the allocation helpers and their metrics (issue 11).

Valid inputs: projections are non-negative and sum to their total, allocations lie on the simplex. Any input at
all: a helper returns a finite, valid value or raises ``ValueError``/``TypeError`` -- never NaN, never another
exception. Settings are local to this module (a ``settings`` object, not a loaded profile): 100 examples, no
deadline, derandomized (the same examples on every run), no example database written.
"""

import math
import warnings

import numpy as np
import pytest
from diffprivlib import BudgetAccountant
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from fairlearn_dp.allocation import (
    BaselineAllocation,
    ProjectionOntoSimplexAllocation,
    project_nonnegative_sum,
    proportional_allocation,
    release_counts,
)
from fairlearn_dp.allocation._evaluation import bias
from fairlearn_dp.allocation._projections import project_simplex, project_sum
from fairlearn_dp.allocation._release import CountRelease
from fairlearn_dp.metrics import alpha_fairness, cost_of_privacy, mean_bias
from fairlearn_dp.metrics._ks import ks_distance

PROPERTIES = settings(max_examples=100, deadline=None, derandomize=True, database=None,
                      suppress_health_check=[HealthCheck.too_slow])
CLEAR_ERRORS = (ValueError, TypeError)

finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)
totals = st.floats(min_value=1e-3, max_value=1e6, allow_nan=False)


def vectors(elements=finite, max_n=30):
    return hnp.arrays(np.float64, st.integers(1, max_n), elements=elements)


def batches(elements=finite):
    shapes = st.tuples(st.integers(1, 6), st.integers(1, 12))
    return hnp.arrays(np.float64, shapes, elements=elements)


def sum_tolerance(values, total):
    scale = max(1.0, abs(total), float(np.max(np.abs(values))))
    return 1e-12 * np.shape(values)[-1] * scale


# ---------------------------------------------------------------------------------------------- valid inputs
@PROPERTIES
@given(noisy=st.one_of(vectors(), batches()), total=totals)
def test_nonnegative_projection_is_nonnegative_and_sums_to_its_total(noisy, total):
    out = project_nonnegative_sum(noisy, public_total=total)
    assert out.shape == noisy.shape and np.all(np.isfinite(out))
    assert out.min() >= 0
    np.testing.assert_allclose(np.sum(out, axis=-1), total, rtol=0, atol=sum_tolerance(noisy, total))


@PROPERTIES
@given(noisy=st.one_of(vectors(), batches()), total=st.floats(min_value=0.0, max_value=1e6, allow_nan=False))
def test_sum_projection_sums_to_its_total(noisy, total):            # a total of counts is >= 0 (else refused)
    out = project_sum(noisy, public_total=total)
    assert out.shape == noisy.shape
    np.testing.assert_allclose(np.sum(out, axis=-1), total, rtol=0, atol=sum_tolerance(noisy, total))


@PROPERTIES
@given(noisy=st.one_of(vectors(), batches()))
def test_simplex_projection_is_on_the_simplex(noisy):
    out = project_simplex(noisy)
    assert out.min() >= 0
    np.testing.assert_allclose(np.sum(out, axis=-1), 1.0, rtol=0, atol=sum_tolerance(noisy, 1.0))


@PROPERTIES
@given(data=st.data(), noisy=st.one_of(vectors(), batches()))
def test_allocation_mechanisms_return_simplex_allocations(data, noisy):
    n = noisy.shape[-1]
    weights = data.draw(st.one_of(st.none(), hnp.arrays(np.float64, n, elements=st.floats(1e-3, 1e3))))
    for mechanism in (BaselineAllocation(weights), ProjectionOntoSimplexAllocation(weights)):
        shares = mechanism.allocate(noisy)
        assert shares.shape == noisy.shape and np.all(np.isfinite(shares))
        assert shares.min() >= 0
        np.testing.assert_allclose(np.sum(shares, axis=-1), 1.0, rtol=0, atol=1e-9 * n)


@PROPERTIES
@given(counts=vectors(st.integers(0, 10**6).map(float)))
def test_proportional_allocation_is_on_the_simplex_or_refused(counts):
    if counts.sum() == 0:
        with pytest.raises(ValueError, match="total > 0"):
            proportional_allocation(counts)
        return
    shares = proportional_allocation(counts)
    assert shares.min() >= 0
    assert math.isclose(shares.sum(), 1.0, abs_tol=1e-12 * counts.size)


@PROPERTIES
@given(counts=vectors(st.integers(0, 1000).map(float), max_n=12), epsilon=st.floats(0.05, 5.0),
       invariant=st.booleans())
def test_release_then_project_uses_only_public_or_released_totals(counts, epsilon, invariant):
    release = release_counts(counts.astype(int), epsilon=epsilon, invariant_total=invariant,
                             accountant=BudgetAccountant(), random_state=0)
    assert isinstance(release, CountRelease) and np.all(np.isfinite(release.noisy))
    if invariant:
        assert release.public_total == counts.sum()
        projected = project_sum(release)
        assert math.isclose(projected.sum(), counts.sum(), rel_tol=1e-12, abs_tol=1e-9)
    else:
        assert release.public_total is None
        with pytest.raises(ValueError, match="add/remove"):
            project_sum(release, public_total=float(counts.sum()))


# ----------------------------------------------------------------------------------------------- any input
def _scalars(huge=True):
    """Odd scalars; ``huge`` adds a Python int beyond float range."""
    return st.one_of(
        st.floats(allow_nan=True, allow_infinity=True),
        st.integers(-10**30, 10**30),
        st.just(10**400) if huge else st.just(10**300),
        st.booleans(),
        st.text(max_size=3),
        st.binary(max_size=2),
        st.none(),
        st.complex_numbers(max_magnitude=10),
    )


def junk():
    """Anything a user might pass: scalars, ragged/nested lists, arrays of odd dtypes, empty things."""
    scalar = _scalars()
    dtypes = st.sampled_from([np.float64, np.int64, np.bool_, np.complex128, "U2", "datetime64[D]"])
    arrays = dtypes.flatmap(lambda dtype: hnp.arrays(dtype, hnp.array_shapes(min_dims=0, max_dims=3, min_side=0,
                                                                              max_side=4)))
    return st.one_of(scalar, st.lists(scalar, max_size=6), st.lists(st.lists(scalar, max_size=3), max_size=3),
                     arrays, st.lists(st.floats(-1e3, 1e3), max_size=6))


def _check(call, validate):
    """Run ``call``: it must raise a clear error or return something ``validate`` accepts."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            result = call()
        except CLEAR_ERRORS:
            return
    validate(result)


def _on_simplex(shares):
    shares = np.asarray(shares)
    assert np.all(np.isfinite(shares)) and shares.min() >= 0
    np.testing.assert_allclose(np.sum(shares, axis=-1), 1.0, atol=1e-9 * shares.shape[-1])


def _finite_array(values):
    assert np.all(np.isfinite(np.asarray(values, dtype=float)))


def _finite_number(value):
    assert isinstance(value, float) and math.isfinite(value)


@PROPERTIES
@given(values=junk())
def test_allocation_helpers_on_any_input_raise_clearly_or_return_valid_values(values):
    _check(lambda: proportional_allocation(values), _on_simplex)
    _check(lambda: proportional_allocation(values, allow_negative=True),
           lambda shares: np.testing.assert_allclose(np.sum(shares, axis=-1), 1.0, rtol=1e-6))
    _check(lambda: project_simplex(values), _on_simplex)
    _check(lambda: BaselineAllocation().allocate(values), _on_simplex)
    _check(lambda: ProjectionOntoSimplexAllocation().allocate(values), _on_simplex)
    _check(lambda: project_sum(values, public_total=1.0), _finite_array)
    _check(lambda: project_nonnegative_sum(values, public_total=1.0), _finite_array)
    _check(lambda: release_counts(values, epsilon=1.0, accountant=BudgetAccountant(), random_state=0),
           lambda release: _finite_array(release.noisy))


@PROPERTIES
@given(values=junk(), scalar=_scalars(), epsilon=_scalars(), delta=st.sampled_from([0.0, 1e-6]))
def test_scalar_arguments_on_any_input_raise_clearly_or_work(values, scalar, epsilon, delta):
    counts = [3.0, 1.0, 0.0]
    _check(lambda: project_nonnegative_sum(counts, public_total=scalar), _finite_array)
    _check(lambda: project_sum(counts, public_total=scalar), _finite_array)
    _check(lambda: cost_of_privacy([0.5, 0.5], [0.4, 0.6], budget=scalar), _finite_number)
    _check(lambda: proportional_allocation(counts, weights=values), _on_simplex)

    def noisy_and_not_exact(release):
        _finite_array(release.noisy)
        if release.spend.epsilon <= 10:              # noise of scale >= 0.1 (a huge epsilon may round it away)
            assert not np.array_equal(release.noisy, [1.0, 2.0])

    _check(lambda: release_counts([1, 2], epsilon=epsilon, delta=delta, accountant=BudgetAccountant(),
                                  random_state=0), noisy_and_not_exact)


@pytest.mark.parametrize("epsilon, delta", [(2.2e-309, 0.0), (1e-30, 1e-6)])
def test_release_refuses_an_epsilon_without_a_usable_noise_scale(epsilon, delta):
    """Found by the property above: Laplace scale 1/epsilon overflows to inf; diffprivlib's analytic Gaussian
    returns sigma = 0 (the exact counts!) for epsilon below about 1e-27."""
    with pytest.raises(ValueError, match="epsilon"):
        release_counts([1, 2], epsilon=epsilon, delta=delta, accountant=BudgetAccountant(), random_state=0)


def test_release_refuses_an_integer_epsilon_beyond_float_range():
    with pytest.raises(CLEAR_ERRORS):
        release_counts([1, 2], epsilon=10**400, accountant=BudgetAccountant())


@PROPERTIES
@given(y_true=junk(), y_pred=junk())
def test_metrics_on_any_input_raise_clearly_or_return_finite_numbers(y_true, y_pred):
    _check(lambda: alpha_fairness(y_true, y_pred), _finite_number)
    _check(lambda: mean_bias(y_true, y_pred), _finite_number)
    _check(lambda: cost_of_privacy(y_true, y_pred, budget=2.0), _finite_number)
    _check(lambda: ks_distance(y_true, y_pred), _finite_number)
    _check(lambda: bias(y_true, y_pred), _finite_array)
