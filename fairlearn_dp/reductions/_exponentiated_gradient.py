"""DP exponentiated-gradient reduction (Jagielski et al. 2019, Algorithm 3 "DP-oracle-learner", Subroutine 2).

The Auditor plays exponentiated gradient on Laplace-noised constraint violations; the Learner best-responds through
a private cost-sensitive-classification oracle; the output is the uniform mixture of the Learner's plays. Fairlearn's
``Moment`` objects define the constraints (the Agarwal et al. 2018 reduction Fairlearn implements). At
``epsilon=inf`` with an estimator the class *is* Fairlearn's ``ExponentiatedGradient`` (its ``fit`` runs unchanged).
"""

from __future__ import annotations

import functools
import math
import numbers
import warnings

import numpy as np
import pandas as pd
from fairlearn.reductions import (
    DemographicParity,
    EqualizedOdds,
    ErrorRateParity,
    ExponentiatedGradient as _FairlearnExponentiatedGradient,
    FalsePositiveRateParity,
    TruePositiveRateParity,
)
from sklearn.utils import check_random_state as _seeded_random_state
from sklearn.utils.validation import check_is_fitted

from ..privacy import (PrivacySpend, PrivacyWarning, charge, check_spend, exponential_mechanism, noise_sd, noisy_vector,
                       per_mechanism_epsilon, validate_epsilon_delta)
from ..utils._progress import progress_rounds
from ..utils._random import check_random_state
from ..utils._row_bounds import feature_bound_radius, feature_reach, resolve_row_norm_bound, warn_loose_row_norm_bound
from ..utils._validation import (
    SharedAccountantCloneMixin,
    as_group_vector,
    atomic_fit,
    call_withheld,
    check_choice,
    check_estimator,
    check_feature_bound,
    check_groups,
    check_hypotheses,
    check_real,
    check_seed,
    clip_rows,
    encode_groups,
    resolve_groups,
    validate_params,
    warn_if_noise_dominated,
    warn_if_worse_than_constant,
)
from ._hypotheses import LinearThresholdClassifier, hypothesis_predictions
from ._objective import objective_costs
from ._pipeline import game_estimator, pipeline_parts, pipeline_pmf
from ._public_features import PublicFeatureMap
from ._statistics_game import StatisticsGame

__all__ = ["DPExponentiatedGradient", "MAX_ROUNDS"]

SUPPORTED_MOMENTS = (DemographicParity, EqualizedOdds, TruePositiveRateParity, FalsePositiveRateParity, ErrorRateParity)
_PRIVACY_UNITS = ("sensitive_attribute", "record")
_ORACLES = ("auto", "exponential", "regression", "estimator", "diffprivlib", "least_squares")
_MODES = ("auto", "statistics", "paper")
_STATISTICS_ORACLES = ("weighted_estimator", "least_squares")
_PAPER_B = 10.0                     # Algorithm 3's default bound on the multipliers (bound_B=None)
# Most rounds a private fit plays (max_iter, or Algorithm 3's formula for T, which grows like epsilon without bound).
# Measured per round on Communities & Crime (1,994 rows, 98 features) on a 2-core machine: Algorithm 3 with the
# regression oracle 0.4 ms, the statistics game about 3 ms, Algorithm 3 with the exponential oracle over 514
# hypotheses 6 ms; so at most about 6 s (rounds cost O(n d), or O(|H|) for the exponential oracle).
MAX_ROUNDS = 1_000
_POSITIVE_OR_NONE = functools.partial(check_real, low=0.0, low_open=True, allow_none=True)
_FRACTION = functools.partial(check_real, low=0.0, high=1.0, low_open=True, high_open=True)
# Our parameters with a generic check, run first in the one validation step (_check_params, before the budget).
_PARAMETER_CHECKS = {
    "mode": functools.partial(check_choice, options=_MODES),
    "oracle": functools.partial(check_choice, options=_ORACLES),
    "privacy_unit": functools.partial(check_choice, options=_PRIVACY_UNITS),
    "bound_B": _POSITIVE_OR_NONE,
    "eta": _POSITIVE_OR_NONE,
    "feature_bound": check_feature_bound,
    "ridge": functools.partial(check_real, low=0.0, allow_none=True),
    "row_norm_bound": _POSITIVE_OR_NONE,
    "statistics_fraction": _FRACTION,
    "min_count_fraction": _FRACTION,
    "beta": _FRACTION,
    "random_state": check_seed,
}
_FAIRLEARN_MAX_ITER = 50            # Fairlearn's default rounds, used by the Fairlearn path when max_iter is None
_FAIRLEARN_EPS, _FAIRLEARN_ETA0 = 0.01, 2.0


