"""LapSVM / LapRLS solver machinery: Newton and PCG in the primal.

The pieces behind :func:`semisvm.manifold.lapsvm_primal` and the exact
(kernel-matrix) path of :class:`semisvm.manifold.LapSVM` and
:class:`semisvm.manifold.LapRLS` (Melacci & Belkin 2011, eq. 7):

* ``lap_objective``: F(alpha, b) of eq. 7 and f = K alpha + b;
* ``newton_solve``: the quadratic's minimiser with the error-vector set
  frozen (eq. 11), several label vectors with one factorisation;
* ``LaplacianPower``, ``lap_newton_setup``, ``lap_newton``: the iterated
  Laplacian applied as p products, and Newton over the error-vector set with
  the exact line search (``semisvm._core._lapsvm.line_search``);
* ``lapsvm_multi``: validation and dispatch for several label vectors sharing
  K and L (the one-vs-rest problems), Newton / closed form or the Cython PCG
  (``semisvm._core._lapsvm.pcg``) with its early-stopping rules.

The low-rank (Nystroem, linear) machinery is in :mod:`semisvm._lowrank`.
"""
from __future__ import annotations

import logging
import warnings

import numpy as np

from semisvm._core import _lapsvm
from semisvm._core._dataset import RowData
from semisvm._results import LapSVMResult
from semisvm._validation import (
    check_gram,
    check_int,
    check_laplacian,
    check_pm1,
    check_positive,
    check_ssl_targets,
    check_X,
    pm1_from_01,
)

logger = logging.getLogger("semisvm")

STOP_RULES = ("stability", "validation", "mixed", "gradient", "pgradient",
              "pnorm", "objective", "none")
RULE_CODE = {"none": 0, "stability": 1, "validation": 2, "mixed": 3,
              "gradient": 4, "pgradient": 5, "pnorm": 6, "objective": 7}
# the paper's defaults for the classical rules (normalised by their first value)
RULE_TOL = {"gradient": 1e-8, "pgradient": 1e-8, "pnorm": 1e-8,
             "objective": 1e-6, "none": 1e-12, "stability": 0.0,
             "validation": 0.0, "mixed": 0.0}
PCG_STATUS = {0: "tol", 1: "stability", 2: "validation", 3: "mixed",
               4: "optimal", 5: "max_iter"}


def lap_objective(K, L, y, lab, alpha, b, gamma_A, gamma_I, hinge):
    f = K @ alpha + b
    r = f[lab] - y[lab]
    if hinge:
        r = r[y[lab] * f[lab] < 1]
    return 0.5 * (float(r @ r) + gamma_A * float(alpha @ (f - b))
                  + gamma_I * float(f @ (L @ f))), f


