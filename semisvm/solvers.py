"""Functional API: plain arrays in, frozen result dataclasses out.

These are the entry points other libraries call; the estimators in
:mod:`semisvm.linear` (and the other family modules) are thin layers over them.
Every function validates its input before any compiled code runs.
"""
from __future__ import annotations

import logging

import numpy as np

from semisvm._core._dataset import RowData
from semisvm._core._mfn import mfn as _mfn
from semisvm._results import MFNResult
from semisvm._validation import (
    check_costs,
    check_int,
    check_pm1,
    check_positive,
    check_X,
)

__all__ = ["l2svm_mfn"]

logger = logging.getLogger("semisvm")

# single precision cannot resolve CGLS residuals much below this (relative)
_FLOAT32_TOL = 1e-5
_MFN_STATUS = {0: "optimal", 1: "relative", 2: "max_iter"}


def _check_w0(w0, n_weights, dtype):
    w0 = np.asarray(w0)
    if w0.dtype.kind not in "biuf":
        raise TypeError(f"w0 must be numeric, got dtype {w0.dtype}")
    if w0.shape != (n_weights,):
        raise ValueError(
            f"w0 must have shape ({n_weights},) (n_features, plus 1 for the "
            f"bias weight when fit_intercept=True), got {w0.shape}"
        )
    if not np.all(np.isfinite(w0)):
        raise ValueError("w0 must be finite")
    return np.array(w0, dtype=dtype)


def _run_mfn(data, bias_scale, cpos, cneg, lam, w, *, tol, max_iter,
             cg_max_iter, cold_start, rel_tol, verbose=False, label="MFN"):
    """Run the compiled MFN on validated arrays; ``w`` (d+1) is updated in place.

    Shared by :func:`l2svm_mfn`, TSVM and DA (two-sided costs ``cpos``/``cneg``).
    Returns the raw tuple of :func:`semisvm._core._mfn.mfn`.
    """
    out = _mfn(data, float(bias_scale), cpos, cneg, float(lam), w, tol=tol,
               max_iter=max_iter, cg_max_iter=cg_max_iter,
               cold_start=cold_start, rel_tol=rel_tol)
    if verbose:
        _, n_iter, _, status, _, hobj, hcg, hact = out
        for k in range(n_iter):
            logger.info("%s iter %d: objective %.10g, active %d, cg %d",
                        label, k + 1, hobj[k + 1], hact[k], hcg[k])
        logger.info("%s stopped (%s) after %d iterations, %d CG iterations",
                    label, _MFN_STATUS[status], n_iter, int(hcg.sum()))
    return out


def l2svm_mfn(X, y, *, lam=1.0, costs=None, w0=None, fit_intercept=True,
              intercept_scaling=1.0, tol=1e-6, max_iter=50, cg_max_iter=10000,
              rel_tol=1e-9, cold_start=None, verbose=False) -> MFNResult:
    r"""Train a linear L2-SVM by the modified finite Newton method (L2-SVM-MFN).

    Minimises (Sindhwani & Keerthi 2006, eq. 2)

    .. math::

        F(w) = \frac{\lambda}{2} \|w\|^2
               + \frac12 \sum_i c_i \max(0, 1 - y_i\, o_i)^2,
        \qquad o_i = x_i^\top w_{1:d} + s\, w_{d+1},

    where the bias is a constant feature ``s = intercept_scaling`` with a
    *regularised* weight (as in the paper and LIBLINEAR's ``-B s``). With unit
    costs this equals ``lam`` times LIBLINEAR's ``1/2 ||w||^2 + C sum l2``
    objective at ``C = 1 / (2 lam)`` (``-s 2`` / ``-s 1``).

    Each iteration solves the regularised least-squares problem on the rows
    with a positive loss by seeded CGLS, then takes an exact line search step;
    it stops when that set of rows no longer changes (finite termination), on
    a relative objective decrease below ``rel_tol``, or after ``max_iter``.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        float32 or float64; CSR is used as is (int64 indices are downcast when
        they fit), never densified. The computation runs in X's dtype.
    y : array-like of shape (n_samples,)
        Labels in {-1, +1}.
    lam : float > 0
        Regularisation weight lambda.
    costs : array-like of shape (n_samples,), optional
        Per-example costs c_i >= 0 (default 1).
    w0 : array-like of shape (n_features + fit_intercept,), optional
        Starting point (seeding); the last entry is the bias weight w_{d+1}.
    fit_intercept : bool
        Add the constant feature ``intercept_scaling``.
    intercept_scaling : float > 0
        Value s of the constant feature; the intercept is ``s * w_{d+1}``.
    tol : float > 0
        CGLS relative residual tolerance (reference implementation: 1e-6).
        float32 data cannot resolve residuals below about 1e-5 relative: the
        effective tolerance is ``max(tol, 1e-5)`` there.
    max_iter, cg_max_iter : int
        Caps on outer iterations and on CGLS iterations per outer iteration.
    rel_tol : float >= 0
        Relative objective decrease below which MFN stops.
    cold_start : bool, optional
        Use the loose CGLS settings (tolerance 0.01, 10 iterations) until the
        first self-consistent point. Default: True when ``w0`` is None.
    verbose : bool
        Log each outer iteration on the ``"semisvm"`` logger (INFO).

    Returns
    -------
    MFNResult
    """
    X = check_X(X)
    n, d = X.shape
    dtype = X.dtype
    y = check_pm1(y, n)
    c = check_costs(costs, n, dtype, name="costs")
    lam = check_positive(lam, "lam")
    s = check_positive(intercept_scaling, "intercept_scaling") if fit_intercept else 0.0
    tol = check_positive(tol, "tol")
    if dtype == np.float32:
        tol = max(tol, _FLOAT32_TOL)
    rel_tol = check_positive(rel_tol, "rel_tol", allow_zero=True)
    max_iter = check_int(max_iter, "max_iter")
    cg_max_iter = check_int(cg_max_iter, "cg_max_iter")
    n_w = d + 1 if fit_intercept else d
    if w0 is None:
        w = np.zeros(d + 1, dtype=dtype)
        cold = True if cold_start is None else bool(cold_start)
    else:
        w = np.zeros(d + 1, dtype=dtype)
        w[:n_w] = _check_w0(w0, n_w, dtype)
        cold = False if cold_start is None else bool(cold_start)
    cpos = np.where(y > 0, c, 0).astype(dtype)
    cneg = np.where(y < 0, c, 0).astype(dtype)
    out = _run_mfn(RowData(X), s, cpos, cneg, lam, w, tol=tol, max_iter=max_iter,
                   cg_max_iter=cg_max_iter, cold_start=cold, rel_tol=rel_tol,
                   verbose=verbose)
    o, n_iter, n_cg, status, obj, hobj, hcg, hact = out
    return MFNResult(
        coef=w[:d].copy(),
        intercept=float(s * w[d]),
        objective=float(obj),
        n_iter=int(n_iter),
        n_cg_iter=int(n_cg),
        converged=status != 2,
        status=_MFN_STATUS[status],
        history=hobj,
        cg_history=hcg,
        active_history=hact,
        outputs=np.asarray(o).copy(),
    )


# Graph TV / Cheeger solvers live in their family module (they build on its
# private helpers); re-exported here as part of the functional API.
from semisvm.graph_tv import graph_cheeger, graph_tv  # noqa: E402

__all__ += ["graph_tv", "graph_cheeger"]
