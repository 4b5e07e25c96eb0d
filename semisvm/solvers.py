"""Functional API: plain arrays in, frozen result dataclasses out.

These are the entry points other libraries call; the estimators in
:mod:`semisvm.linear` (and the other family modules) are thin layers over them.
Every function validates its input before any compiled code runs.
"""
from __future__ import annotations

import logging
import os
import warnings

import numpy as np
import scipy.sparse as sp

from semisvm._core._dataset import RowData
from semisvm._results import LapSVMResult, MFNResult
from semisvm._rows import LocalRows, mfn_loop
from semisvm._validation import (
    as_csr32,
    check_costs,
    check_gram,
    check_int,
    check_laplacian,
    check_pm1,
    check_positive,
    check_ssl_targets,
    check_X,
)

__all__ = ["l2svm_mfn", "lapsvm_primal"]

logger = logging.getLogger("semisvm")

# single precision cannot resolve CGLS residuals much below this (relative)
_FLOAT32_TOL = 1e-5
_MFN_STATUS = {0: "optimal", 1: "relative", 2: "max_iter"}


def _is_dask(X):
    """A dask collection (checked without importing dask)."""
    mod = type(X).__module__ or ""
    return mod.split(".")[0] == "dask" and hasattr(X, "__dask_graph__")


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


def _n_threads(n_jobs):
    """scikit-learn's n_jobs convention: None -> 1, -1 -> all cores, k -> k."""
    if n_jobs is None:
        return 1
    n_jobs = check_int(n_jobs, "n_jobs", minimum=-(2**31))
    if n_jobs == 0:
        raise ValueError("n_jobs must be a non-zero integer or None, got 0")
    cpus = os.cpu_count() or 1
    return max(1, cpus + 1 + n_jobs) if n_jobs < 0 else n_jobs


_NEWTON = ("auto", "cgls", "cholesky")
# "auto" factorises when (d+1) <= this and the estimated cost is lower than
# that of about _CG_ITER_GUESS CG iterations per Newton step
_DIRECT_MAX_D = 2000
_CG_ITER_GUESS = 50


def _use_direct(X, newton):
    """Decide whether Newton systems are solved by Cholesky (small d) or CGLS."""
    if newton not in _NEWTON:
        raise ValueError(f"newton must be one of {_NEWTON}, got {newton!r}")
    D = X.shape[1] + 1
    if newton == "cgls":
        return False
    if newton == "cholesky":
        if D > 5 * _DIRECT_MAX_D:
            raise ValueError(
                f"newton='cholesky' needs a (d+1)^2 matrix; d={D - 1} is too large, "
                "use newton='cgls'")
        return True
    if D > _DIRECT_MAX_D:
        return False
    if sp.issparse(X):
        row_nnz = np.diff(X.indptr).astype(np.float64)
    else:
        row_nnz = np.full(X.shape[0], float(X.shape[1]))
    return _direct_cheaper(D, X.shape[0], float(row_nnz.sum()),
                           float(row_nnz @ row_nnz))


def _direct_cheaper(D, n, nnz, nnz_sq):
    """Cholesky (build + factor) cheaper than about _CG_ITER_GUESS CG iterations?"""
    direct = 0.5 * nnz_sq + D ** 3 / 6.0
    return direct <= _CG_ITER_GUESS * 2.0 * (nnz + n)


def _use_direct_stats(stats, d, newton):
    """:func:`_use_direct` from the row-nnz totals of distributed row blocks."""
    if newton not in _NEWTON:
        raise ValueError(f"newton must be one of {_NEWTON}, got {newton!r}")
    D = d + 1
    if newton != "auto" or D > _DIRECT_MAX_D:
        return _use_direct(np.empty((0, d)), newton) if newton != "auto" else False
    return _direct_cheaper(D, stats["n"], stats["nnz"], stats["nnz_sq"])