def newton_solve(K, LK, L1, y, E, gamma_A, gamma_I, fit_b, factor=None):
    """Minimiser of the quadratic F with the error-vector set E frozen (eq. 11).

    gamma_I = 0: alpha vanishes off E and (gamma_A I + K_EE) alpha_E = y_E - b
    is symmetric positive definite (Cholesky; the bias by a Schur complement).
    gamma_I > 0: (gamma_A I + I_E K + gamma_I L K) alpha + (1_E + gamma_I L1) b
    = I_E y, bordered by 1'alpha = 0 for the bias (LU).

    ``y`` may be (n, c): c label vectors sharing E (the one-vs-rest problems
    of a multi-class fit at their first step, or LapRLS, where E is all the
    labeled points) are solved with one factorisation; alpha is then (n, c)
    and b a (c,) array.

    ``factor`` (gamma_I > 0 only): a dict shared by solves over the same K,
    LK, L1, gamma_A, gamma_I and fit_b (a fit's and its check's label
    folds', see :func:`lapsvm_multi`). Empty: this solve factorises its
    matrix (LU, the same bits as without ``factor``) and stores the factors
    with its E. Holding the factors of a superset E0 of E: the matrix of E
    is E0's less the rows E0 \\ E of ``I_E0 K`` (and of the bias column), a
    change of rank h = |E0 \\ E|, solved through E0's factors by the
    Woodbury identity in O(n^2 (h + c)) instead of a new O(n^3) LU (the
    label folds hide a few labeled rows of the fit's); not the same bits as
    a new factorisation, and refused where its refinement step says it is
    less accurate in f = K alpha + b (a small gamma_A; see
    :func:`woodbury_solve`): the stored factors are then dropped and this
    solve, and the later ones, factorise afresh.
    """
    import scipy.linalg as sla

    n = K.shape[0]
    dtype = K.dtype
    multi = y.ndim == 2
    if not multi:
        alpha, b = newton_solve(K, LK, L1, y[:, None], E, gamma_A, gamma_I, fit_b)
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
    rhs = np.zeros((n + fit_b, c), dtype=dtype)
    rhs[E] = y[E]
    base = None if factor is None else factor.get("lu")
    if base is not None:
        sol = woodbury_solve(K, factor["E"], base, E, rhs, fit_b,
                             LK=LK, L1=L1, gamma_A=gamma_A, gamma_I=gamma_I)
        if sol is not None:
            return _split(sol, n, fit_b, dtype)
        # refused (too many rows hidden, or not accurate enough: the folds
        # of one check are alike, so the next ones would be refused too):
        # the fit's factors are dropped before this solve factorises its own
        # matrix, so that the two n^2 factorisations never coexist ("E"
        # stays: nothing is stored again)
        factor["lu"] = base = None

    def matrix():
        # the (bordered) matrix written in Fortran order, where LAPACK
        # factorises it in place: no n x n temporaries (the bordering copy,
        # the solver's Fortran copy)
        M = np.empty((n + fit_b, n + fit_b), dtype=dtype, order="F")
        np.multiply(LK, gamma_I, out=M[:n, :n])
        diag = np.arange(n)
        M[diag, diag] += gamma_A
        M[E, :n] += K[E]
        if fit_b:
            np.multiply(L1, gamma_I, out=M[:n, n])
            M[E, n] += 1
            M[n, :n] = 1
            M[n, n] = 0
        return M

    try:
        with warnings.catch_warnings():
            # tiny gamma_A makes M ill-conditioned (K has tiny eigenvalues);
            # the solution is still the minimiser the objective asks for
            warnings.simplefilter("ignore", sla.LinAlgWarning)
            # getrf + getrs: the bits of scipy.linalg.solve (which, in SciPy
            # 1.17, crashes on an exactly singular Fortran-ordered matrix it
            # may overwrite); the factors kept for the label folds
            lu = sla.lu_factor(matrix(), check_finite=False, overwrite_a=True)
            if not np.all(np.diagonal(lu[0])):
                raise sla.LinAlgError("singular matrix")
            sol = sla.lu_solve(lu, rhs, check_finite=False)
            # check-then-update without a lock: ``factor`` is one fit's,
            # used from its thread only (the fit, then its check's label
            # folds one after the other)
            if factor is not None and "E" not in factor:
                factor.update(E=E.copy(), lu=lu)
            del lu
    except (sla.LinAlgError, ValueError):
        # exactly singular: the least-squares solution
        sol = sla.lstsq(matrix(), rhs, check_finite=False)[0]
    return _split(sol, n, fit_b, dtype)


def _split(sol, n, fit_b, dtype):
    """(alpha, b) of a bordered system's solution."""
    if fit_b:
        return sol[:n].astype(dtype), np.asarray(sol[n], dtype=float)
    return sol.astype(dtype), np.zeros(sol.shape[1])


# the Woodbury solve of newton_solve up to this rank h = |E0 \ E| per
# matrix row: its cost n^2 (h + c) against a new LU's 2/3 n^3
WOODBURY_MAX_FRACTION = 0.25
# the largest error estimate of a Woodbury solve, relative in f = K alpha + b,
# that newton_solve accepts (a new LU is accurate to ~1e-10 there)
WOODBURY_TOL = 1e-8