class DPExponentiatedGradient(SharedAccountantCloneMixin, _FairlearnExponentiatedGradient):
    """Differentially private exponentiated-gradient reduction for fair classification (DP-oracle-learner).

    Jagielski et al. (2019), Algorithm 3: the Lagrangian game of Agarwal et al. (2018) between a Learner, who
    best-responds to the Lagrange multipliers through a private cost-sensitive classification oracle, and an
    Auditor, who plays exponentiated gradient (multiplicative weights) on the constraint violations of the
    Learner's play with Laplace noise added. After ``T`` rounds the randomized classifier ``Q`` is the uniform
    mixture of the Learner's ``T`` plays. The classifier does not use the sensitive feature at prediction time.
    Drop-in for :class:`fairlearn.reductions.ExponentiatedGradient` (a subclass of it): same constructor arguments
    with the same defaults, same ``Moment`` constraints, same ``predict(X, random_state=None)`` and
    ``_pmf_predict(X)`` semantics.

    Three algorithms, chosen by ``mode``, ``epsilon`` and ``oracle``:

    - **The statistics game** (``mode="statistics"``; what ``mode="auto"`` runs for a private fit unless a paper
      oracle or ``hypotheses`` is asked for): Fairlearn's reduction played on statistics released once, so the
      privacy cost no longer grows with the rounds (:mod:`fairlearn_dp.reductions._statistics_game`). The
      ``estimator`` you pass is the Learner (under ``privacy_unit="sensitive_attribute"``): each round it is fitted
      on ``(X, y)`` with Fairlearn's reduction weights, in which the private group indicators are replaced by a
      linear-probability estimate built from the released per-cell feature sums. The Auditor's violations come
      from one small Gaussian release per round (zCDP). The output is Fairlearn's LP mixture of the plays, solved
      on their calibrated violation estimates, for demographic and error-rate parity, and the uniform average of
      the plays otherwise (``run_linprog_step="auto"``; see the parameter).
      Without an estimator, or under ``privacy_unit="record"`` (the estimator cannot read private records; a
      warning says so), the Learner is the least-squares cost oracle on the released sums and Gram matrix.
      A scikit-learn ``Pipeline`` (e.g. imputing, scaling and one-hot encoding a raw DataFrame, then a classifier)
      is split as :mod:`fairlearn_dp.reductions._pipeline` describes: its preprocessing is fitted once and the
      statistics are of the transformed features, its last step is the Learner (``sample_weight_name`` as in
      Fairlearn, e.g. ``"classifier__sample_weight"``); under ``"record"`` the preprocessing must be public
      (prefit, stateless, or declared categories and bounds), else the fit is refused before the budget check.
      Fairlearn's arguments: ``eps`` (``B = 1/eps``), ``max_iter`` (the planned rounds ``T``; None: 50),
      ``eta0`` (learning rate ``eta0 / B``), ``run_linprog_step`` and ``sample_weight_name`` are honoured; ``nu``
      must be None (with the LP step the game stops when the LP value on released values stalls for
      ``PATIENCE`` rounds; the budget of all ``T`` planned rounds is charged either way); ``objective`` is
      Fairlearn's ``ErrorRate``, with its public costs (``ErrorRate(costs={"fp": ..., "fn": ...})``; they weigh
      released values only, so no sensitivity changes: :mod:`fairlearn_dp.reductions._objective`). Under
      ``"sensitive_attribute"`` (X public) the released statistics are of the public affine rescaling of X that
      :mod:`fairlearn_dp.reductions._public_features` describes (every coordinate in ``[-1, 1]``; their
      sensitivity uses the rescaled row bound), so that a column of a large scale (e.g. unscaled ``fnlwgt``) does
      not set the noise of all; the estimator still sees the raw X. Measured on Adult (README, "DP
      in-processing"): at ``epsilon=1`` it is within about 0.01 of Fairlearn's non-private accuracy and violation
      by sex; the paper's Algorithm 3 is below the majority rate there.

    - **Fairlearn's** (``epsilon=inf`` and ``oracle`` ``"auto"`` with an estimator, or ``"estimator"``): after our
      own parameters are validated and the accountant is charged ``(inf, 0)``, Fairlearn's ``fit`` runs unchanged,
      so its behaviour, errors, messages and fitted attributes (``predictors_``, ``weights_``, ``lambda_vecs_``,
      ``constraints_``, ``best_gap_``, ...) are exactly Fairlearn's, for every Fairlearn ``Moment`` (ratio bounds,
      ``ErrorRateParity``, ``BoundedGroupLoss`` for regression, ``control_features``) and every Fairlearn
      argument. No privacy, no ``PrivacyWarning``. Our private parameters (``bound_B``, ``eta``, ``groups``,
      ``min_count``, ...) are validated but not used.
    - **Algorithm 3** (``mode="paper"``, or ``mode="auto"`` with ``oracle="regression"``/``"exponential"`` or
      ``hypotheses``; any finite ``epsilon``, or ``epsilon=inf`` for the noise-free game): described below, kept
      exactly as published so that the comparison stays visible. Fairlearn's arguments that cannot be honoured privately are handled
      as follows (the same rules apply to the noise-free game, so that it is the private algorithm without noise):

      - ``objective``: None or ``ErrorRate()`` with its default unit costs (the objective of the paper); anything
        else is a ``ValueError``.
      - ``eps`` (Fairlearn's ``B = 1/eps``): the L1 bound on the multipliers is ``bound_B``; ``eps`` must be left at
        Fairlearn's default 0.01 (ignored) or equal ``1/bound_B``, else a ``ValueError`` asks for ``bound_B``.
      - ``max_iter``: Algorithm 3's ``T`` (fixed in advance: the budget is split over ``2T`` releases).
      - ``nu`` (Fairlearn's early stop when the duality gap, computed on the raw data, falls below ``nu``): a
        data-dependent stopping time; must be None (``T`` rounds are always played), else ``ValueError``.
      - ``eta0`` (Fairlearn's initial learning rate ``eta0/B``, shrunk when the raw-data regret stalls): the Auditor's
        fixed learning rate is ``eta``; ``eta0`` must be left at Fairlearn's 2.0 (ignored), else ``ValueError``.
      - ``run_linprog_step`` (Fairlearn re-weights the plays by a linear program on the raw data, and keeps the
        iterate with the smallest raw-data gap: data-dependent): both values give the private equivalent, the
        uniform average of the rounds' plays (Algorithm 3's output ``Q``).
      - ``sample_weight_name``: used only by the estimator oracle (Fairlearn's path, ``epsilon=inf``); the private
        oracles fit no estimator, so it must be left at ``"sample_weight"``, else ``ValueError``.
      - ``fit(..., control_features=...)``: not supported privately (``TypeError``).

    Parameters
    ----------
    estimator : estimator or None, default=None
        Base estimator with ``fit(X, y, sample_weight=...)`` (or a ``Pipeline``): Fairlearn's best response on
        Fairlearn's path, and the statistics game's Learner under ``privacy_unit="sensitive_attribute"`` (a
        ``Pipeline``'s preprocessing defines the game's features under both units; see above). Not used by
        Algorithm 3's oracles.
    constraints : fairlearn.reductions.Moment
        Algorithm 3: ``DemographicParity``, ``EqualizedOdds``, ``TruePositiveRateParity``,
        ``FalsePositiveRateParity`` or ``ErrorRateParity`` (difference bounds; no ratio bounds or control features).
        Its ``difference_bound`` is the fairness tolerance gamma of the paper. Fairlearn's path: any ``Moment``
        Fairlearn accepts (e.g. ``BoundedGroupLoss``).
    objective : fairlearn.reductions.Moment or None, default=None
        Fairlearn's objective: None or ``ErrorRate`` (statistics game: with any costs; Algorithm 3: unit costs).
    eps : float, default=0.01
        Fairlearn's ``B = 1/eps`` (Fairlearn's path). Algorithm 3 uses ``bound_B`` (see above).
    max_iter : int or None, default=None
        Fairlearn's path: Fairlearn's maximum number of iterations (None: Fairlearn's 50).
        Statistics game: the planned rounds ``T`` (None: 50), over which the per-round budget is split; the game
        may stop earlier (see above) and is charged for all of them.
        Algorithm 3: rounds ``T``. None: Algorithm 3's formula ``B sqrt(ln(4|A| - 3)) m eps / (2 (2|A|B + 1)
        sqrt(ln(1/delta)) (d_H ln m + ln(2/beta)))`` (``ln |H|`` instead of ``d_H ln m`` for a finite class, Thm. 4.5;
        ``d_H = n_features + 1`` for the regression oracle). It grows like ``eps``, which keeps each round's budget
        near a constant: for large epsilon, setting ``max_iter`` spends the budget on fewer, less noisy rounds. 200
        in the noise-free game (``epsilon=inf`` with the regression or exponential oracle).
        The private algorithms play at most ``MAX_ROUNDS`` (1,000) rounds: a larger ``max_iter``, or a formula's T
        above it (epsilon beyond about 10^4 on 1,400 rows), is refused before anything is spent. Measured on 1,994
        rows and 98 features (2 cores), 1,000 rounds take about 0.4 s (regression oracle), 3 s (statistics game)
        and 6 s (exponential oracle over 514 hypotheses; a round costs ``O(|H|)``); a bar on standard error shows
        the progress of a fit that runs longer than 2 s (when it is a terminal).
    nu : float or None, default=None
        Fairlearn's duality-gap threshold (Fairlearn's path; as Fairlearn, ``fit`` writes the threshold it computes
        into ``nu`` when None; it is also ``nu_``). That value is not a parameter: ``get_params`` and ``clone``
        report None, and the next ``fit`` (e.g. after ``set_params(epsilon=1)``) starts from None again.
        Statistics game and Algorithm 3: must be None.
    eta0 : float, default=2.0
        Fairlearn's initial learning rate (Fairlearn's path). Algorithm 3: ignored at its default, see ``eta``.
    run_linprog_step : bool or "auto", default="auto"
        Fairlearn's final linear-programming step: re-weight the plays to minimise the error subject to the
        constraints. ``"auto"``: True on Fairlearn's path (Fairlearn's default, so the swap is unchanged without
        noise) and in the private statistics game with the estimator Learner under
        ``privacy_unit="sensitive_attribute"`` for ``DemographicParity`` and ``ErrorRateParity`` (measured on
        Adult at ``epsilon=1``: by race, DP difference 0.086 with the uniform average, 0.073 with the LP; for
        equalized odds by sex the LP measured worse, 0.058 against 0.034, so label-conditioned moments keep the
        uniform average). There each play's violation is its public proxy violation
        calibrated on all rounds' releases (two parameters per cell), so the program does not select plays by
        their own noise; the LP's bound is relaxed by one standard deviation of that estimate. False where each
        play's violation is its own noisy release (the least-squares Learner, ``privacy_unit="record"`` or
        ``estimator=None``): there the LP would select the plays whose noise happens to look fair (the winner's
        curse), so the output is the uniform average of the plays (the output of Agarwal et al.'s analysis). The
        uniform average ignores the declared bound in effect (on the reductions guide's Adult example it gave
        the same equalized-odds difference, 0.017, for bounds 0.001, 0.01 and 0.1). True or False force either
        (the LP with the ``PATIENCE`` stopping rule). Algorithm 3: both values give the uniform average.
    sample_weight_name : str, default="sample_weight"
        Name of the ``estimator.fit`` argument receiving the weights (Fairlearn's path and the statistics game).
        For a ``Pipeline``, ``Pipeline.fit``'s ``step__parameter`` form naming its last step, as in Fairlearn
        (e.g. ``"classifier__sample_weight"``); a bare name or one naming a preprocessing step is refused before
        the budget check. Algorithm 3: must be ``"sample_weight"``.
    epsilon : float, default=1.0
        Total privacy budget of the fit (``inf``: no noise).
    mode : {"auto", "statistics", "paper"}, default="auto"
        ``"statistics"``: the statistics game (above). ``"paper"``: Jagielski et al.'s Algorithm 3.
        ``"auto"``: Fairlearn's own algorithm at ``epsilon=inf`` with an estimator; Algorithm 3 when
        ``oracle`` is ``"exponential"``/``"regression"`` or ``hypotheses`` is given; otherwise the statistics game.
    delta : float, default=1e-7
        Total delta. Statistics game: the delta of the zCDP-to-(epsilon, delta) conversion (must be in (0, 1)).
        Algorithm 3: half of it is the failure probability of the private lower bound on the cell counts (when
        ``min_count`` is None), the rest the slack of advanced composition over the rounds. ``delta=0`` needs a
        public ``min_count`` and uses basic composition.
    bound_B : float or None, default=None
        ``B``, the L1 bound on the Lagrange multipliers (None: Fairlearn's ``1/eps`` in the statistics game,
        Algorithm 3's 10 in the paper mode). Larger B enforces the constraints harder (violation bound
        ``gamma + (1 + 2 nu) / B``, Thm. 4.4) but raises the Learner's cost sensitivity.
    eta : float or None, default=None
        Auditor's learning rate; None: Algorithm 3's ``(1/2) sqrt(ln(4|A| - 3) / T)``.
    oracle : {"auto", "exponential", "regression", "estimator", "diffprivlib"}, default="auto"
        The Learner's cost-sensitive classification oracle ``CSC_eps'(H)``:

        - ``"exponential"``: the exponential mechanism over the finite class ``hypotheses`` (Subroutine 2 as
          analysed in the paper); protects whole records when the class is fixed before seeing the data.
        - ``"regression"``: the paper's experimental oracle (Kearns et al. 2018; Smith et al. 2017): a linear
          regression of the per-record cost difference on ``[X, 1]``, released as ``(X^T X)^{-1} noisy(X^T c)``;
          predicts 1 where the predicted cost of 1 is lower. Laplace noise on ``X^T c``, and on ``X^T X`` too when
          ``privacy_unit="record"``. Needs ``feature_bound``.
        - ``"estimator"``: Fairlearn's algorithm itself (see above), no privacy; only with ``epsilon=inf``.
        - ``"diffprivlib"``: a diffprivlib model as oracle. Refused: diffprivlib's models ignore
          ``sample_weight`` (they warn and fit unweighted), so the best response would silently be wrong.
        - ``"auto"``: ``"estimator"`` (Fairlearn's path) when ``epsilon=inf`` and an estimator is given, else
          ``"exponential"`` when ``hypotheses`` is given, else ``"regression"``.
    hypotheses : list or None, default=None
        Finite hypothesis class for ``oracle="exponential"`` (fitted classifiers or callables returning 0/1),
        fixed before seeing the data, e.g. :func:`fairlearn_dp.reductions.linear_threshold_hypotheses`.
    feature_bound : float or (lower, upper), default=1.0
        Public bound on the features: a number ``R`` (``|x_j| <= R``), or a box ``(lower, upper)`` as diffprivlib's
        ``bounds``, each side a number or an array with one entry per feature. Regression oracle: features beyond
        ``R`` (for a box, its largest ``|bound|``) are clipped to ``[-R, R]`` (in ``fit`` and ``predict``),
        silently: a warning would say whether the private data exceed the bound. Statistics game under
        ``"record"``: the default of ``row_norm_bound`` (below).
    row_norm_bound : float or None, default=None
        Statistics game: public bound ``C`` on the L2 norm of a row of ``X``. Under ``"record"`` rows beyond it are
        scaled onto it (silently), and the noise grows with it. None: the bound ``X`` publishes, a DataFrame's
        ``X.attrs["row_norm_bound"]`` (the :mod:`fairlearn_dp.datasets` loaders set it, e.g. ``sqrt(11)`` for
        ``adult_features``; it survives ``train_test_split``); else the tight bound of the ``feature_bound`` box,
        ``sqrt(sum_j max(lower_j^2, upper_j^2))``; for a number ``R`` that is ``R sqrt(n_features)``, and a
        ``UserWarning`` says so (on one-hot rows it is far above the true bound, and the fit can end no better than
        a constant classifier). ``row_norm_bound_`` is the bound used. Under ``"sensitive_attribute"`` X is public:
        a given bound is checked against it, and the released statistics are of the public rescaling of X
        (:mod:`fairlearn_dp.reductions._public_features`), whose row bound is read off it (``row_norm_bound_``).
    statistics_fraction : float, default=0.5
        Statistics game: share of the zCDP budget ``rho`` spent on the one release of sufficient statistics; the
        rest is split evenly over the ``T`` planned Auditor releases.
    ridge : float or None, default=None
        Statistics game: ridge of the proxy and least-squares solves (None: ``sigma_stats / p_min``; under
        ``"record"`` ``2 sigma_gram sqrt(d + 1)``, the noise floor of the released Gram matrix: functions of the
        noise scales and released counts).
        Paper mode (None: 0): public ridge penalty added to the diagonal of ``X^T X`` by the regression oracle (post-processing of the
        released or public ``X^T X``; a multiple of ``m`` damps the noise on ``X^T c``). A 1e-6 relative jitter is
        always added for numerical stability.
    min_count : int or None, default=None
        Public lower bound ``N >= 2`` on the (group, event) cell counts, e.g. ``min_{a,y} q_ay m`` for equalized
        odds. It sets the sensitivities; a cell with fewer rows (or none) is not an error: its conditional mean is
        shrunk toward 0 (see Privacy). None: estimated privately (Laplace counts minus a margin, floored at 2) with
        ``min_count_fraction`` of epsilon.
    min_count_fraction : float, default=0.1
        Share of epsilon spent on the private lower bound when ``min_count`` is None.
    beta : float, default=0.05
        Confidence parameter of Algorithm 3's ``T`` formula.
    privacy_unit : {"sensitive_attribute", "record"}, default="sensitive_attribute"
        Neighbouring relation protected (see Privacy).
    groups : list or None, default=None
        Public list of groups (None: read from the data, with a ``PrivacyWarning`` when ``epsilon`` is finite).
    accountant : diffprivlib.BudgetAccountant or None, default=None
        Checked before the data are read and charged once per successful ``fit``.
    random_state : None, int or RandomState, default=None
        Seeds the release noise (one stream for all the fit's diffprivlib mechanisms; experiments only: a seeded
        release is not secure). None: diffprivlib's cryptographically secure generator, never numpy's global one.

    Attributes
    ----------
    predictors_ : list
        The Learner's distinct plays (classifiers with ``predict``).
    weights_ : numpy.ndarray
        Their weights in ``Q`` (play counts / T).
    lambda_ : numpy.ndarray
        The Auditor's average multipliers (``lambda~`` of Algorithm 3), indexed like ``constraint_index_``.
    history_ : dict of numpy arrays
        Algorithm 3, per round: ``lambda`` (T, K), ``noisy_gamma`` (T, K), ``hypothesis`` (T,) index into the plays,
        ``noise_scale`` (the auditor's Laplace scale). Statistics game: ``statistics`` (the one release ``S``, ``2 x
        |G| x (d + 1)`` (label, group) cells under ``"record"`` and for error-rate parity, else ``E x |G| x (d + 1)``
        (event, group) cells, projected onto their public margins), per round ``round_sums`` (the round's release:
        the cell sums of the play's predictions, ``2 x |G|`` or ``E x |G|``),
        ``lambda``, ``released_gamma`` (violations from the round's release),
        ``gamma`` (the estimates the LP used), ``error``, ``lp_value``; ``noise_scale`` (the per-round sigma).
        Everything in it is a DP release or post-processing.
    n_iter_ : int
        T (statistics game: the rounds played, at most ``max_iter``).
    mode_ : str
        The algorithm that ran: ``"statistics"``, ``"paper"`` (Algorithm 3) or ``"fairlearn"`` (Fairlearn's own).
    proxy_reliability_ : numpy.ndarray or None
        Statistics game, per (event, group): the share ``kappa`` of what the Learner reads about the group that is
        signal rather than release noise (1 without noise). With the estimator as Learner, of the proxy's spread;
        with the least-squares Learner (``"record"``, or no estimator), of the group's cost direction, and the game
        then enforces ``kappa * gamma <= bound`` for that cell
        (:mod:`fairlearn_dp.reductions._direction_reliability`). 0 (least-squares Learner: at most the bound)
        means the group's constraint cannot be enforced at this epsilon (a warning says so). Post-processing of the
        release.
    rho_, noise_scale_, estimated_error_, estimated_violation_, row_norm_bound_, ridge_, bound_B_
        Statistics game: the zCDP budgets (``statistics``, ``per_round``, ``rounds_planned``, ``total``), the
        Gaussian sigmas, the LP's released estimates of the mixture's error (under the objective's costs) and
        largest violation, the row-norm bound ``C`` used (under ``"sensitive_attribute"``: of the rescaled
        features whose statistics are released), the ridge and ``B``.
    epsilon_per_mechanism_ : float
        epsilon' of each of the 2T per-round mechanisms.
    composition_ : str
        "basic" or "advanced".
    min_count_ : float
        ``N``, the cell-count floor the sensitivities and the moments used: ``min_count``, or ``max(2,
        min_count_estimate_)``; with ``epsilon=inf`` the smallest non-empty cell (no floor is applied).
    min_count_estimate_ : float or None
        The DP lower bound on the cell counts before the floor at 2 (None when ``min_count`` is public or
        ``epsilon=inf``). A release, safe to publish.
    sensitivity_ : dict
        ``auditor_l1`` (of the violation vector) and ``learner`` (of the cost) or ``regression_l1``.
    privacy_spent_ : PrivacySpend
    nu_ : float
        Fairlearn's path: the duality-gap threshold its fit used (``nu``, or the one it computed).
    preprocessor_ : sklearn.pipeline.Pipeline or None
        Statistics game with a ``Pipeline`` estimator: its fitted preprocessing (then the conversion to dense
        floats and, under ``"record"``, the row clipping), which ``predict`` applies before the plays; each of
        ``predictors_`` is then a fitted ``Pipeline`` (these steps, then the play) that takes the raw ``X``, and
        ``n_features_in_`` counts the raw columns. None otherwise.
    oracle_ : str
        The oracle used; ``"estimator"`` means Fairlearn's path, whose fitted attributes are Fairlearn's
        (``predictors_`` and ``weights_`` are then pandas Series, as in Fairlearn, and the Algorithm-3 attributes
        above are not set).

    Privacy
    -------
    **Statistics game** (``mode_ == "statistics"``). Neighbouring relations as below; ``m``, the declared groups,
    the constraint and every parameter are public, and under ``"sensitive_attribute"`` so are X and y (hence
    ``C = max ||x_i||``). Under ``"record"``, ``C`` comes from public inputs only: ``row_norm_bound``, the bound
    published with X (``X.attrs``, metadata of the public domain, not a statistic of the rows) or the
    ``feature_bound`` box with X's number of columns; the warning about a loose ``C`` depends on nothing else.

    - Release 1, once: the cell sums of ``phi = [x, 1]`` (their last coordinate is the count). Attribute: per
      (event, group) cell (per (label, group) for error-rate parity), ``x`` the public rescaling ``z`` of X, as
      two Gaussian releases: the feature sums (a record moves between two cells of its own event or label,
      ``L2 <= sqrt(2) C``) and the counts (``L2 <= sqrt 2``) with ``COUNT_SHARE`` of ``rho_stats``; each is then
      projected onto its public margin over the groups (post-processing). Record: per (label, group) cell, one
      cell loses ``phi`` and another gains ``phi'`` (``L2 <= sqrt(2 (C^2 + 1))``), or one cell changes by
      ``[x' - x, 0]`` (``<= 2C``): ``L2 <= max(sqrt(2 (C^2 + 1)), 2C)``; and the upper triangle of ``Phi^T Phi``,
      ``L2 <= sqrt(||phi||^4 + ||phi'||^4 - 2 (phi . phi')^2) <= sqrt(2) (C^2 + 1)`` (derivation in
      ``_statistics_game.gram_sensitivity``), each with half of ``rho_stats``.
    - Release 2, each round: the cell sums (the cells of release 1) of the play's 0/1 predictions. The play is a
      function of earlier releases (and public X, y under the attribute relation), so it is the same on
      neighbours; one ``h_i`` moves between two cells: ``L2 <= sqrt 2`` (record: one leaves, one joins, the same
      bound). Attribute: projected onto the play's public event totals (post-processing).
    - Everything else (the proxy memberships, the least-squares Learner's direction reliabilities, the Learner's
      weights and fits, the violations, errors, the LP, the stopping rule, the warning) is post-processing of
      these releases and public data.
    - Mechanism: Gaussian, ``sigma = Delta_2 / sqrt(2 rho_i)`` (diffprivlib's analytic Gaussian with that
      sigma), ``rho_i``-zCDP; zCDP composes by addition over the one release and the ``T`` planned rounds:
      ``statistics_fraction * rho + T * rho_round = rho``, where ``rho`` is the largest zCDP budget whose
      conversion ``rho + 2 sqrt(rho ln(1/delta))`` is at most ``epsilon`` (Bun & Steinke 2016, Prop. 1.3). The
      accountant is charged ``(epsilon, delta)`` once. ``noise_scale_`` and ``rho_`` record the sigmas and rhos.
    - Failure paths: the same order and rules as Algorithm 3 (below); small or empty cells are not errors (a
      released count is floored at three noise standard deviations).

    **Algorithm 3** (``mode="paper"``):

    - Neighbouring relation: ``privacy_unit="sensitive_attribute"`` (the paper's): one person's sensitive
      attribute changes, X and y are public; the hypotheses must not read the sensitive attribute (keep it out of
      X). ``"record"``: one whole record ``(x, a, y)`` is substituted; the data size ``m`` is public in both.
    - Public: ``m``, the declared ``groups``, the constraint (hence its events, and the list of (event, group)
      cells, fixed by the two without looking at the data), every parameter (``min_count``, ``bound_B``,
      ``feature_bound``, ``max_iter``, ``hypotheses``, ...). Everything else is read only through the releases.
    - Floored moments. Each (event, group) cell's conditional mean is computed with the denominator ``max(n_eg,
      N)`` and each event's with ``max(n_e, |G| N)`` (``N`` = ``min_count_``): ``E^[h | e, g] = sum_cell h /
      max(n_eg, N)``. For values in ``[0, 1]`` such a mean moves by at most ``1/N`` when one record joins,
      leaves or changes inside the cell, *whatever the cell's size*. A record leaving a cell of ``k`` rows (the
      sum ``s`` loses ``v``): if ``k - 1 >= N`` both means are ordinary and ``|s/k - (s - v)/(k - 1)| = |k v -
      s| / (k (k - 1)) <= 1/k < 1/N``; if ``k <= N`` both denominators are ``N`` (``N`` is an integer, so there
      is no third case) and the sum moves by at most 1; joining is the reverse, and a change inside the cell
      keeps the denominator. For values in ``[-R, R]`` the same cases give at most ``2R/(k-1) <= 2R/N`` and
      ``R/N`` per coordinate, and the constant column of ``[x, 1]`` (mean ``k / max(k, N)``) moves by ``1/N``
      while ``k <= N``, by 0 otherwise. Hence the
      sensitivities below hold for every dataset of the domain, including declared groups with no rows and cells
      below ``N`` (a public ``min_count`` larger than some cells is not an error). The price is bias: a cell with
      ``n_eg < N`` rows has its mean multiplied by ``n_eg / N`` (shrunk toward 0; an empty cell's mean is 0), so
      its constraints ``|E^[h|e,g] - E^[h|e]| <= gamma`` push ``E^[h | e]`` toward 0 and the fairness guarantee of
      Thm. 4.4 holds only for the cells with at least ``N`` rows. When every cell has at least ``N`` rows the
      moments are Fairlearn's exactly.
    - Auditor: the violation vector ``gamma(h_t)`` has entries ``+-(E^[h|e, g] - E^[h|e])``. Changing one
      attribute moves one record between two cells of the same event (``E^[h|e]`` unchanged): L1 sensitivity
      ``4/N <= 4 / (N - 1)`` (two cells, two signs). Substituting a record also moves the event means (at most
      two events, each entering ``2 |G|`` coordinates with change ``<= 1/(|G| N)``): ``8/N <= 8 / (N - 1)``.
      Laplace noise of scale ``sensitivity / epsilon'`` (diffprivlib ``Laplace``) on each coordinate.
    - ``ErrorRateParity``: one event ("all"), and the per-record value is the error ``v_i = |h(x_i) - y_i| = h(x_i)
      (1 - 2 y_i) + y_i`` in ``[0, 1]`` instead of ``h(x_i)``: ``gamma_(+-, g)(h) = +-(E^[v | g] - E^[v])`` with
      the same floored means. Attribute: ``v_i`` does not depend on ``a_i``, the event mean is unchanged, two cells
      move by ``<= 1/N`` each: ``4/N``, as above. Record: two cells by ``<= 1/N``, the event mean (denominator
      ``max(m, |G| N)``, ``m`` public) by ``<= 1/(|G| N)`` in each of ``2 |G|`` coordinates: ``4/N + 2/N = 6/N <=
      8/N``. The declared ``4/(N - 1)`` and ``8/(N - 1)`` hold. Linear in ``h``: ``gamma(h) = -U'^T h / m + gamma_0``
      with ``U' = diag(1 - 2y) U`` and ``gamma_0 = -U^T y / m``; the Learner's costs drop ``lambda . gamma_0`` (the
      same for every ``h``: the exponential mechanism is invariant to a shift of all costs, so its privacy follows
      from the sensitivity of the full cost, bounded as for the other moments: ``B/(N - 1)`` or ``1/m + 2B/(N -
      1)``).
    - Learner, exponential mechanism: the cost ``err(h) + lambda^T (gamma(h) - bound)`` changes by at most
      ``||lambda||_1 max_k |Delta gamma_k| <= B / (N - 1)`` (attribute) or ``1/m + 2B/(N - 1)`` (record).
    - Learner, regression oracle: ``X^T c = (1/m) sum_i x~_i (1 - 2 y_i) - sum_{e,g} lambda'_{e,g} (mu_e -
      mu_{e,g})`` with ``x~ = [x, 1]``, ``mu`` the floored means of ``x~``, ``lambda' = lambda_+ - lambda_-``,
      ``|lambda'|_1 <= B``. One cell's ``mu`` moves by at most ``s/N`` in L1 with ``s = max(2 d R, d R + 1)``
      (``d`` features, ``|x_j| <= R``; ``2 d R`` for the ordinary means, ``d R + 1`` for a cell at or below
      ``N``, whose constant column moves): L1 sensitivity ``s B / (N - 1)`` (attribute: two cells of one event)
      or ``2 (d + 1) max(R, 1) / m + 2 s B / (N - 1)`` (record: a cell and its event for each ``lambda'``; there
      ``X^T X``'s upper triangle is also released, once, with L1 sensitivity ``(d+1)(d+2) max(R, 1)^2`` and its
      own ``epsilon'``). With ``ErrorRateParity`` the means are those of ``z_i = x~_i (1 - 2 y_i)``, whose
      constant column is ``+-1`` and moves inside an ordinary cell as well: ``s = 2 (d R + 1)`` (ordinary cell:
      ``2R/N`` per feature and ``2/N`` for the constant; floored cell: ``(d R + 1)/N``), in the same formulas (for
      the record relation the event mean moves by ``<= 2 (d R + 1) / (|G| N) <= s/N``, within the ``2 s B``).
    - Budget: with ``min_count=None``, ``min_count_fraction * epsilon`` goes to Laplace cell counts over all
      declared cells (L1 sensitivity 2), and ``N = max(2, floor(min(noisy) - (2/eps_0) ln(1/delta)))``. Thanks to
      the floored moments the sensitivities hold for any ``N``: a low estimate costs accuracy (larger noise), a
      high one (probability at most ``delta/2``) bias, never privacy; ``delta/2`` is still reserved for it in
      the accounting (conservative). The 2T per-round mechanisms (2T + 1 with that ``X^T X``) get the largest
      ``epsilon'`` for which basic composition, or advanced composition with the remaining delta, stays within
      the remaining epsilon. The accountant is charged once with ``(epsilon, delta)`` (``delta`` only when it
      was used).
    - Failure paths: ``fit`` validates the public parameters, then checks the budget, then reads the data. The
      only errors after that are domain errors (non-finite X, labels other than 0/1, a group not in ``groups``,
      length mismatches), whose messages carry no counts; every dataset inside the domain fits, and no warning
      depends on the data. The worse-than-constant warning is post-processing: under the attribute relation it
      uses the training error of the released plays on public X and y; under ``"record"`` only public bounds
      and ``epsilon'`` (the Learner's noise against the largest value its release can take). A failed fit leaves the estimator as it was.
    """

    def __init__(self, estimator=None, constraints=None, *, objective=None, eps=_FAIRLEARN_EPS, max_iter=None,
                 nu=None, eta0=_FAIRLEARN_ETA0, run_linprog_step="auto", sample_weight_name="sample_weight",
                 epsilon=1.0, delta=1e-7, mode="auto", bound_B=None, eta=None, oracle="auto", hypotheses=None,
                 feature_bound=1.0, row_norm_bound=None, ridge=None, statistics_fraction=0.5, min_count=None,
                 min_count_fraction=0.1, beta=0.05, privacy_unit="sensitive_attribute", groups=None, accountant=None,
                 random_state=None):
        # Fairlearn's arguments (its __init__ is not called: it would type max_iter=None as Fairlearn's 50).
        self.estimator = estimator
        self.constraints = constraints
        self.objective = objective
        self.eps = eps
        self.max_iter = max_iter
        self.nu = nu
        self.eta0 = eta0
        self.run_linprog_step = run_linprog_step
        self.sample_weight_name = sample_weight_name
        # Ours.
        self.epsilon = epsilon
        self.delta = delta
        self.mode = mode
        self.bound_B = bound_B
        self.eta = eta
        self.oracle = oracle
        self.hypotheses = hypotheses
        self.feature_bound = feature_bound
        self.row_norm_bound = row_norm_bound
        self.ridge = ridge
        self.statistics_fraction = statistics_fraction
        self.min_count = min_count
        self.min_count_fraction = min_count_fraction
        self.beta = beta
        self.privacy_unit = privacy_unit
        self.groups = groups
        self.accountant = accountant
        self.random_state = random_state

    # ------------------------------------------------------------------------------------------ nu
    # Fairlearn's fit writes the duality-gap threshold it computes (nu=None) into ``self.nu``; Fairlearn's own tests
    # read it there after fit, so it stays. But it is a fitted value, not the parameter: ``get_params`` (hence
    # ``clone``) reports the parameter, and every fit starts from it, so that a refit with new parameters (e.g.
    # ``set_params(epsilon=1)``, where nu must be None) and a clone behave as a fresh estimator.
    def _nu_parameter(self):
        """``nu`` as the user set it: None when ``self.nu`` holds the threshold an earlier Fairlearn fit computed."""
        computed = self.__dict__.get("_nu_computed")
        return None if computed is not None and self.nu is computed else self.nu

    def get_params(self, deep=True):
        """scikit-learn's ``get_params``, with ``nu`` as set by the user (not the threshold a fit computed)."""
        params = super().get_params(deep=deep)
        params["nu"] = self._nu_parameter()
        return params

    def set_params(self, **params):
        """scikit-learn's ``set_params``; a ``nu`` given here is the user's, whatever its value."""
        if "nu" in params:
            self.__dict__.pop("_nu_computed", None)
        return super().set_params(**params)

    # ------------------------------------------------------------------------------------------ validation
    def _check_params(self):
        """Validate the public parameters; returns ``(epsilon, delta, oracle)`` with ``oracle`` resolved.

        ``oracle == "estimator"`` (only at ``epsilon=inf``) means Fairlearn's path: Fairlearn's own arguments and
        the constraints are then left to Fairlearn's ``fit`` (its errors and messages).
        """
        epsilon, delta = validate_epsilon_delta(self.epsilon, self.delta)
        validate_params(self, _PARAMETER_CHECKS)
        if self.min_count is not None and (isinstance(self.min_count, bool)
                                           or not isinstance(self.min_count, numbers.Integral)
                                           or self.min_count < 2):
            raise ValueError(f"min_count must be None or an integer >= 2, got {self.min_count!r}.")
        if self.hypotheses is not None:             # classifiers with predict or plain callables (both predict)
            check_hypotheses(self.hypotheses)
        check_groups(self.groups)                   # public: refused before the budget check, not after it
        oracle = self._resolve_oracle(epsilon)
        if oracle == "estimator":
            return epsilon, delta, oracle              # Fairlearn's path: Fairlearn validates the rest
        check_estimator(self.estimator)                # unused by Algorithm 3's oracles, but never a bad value
        if oracle in _STATISTICS_ORACLES:
            self._check_statistics_params(epsilon, delta, oracle)
        else:
            self._check_algorithm3_params(epsilon, delta, oracle)
        return epsilon, delta, oracle

    def _resolve_oracle(self, epsilon):
        """The algorithm and its Learner, from ``mode``, ``oracle``, ``estimator`` and ``epsilon`` (all public).

        ``"estimator"``: Fairlearn's own ``fit`` (``epsilon=inf`` only). ``"exponential"``/``"regression"``:
        Algorithm 3 (``mode="paper"``). ``"weighted_estimator"``/``"least_squares"``: the statistics game
        (``mode="statistics"``, :mod:`._statistics_game`).
        """
        oracle, mode = self.oracle, self.mode
        if mode == "auto":
            paper_oracle = oracle in ("exponential", "regression", "diffprivlib") or self.hypotheses is not None
            fairlearn = math.isinf(epsilon) and self.estimator is not None and oracle in ("auto", "estimator")
            mode = "paper" if paper_oracle else ("fairlearn" if fairlearn else "statistics")
        if mode == "fairlearn" or (mode == "paper" and oracle == "estimator"):
            if not math.isinf(epsilon):
                raise ValueError("oracle='estimator' with mode='paper' is Fairlearn's non-private algorithm: it "
                                 "needs epsilon=inf. Use mode='statistics' to fit the estimator privately.")
            return "estimator"
        if mode == "paper":
            if oracle == "auto":
                return "exponential" if self.hypotheses is not None else "regression"
            return oracle
        # mode == "statistics"
        if oracle in ("exponential", "regression", "diffprivlib"):
            raise ValueError(f"oracle={oracle!r} is an oracle of the paper's Algorithm 3: use mode='paper' (or "
                             "mode='auto'), or oracle='auto'/'estimator'/'least_squares' with mode='statistics'.")
        if oracle == "least_squares" or self.estimator is None:
            return "least_squares"
        if self.privacy_unit == "record":
            return "least_squares"              # the estimator cannot read private records; warned in fit
        return "weighted_estimator"

    def _check_statistics_params(self, epsilon, delta, oracle):
        """The constraints and Fairlearn's arguments for the statistics game (see the class docstring)."""
        self._check_moment()
        if not math.isinf(epsilon) and not 0 < delta < 1:
            raise ValueError(f"delta={delta!r}: mode='statistics' releases with the Gaussian mechanism (zCDP) and "
                             "needs 0 < delta < 1; for pure DP use mode='paper' with a public min_count.")
        if not (isinstance(self.eps, numbers.Real) and math.isfinite(self.eps) and self.eps > 0):
            raise ValueError(f"eps must be a finite number > 0, got {self.eps!r}.")
        if self.bound_B is not None and self.eps != _FAIRLEARN_EPS and not math.isclose(self.eps * self.bound_B, 1):
            raise ValueError(f"eps={self.eps!r} and bound_B={self.bound_B!r} disagree (Fairlearn's B = 1/eps): "
                             "set one of them.")
        self._check_max_iter()
        if self.nu is not None:
            raise ValueError(f"nu={self.nu!r}: Fairlearn's early stop compares a duality gap measured on the raw "
                             "data; the private game stops on released values only. Leave nu=None.")
        if not (isinstance(self.eta0, numbers.Real) and math.isfinite(self.eta0) and self.eta0 > 0):
            raise ValueError(f"eta0 must be a finite number > 0, got {self.eta0!r}.")
        self._check_linprog_step()
        if not isinstance(self.sample_weight_name, str):
            raise ValueError(f"sample_weight_name must be a string, got {self.sample_weight_name!r}.")
        # A Pipeline: its weight routing, and under "record" its preprocessing's publicity (_pipeline.py).
        pipeline_parts(self.estimator, self.sample_weight_name, record=self.privacy_unit == "record")
        if oracle == "weighted_estimator" and not hasattr(self.estimator, "fit"):
            raise TypeError(f"estimator must have fit(X, y, {self.sample_weight_name}=...), got "
                            f"{type(self.estimator).__name__}.")

    def _check_linprog_step(self):
        step = self.run_linprog_step
        if not (isinstance(step, (bool, np.bool_)) or (isinstance(step, str) and step == "auto")):
            raise ValueError(f"run_linprog_step must be True, False or 'auto', got {step!r}.")

    def _linprog_step(self, private, oracle=None):
        """``run_linprog_step`` resolved: ``"auto"`` is Fairlearn's LP without noise and where each play's violation
        is a calibrated estimate (the estimator Learner under ``privacy_unit="sensitive_attribute"``), the uniform
        average where each play's violation is its own noisy release (see the parameter)."""
        if isinstance(self.run_linprog_step, str):
            calibrated = self.privacy_unit == "sensitive_attribute" and oracle == "weighted_estimator"
            # Measured (bench_adult_groups, epsilon = 1, 5 seeds): the LP helps where every event is all rows
            # (demographic parity by race: DP difference 0.086 -> 0.073) and hurts equalized odds by sex (0.034 ->
            # 0.058), whose small label-1 cells' calibrated estimates it selects on; so not for label events.
            return not private or (calibrated and isinstance(self.constraints, (DemographicParity, ErrorRateParity)))
        return bool(self.run_linprog_step)

    def _check_max_iter(self):
        if self.max_iter is not None and (isinstance(self.max_iter, bool)
                                          or not isinstance(self.max_iter, numbers.Integral) or self.max_iter < 1):
            raise ValueError(f"max_iter must be None or an integer >= 1, got {self.max_iter!r}.")
        if self.max_iter is not None and self.max_iter > MAX_ROUNDS:
            raise ValueError(f"max_iter must be at most MAX_ROUNDS={MAX_ROUNDS:,} for the private algorithms (a fit "
                             f"of that many rounds takes seconds), got {self.max_iter!r}.")

    def _check_moment(self, *, paper=False):
        if not isinstance(self.constraints, SUPPORTED_MOMENTS):
            hint = (" BoundedGroupLoss (and other loss moments) run only through Fairlearn's algorithm: "
                    "epsilon=inf with an estimator." if self.constraints is not None else "")
            raise ValueError("constraints must be one of Fairlearn's DemographicParity, EqualizedOdds, "
                             "TruePositiveRateParity, FalsePositiveRateParity, ErrorRateParity; got "
                             f"{type(self.constraints).__name__} (unsupported moment).{hint}")
        if getattr(self.constraints, "ratio", 1.0) != 1.0:
            raise ValueError("constraints: ratio bounds are not supported (use difference_bound).")
        check_real(getattr(self.constraints, "eps", None), "constraints' difference_bound", low=0.0)
        if getattr(self.constraints, "data_loaded", False):
            raise ValueError("constraints already holds data; pass a fresh Moment object.")
        # ErrorRate's public costs: the statistics game weighs released values with them (_objective.py); Algorithm 3
        # takes unit costs only.
        return objective_costs(self.objective, allow_costs=not paper)

    def _paper_mode(self):
        return getattr(self, "mode_", None) == "paper"

    def _B(self, *, paper):
        """The bound on the multipliers: ``bound_B``; None: Algorithm 3's 10 (``paper``), else Fairlearn's ``1/eps``."""
        if self.bound_B is not None:
            return float(self.bound_B)
        return _PAPER_B if paper else 1.0 / float(self.eps)

    def _check_algorithm3_params(self, epsilon, delta, oracle):
        """The constraints and Fairlearn's arguments, for Algorithm 3 (see the class docstring)."""
        self._check_moment(paper=True)
        if not (isinstance(self.eps, numbers.Real) and (self.eps == _FAIRLEARN_EPS
                                                         or math.isclose(self.eps * self._B(paper=True), 1.0))):
            raise ValueError(f"eps={self.eps!r}: the private algorithm bounds the multipliers by bound_B (Fairlearn's "
                             "B = 1/eps); set bound_B=1/eps instead and leave eps at its default 0.01.")
        self._check_max_iter()
        if self.nu is not None:
            raise ValueError(f"nu={self.nu!r}: Fairlearn's early stop on the duality gap measured on the raw data "
                             "is a data-dependent stopping time; the private algorithm plays max_iter rounds. "
                             "Leave nu=None.")
        if not (isinstance(self.eta0, numbers.Real) and self.eta0 == _FAIRLEARN_ETA0):
            raise ValueError(f"eta0={self.eta0!r}: Fairlearn's learning rate eta0/B is shrunk when the raw-data "
                             "regret stalls (data-dependent); the private algorithm's fixed learning rate is `eta`. "
                             "Set eta instead and leave eta0 at its default 2.0.")
        self._check_linprog_step()
        if self.sample_weight_name != "sample_weight":
            raise ValueError(f"sample_weight_name={self.sample_weight_name!r} is used only by Fairlearn's "
                             "estimator oracle (epsilon=inf with an estimator); the private oracles fit no "
                             "estimator. Leave it at 'sample_weight'.")
        if oracle == "diffprivlib":
            raise ValueError("oracle='diffprivlib' is not available: diffprivlib's models (0.6) ignore "
                             "sample_weight, so the cost-sensitive best response would silently be an unweighted "
                             "fit. Use oracle='exponential' or 'regression'.")
        if oracle == "exponential" and self.hypotheses is None:
            raise ValueError("oracle='exponential' needs a non-empty finite hypothesis class `hypotheses`.")
        if delta == 0 and self.min_count is None and not math.isinf(epsilon):
            raise ValueError("delta=0 needs a public min_count: the private lower bound on the cell counts fails "
                             "with a small probability that must be counted in delta.")

    def _check_public(self):
        """Validate the public parameters, then check the budget: the first two steps of ``fit``, before any data.

        Returns ``(epsilon, delta, oracle)``. The AIF360 face calls it before it reads its dataset.
        """
        epsilon, delta, oracle = self._check_params()
        private = not math.isinf(epsilon)
        check_spend(self.accountant, PrivacySpend(epsilon, delta if private else 0.0))
        return epsilon, delta, oracle

    def _load(self, X, y, sensitive_features, *, private=True):
        """Domain checks only (types, NaN, lengths, binary labels, declared groups); messages carry no counts."""
        # The conversion's message could quote a value of the private data: withheld (no chained exception).
        X_arr = call_withheld(np.asarray, X.to_numpy() if hasattr(X, "to_numpy") else X, dtype=float, replace=(
            ((TypeError, ValueError, OverflowError), TypeError("X must be numeric (finite floats).")),))
        if X_arr.ndim != 2 or X_arr.shape[0] == 0:
            raise ValueError("X must be a non-empty 2-D array.")
        if not np.all(np.isfinite(X_arr)):
            raise ValueError("X contains NaN or infinite values.")
        n = X_arr.shape[0]
        y_arr = np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y).ravel()
        if y_arr.size != n:
            raise ValueError(f"y has {y_arr.size} rows but X has {n} (length mismatch).")
        if pd.isna(pd.Series(y_arr)).any():
            raise ValueError("y contains NaN.")
        if not np.all(np.isin(y_arr, (0, 1))):
            raise ValueError("y must hold binary labels 0/1.")
        y_arr = y_arr.astype(int)
        group_vector = as_group_vector(sensitive_features, n, groups=self.groups)
        groups = resolve_groups(self.groups, group_vector, estimator_name=type(self).__name__, private=private)
        group_index = encode_groups(group_vector, groups)
        # A declared group without rows, or a (group, event) cell below min_count, is inside the domain: it fits
        # (its moments are shrunk, see Privacy), so that success never depends on the private counts.
        return X_arr, y_arr, group_index, groups

    # ------------------------------------------------------------------------------------------ fit
    @atomic_fit
    def fit(self, X, y, *, sensitive_features=None, **kwargs):
        """Fit on ``(X, y)`` with ``sensitive_features``: Fairlearn's algorithm at ``epsilon=inf`` with an
        estimator, else T rounds of the (private) Learner/Auditor game.

        Order: public parameters are validated and the budget is checked before the data are read; every fit of
        data inside the domain then succeeds (see Privacy). A fit that raises leaves the estimator as it was.
        """
        self.nu = self._nu_parameter()              # a threshold computed by an earlier fit is not a parameter
        for name in ("_nu_computed", "nu_", "preprocessor_"):
            self.__dict__.pop(name, None)
        epsilon, delta, oracle = self._check_params()
        if oracle == "estimator":
            return self._fit_fairlearn(X, y, sensitive_features, kwargs)
        if kwargs:
            raise TypeError(f"Unexpected fit arguments: {sorted(kwargs)} (control_features and other Fairlearn fit "
                            "arguments are not supported by the private algorithm).")
        private = not math.isinf(epsilon)
        self._check_rounds_before_the_budget(X, epsilon, delta, oracle, private)
        self._check_row_bound_before_the_budget(X, oracle)
        check_spend(self.accountant, PrivacySpend(epsilon, delta if private else 0.0))
        if oracle in _STATISTICS_ORACLES:
            return self._fit_statistics(X, y, sensitive_features, epsilon, delta, oracle)
        X_arr, y_arr, group_index, groups = self._load(X, y, sensitive_features, private=private)
        n, d = X_arr.shape
        T = self._n_rounds(epsilon, delta, n, d, len(groups), oracle, private)     # public; capped before any release
        # Release noise: None reaches diffprivlib as None (its secure generator); a seed gives one reproducible
        # stream shared by all the fit's mechanisms, in the order they run.
        rng = None if self.random_state is None else _seeded_random_state(self.random_state)
        events = _moment_events(self.constraints)
        event_index = _event_index(self.constraints, y_arr)
        cell_counts = _cell_counts(event_index, group_index, len(events), len(groups))      # (|E|, |G|)

        # --- the cell-count lower bound N (public or DP), then the per-round budget
        eps_rounds, delta_rounds, delta_used = epsilon, delta, 0.0
        estimate = None
        if not private:
            present = cell_counts[cell_counts > 0]
            min_count = float(present.min()) if present.size else 0.0
        elif self.min_count is not None:
            min_count = float(self.min_count)
        else:
            eps0 = self.min_count_fraction * epsilon
            delta0 = delta / 2
            noisy = noisy_vector(cell_counts.ravel().astype(float), epsilon=eps0, l1_sensitivity=2.0,
                                 random_state=rng)
            # P(Laplace(2/eps0) > t) = exp(-t eps0 / 2) / 2 = delta0 at t = (2/eps0) ln(1/(2 delta0)).
            estimate = float(np.floor(noisy.min() - (2.0 / eps0) * math.log(1.0 / (2.0 * delta0))))
            min_count = max(estimate, 2.0)          # a released value; floored so that 1/(N - 1) is defined
            eps_rounds, delta_rounds, delta_used = epsilon - eps0, delta - delta0, delta0
        self.min_count_ = min_count
        self.min_count_estimate_ = estimate

        # gamma(h) = -U^T h / n, with each cell's (and event's) denominator floored at N (|G| N): Privacy.
        U, constraint_index = _constraint_matrix(event_index, group_index, events, cell_counts,
                                                 floor=min_count if private else 0.0, keep_empty=private)
        offset = np.zeros(U.shape[1])
        if isinstance(self.constraints, ErrorRateParity):
            # The value is the error h (1 - 2y) + y: gamma(h) = -U'^T h / n + gamma_0 (Privacy, ErrorRateParity).
            offset = -(U.T @ y_arr.astype(float)) / n
            U = np.asfortranarray(U * (1.0 - 2.0 * y_arr)[:, None])
        bound = np.full(U.shape[1], float(self.constraints.eps))
        n_constraints = U.shape[1]

        # No sensitivity without noise (and none is defined for a cell of one row).
        sensitivity = self._sensitivities(min_count, n, d, len(groups), oracle) if private else {}
        if private:
            # 2T per-round mechanisms, plus the one release of X^T X by the regression oracle under "record".
            n_mechanisms = 2 * T + int(oracle == "regression" and self.privacy_unit == "record")
            eps_prime, rule = per_mechanism_epsilon(eps_rounds, n_mechanisms, delta_rounds)
            if rule == "advanced":
                delta_used += delta_rounds
        else:
            eps_prime, rule = math.inf, "none"
        eta = (float(self.eta) if self.eta is not None
               else 0.5 * math.sqrt(math.log(4 * len(groups) - 3) / T))           # Algorithm 3's eta
        B = self._B(paper=True)

        learner = self._make_oracle(oracle, X_arr, y_arr, U, n, d, eps_prime, sensitivity, rng)
        auditor_scale = sensitivity["auditor_l1"] / eps_prime if private else 0.0
        theta = np.zeros(n_constraints)
        plays, play_index = [], {}
        history = {"lambda": [], "noisy_gamma": [], "hypothesis": []}
        counts = []
        for _ in progress_rounds(0, T, desc=f"{type(self).__name__} (Algorithm 3)"):
            if n_constraints:
                weights = np.exp(theta - theta.max())
                lam = B * weights / (math.exp(-theta.max()) + weights.sum())     # B e^theta / (1 + sum e^theta)
            else:                                   # epsilon=inf and no row in any event: nothing to constrain
                lam = np.zeros(0)
            h, key, predictions = learner(lam)
            if key not in play_index:
                play_index[key] = len(plays)
                plays.append(h)
                counts.append(0)
            index = play_index[key]
            counts[index] += 1
            gamma = -(U.T @ predictions) / n + offset
            noisy_gamma = (noisy_vector(gamma, epsilon=eps_prime, l1_sensitivity=sensitivity["auditor_l1"],
                                        random_state=rng) if private else gamma)
            theta = theta + eta * (noisy_gamma - bound)
            history["lambda"].append(lam)
            history["noisy_gamma"].append(noisy_gamma)
            history["hypothesis"].append(index)

        self.predictors_ = plays
        self.weights_ = np.asarray(counts, dtype=float) / T
        self.lambda_ = np.mean(history["lambda"], axis=0)
        self.constraint_index_ = constraint_index
        self.history_ = {key: np.asarray(value) for key, value in history.items()}
        self.history_["noise_scale"] = auditor_scale
        self.n_iter_ = T
        self.eta_ = eta
        self.oracle_ = oracle
        self.mode_ = "paper"
        self.epsilon_per_mechanism_ = eps_prime
        self.composition_ = rule
        self.sensitivity_ = sensitivity
        self.groups_ = groups
        self.n_features_in_ = d
        spent = PrivacySpend(epsilon, delta_used) if private else PrivacySpend(math.inf, 0.0)
        self.privacy_spent_ = charge(self.accountant, spent)
        if private and self.privacy_unit == "sensitive_attribute":
            # X and y are public under this relation and the plays are released: the training error of Q is
            # post-processing, and so is the warning (Algorithm 3 at a small epsilon is often noise).
            positive = self._pmf_predict(X_arr)[:, 1]
            error = float(np.mean(positive * (1 - y_arr) + (1 - positive) * y_arr))
            self._warn_if_worse_than_constant(error, float(y_arr.mean()), 0.0, False)
        elif private:
            # Under "record" y is private and nothing released estimates the error: compare the Learner's noise
            # with public bounds on what it releases instead (m, d, R, B, N, epsilon' are public or released).
            statistic, noise, signal = self._learner_noise(oracle, n, eps_prime, sensitivity)
            warn_if_noise_dominated(type(self).__name__, statistic, noise, signal,
                                    "more data, a larger epsilon, mode='statistics' or privacy_unit="
                                    "'sensitive_attribute' (only the sensitive feature private)", stacklevel=3)
        return self

    def _learner_noise(self, oracle, m, eps_prime, sensitivity):
        """``(statistic, noise, signal)`` for Algorithm 3's Learner under ``privacy_unit="record"``, from public
        parameters and released values only (``N`` in the sensitivities may be the released ``min_count_``).

        - Exponential oracle: the mechanism's accuracy guarantee. With probability ``1 - beta`` the chosen
          hypothesis' cost is within ``2 s (ln |H| + ln(1/beta)) / epsilon'`` of the best (``s`` its cost
          sensitivity); when that is at least 0.5, the error a constant classifier never exceeds, the guarantee
          does not separate the play from a constant (or from a random hypothesis of the class).
        - Regression oracle: the noise standard deviation (``sqrt 2`` times the Laplace scale) of each released
          coordinate against the largest value it can take: ``max(R, 1)`` for the error part of ``X^T c`` (a
          mean of ``x~_i (1 - 2 y_i)``), ``m max(R, 1)^2`` for an entry of ``X^T X``. The larger ratio is
          reported.
        """
        if oracle == "exponential":
            excess = (2.0 * sensitivity["learner"] * (math.log(len(self.hypotheses)) + math.log(1.0 / self.beta))
                      / eps_prime)
            return "exponential mechanism's excess-cost guarantee", excess, 0.5
        scale = max(feature_bound_radius(self.feature_bound), 1.0)
        moment = (noise_sd(sensitivity["regression_l1"] / eps_prime, 0.0), scale)      # Laplace releases
        gram = (noise_sd(sensitivity["gram_l1"] / eps_prime, 0.0), m * scale ** 2)
        if moment[0] / moment[1] >= gram[0] / gram[1]:
            return "X^T c, error part", moment[0], moment[1]
        return "X^T X", gram[0], gram[1]

    def _fit_statistics(self, X, y, sensitive_features, epsilon, delta, oracle):
        """The statistics game (``mode="statistics"``): one release of sufficient statistics, one small release
        per round, everything else post-processing (:mod:`fairlearn_dp.reductions._statistics_game`)."""
        private = not math.isinf(epsilon)
        record = self.privacy_unit == "record"
        if record and self.estimator is not None and private:
            warnings.warn("privacy_unit='record': the estimator is never fitted on the private records (of a "
                          "Pipeline, only the public preprocessing is applied to them); the Learner is the "
                          "least-squares cost oracle on released statistics (oracle_='least_squares'). With "
                          "privacy_unit='sensitive_attribute' (X and y public) the estimator itself is the Learner.",
                          UserWarning, stacklevel=3)
        # A Pipeline: its preprocessing, fitted once (public under "record"), gives the game's features.
        game_input = game_estimator(self.estimator, self.sample_weight_name, X, y, record=record)
        X_arr, y_arr, group_index, groups = self._load(game_input.features, y, sensitive_features, private=private)
        n, d = X_arr.shape
        if record:
            # The public row-norm bound: rows beyond it are scaled back onto it, silently (a warning would say
            # whether some private row exceeds it).
            row_norm = self._record_row_norm(game_input.features, d, private)
            X_arr = clip_rows(X_arr, row_norm)
        else:
            # X is public under this relation: the bound is read off it (and row_norm_bound, if given, must hold).
            observed = float(np.linalg.norm(X_arr, axis=1).max())
            if self.row_norm_bound is not None and observed > self.row_norm_bound * (1 + 1e-12):
                raise ValueError("row_norm_bound: a row of X (public under privacy_unit='sensitive_attribute') "
                                 "has a larger L2 norm.")
            # The statistics are released of the public rescaling z of X (a function of the public X only, see
            # _public_features.py); their sensitivity uses the bound on ||z||, read off the public z.
            feature_map = PublicFeatureMap.from_public(X_arr)
            row_norm = float(np.linalg.norm(feature_map.transform(X_arr), axis=1).max())
        rng = None if self.random_state is None else _seeded_random_state(self.random_state)
        events = _moment_events(self.constraints)
        event_index = _event_index(self.constraints, y_arr)
        B = self._B(paper=False)
        T = int(self.max_iter) if self.max_iter is not None else _FAIRLEARN_MAX_ITER
        eta = float(self.eta) if self.eta is not None else float(self.eta0) / B
        game = StatisticsGame(
            X=X_arr, y=y_arr, group_index=group_index, event_index=event_index, n_events=len(events),
            n_groups=len(groups), error_parity=isinstance(self.constraints, ErrorRateParity), record=record,
            row_norm=row_norm, epsilon=epsilon, delta=delta, statistics_fraction=float(self.statistics_fraction),
            n_rounds=T, bound=float(self.constraints.eps), B=B, eta=eta, ridge=self.ridge,
            estimator=game_input.learner if oracle == "weighted_estimator" else None,
            sample_weight_name=game_input.weight_name, rng=rng, feature_map=None if record else feature_map,
            costs=objective_costs(self.objective, allow_costs=True))
        game.play(_EVENT_LABELS[_moment_events(self.constraints)], linprog_step=self._linprog_step(private, oracle))

        cells = [(e, g) for e in range(len(events)) for g in range(len(groups))]
        tuples = ([("+", events[e], groups[g]) for e, g in cells] + [("-", events[e], groups[g]) for e, g in cells])
        self.constraint_index_ = pd.MultiIndex.from_tuples(tuples, names=["sign", "event", "group_id"])
        self.predictors_ = list(game.plays_)
        self.weights_ = np.asarray(game.q_, dtype=float)
        self.lambda_ = game.lambdas_.mean(axis=0)
        self.history_ = {"statistics": game.S_, "round_sums": game.round_sums_, "lambda": game.lambdas_,
                         "released_gamma": game.released_gammas_,
                         "gamma": game.gammas_, "error": game.errors_, "lp_value": game.lp_values_,
                         "noise_scale": game.sigma_round}
        self.n_iter_ = game.rounds_played_
        self.eta_ = eta
        self.bound_B_ = B
        self.oracle_ = oracle
        self.mode_ = "statistics"
        self.composition_ = "zcdp" if private else "none"
        self.rho_ = ({"statistics": game.rho_stats, "counts": game.rho_counts, "per_round": game.rho_round,
                      "rounds_planned": T,
                      "total": game.rho_stats + T * game.rho_round} if private else {})
        self.noise_scale_ = {"statistics": game.sigma_stats, "counts": game.sigma_counts,
                             "per_round": game.sigma_round}
        self.epsilon_per_mechanism_ = math.inf if not private else None
        self.sensitivity_ = game.sensitivity
        self.row_norm_bound_ = row_norm
        self.rows_clipped_ = record                 # predict scales rows onto row_norm_bound_ as fit did
        self.ridge_ = game.ridge
        self.min_count_ = None
        self.min_count_estimate_ = None
        self.proxy_reliability_ = getattr(game, "kappa_", None)
        self.estimated_error_ = game.estimated_error_
        self.estimated_violation_ = game.estimated_violation_
        self.groups_ = groups
        self.n_features_in_ = d
        # A Pipeline: predictors_ are pipelines on the raw X (as Fairlearn's) and preprocessor_ its preprocessing.
        self.preprocessor_, self.predictors_, self.n_features_in_ = game_input.fitted_attributes(
            game.plays_, d, clip_bound=row_norm if record else None)
        spent = PrivacySpend(epsilon, delta) if private else PrivacySpend(math.inf, 0.0)
        self.privacy_spent_ = charge(self.accountant, spent)    # before the warnings (one may be an error)
        if private and game.unenforced_groups():
            blind = [str(groups[g]) for g in game.unenforced_groups()]
            warnings.warn(f"{type(self).__name__}: at this epsilon the features cannot tell the members of group(s) "
                          f"{blind} apart from the noise of the released statistics (proxy_reliability_ = 0, or at "
                          "most the constraint's bound for the least-squares Learner), so the Learner cannot correct "
                          "their violations; they are measured (released) but not enforced. More data or a larger "
                          "epsilon would help.", PrivacyWarning, stacklevel=4)
        if private and game.loosened_groups():
            loose = {str(groups[g]): round(b, 3) for g, b in game.loosened_groups().items()}
            warnings.warn(f"{type(self).__name__}: at this epsilon the released statistics of group(s) {list(loose)} "
                          "are mostly noise (proxy_reliability_ < 1/2), so the game enforces their constraint only "
                          f"to the effective bound(s) {loose} (the declared bound divided by the reliability) rather "
                          "than to the declared bound. More data or a larger epsilon would help.", PrivacyWarning,
                          stacklevel=4)
        if private:
            self._warn_if_worse_than_constant(game.estimated_error_, game.n_positive_ / n, game.error_sd_,
                                              record, stacklevel=5)
        return self

    def _warn_if_worse_than_constant(self, estimated_error, positive_rate, error_noise, record, stacklevel=4):
        """Warn when the released estimate of the fit's error is not below the best constant classifier's.

        Both numbers are released values (or public: under ``"sensitive_attribute"`` y and the plays are public),
        so the warning depends on nothing else. ``error_noise`` is the standard deviation of the estimate.
        ``stacklevel``: 4 when called from ``fit`` itself (``fit`` is wrapped by ``atomic_fit``), one more per frame.
        """
        hint = ("more data or a larger epsilon" + (" (or mode='statistics')" if self._paper_mode() else "")
                if not record else
                "more data, a larger epsilon or privacy_unit='sensitive_attribute' (only the sensitive feature "
                "private)")
        warn_if_worse_than_constant(type(self).__name__, estimated_error, positive_rate, error_noise, hint,
                                    costs=objective_costs(self.objective, allow_costs=True), stacklevel=stacklevel)

    def _fit_fairlearn(self, X, y, sensitive_features, kwargs):
        """Fairlearn's ``fit``, unchanged (``max_iter=None`` is Fairlearn's 50 for the duration of the call)."""
        check_spend(self.accountant, PrivacySpend(math.inf, 0.0))
        if sensitive_features is not None:
            kwargs = {"sensitive_features": sensitive_features, **kwargs}
        default_rounds = self.max_iter is None
        auto_step = isinstance(self.run_linprog_step, str)
        if default_rounds:
            self.max_iter = _FAIRLEARN_MAX_ITER
        if auto_step:                               # "auto" is Fairlearn's default (True) without noise
            self.run_linprog_step = True
        computed_nu = self.nu is None
        try:
            super().fit(X, y, **kwargs)
        finally:
            if default_rounds:
                self.max_iter = None
            if auto_step:
                self.run_linprog_step = "auto"
        if computed_nu:                             # Fairlearn wrote its threshold into self.nu (see _nu_parameter)
            self._nu_computed = self.nu
        self.nu_ = self.nu
        self.oracle_ = "estimator"
        self.mode_ = "fairlearn"
        self.privacy_spent_ = charge(self.accountant, PrivacySpend(math.inf, 0.0))
        return self

    def _sensitivities(self, N, m, d, n_groups, oracle):
        """The derivations are in the class docstring (Privacy); ``N >= 2``."""
        B = self._B(paper=True)
        R = feature_bound_radius(self.feature_bound)
        record = self.privacy_unit == "record"
        out = {"auditor_l1": (8.0 if record else 4.0) / (N - 1)}
        if oracle == "exponential":
            out["learner"] = (1.0 / m + 2 * B / (N - 1)) if record else B / (N - 1)
        elif oracle == "regression":
            # L1 change of one cell's floored mean of [x, 1] when a record joins or leaves it, times N.
            spread = (2 * (d * R + 1) if isinstance(self.constraints, ErrorRateParity)
                      else max(2 * d * R, d * R + 1))
            if record:
                out["regression_l1"] = 2 * (d + 1) * max(R, 1.0) / m + 2 * spread * B / (N - 1)
                out["gram_l1"] = (d + 1) * (d + 2) * max(R, 1.0) ** 2
            else:
                out["regression_l1"] = spread * B / (N - 1)
        return out

    def _check_rounds_before_the_budget(self, X, epsilon, delta, oracle, private):
        """Algorithm 3's round cap from public inputs only (``X``'s shape, the declared groups, the parameters), so
        that a T above ``MAX_ROUNDS`` is refused before the budget check; ``fit`` computes T again after loading.
        Algorithm 3 only, and only with declared groups (read from the data, their number is known after loading)."""
        if oracle in _STATISTICS_ORACLES or self.groups is None:
            return
        shape = getattr(X, "shape", None)
        shape = np.shape(X) if shape is None else shape
        if len(shape) == 2 and shape[0] > 0 and shape[1] > 0:
            self._n_rounds(epsilon, delta, int(shape[0]), int(shape[1]), len(self.groups), oracle, private)

    def _check_row_bound_before_the_budget(self, X, oracle):
        """The row bounds' errors from public inputs only, before the budget check: a ``feature_bound`` box whose
        length is not ``X``'s number of columns, and (statistics game under ``"record"``) a bound published in
        ``X.attrs`` that is not a number > 0. Not for a Pipeline estimator, whose features are its preprocessing's
        output (checked when they are known)."""
        record, statistics = self.privacy_unit == "record", oracle in _STATISTICS_ORACLES
        if statistics and pipeline_parts(self.estimator, self.sample_weight_name, record=record) is not None:
            return
        shape = getattr(X, "shape", None)
        shape = np.shape(X) if shape is None else shape
        if len(shape) != 2 or shape[1] == 0:
            return                                  # _load's domain error
        feature_reach(self.feature_bound, int(shape[1]))
        if statistics and record:
            resolve_row_norm_bound(self.row_norm_bound, self.feature_bound, X, int(shape[1]))

    def _record_row_norm(self, X, n_features, private):
        """The statistics game's public row-norm bound ``C`` under ``"record"`` (:mod:`..utils._row_bounds`):
        ``row_norm_bound``; else the bound ``X`` publishes (``X.attrs["row_norm_bound"]``); else the L2 bound of the
        ``feature_bound`` box, with a warning when that is the loose ``feature_bound * sqrt(d)``. Public inputs
        only: the warning is emitted before any release."""
        bound, source, note = resolve_row_norm_bound(self.row_norm_bound, self.feature_bound, X, n_features)
        if private and source == "feature_bound":
            warn_loose_row_norm_bound(type(self).__name__, bound, n_features, note, stacklevel=5)
        return bound

    def _n_rounds(self, epsilon, delta, m, d, n_groups, oracle, private):
        """Algorithm 3's T (Thm. 4.5's ``ln |H|`` for a finite class), with ``|A|`` the number of groups."""
        if self.max_iter is not None:
            return int(self.max_iter)
        if not private:
            return 200
        B = self._B(paper=True)
        log_class = (math.log(len(self.hypotheses)) if oracle == "exponential" else (d + 1) * math.log(m))
        numerator = B * math.sqrt(math.log(4 * n_groups - 3)) * m * epsilon
        log_delta = math.log(1 / delta) if delta > 0 else 1.0
        denominator = (2 * (2 * n_groups * B + 1) * math.sqrt(log_delta)
                       * (log_class + math.log(2 / self.beta)))
        rounds = numerator / denominator
        if rounds > MAX_ROUNDS:                     # public: m, d, |A|, epsilon, delta, B, beta
            raise ValueError(f"Algorithm 3's formula asks for T = {rounds:,.0f} rounds at epsilon={epsilon:g} "
                             f"(max_iter=None; T grows like epsilon), above MAX_ROUNDS={MAX_ROUNDS:,}: set max_iter "
                             f"(at most {MAX_ROUNDS:,}), which spends the budget on fewer, less noisy rounds. Nothing "
                             "was spent.")
        return max(1, int(rounds))

    # ------------------------------------------------------------------------------------------ oracles
    def _make_oracle(self, oracle, X, y, U, n, d, eps_prime, sensitivity, rng):
        """A function lambda -> (hypothesis, key, predictions on X): the Learner's best response (Subroutine 2)."""
        # Cost of predicting 1 minus cost of predicting 0, per record: L(h) = sum_i c_i h(x_i) + const, with the
        # error part (1 - 2 y_i)/n and the constraint part -(U lambda)_i / n (gamma(h) = -U^T h / n).
        base = (1.0 - 2.0 * y) / n
        private = math.isfinite(eps_prime)
        if oracle == "exponential":
            P = hypothesis_predictions(self.hypotheses, X)             # (n, |H|), public class, private data
            hypotheses = list(self.hypotheses)
            # Every hypothesis' cost is base . P[:, j] - lambda . (U^T P)[:, j] / n: precompute both parts once,
            # so a round costs O(K |H|) instead of O(n |H|).
            base_costs = np.zeros(P.shape[1])
            constraint_costs = np.zeros((U.shape[1], P.shape[1]))     # (K, |H|)
            for start in range(0, n, 4096):
                block = P[start:start + 4096].astype(float)
                base_costs += base[start:start + 4096] @ block
                constraint_costs += U[start:start + 4096].T @ block
            constraint_costs /= n

            def best_response(lam):
                costs = base_costs - lam @ constraint_costs
                index = exponential_mechanism(costs, epsilon=eps_prime, sensitivity=sensitivity.get("learner", 1.0),
                                              random_state=rng)
                return hypotheses[index], ("H", index), P[:, index].astype(float)
            return best_response

        if oracle == "regression":
            R = feature_bound_radius(self.feature_bound)
            # Values beyond the public bound are clipped silently: whether any was clipped depends on the data.
            Xc = np.clip(X, -R, R)
            design = np.column_stack([Xc, np.ones(n)])
            gram = design.T @ design
            record = self.privacy_unit == "record"
            if record and private:
                upper = np.triu_indices(d + 1)
                noisy_upper = noisy_vector(gram[upper], epsilon=eps_prime, l1_sensitivity=sensitivity["gram_l1"],
                                           random_state=rng)
                gram = np.zeros_like(gram)
                gram[upper] = noisy_upper
                gram = gram + np.triu(gram, 1).T
            jitter = 1e-6 * max(1.0, float(np.trace(np.abs(gram))) / (d + 1))
            # The matrix is fixed for the whole run: invert it once (pseudo-inverse: a noisy Gram may be singular).
            inverse = np.linalg.pinv(gram + (float(self.ridge or 0.0) + jitter) * np.eye(d + 1))

            def best_response(lam):
                c = base - U @ lam / n
                moment = design.T @ c
                if private:
                    moment = noisy_vector(moment, epsilon=eps_prime, l1_sensitivity=sensitivity["regression_l1"],
                                          random_state=rng)
                beta_hat = inverse @ moment
                # h(x) = 1 where the predicted cost difference [x, 1] . beta < 0, i.e. x . (-beta_x) >= beta_0.
                h = LinearThresholdClassifier(-beta_hat[:d], beta_hat[d])
                predictions = h.predict(Xc).astype(float)
                return h, ("R", h), predictions
            return best_response

        raise AssertionError(f"unexpected oracle {oracle!r}")       # "estimator" runs Fairlearn's own fit

    # ------------------------------------------------------------------------------------------ predict
    def _pmf_predict(self, X):
        """``(n, 2)`` probabilities of predicting 0 and 1 under the randomized classifier Q (Fairlearn's form)."""
        if getattr(self, "oracle_", None) == "estimator":
            return super()._pmf_predict(X)
        check_is_fitted(self, "predictors_")
        if getattr(self, "preprocessor_", None) is not None:      # a Pipeline estimator (statistics game)
            return pipeline_pmf(self.preprocessor_, self.predictors_, self.weights_, X)
        X_arr = np.asarray(X.to_numpy() if hasattr(X, "to_numpy") else X, dtype=float)
        if X_arr.ndim != 2 or X_arr.shape[1] != self.n_features_in_:
            raise ValueError(f"X must have {self.n_features_in_} columns, got shape {X_arr.shape}.")
        if self.oracle_ == "regression":
            R = feature_bound_radius(self.feature_bound)
            X_arr = np.clip(X_arr, -R, R)
        elif getattr(self, "mode_", None) == "statistics" and self.rows_clipped_:
            X_arr = clip_rows(X_arr, self.row_norm_bound_)
        positive = np.zeros(X_arr.shape[0])
        for h, w in zip(self.predictors_, self.weights_):
            if w > 0:                               # a play of `hypotheses` may be a plain callable
                predict = h.predict if hasattr(h, "predict") else h
                positive += w * np.asarray(predict(X_arr), dtype=float).ravel()
        return np.column_stack([1.0 - positive, positive])

    def predict(self, X, random_state=None):
        """Randomized 0/1 predictions: 1 with probability ``_pmf_predict(X)[:, 1]`` (Fairlearn's semantics)."""
        if getattr(self, "oracle_", None) == "estimator":      # Fairlearn's predict; None: OS entropy here too
            return super().predict(X, random_state=check_random_state(random_state))
        positive = self._pmf_predict(X)[:, 1]
        rng = check_random_state(random_state)          # None: OS entropy, never numpy's global generator
        return (positive >= rng.rand(len(positive))).astype(int)