def _run_mfn(rows, lam, w, *, tol, max_iter, cg_max_iter, cold_start, rel_tol,
             verbose=False, label="MFN", direct=False):
    """Run L2-SVM-MFN over a rows backend; ``w`` (d+1) is updated in place.

    ``rows`` is a :class:`semisvm._rows.LocalRows` (in memory) or a
    :class:`semisvm._distributed.DaskRows` (row blocks on Dask workers); its
    costs ``cpos``/``cneg`` are two-sided, so the same call serves
    :func:`l2svm_mfn`, TSVM and DA. Returns ``(n_iter, n_cg_iter, status,
    objective, hist_obj, hist_cg, hist_active)``; the outputs X w stay in
    ``rows`` (``rows.outputs()``).
    """
    out = mfn_loop(rows, w, lam, tol=tol, max_iter=max_iter,
                   cg_max_iter=cg_max_iter, cold_start=cold_start,
                   rel_tol=rel_tol, direct=direct, verbose=verbose, label=label)
    if verbose:
        n_iter, n_cg, status = out[:3]
        extra = ""
        if rows.distributed:
            extra = (f"; {rows.round_trips} worker round trips, "
                     f"{rows.bytes_moved / 2**20:.1f} MiB moved in all")
        logger.info("%s stopped (%s) after %d iterations, %d CG iterations%s",
                    label, _MFN_STATUS[status], n_iter, n_cg, extra)
    return out


