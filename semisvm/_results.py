"""Typed, immutable results returned by the functional API (``semisvm.solvers``)."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["MFNResult", "USMOResult"]


@dataclass(frozen=True, slots=True)
class MFNResult:
    """Result of :func:`semisvm.solvers.l2svm_mfn`.

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
    outputs : ndarray of shape (n_samples,)
        Training outputs ``X @ coef + intercept`` at the solution.
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
    outputs: np.ndarray = field(repr=False)


@dataclass(frozen=True, slots=True)
class USMOResult:
    """Result of :func:`semisvm.solvers.usmo` (double-hinge PU SVM).

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