# ---------------------------------------------------------------------------------------------------------------
# The moments' public structure: events and (group, event) cells, fixed by the constraint type and the declared
# groups (never by the data), with Fairlearn's labels and order.
_EVENTS = ((DemographicParity, ("all",)), (ErrorRateParity, ("all",)), (EqualizedOdds, ("label=0", "label=1")),
           (TruePositiveRateParity, ("label=1",)), (FalsePositiveRateParity, ("label=0",)))


# The labels each event of a moment is made of (events are unions of label cells), keyed by the event labels.
_EVENT_LABELS = {("all",): ((0, 1),), ("label=0", "label=1"): ((0,), (1,)), ("label=1",): ((1,),),
                 ("label=0",): ((0,),)}


def _moment_events(moment):
    """Fairlearn's event labels of ``moment`` (sorted, as its ``index``)."""
    for cls, events in _EVENTS:
        if isinstance(moment, cls):
            return events
    raise ValueError(f"unsupported moment {type(moment).__name__}.")


def _event_index(moment, y):
    """Each row's event (position in :func:`_moment_events`), -1 for rows outside every event."""
    if isinstance(moment, (DemographicParity, ErrorRateParity)):
        return np.zeros(y.size, dtype=np.intp)
    if isinstance(moment, EqualizedOdds):
        return y.astype(np.intp)
    label = 1 if isinstance(moment, TruePositiveRateParity) else 0
    return np.where(y == label, 0, -1).astype(np.intp)


