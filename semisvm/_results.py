"""Typed, immutable results returned by the functional API (``semisvm.solvers``)."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["DAResult", "GraphTVResult", "LapSVMResult", "LapWResult", "MFNResult",
           "TSVMResult", "USMOResult"]


@dataclass(frozen=True, slots=True)
class MFNResult:
    """Result of :func:`semisvm.linear.l2svm_mfn`.

    Attributes
    ----------
    coef : ndarray of shape (n_features,)
        Weight vector w (the bias weight excluded), in the input dtype.
    intercept : float
        Bias b = intercept_scaling * w_bias; the decision is ``X @ coef + intercept``.
    objective : float
        Final value of ``lam/2 ||w||^2 + 1/2 sum_i c_i max(0, 1 - y_i o_i)^2``
        (w including the bias weight).
    n_iter : int
        Outer (Newton) iterations.
    n_cg_iter : int
        CGLS iterations summed over all outer iterations.
    converged : bool
        True when MFN stopped on an unchanged active set or on the relative
        objective test, False when ``max_iter`` was reached.
    status : str
        ``"optimal"`` (active set unchanged), ``"relative"`` (objective
        decrease below ``rel_tol``) or ``"max_iter"``.
    history : ndarray
        Objective at the start and after each outer iteration.
    cg_history : ndarray of int
        CGLS iterations of each outer iteration.
    active_history : ndarray of int
        Size of the active set (rows with a non-zero loss) at each iteration.
    decision : ndarray of shape (n_samples,)
        Decision values of the training rows, ``X @ coef + intercept``, at the
        solution.
    """

    coef: np.ndarray
    intercept: float
    objective: float
    n_iter: int
    n_cg_iter: int
    converged: bool
    status: str
    history: np.ndarray = field(repr=False)
    cg_history: np.ndarray = field(repr=False)
    active_history: np.ndarray = field(repr=False)
    decision: np.ndarray = field(repr=False)


@dataclass(frozen=True, slots=True)
class LapSVMResult:
    """Result of :func:`semisvm.manifold.lapsvm_primal` (LapSVM / LapRLS).

    Attributes
    ----------
    alpha : ndarray of shape (n,)
        Expansion coefficients over all n = l + u training points; the
        decision function is ``f(x) = sum_j alpha_j k(x_j, x) + intercept``.
    intercept : float
        Bias b (0 when ``fit_intercept=False``).
    objective : float
        Final ``1/2 [sum_{i in E} (f_i - y_i)^2 + gamma_A alpha'K alpha
        + gamma_I f'Lf]``.
    n_iter : int
        Newton steps (``solver="newton"``/``"closed"``) or PCG iterations.
    converged : bool
        False only when ``max_iter`` was reached.
    status : str
        ``"optimal"`` (Newton: error-vector set unchanged; PCG: no descent
        left), ``"tol"`` (the classical rule's tolerance met), ``"stability"``,
        ``"validation"``, ``"mixed"`` (early stops) or ``"max_iter"``.
    solver : str
        ``"newton"``, ``"closed"`` or ``"pcg"``.
    stop : str
        The stopping rule used (PCG) or ``"error_set"`` (Newton).
    n_error_vectors : int
        Size of the error-vector set E (labeled points with y_i f_i < 1; all
        labeled points for the squared loss) at the solution.
    history : ndarray
        Objective at the start and after each iteration.
    val_history : ndarray
        Validation error at each check (validation / mixed rules), else empty.
    error_set_history : ndarray of int
        |E| used by each Newton step (empty for PCG).
    decision : ndarray of shape (n,)
        Decision values of the training points, ``f = K alpha + b``.
    """

    alpha: np.ndarray
    intercept: float
    objective: float
    n_iter: int
    converged: bool
    status: str
    solver: str
    stop: str
    n_error_vectors: int
    history: np.ndarray = field(repr=False)
    val_history: np.ndarray = field(repr=False)
    error_set_history: np.ndarray = field(repr=False)
    decision: np.ndarray = field(repr=False)


@dataclass(frozen=True, slots=True)
class TSVMResult:
    """Result of :func:`semisvm.linear.tsvm` (linear TSVM, multiple switching).

    Attributes
    ----------
    coef : ndarray of shape (n_features,)
        Weight vector w (bias weight excluded), in the input dtype.
    intercept : float
        Bias b; the decision is ``X @ coef + intercept``.
    objective : float
        The TSVM objective at the solution, with the label-free unlabeled loss
        ``lam/2 ||w||^2 + 1/(2 l) sum_L c_i l2(y_i o_i)
        + lam_u/(2 u) sum_U l2(|o_j|)``, ``l2(z) = max(0, 1 - z)^2``, at the
        final ``lam_u`` (w includes the bias weight).
    label_objective : float
        The same with the unlabeled loss ``l2(y_j o_j)`` at the temporary
        labels (what TSVM minimises under the balance constraint); it is
        >= ``objective``.
    labels : ndarray of shape (n_samples,)
        +1/-1 for every row: the given labels on the labeled rows, the final
        temporary labels on the unlabeled rows.
    unlabeled_index : ndarray of int
        Row indices of the unlabeled rows (y == 0).
    r : float
        Class balance used; ``n_positive = round(r * u)`` unlabeled rows are
        labelled +1.
    n_positive : int
        Unlabeled rows labelled +1.
    lam_u : float
        Final weight of the unlabeled loss.
    n_mfn : int
        L2-SVM-MFN calls (supervised start included).
    n_iter : int
        Newton iterations summed over all MFN calls.
    n_cg_iter : int
        CGLS iterations summed over all MFN calls.
    n_switches : int
        Label pairs switched in total.
    converged : bool
        False if a switching loop or an MFN call hit its cap.
    status : str
        ``"optimal"`` (no pair switch lowers the objective at the final
        ``lam_u``), ``"max_inner_iter"`` or ``"mfn_max_iter"``.
    lam_u_history, history : ndarray
        Per annealing step: the unlabeled weight and the label objective at
        the end of its switching loop.
    switch_history, mfn_history : ndarray of int
        Per annealing step: pairs switched and MFN calls.
    decision : ndarray of shape (n_samples,)
        Decision values of the training rows, ``X @ coef + intercept``.
    lam_history : ndarray
        Per annealing step: the regularisation weight of its MFN calls
        (``lam_factor * lam`` while lam_u is annealed, then down to lam).
    """

    coef: np.ndarray
    intercept: float
    objective: float
    label_objective: float
    labels: np.ndarray = field(repr=False)
    unlabeled_index: np.ndarray = field(repr=False)
    r: float
    n_positive: int
    lam_u: float
    n_mfn: int
    n_iter: int
    n_cg_iter: int
    n_switches: int
    converged: bool
    status: str
    lam_u_history: np.ndarray = field(repr=False)
    history: np.ndarray = field(repr=False)
    switch_history: np.ndarray = field(repr=False)
    mfn_history: np.ndarray = field(repr=False)
    decision: np.ndarray = field(repr=False)
    lam_history: np.ndarray = field(default=None, repr=False)


@dataclass(frozen=True, slots=True)
class DAResult:
    """Result of :func:`semisvm.linear.da_s3vm` (deterministic annealing S3VM).

    The returned solution is the one with the lowest TSVM ``objective`` among
    those reached after any w-step (every alternating round).

    Attributes
    ----------
    coef : ndarray of shape (n_features,)
    intercept : float
    objective : float
        TSVM objective of the returned w (label-free unlabeled loss
        ``l2(|o_j|)``, as in :class:`TSVMResult`).
    da_objective : float
        DA objective of the returned (w, p) at its temperature T:
        ``lam/2 ||w||^2 + 1/(2 l) sum_L c_i l2(y_i o_i)
        + lam_u/(2 u) sum_U [p_j l2(o_j) + (1 - p_j) l2(-o_j)]
        + T/(2 u) sum_U [p_j log p_j + (1 - p_j) log(1 - p_j)]``.
    p : ndarray of shape (n_unlabeled,)
        Probabilities that the unlabeled rows are positive (mean = r), in the
        order of ``unlabeled_index``; they are the p-step's answer to the
        returned w.
    labels : ndarray of shape (n_samples,)
        +1/-1 for every row: the given labels, and sign(p_j - 1/2) on the
        unlabeled rows.
    unlabeled_index : ndarray of int
    r : float
    T : float
        Temperature of the returned solution.
    nu : float
        Balance multiplier of ``p``.
    n_outer : int
        Temperatures visited.
    n_inner : int
        Alternating (w-step, p-step) rounds in total.
    n_mfn, n_iter, n_cg_iter : int
        MFN calls, Newton iterations and CGLS iterations in total.
    converged : bool
        True when the mean entropy fell below ``entropy_tol`` or the
        temperatures settled (``settled``), and no inner loop, MFN call or
        root finder hit its cap.
    status : str
        ``"entropy"``, ``"settled"``, ``"max_outer_iter"``,
        ``"max_inner_iter"``, ``"mfn_max_iter"`` or ``"root_max_iter"``.
    T_history, history, kl_history, entropy_history : ndarray
        Per temperature, at its last round: T, TSVM objective, mean KL, mean
        entropy.
    inner_history : ndarray of int
        Per temperature: alternating rounds.
    decision : ndarray of shape (n_samples,)
        Decision values of the training rows at the kept point.
    lam_history : ndarray
        Per temperature: the regularisation weight of its w-steps
        (``lam_factor * lam`` at the first, divided by ``T_rate`` down to lam).
    """

    coef: np.ndarray
    intercept: float
    objective: float
    da_objective: float
    p: np.ndarray = field(repr=False)
    labels: np.ndarray = field(repr=False)
    unlabeled_index: np.ndarray = field(repr=False)
    r: float
    T: float
    nu: float
    n_outer: int
    n_inner: int
    n_mfn: int
    n_iter: int
    n_cg_iter: int
    converged: bool
    status: str
    T_history: np.ndarray = field(repr=False)
    history: np.ndarray = field(repr=False)
    kl_history: np.ndarray = field(repr=False)
    entropy_history: np.ndarray = field(repr=False)
    inner_history: np.ndarray = field(repr=False)
    decision: np.ndarray = field(repr=False)
    lam_history: np.ndarray = field(default=None, repr=False)


@dataclass(frozen=True, slots=True)
class USMOResult:
    """Result of :func:`semisvm.pu.usmo` (double-hinge PU SVM).

    The decision function is ``f(x) = sum_i dual_coef[i] k(x, x_i) + intercept``
    over the training rows: ``dual_coef = c1`` on the labeled positives and
    ``-s_u`` on the unlabeled rows.

    Attributes
    ----------
    dual_coef : ndarray of shape (n_samples,)
        Expansion coefficients alpha of every training row (float64).
    s : ndarray of shape (n_unlabeled,)
        Dual variables of the unlabeled rows, 0 <= s <= c2, sum s = c1 p;
        ``s / c2`` is the loss slope (0, 1/2 or 1) at each unlabeled point.
    intercept : float
        Bias b (eq. 16 of the paper).
    coef : ndarray of shape (n_features,) or None
        w = sum_i alpha_i x_i for the linear kernel (X's dtype), else None.
    objective : float
        Primal objective ``-pi/p sum_P f + 1/n sum_U max(f, 0, 1/2 + f/2)
        + lam ||w||^2`` at the returned (w, b).
    dual_objective : float
        Dual value ``2 lam sum_U min(s, c2 - s) - lam ||w||^2``; it equals
        ``objective`` at the optimum (weak duality: never larger).
    violation : float
        ``max b - min a`` of the complete tau-optimality test at exit.
    n_iter : int
        Pair (SMO) steps taken.
    converged : bool
        True when ``violation <= tol``.
    status : str
        ``"optimal"``, ``"max_iter"`` or ``"stalled"`` (a pair step no longer
        changed s at float64 precision).
    cache_hits, cache_misses : int
        Kernel-column cache statistics (misses = columns computed).
    n_cache_columns : int
        Columns the ``cache_size`` budget holds (0 for the linear solver).
    n_pass : int
        Passes over the data of the linear solver (0 for the kernel solver).
    c1, c2 : float
        ``pi / (2 lam p)`` and ``1 / (2 lam n)``.
    gamma : float
        The kernel width actually used (resolved from ``gamma=None``).
    decision : ndarray of shape (n_samples,)
        f on the training rows.
    history : ndarray
        ``violation`` every ``history_stride`` steps (kernel solver) or at the
        start of every pass (linear solver, ``history_stride = 0``).
    history_stride : int
    """

    dual_coef: np.ndarray = field(repr=False)
    s: np.ndarray = field(repr=False)
    intercept: float
    coef: np.ndarray | None = field(repr=False)
    objective: float
    dual_objective: float
    violation: float
    n_iter: int
    converged: bool
    status: str
    cache_hits: int
    cache_misses: int
    n_cache_columns: int
    n_pass: int
    c1: float
    c2: float
    gamma: float
    decision: np.ndarray = field(repr=False)
    history: np.ndarray = field(repr=False)
    history_stride: int = 1


@dataclass(frozen=True, slots=True)
class GraphTVResult:
    """Result of :func:`semisvm.graph_tv.graph_tv` and ``graph_cheeger``.

    Attributes
    ----------
    model : str
        ``"tv"`` (splitting / augmented Lagrangian) or ``"cheeger"``.
    loss : str
        ``"squared"`` (RLS) or ``"hinge"`` (SVM).
    decision : ndarray of shape (n,) or (n, n_classes)
        Transductive scores over all samples: ``g + b`` (TV) or the final f
        (Cheeger); binary: positive -> class 1.
    labels : ndarray of int, shape (n,)
        Class index given to every sample (sign / argmax of ``decision``).
    alpha : ndarray of shape (n,) or (n, n_classes)
        Kernel expansion of the last RKHS step; out-of-sample scores are
        ``K(x, X) @ alpha + intercept``.
    intercept : float or ndarray of shape (n_classes,)
        Bias of the hinge models (0 for squared losses).
    objective : float
        Last value of ``history``.
    n_iter : int
        Outer iterations.
    converged : bool
    status : str
        ``"converged"`` (residual / ratio test and label stability),
        ``"labels_stable"`` (unlabeled labels unchanged for 2 n_stable
        iterations, residual still above tol), ``"no_improvement"`` (Cheeger:
        the ratio has not decreased for 2 n_stable iterations; two-class
        normalised TV: the objective has not reached a new minimum for 5
        n_stable iterations), ``"held_out_stable"`` (the labels of rows
        outside the solve, given by the estimators' ``safe=True`` check,
        unchanged for n_stable iterations), ``"direct"`` (two-class TV at
        ``gamma=0, normalize=None`` solved on the labeled rows, the
        ``safe=True`` check's supervised counterpart) or ``"max_iter"``.
    history : ndarray
        Objective (TV models: loss + RKHS + gamma TV at the splitting variable)
        or Cheeger ratio per outer iteration.
    residual_history : ndarray
        TV: ``max(||f-g||, ||h-g||)/||g||``; Cheeger: relative change of f.
    n_rof_iter : int
        Primal-dual iterations summed over all graph-ROF solves.
    rof_time : float
        Seconds spent in the graph-ROF solver.
    total_time : float
        Seconds of the whole solve.
    rof_cpu_time, total_cpu_time : float
        The same in CPU seconds of the process (``time.process_time``; the
        ROF solver runs on one thread, the factorisations on BLAS threads).
    label_conflict : float or None
        Multi-class TV: the fraction of the labeled rows whose class in the
        RKHS fit ``f = K alpha`` (argmax, before the labeled rows are reset
        to their labels) is not their label; None for the other models.
    scheme : str or None
        Multi-class TV: the splitting scheme that gave the result
        (``"augmented"``: with the multiplier update; ``"penalty"``: without
        it); None for the other models.
    penalty_r : float or None
        Multi-class TV: the splitting penalty r of the solve that gave the
        result (the given r, or ``AUG_RETRY_R`` times it where the augmented
        iteration ran into ``max_iter`` and its retry settled); None for the
        other models.
    n_iter_retry : int
        Multi-class augmented TV: the outer iterations of the other solve
        (the retry that did not settle, or the first solve the retry
        replaced); 0 where there was none.
    """

    model: str
    loss: str
    decision: np.ndarray = field(repr=False)
    labels: np.ndarray = field(repr=False)
    alpha: np.ndarray = field(repr=False)
    intercept: object
    objective: float
    n_iter: int
    converged: bool
    status: str
    history: np.ndarray = field(repr=False)
    residual_history: np.ndarray = field(repr=False)
    n_rof_iter: int
    rof_time: float
    total_time: float
    rof_cpu_time: float = 0.0
    total_cpu_time: float = 0.0
    label_conflict: float | None = None
    scheme: str | None = None
    penalty_r: float | None = None
    n_iter_retry: int = 0


@dataclass(frozen=True, slots=True)
class LapWResult:
    """Result of the manifold family's scalable modes (LapSVM / LapRLS over
    explicit features, f = Z w + b: ``semisvm._lowrank.lap_primal_w``).

    Attributes
    ----------
    coef : ndarray of shape (D,)
        w over the D features (n_features in the linear mode, the landmarks
        in the Nystroem mode).
    intercept : float
        Bias b (0 when ``fit_intercept=False``).
    decision : ndarray of shape (n,)
        f = Z w + b on the n training rows.
    objective : float
        ``1/2 [sum_{labeled} V(y_i, f_i) + gamma_A ||w||^2 + gamma_I f'L^p f]``.
    n_iter : int
        Newton steps.
    n_cg_iter : int
        CG iterations over all the steps (0 with the direct solves).
    converged : bool
        False only when ``max_iter`` was reached.
    status : str
        ``"optimal"`` (error set unchanged, or the relative decrease of a
        step below ``tol``) or ``"max_iter"``.
    n_error_vectors : int
        Labeled rows with y_i f_i < 1 at the solution (all for LapRLS).
    history : ndarray
        Objective at the start and after each step.
    time : float
        Seconds of the solve.
    """

    coef: np.ndarray = field(repr=False)
    intercept: float
    decision: np.ndarray = field(repr=False)
    objective: float
    n_iter: int
    n_cg_iter: int
    converged: bool
    status: str
    n_error_vectors: int
    history: np.ndarray = field(repr=False)
    time: float = 0.0