def l2svm_mfn(X, y, *, lam=1.0, costs=None, w0=None, fit_intercept=True,
              intercept_scaling=1.0, tol=1e-6, max_iter=50, cg_max_iter=10000,
              rel_tol=1e-9, cold_start=None, newton="auto", n_jobs=None,
              verbose=False) -> MFNResult:
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
        Or a ``dask.array.Array`` of row blocks (dense or CSR chunks, all
        columns in one chunk; needs ``semisvm[dask]`` and a running
        ``dask.distributed`` client): the blocks stay on the workers and the
        result is the in-memory one to rounding (``outputs`` is then a lazy
        dask array); ``y``/``costs`` are dask arrays with X's row chunks, or
        NumPy. See :mod:`semisvm._distributed`.
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
    newton : {"auto", "cgls", "cholesky"}
        How each Newton system ``(lam I + X_J' C_J X_J) w = X_J' C_J y_J`` is
        solved: by seeded, preconditioned CGLS (the paper), or exactly by a
        Cholesky factorisation of the (d+1) x (d+1) matrix, built in one pass
        over the active rows. ``"auto"`` factorises when d < 2000 and that
        costs less than about 50 CG iterations (few features: dense or
        low-dimensional data); the step is then exact and ``n_cg_iter`` 0.
    n_jobs : int or None
        Threads for the products with X and X' (OpenMP, static row blocks):
        None means 1, -1 all cores. Results are bit-for-bit reproducible for
        a given thread count, and agree to rounding across thread counts.
    verbose : bool
        Log each outer iteration on the ``"semisvm"`` logger (INFO).

    Returns
    -------
    MFNResult
    """
    rows = None
    if _is_dask(X):
        # row blocks on Dask workers (semisvm[dask]): validated and loaded
        # once, before any iteration (see semisvm._distributed)
        from semisvm import _distributed
        rows, stats = _distributed.load(X, y, costs, kind="pm1")
        n, d, dtype = rows.n, rows.d, rows.dtype
    else:
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
    if rows is None:
        cpos = np.where(y > 0, c, 0).astype(dtype)
        cneg = np.where(y < 0, c, 0).astype(dtype)
        rows = LocalRows(RowData(X), s, cpos, cneg, n_threads=_n_threads(n_jobs))
        direct = _use_direct(X, newton)
    else:
        _n_threads(n_jobs)      # validated; the workers' threads run the blocks
        rows.s = float(s)
        direct = _use_direct_stats(stats, d, newton)
    out = _run_mfn(rows, lam, w, tol=tol, max_iter=max_iter,
                   cg_max_iter=cg_max_iter, cold_start=cold, rel_tol=rel_tol,
                   verbose=verbose, direct=direct)
    n_iter, n_cg, status, obj, hobj, hcg, hact = out
    o = rows.outputs()
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
        outputs=o if rows.distributed else np.asarray(o).copy(),
    )


# ---------------------------------------------------------------------------
# Laplacian SVM / RLS in the primal (Melacci & Belkin 2011)

from semisvm._core import _lapsvm  # noqa: E402

STOP_RULES = ("stability", "validation", "mixed", "gradient", "pgradient",
              "pnorm", "objective", "none")
_RULE_CODE = {"none": 0, "stability": 1, "validation": 2, "mixed": 3,
              "gradient": 4, "pgradient": 5, "pnorm": 6, "objective": 7}
# the paper's defaults for the classical rules (normalised by their first value)
_RULE_TOL = {"gradient": 1e-8, "pgradient": 1e-8, "pnorm": 1e-8,
             "objective": 1e-6, "none": 1e-12, "stability": 0.0,
             "validation": 0.0, "mixed": 0.0}
_PCG_STATUS = {0: "tol", 1: "stability", 2: "validation", 3: "mixed",
               4: "optimal", 5: "max_iter"}


def _lap_objective(K, L, y, lab, alpha, b, gamma_A, gamma_I, hinge):
    f = K @ alpha + b
    r = f[lab] - y[lab]
    if hinge:
        r = r[y[lab] * f[lab] < 1]
    return 0.5 * (float(r @ r) + gamma_A * float(alpha @ (f - b))
                  + gamma_I * float(f @ (L @ f))), f


def _newton_solve(K, LK, L1, y, E, gamma_A, gamma_I, fit_b):
    """Minimiser of the quadratic F with the error-vector set E frozen (eq. 11).

    gamma_I = 0: alpha vanishes off E and (gamma_A I + K_EE) alpha_E = y_E - b
    is symmetric positive definite (Cholesky; the bias by a Schur complement).
    gamma_I > 0: (gamma_A I + I_E K + gamma_I L K) alpha + (1_E + gamma_I L1) b
    = I_E y, bordered by 1'alpha = 0 for the bias (LU).

    ``y`` may be (n, c): c label vectors sharing E (the one-vs-rest problems
    of a multi-class fit at their first step, or LapRLS, where E is all the
    labeled points) are solved with one factorisation; alpha is then (n, c)
    and b a (c,) array.
    """
    import scipy.linalg as sla

    n = K.shape[0]
    dtype = K.dtype
    multi = y.ndim == 2
    if not multi:
        alpha, b = _newton_solve(K, LK, L1, y[:, None], E, gamma_A, gamma_I, fit_b)
        return alpha[:, 0], float(b[0])
    c = y.shape[1]
    alpha = np.zeros((n, c), dtype=dtype)
    if E.size == 0:
        return alpha, np.zeros(c)
    if gamma_I == 0:
        C = K[np.ix_(E, E)].astype(dtype, copy=True)
        C.flat[:: E.size + 1] += gamma_A
        cf = sla.cho_factor(C, check_finite=False)
        u = sla.cho_solve(cf, y[E].astype(dtype), check_finite=False)
        b = np.zeros(c)
        if fit_b:
            v = sla.cho_solve(cf, np.ones(E.size, dtype=dtype), check_finite=False)
            b = u.sum(axis=0) / v.sum()
            u = u - v[:, None] * b[None, :].astype(dtype)
        alpha[E] = u
        return alpha, b
    M = gamma_I * LK
    M.flat[:: n + 1] += gamma_A
    M[E] += K[E]
    rhs = np.zeros((n + fit_b, c), dtype=dtype)
    rhs[E] = y[E]
    if fit_b:
        A1 = gamma_I * L1
        A1[E] += 1
        M = np.block([[M, A1[:, None]],
                      [np.ones((1, n), dtype=dtype), np.zeros((1, 1), dtype=dtype)]])
    try:
        with warnings.catch_warnings():
            # tiny gamma_A makes M ill-conditioned (K has tiny eigenvalues);
            # the solution is still the minimiser the objective asks for
            warnings.simplefilter("ignore", sla.LinAlgWarning)
            sol = sla.solve(M, rhs, check_finite=False, overwrite_a=True)
    except (sla.LinAlgError, ValueError):
        sol = sla.lstsq(M, rhs, check_finite=False)[0]
    if fit_b:
        return sol[:n].astype(dtype), np.asarray(sol[n], dtype=float)
    return sol.astype(dtype), np.zeros(c)


class _LaplacianPower:
    """``L^p`` applied as p products with the base Laplacian (never formed:
    the iterated Laplacian of a kNN graph fills in, and sparse-sparse products
    of a filling matrix are far slower than p sparse-dense ones)."""

    def __init__(self, L, p):
        self.L, self.p = L, p

    def __matmul__(self, v):
        for _ in range(self.p):
            v = np.asarray(self.L @ v)
        return v


def _lap_newton_setup(K, L, gamma_I, power=1):
    # The Newton systems are solved in float64 whatever the input dtype: with
    # a small gamma_A they are far too ill-conditioned for float32 LAPACK
    # (the result is cast back to K's dtype by the caller).
    K = np.asarray(K, dtype=np.float64)
    L = L.astype(np.float64)
    n = K.shape[0]
    # a dense-ish L (large k) is faster through BLAS
    Lop = _LaplacianPower(L.toarray() if L.nnz > 0.05 * n * n else L, power)
    LK = np.asarray(Lop @ K) if gamma_I > 0 else None
    L1 = np.asarray(Lop @ np.ones(n, dtype=K.dtype)).ravel()
    return K, Lop, LK, L1


def _lap_newton(K, L, y, lab, gamma_A, gamma_I, hinge, fit_b, max_iter,
                setup=None, step0=None):
    """Newton over the error-vector set for one label vector.

    ``setup``: :func:`_lap_newton_setup`'s (K, L, LK, L1), shared by the
    one-vs-rest problems of a multi-class fit; ``step0``: the first step's
    (alpha, b), E = all labeled points (alpha = 0 puts every labeled point in
    E), solved for all classes at once by the caller.
    """
    K, L, LK, L1 = _lap_newton_setup(K, L, gamma_I) if setup is None else setup
    n = K.shape[0]
    dtype = K.dtype
    alpha = np.zeros(n, dtype=dtype)
    b = 0.0
    obj, f = _lap_objective(K, L, y, lab, alpha, b, gamma_A, gamma_I, hinge)
    hist, e_hist = [obj], []
    yl = y[lab]

    def err_set(f):
        return lab[yl * f[lab] < 1] if hinge else lab

    E = err_set(f)
    status, n_iter = "max_iter", 0
    for it in range(max_iter):
        n_iter = it + 1
        e_hist.append(E.size)
        if it == 0 and step0 is not None and np.array_equal(E, lab):
            abar, bbar = step0
        else:
            abar, bbar = _newton_solve(K, LK, L1, y, E, gamma_A, gamma_I, fit_b)
        fbar = K @ abar + bbar
        Ebar = err_set(fbar)
        if not hinge or np.array_equal(Ebar, E):
            # the quadratic's minimiser keeps E: it is the optimum (finite
            # termination, as for L2-SVM-MFN)
            alpha, b, f = abar, bbar, fbar
            obj, f = _lap_objective(K, L, y, lab, alpha, b, gamma_A, gamma_I, hinge)
            hist.append(obj)
            status = "optimal"
            break
        # otherwise the full Newton step when it decreases F (Chapelle's
        # primal Newton; E then never repeats, so termination stays finite),
        # else an exact line search along the Newton direction
        obj_bar, fbar = _lap_objective(K, L, y, lab, abar, bbar, gamma_A, gamma_I,
                                       hinge)
        if obj_bar < obj:
            alpha, b, f, obj = abar, bbar, fbar, obj_bar
            hist.append(obj)
            E = Ebar
            continue
        d, db, df = abar - alpha, bbar - b, fbar - f
        Kd = df - dtype.type(db)
        Lf = np.asarray(L @ f).ravel()
        Ldf = np.asarray(L @ df).ravel()
        left = gamma_A * float(Kd @ alpha) + gamma_I * float(df @ Lf)
        right = gamma_A * float(Kd @ d) + gamma_I * float(df @ Ldf)
        s = _lapsvm.line_search(y.astype(dtype), lab, f, df, left, right, True)
        if s <= 0:
            status = "optimal"
            break
        alpha = alpha + dtype.type(s) * d
        b = b + s * db
        f = f + dtype.type(s) * df
        obj, f = _lap_objective(K, L, y, lab, alpha, b, gamma_A, gamma_I, hinge)
        hist.append(obj)
        E = err_set(f)
    return alpha, b, f, obj, n_iter, status, np.array(hist), np.array(e_hist, int)


def lapsvm_primal(K, L, y, *, gamma_A=1e-6, gamma_I=1.0, loss="squared_hinge",
                  solver="pcg", fit_intercept=True, stop="stability", tol=None,
                  max_iter=None, check_every=None, eta=0.015, alpha0=None,
                  intercept0=0.0, K_val=None, y_val=None, power=1,
                  verbose=False) -> LapSVMResult:
    r"""Laplacian SVM (or RLS) trained in the primal, by Newton or PCG.

    Minimises over alpha in R^n and b (Melacci & Belkin 2011, eq. 7)

    .. math::

        F(\alpha, b) = \frac12 \Big[ \sum_{i \le l} V(y_i, f_i)
            + \gamma_A \alpha^\top K \alpha + \gamma_I f^\top L f \Big],
        \qquad f = K\alpha + b\,\mathbf 1,

    over all n = l + u points, with V the squared hinge
    ``max(0, 1 - y f)^2`` (LapSVM, ``loss="squared_hinge"``) or the squared
    loss ``(y - f)^2`` (LapRLS, ``loss="squared"``). The bias is kept inside
    ``f'Lf`` (the same as the paper for an unnormalised L, where L 1 = 0).
    Relative to Belkin et al. 2006 (``1/l sum V + gamma_A ||f||^2 +
    gamma_I/(l+u)^2 f'Lf``): ``gamma_A = l * gamma_A_Belkin`` and
    ``gamma_I = l * gamma_I_Belkin / (l+u)^2``. A supervised kernel L2-SVM
    (``gamma_I = 0``) is LIBSVM's squared-hinge problem with
    ``C = 1 / gamma_A``.

    Solvers
    -------
    ``"newton"`` (eq. 11): from alpha = 0, solve the linear system of the
    quadratic with the error-vector set E = {i <= l : y_i f_i < 1} frozen
    (Cholesky on the reduced system when gamma_I = 0, LU otherwise; O(n^3)
    per step); stop when E no longer changes (finite termination), else take
    the full step if it decreases F, or the exact line-search step along the
    Newton direction. ``"closed"``: the
    same single solve, for the squared loss (LapRLS).
    ``"pcg"``: preconditioned conjugate gradient with P = blockdiag(K, 1),
    one K-vector product per iteration (BLAS, no GIL), Polak-Ribiere
    directions with automatic restart, exact line search over the hinge
    break points (eq. 13), stopped by ``stop``.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Kernel matrix over all points (float32 or float64; the computation
        runs in its dtype). See :func:`semisvm.kernels.kernel_matrix`.
    L : {sparse matrix, ndarray} of shape (n, n)
        Symmetric graph Laplacian (possibly iterated), e.g. from
        :func:`semisvm.graph.graph_laplacian`.
    y : array-like of shape (n,)
        +1 / -1 for labeled points, **0 for unlabeled** ones.
    gamma_A : float > 0
        Ambient (RKHS) regularisation.
    gamma_I : float >= 0
        Intrinsic (manifold) regularisation.
    loss : {"squared_hinge", "squared"}
    solver : {"pcg", "newton", "closed"}
        ``"closed"`` requires ``loss="squared"``.
    fit_intercept : bool
        Learn the bias b.
    stop : {"stability", "validation", "mixed", "gradient", "pgradient", \
"pnorm", "objective", "none"}
        PCG stopping rule. ``"stability"`` (default): stop when fewer than
        ``eta`` of the unlabeled points changed sign since the previous check,
        checks every ``check_every`` iterations; ``"validation"``: stop when
        the error on (``K_val``, ``y_val``) did not fall by at least one point
        (1/n_val) since the previous check; ``"mixed"``: both at once.
        Classical rules, checked every iteration, relative to their value at
        the start: ``"gradient"`` ||grad F||, ``"pgradient"`` ||P^-1 grad F||,
        ``"pnorm"`` sqrt(grad' P^-1 grad), ``"objective"`` the decrease of F
        in one iteration divided by F at the start; ``"none"`` runs to
        convergence (``"pnorm"`` with tol 1e-12, or until the exact line
        search finds no descent).
    tol : float, optional
        Tolerance of the classical rule; defaults 1e-8 (gradient, pgradient,
        pnorm), 1e-6 (objective), 1e-12 (none), as in the paper.
    max_iter : int, optional
        Newton steps (default 50) or PCG iterations (default max(1000, n)).
    check_every : int, optional
        Period of the early-stopping checks; default round(sqrt(n) / 2).
    eta : float in (0, 1) or None
        Stability threshold (paper: 0.015). None: ``min(0.015, 3e-4 *
        check_every)``, i.e. a rate of 0.03 % sign changes per iteration
        (0.004 at n = 700, 0.015 from n = 10,000 on).
    alpha0, intercept0 : optional
        PCG starting point (default 0).
    K_val : ndarray of shape (n_val, n), optional
        Kernel between the validation points and the n training points.
    y_val : array-like of shape (n_val,), optional
        +1 / -1 labels of the validation points.
    power : int >= 1, default=1
        Use ``L^power`` in place of ``L`` in the objective (the iterated
        Laplacian). PCG applies it as ``power`` sparse products with L and
        never forms it (L^p fills in fast; the products cost p nnz(L));
        Newton forms it (its O(n^3) work dominates anyway).
    verbose : bool
        Log the run on the ``"semisvm"`` logger.

    Returns
    -------
    LapSVMResult
    """
    return _lapsvm_multi(
        K, L, [y], gamma_A=gamma_A, gamma_I=gamma_I, loss=loss, solver=solver,
        fit_intercept=fit_intercept, stop=stop, tol=tol, max_iter=max_iter,
        check_every=check_every, eta=eta,
        alpha0=None if alpha0 is None else [alpha0],
        intercept0=[intercept0], K_val=K_val,
        y_val=None if y_val is None else [y_val], power=power, verbose=verbose)[0]


def _lapsvm_multi(K, L, ys, *, gamma_A, gamma_I, loss, solver, fit_intercept,
                  stop, tol, max_iter, check_every, eta, alpha0=None,
                  intercept0=None, K_val=None, y_val=None, power=1, verbose=False,
                  joint_stop=False):
    """:func:`lapsvm_primal` on several label vectors sharing K and L.

    ``ys`` is a list of (n,) label vectors (+1/-1, 0 unlabeled) with the same
    labeled points (the one-vs-rest problems of a multi-class fit); PCG runs
    them in lockstep so that K is read once per iteration (one gemm).
    ``joint_stop``: the label vectors are the one-vs-rest problems of one
    multi-class problem; PCG's early-stopping rules (stability, validation,
    mixed) then test the multi-class decision (argmax over the problems: the
    fraction of the unlabeled points whose class changed, the multi-class
    error on the validation points) and stop all the problems together.
    Each one-vs-rest sign is -1 on most points, so per-problem sign
    stability stops long before the classes settle.
    Returns a list of :class:`LapSVMResult`.
    """
    K = check_gram(K)
    n = K.shape[0]
    dtype = K.dtype
    L = check_laplacian(L, n, dtype)
    ys = [check_ssl_targets(y, n) for y in ys]
    c = len(ys)
    if any(not np.array_equal(ys[0] != 0, yj != 0) for yj in ys[1:]):
        raise ValueError("all label vectors must label the same points")
    y = ys[0]
    gamma_A = check_positive(gamma_A, "gamma_A")
    gamma_I = check_positive(gamma_I, "gamma_I", allow_zero=True)
    if loss not in ("squared_hinge", "squared"):
        raise ValueError(f"loss must be 'squared_hinge' or 'squared', got {loss!r}")
    if solver not in ("pcg", "newton", "closed"):
        raise ValueError(f"solver must be 'pcg', 'newton' or 'closed', got {solver!r}")
    hinge = loss == "squared_hinge"
    if solver == "closed" and hinge:
        raise ValueError("solver='closed' is the LapRLS closed form: it needs "
                         "loss='squared'; use 'newton' or 'pcg' for LapSVM")
    fit_b = bool(fit_intercept)
    lab = np.flatnonzero(y != 0).astype(np.int32)
    unl = np.flatnonzero(y == 0).astype(np.int32)
    power = check_int(power, "power")

    if solver in ("newton", "closed"):
        max_iter = 50 if max_iter is None else check_int(max_iter, "max_iter")
        setup = _lap_newton_setup(K, L, gamma_I, power)
        # from alpha = 0 every labeled point is an error vector: the first
        # Newton step (LapRLS: the solution) has the same matrix for all the
        # one-vs-rest problems, so one factorisation serves them all
        A0, b0 = _newton_solve(setup[0], setup[2], setup[3],
                               np.column_stack(ys).astype(np.float64), lab,
                               gamma_A, gamma_I, fit_b)
        out = []
        for j, yj in enumerate(ys):
            alpha, b, f, obj, n_iter, status, hist, e_hist = _lap_newton(
                K, L, yj, lab, gamma_A, gamma_I, hinge, fit_b, max_iter,
                setup=setup, step0=(A0[:, j], float(b0[j])))
            n_err = int(np.sum(yj[lab] * f[lab] < 1)) if hinge else lab.size
            if verbose:
                logger.info("LapSVM %s: %d steps, objective %.10g, |E| %s, %s",
                            solver, n_iter, obj, e_hist.tolist(), status)
            out.append(LapSVMResult(
                alpha=np.asarray(alpha, dtype=dtype), intercept=float(b),
                objective=float(obj), n_iter=int(n_iter),
                converged=status != "max_iter", status=status, solver=solver,
                stop="error_set", n_error_vectors=n_err, history=hist,
                val_history=np.zeros(0), error_set_history=e_hist,
                outputs=np.asarray(f, dtype=dtype)))
        return out

    if stop not in STOP_RULES:
        raise ValueError(f"stop must be one of {STOP_RULES}, got {stop!r}")
    tol = _RULE_TOL[stop] if tol is None else check_positive(tol, "tol")
    max_iter = max(1000, n) if max_iter is None else check_int(max_iter, "max_iter")
    if check_every is None:
        check_every = max(1, int(round(np.sqrt(n) / 2)))
    check_every = check_int(check_every, "check_every")
    if eta is None:
        # a sign-change *rate* of 0.03 % of the unlabeled points per
        # iteration, capped at the paper's 1.5 % per check: the flips counted
        # over one check period grow with its length (round(sqrt(n) / 2))
        eta = min(0.015, 3e-4 * check_every)
    eta = check_positive(eta, "eta")
    if stop in ("validation", "mixed"):
        if K_val is None or y_val is None:
            raise ValueError(f"stop={stop!r} needs K_val and y_val")
    if K_val is not None and y_val is not None:
        K_val = check_X(np.asarray(K_val) if not hasattr(K_val, "toarray")
                        else K_val.toarray(), name="K_val", reset_dtype=dtype)
        if K_val.shape[1] != n:
            raise ValueError(f"K_val must have shape (n_val, {n}), got {K_val.shape}")
        if len(y_val) != c:
            raise ValueError("give one y_val per label vector")
        Y_val = np.vstack([check_pm1(yv, K_val.shape[0], name="y_val")
                           for yv in y_val]).astype(dtype)
    else:
        K_val = np.zeros((0, n), dtype=dtype)
        Y_val = np.zeros((c, 0), dtype=dtype)
    A = np.zeros((c, n), dtype=dtype)
    if alpha0 is not None:
        for j, a0 in enumerate(alpha0):
            a0 = np.array(a0, dtype=dtype).ravel()
            if a0.shape != (n,) or not np.all(np.isfinite(a0)):
                raise ValueError(f"alpha0 must be a finite array of shape ({n},)")
            A[j] = a0
    b0 = np.zeros(c)
    if intercept0 is not None:
        b0[:] = np.asarray(intercept0, dtype=float)
        if not np.all(np.isfinite(b0)):
            raise ValueError("intercept0 must be finite")
    Y = np.ascontiguousarray(np.vstack(ys), dtype=dtype)
    # a nearly full L^p (large k, iterated p) is smaller and faster dense
    # (8 bytes per entry against 12 per CSR entry; BLAS gemv)
    if L.nnz > 0.5 * n * n:
        L_dense = np.ascontiguousarray(L.toarray(), dtype=dtype)
        L = sp.csr_matrix((n, n), dtype=dtype)
        L = as_csr32(L)
    else:
        L_dense = np.zeros((0, 0), dtype=dtype)
    b, F, n_iter, codes, obj, hist, hval, n_chk = _lapsvm.pcg(
        K, L.indptr, L.indices, L.data, L_dense, Y, lab, unl, K_val, Y_val, gamma_A,
        gamma_I, hinge, fit_b, A, b0, max_iter, _RULE_CODE[stop], tol,
        check_every, eta, power, bool(joint_stop) and c > 1)
    out = []
    for j in range(c):
        status = _PCG_STATUS[int(codes[j])]
        f = F[j]
        n_err = int(np.sum(Y[j, lab] * f[lab] < 1)) if hinge else lab.size
        if verbose:
            logger.info("LapSVM pcg (%s): %d iterations, objective %.10g, %s",
                        stop, n_iter[j], obj[j], status)
        out.append(LapSVMResult(
            alpha=A[j].copy(), intercept=float(b[j]), objective=float(obj[j]),
            n_iter=int(n_iter[j]), converged=status != "max_iter", status=status,
            solver="pcg", stop=stop, n_error_vectors=n_err,
            history=hist[j, :n_iter[j] + 1].copy(),
            val_history=hval[j, :n_chk[j]].copy(),
            error_set_history=np.zeros(0, dtype=int), outputs=f.copy()))
    return out


# Semi-supervised linear SVMs (TSVM, DA-S3VM); implemented in their own module,
# which calls _run_mfn above.
from semisvm._semisupervised import da_s3vm, tsvm  # noqa: E402  (circular: needs _run_mfn)

__all__ += ["da_s3vm", "tsvm"]

# USMO (positive-unlabeled SVM) lives in its family module; re-exported here.
from semisvm.pu import usmo  # noqa: E402

__all__ += ["usmo"]

# Graph TV / Cheeger solvers live in their family module (they build on its
# private helpers); re-exported here as part of the functional API.
from semisvm.graph_tv import graph_cheeger, graph_tv  # noqa: E402

__all__ += ["graph_tv", "graph_cheeger"]
