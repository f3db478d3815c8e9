"""The statistics game's reads of its rows (``_game_rows.py``, issue 41 item 1): every float sum over the rows is a
fixed tree of per-block partials, so that any split of the rows into consecutive ranges of whole blocks (Dask's
partitions) gives the same floats, bit for bit, as the in-memory pass; one block sums as the previous code summed.
No Dask here (its leg: ``test_exponentiated_gradient_dask_fit.py``).
"""

import functools

import numpy as np
import pytest

from fairlearn_dp.reductions._game_rows import (
    InMemoryRows,
    _add_and_max,
    _block_stack,
    _concatenate_stacks,
    _merge_moments,
    _mixture_block,
    _root,
    _statistics_block,
    exact_statistics,
    mixture_sums,
    play_counts,
    symmetric_gram,
)
from fairlearn_dp.reductions._hypotheses import LinearThresholdClassifier

BLOCK = 50


def _rows(n, d=9, groups=3, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d)) * 10.0 ** rng.integers(-3, 4, size=d), rng.integers(0, 2, n), \
        rng.integers(0, groups, n)


def _statistics(n_groups):
    return functools.partial(_statistics_block, n_groups=n_groups, event_of_label=np.array([0, 1]), n_events=2,
                             feature_map=None, gram=True, totals=True, norms=True)


@pytest.mark.parametrize("seed", range(6))
def test_any_split_into_whole_blocks_gives_the_in_memory_floats(monkeypatch, seed):
    """377 rows (eight blocks of 50, the last of 27) cut at random block boundaries, each range summed on its own and
    the ranges' subtrees merged in order (the workers' reduce): the same statistics as one in-memory pass."""
    monkeypatch.setattr("fairlearn_dp.reductions._game_rows.BLOCK_ROWS", BLOCK)
    X, y, g = _rows(377, seed=seed)
    function = _statistics(3)
    whole = InMemoryRows(X, y, g).reduce(function, _add_and_max)
    rng = np.random.default_rng(100 + seed)
    cuts = np.sort(rng.choice(np.arange(1, 8), size=rng.integers(1, 5), replace=False)) * BLOCK
    bounds = [0, *cuts.tolist(), len(y)]
    stacks = [_block_stack(function, _add_and_max, BLOCK, start // BLOCK, X[start:end], y[start:end], g[start:end])
              for start, end in zip(bounds[:-1], bounds[1:], strict=True)]
    split = _root(_concatenate_stacks(_add_and_max, *stacks), _add_and_max)
    np.testing.assert_array_equal(split[0], whole[0])
    np.testing.assert_array_equal(split[1], whole[1])


def test_one_block_sums_as_the_previous_code():
    """At most BLOCK_ROWS rows: the cell sums are numpy.add.at's over all rows (the previous code) bit for bit; the
    Gram matrix (pairwise sums, no BLAS) equals Phi^T Phi to rounding."""
    X, y, g = _rows(700)
    phi = np.column_stack([X, np.ones(len(y))])
    statistics = exact_statistics(InMemoryRows(X, y, g), n_groups=3, event_of_label=None, n_events=1,
                                  feature_map=None, gram=True, totals=False, norms=False)
    previous = np.zeros((6, 10))
    np.add.at(previous, y * 3 + g, phi)
    np.testing.assert_array_equal(statistics.cell_sums.reshape(6, 10), previous)
    np.testing.assert_array_equal(statistics.label_counts.ravel(), np.bincount(y * 3 + g, minlength=6))
    np.testing.assert_allclose(symmetric_gram(statistics.gram_upper), phi.T @ phi, rtol=1e-12)


def test_play_counts_and_mixture_sums_are_the_per_row_values_summed(monkeypatch):
    monkeypatch.setattr("fairlearn_dp.reductions._game_rows.BLOCK_ROWS", BLOCK)
    X, y, g = _rows(377, d=4)
    rows = InMemoryRows(X, y, g)
    plays = [LinearThresholdClassifier(np.array([1.0, -0.5, 0.0, 0.2]), 0.1),
             LinearThresholdClassifier(np.array([0.0, 1.0, 1.0, 0.0]), -0.3)]
    counts = play_counts(rows, plays[0], 3)
    predictions = plays[0].predict(X)
    assert counts.sum() == len(y)
    for label in (0, 1):
        for group in range(3):
            cell = (y == label) & (g == group)
            assert counts[label, group, 1] == predictions[cell].sum()
            assert counts[label, group, 0] == (1 - predictions[cell]).sum()
    weights = [0.25, 0.75]
    sums = mixture_sums(rows, plays, weights, costs=(0.4, 1.2), constants=(0.0, 1.0))
    positive = sum(w * h.predict(X) for h, w in zip(plays, weights, strict=True))
    np.testing.assert_allclose([sums.false_positive, sums.false_negative, sums.positive],
                               [positive @ (1 - y), (1 - positive) @ y, positive.sum()], rtol=1e-12)
    for c in (0.0, 1.0):
        difference = 0.4 * c * (1 - y) + 1.2 * (1 - c) * y - (0.4 * positive * (1 - y) + 1.2 * (1 - positive) * y)
        size, mean, sd = sums.differences[c]
        assert size == len(y)
        np.testing.assert_allclose([mean, sd], [difference.mean(), difference.std(ddof=1)], rtol=1e-12)


def test_the_moments_merge_is_chans():
    rng = np.random.default_rng(3)
    values = rng.normal(size=90)

    def moments(part):
        return np.array([[len(part), part.mean(), np.square(part - part.mean()).sum()]])

    merged = _merge_moments((np.zeros(3), moments(values[:31])), (np.zeros(3), moments(values[31:])))[1][0]
    np.testing.assert_allclose(merged, moments(values)[0], rtol=1e-12)
    block = _mixture_block(np.zeros((3, 1)), np.array([0, 1, 1]), np.zeros(3, dtype=int), plays=[], weights=[],
                           costs=(1.0, 1.0), constants=(0.0,))
    np.testing.assert_array_equal(block[0], [0.0, 2.0, 0.0])