def woodbury_solve(K, E0, lu, E, rhs, fit_b, *, LK=None, L1=None,
                   gamma_A=None, gamma_I=None):
    """The solution of M_E x = rhs through the LU factors of M_E0, E <= E0.

    M_E = M_E0 - U W with U the columns e_i of the rows i in H = E0 \\ E and
    W = [K_H, 1] (the rows' share of ``I_E0 K`` and, when ``fit_b``, of the
    bias column): x = x0 + G S^-1 W x0 with x0 = M_E0^-1 rhs, G = M_E0^-1 U
    and S = I_h - W G (h x h). None where E is not a subset of E0, h is
    above ``WOODBURY_MAX_FRACTION`` of n, or S is singular (or gives a
    non-finite solution): the caller factorises M_E itself.

    Given ``LK``, ``L1``, ``gamma_A`` and ``gamma_I`` (M_E's pieces, as in
    :func:`newton_solve`), one step of iterative refinement follows: the
    residual r = rhs - M_E x (O(n^2 c)) is solved through the same
    factors, d = M_E^-1 r, and x + d returned. The identity is not
    backward stable: with a small gamma_A (M_E0 ill-conditioned; K's small
    eigenvalues) x's error is amplified in the directions K keeps, where
    a new LU's is not (1e-12 against the RBF kernel's unit diagonal: f
    wrong in its leading digit). The step's size in f = K alpha + b,
    max|K d_alpha + d_b| / max|f|, tracks that error (measured 1e-11 to
    1e-1 within a factor 2; larger errors still show as > 0.1): above
    ``WOODBURY_TOL`` the result is None and the caller factorises afresh.
    """
    import scipy.linalg as sla

    n = K.shape[0]
    keep = np.isin(E0, E)
    if int(np.count_nonzero(keep)) != E.size:
        return None
    H = E0[~keep]
    h = H.size
    if h == 0:
        return sla.lu_solve(lu, rhs, check_finite=False)
    if h > WOODBURY_MAX_FRACTION * n:
        return None
    c = rhs.shape[1]
    B = np.zeros((rhs.shape[0], c + h))
    B[:, :c] = rhs
    B[H, c + np.arange(h)] = 1.0
    Z = sla.lu_solve(lu, B, check_finite=False)
    x0, G = Z[:, :c], Z[:, c:]
    # W Z: the rows H of K (and the bias entry) against Z
    WZ = K[H] @ Z[:n]
    if fit_b:
        WZ += Z[n]
    S = np.eye(h) - WZ[:, c:]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", sla.LinAlgWarning)
            Sf = sla.lu_factor(S, check_finite=False)
            if not np.all(np.diagonal(Sf[0])):
                return None
            t = sla.lu_solve(Sf, WZ[:, :c], check_finite=False)
    except (sla.LinAlgError, ValueError):
        return None
    x = x0 + G @ t
    if not np.all(np.isfinite(x)):
        return None
    if LK is None:
        return x
    # one step of iterative refinement; its size is the error estimate
    a = x[:n]
    Ka = K @ a
    r = rhs - gamma_A * x
    r[:n] -= gamma_I * (LK @ a)
    r[E] -= Ka[E]
    if fit_b:
        r[:n] -= gamma_I * L1[:, None] * x[n]
        r[E] -= x[n]
        r[n] = rhs[n] - a.sum(axis=0)
    d = sla.lu_solve(lu, r, check_finite=False)
    d += G @ sla.lu_solve(Sf, K[H] @ d[:n] + (d[n] if fit_b else 0.0),
                          check_finite=False)
    f = Ka + x[n] if fit_b else Ka
    df = K @ d[:n]
    if fit_b:
        df += d[n]
    scale = np.max(np.abs(f))
    if not np.isfinite(scale) or not np.max(np.abs(df)) <= WOODBURY_TOL * scale:
        return None
    return x + d


class LaplacianPower:
    """``L^p`` applied as p products with the base Laplacian (never formed:
    the iterated Laplacian of a kNN graph fills in, and sparse-sparse products
    of a filling matrix are far slower than p sparse-dense ones)."""

    def __init__(self, L, p):
        self.L, self.p = L, p

    def __matmul__(self, v):
        for _ in range(self.p):
            v = np.asarray(self.L @ v)
        return v


def lap_newton_setup(K, L, gamma_I, power=1):
    # The Newton systems are solved in float64 whatever the input dtype: with
    # a small gamma_A they are far too ill-conditioned for float32 LAPACK
    # (the result is cast back to K's dtype by the caller).
    K = np.asarray(K, dtype=np.float64)
    L = L.astype(np.float64)
    n = K.shape[0]
    # a dense-ish L (large k) is faster through BLAS
    Lop = LaplacianPower(L.toarray() if L.nnz > 0.05 * n * n else L, power)
    LK = np.asarray(Lop @ K) if gamma_I > 0 else None
    L1 = np.asarray(Lop @ np.ones(n, dtype=K.dtype)).ravel()
    return K, Lop, LK, L1


