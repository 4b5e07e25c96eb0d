"""Typed, immutable results returned by the functional API (``semisvm.solvers``)."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["MFNResult"]


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
