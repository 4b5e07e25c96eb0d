"""Typed, immutable results returned by the functional API (``semisvm.solvers``)."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["GraphTVResult", "MFNResult"]


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
class GraphTVResult:
    """Result of :func:`semisvm.solvers.graph_tv` and ``graph_cheeger``.

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
        ``"labels_stable"`` (unlabeled labels unchanged for 5 n_stable
        iterations, residual still above tol) or ``"max_iter"``.
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