def lap_newton(K, L, y, lab, gamma_A, gamma_I, hinge, fit_b, max_iter,
                setup=None, step0=None):
    """Newton over the error-vector set for one label vector.

    ``setup``: :func:`lap_newton_setup`'s (K, L, LK, L1), shared by the
    one-vs-rest problems of a multi-class fit; ``step0``: the first step's
    (alpha, b), E = all labeled points (alpha = 0 puts every labeled point in
    E), solved for all classes at once by the caller.
    """
    K, L, LK, L1 = lap_newton_setup(K, L, gamma_I) if setup is None else setup
    n = K.shape[0]
    dtype = K.dtype
    alpha = np.zeros(n, dtype=dtype)
    b = 0.0
    obj, f = lap_objective(K, L, y, lab, alpha, b, gamma_A, gamma_I, hinge)
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
            abar, bbar = newton_solve(K, LK, L1, y, E, gamma_A, gamma_I, fit_b)
        fbar = K @ abar + bbar
        Ebar = err_set(fbar)
        if not hinge or np.array_equal(Ebar, E):
            # the quadratic's minimiser keeps E: it is the optimum (finite
            # termination, as for L2-SVM-MFN)
            alpha, b, f = abar, bbar, fbar
            obj, f = lap_objective(K, L, y, lab, alpha, b, gamma_A, gamma_I, hinge)
            hist.append(obj)
            status = "optimal"
            break
        # otherwise the full Newton step when it decreases F (Chapelle's
        # primal Newton; E then never repeats, so termination stays finite),
        # else an exact line search along the Newton direction
        obj_bar, fbar = lap_objective(K, L, y, lab, abar, bbar, gamma_A, gamma_I,
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
        obj, f = lap_objective(K, L, y, lab, alpha, b, gamma_A, gamma_I, hinge)
        hist.append(obj)
        E = err_set(f)
    return alpha, b, f, obj, n_iter, status, np.array(hist), np.array(e_hist, int)


def lapsvm_multi(K, L, ys, *, gamma_A, gamma_I, loss, solver, fit_intercept,
                  stop, tol, max_iter, check_every, eta, alpha0=None,
                  intercept0=None, K_val=None, y_val=None, power=1, verbose=False,
                  joint_stop=False, shared=None):
    """:func:`lapsvm_primal` on several label vectors sharing K and L.

    ``ys`` is a list of (n,) label vectors (1 / 0, -1 unlabeled) with the same
    labeled points (the one-vs-rest problems of a multi-class fit); PCG runs
    them in lockstep so that K is read once per iteration (one gemm).
    ``joint_stop``: the label vectors are the one-vs-rest problems of one
    multi-class problem; PCG's early-stopping rules (stability, validation,
    mixed) then test the multi-class decision (argmax over the problems: the
    fraction of the unlabeled points whose class changed, the multi-class
    error on the validation points) and stop all the problems together.
    Each one-vs-rest sign is -1 on most points, so per-problem sign
    stability stops long before the classes settle.
    ``shared`` (Newton / closed form): a dict kept by the caller across calls
    on the same K, L, gamma_A, gamma_I, fit_intercept and power whose
    labeled points are a subset of the first call's (a fit and its check's
    label folds): the label-free :func:`lap_newton_setup` (L^p K, L^p 1, K
    and L in float64) is computed once, and the first Newton step (LapRLS:
    the solution) of a later call goes through the first call's
    factorisation (:func:`newton_solve`'s ``factor``).
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
        if shared is None:
            setup = lap_newton_setup(K, L, gamma_I, power)
        else:
            # label-free: computed on the first call (the same bits)
            if "setup" not in shared:
                shared["setup"] = lap_newton_setup(K, L, gamma_I, power)
            setup = shared["setup"]
        # from alpha = 0 every labeled point is an error vector: the first
        # Newton step (LapRLS: the solution) has the same matrix for all the
        # one-vs-rest problems, so one factorisation serves them all
        A0, b0 = newton_solve(setup[0], setup[2], setup[3],
                               np.column_stack(ys).astype(np.float64), lab,
                               gamma_A, gamma_I, fit_b,
                               factor=None if shared is None or gamma_I == 0
                               else shared.setdefault("factor", {}))
        out = []
        for j, yj in enumerate(ys):
            alpha, b, f, obj, n_iter, status, hist, e_hist = lap_newton(
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
                decision=np.asarray(f, dtype=dtype)))
        return out

    if stop not in STOP_RULES:
        raise ValueError(f"stop must be one of {STOP_RULES}, got {stop!r}")
    tol = RULE_TOL[stop] if tol is None else check_positive(tol, "tol")
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
        Y_val = np.vstack([check_pm1(pm1_from_01(yv), K_val.shape[0], name="y_val")
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
        L_rows = RowData(np.ascontiguousarray(L.toarray(), dtype=dtype))
    else:
        L_rows = RowData(L)
    b, F, n_iter, codes, obj, hist, hval, n_chk = _lapsvm.pcg(
        K, L_rows, Y, lab, unl, K_val, Y_val, gamma_A,
        gamma_I, hinge, fit_b, A, b0, max_iter, RULE_CODE[stop], tol,
        check_every, eta, power, bool(joint_stop) and c > 1)
    out = []
    for j in range(c):
        status = PCG_STATUS[int(codes[j])]
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
            error_set_history=np.zeros(0, dtype=int), decision=f.copy()))
    return out
