"""Typed, immutable results returned by the functional API (``semisvm.solvers``)."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["MFNResult", "LapSVMResult"]


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
class LapSVMResult:
    """Result of :func:`semisvm.solvers.lapsvm_primal` (LapSVM / LapRLS).

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
    outputs : ndarray of shape (n,)
        Training outputs ``f = K alpha + b``.
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
    outputs: np.ndarray = field(repr=False)