def _cell_counts(event_index, group_index, n_events, n_groups):
    """``(n_events, n_groups)`` row counts of the (event, group) cells (zeros included)."""
    inside = event_index >= 0
    flat = event_index[inside] * n_groups + group_index[inside]
    return np.bincount(flat, minlength=n_events * n_groups).reshape(n_events, n_groups)


def _constraint_matrix(event_index, group_index, events, cell_counts, *, floor, keep_empty):
    """Fairlearn's ``U`` (``gamma(h) = -U^T h / n``) with denominators floored, and its constraint index.

    Column ``(+, e, g)`` holds ``1[e_i = e] / P(e) - 1[e_i = e, g_i = g] / P(e, g)`` and ``(-, e, g)`` its negative,
    so that ``gamma_(+,e,g)(h) = E^[h | e, g] - E^[h | e]`` (Agarwal et al. 2018, above Thm. 1), computed exactly as
    Fairlearn's ``UtilityParity.load_data`` does, except that ``P(e, g) = max(n_eg, N) / n`` and ``P(e) = max(n_e,
    |G| N) / n`` with ``N = floor``: ``E^[h | e, g] = sum_{cell} h / max(n_eg, N)``. With ``floor=0`` and
    ``keep_empty=False`` (the non-private fit) this is Fairlearn's matrix over the cells present in the data; with
    ``keep_empty=True`` every declared (event, group) cell has its two columns, whatever the data.
    """
    n = event_index.size
    n_events, n_groups = cell_counts.shape
    event_counts = cell_counts.sum(axis=1)
    cells = [(e, g) for e in range(n_events) for g in range(n_groups) if keep_empty or cell_counts[e, g] > 0]
    plus = np.empty((n, len(cells)))
    minus = np.empty((n, len(cells)))
    for column, (e, g) in enumerate(cells):
        p_event = max(event_counts[e], n_groups * floor) / n
        p_cell = max(cell_counts[e, g], floor) / n
        event_select = (event_index == e).astype(np.int64)
        cell_select = event_select * (group_index == g)
        # Fairlearn's expressions with ratio = 1, operation for operation (same floating-point results).
        plus[:, column] = event_select / p_event + (-1.0) * cell_select / p_cell
        minus[:, column] = (-1.0) * event_select / p_event + cell_select / p_cell
    tuples = ([("+", events[e], g) for e, g in cells] + [("-", events[e], g) for e, g in cells])
    names = ["sign", "event", "group_id"]
    index = (pd.MultiIndex.from_tuples(tuples, names=names) if tuples
             else pd.MultiIndex.from_arrays([[], [], []], names=names))
    # Column-major like Fairlearn's DataFrame.to_numpy(), so that the products with U sum in the same order.
    return np.asfortranarray(np.hstack([plus, minus])), index
