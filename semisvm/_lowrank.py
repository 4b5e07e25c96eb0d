"""LapSVM / LapRLS in the primal over explicit features: f = Z w + b.

The manifold family's scalable paths (large n). With a feature matrix Z
(n x D) whose Gram matrix Z Z' is the kernel, the LapSVM objective over
f = K alpha + b equals, with w = Z' alpha,

    F(w, b) = 1/2 [ sum_{labeled i} V(y_i, f_i) + gamma_A ||w||^2
                    + gamma_I f' L^p f ],        f = Z w + b 1,

(V the squared hinge max(0, 1 - y f)^2 or the squared loss (y - f)^2) and
has the same minimum (the part of w outside the row space of Z only adds to
||w||^2). Two feature maps:

* ``kernel="linear"``: Z = X itself (dense or CSR, never densified), the
  linear LapSVM in w (D = n_features);
* Nystroem: Z = K(X, X_m) K_mm^{-1/2} (n x m, m landmarks), see
  :func:`nystroem_features`; m = n reproduces the exact kernel problem.

:func:`lap_primal_w` minimises F by Newton's method over the error-vector set
(as L2-SVM-MFN and the exact LapSVM Newton: the quadratic with the set
frozen, then the exact line search of :func:`semisvm._core._lapsvm.line_search`
when the set changed), each Newton system solved by Jacobi-preconditioned CG
whose matrix is applied as products by Z, Z' and L only (O(nnz(Z) + p nnz(L))
per CG iteration; no n x n or dense n x D array is formed). LapRLS (squared
loss) is one CG solve.
"""
from __future__ import annotations

import contextlib
import logging
import time

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from semisvm._core import _lapsvm
from semisvm._results import LapWResult
from semisvm._threads import limit, map_blocks
from semisvm._validation import check_int, check_positive

__all__ = ["lap_primal_w", "lap_gram", "nystroem_features", "LapWResult"]

logger = logging.getLogger("semisvm")

# rows per block when a dense n x m product is built or reduced
_BLOCK = 4096


def _col_sq(Z, c):
    """sum_i c_i Z_ij^2 for every column j, without an n x D temporary."""
    if sp.issparse(Z):
        Zs = sp.csr_matrix((Z.data * Z.data, Z.indices, Z.indptr), shape=Z.shape)
        return np.asarray(Zs.T @ c.astype(Z.dtype)).ravel().astype(np.float64)
    out = np.zeros(Z.shape[1])
    for s in range(0, Z.shape[0], _BLOCK):
        B = Z[s:s + _BLOCK]
        out += (B * B).T @ c[s:s + _BLOCK].astype(Z.dtype)
    return out


class _Problem:
    """Products of one Newton system: H x = rhs over x = (w, b)."""

    def __init__(self, Z, L, power, gamma_A, gamma_I, fit_b):
        self.Z, self.L, self.p = Z, L, power
        self.gA, self.gI, self.fit_b = gamma_A, gamma_I, fit_b
        self.n, self.D = Z.shape
        self.dtype = Z.dtype

    def lap(self, f):
        for _ in range(self.p):
            f = np.asarray(self.L @ f).ravel()
        return f

    def out(self, w, b):
        return np.asarray(self.Z @ w).ravel() + self.dtype.type(b)

    def hess(self, x, E):
        """H x for the error set E (as a 0/1 mask over the n rows)."""
        w = x[:self.D]
        b = x[self.D] if self.fit_b else 0.0
        f = self.out(w, b)
        g = f * E
        if self.gI > 0:
            g = g + self.dtype.type(self.gI) * self.lap(f)
        hw = np.asarray(self.Z.T @ g).ravel() + self.dtype.type(self.gA) * w
        if not self.fit_b:
            return hw
        return np.concatenate([hw, [g.sum(dtype=np.float64)]]).astype(self.dtype)

    def rhs(self, y, E):
        t = (y * E).astype(self.dtype)
        r = np.asarray(self.Z.T @ t).ravel()
        if not self.fit_b:
            return r
        return np.concatenate([r, [t.sum(dtype=np.float64)]]).astype(self.dtype)

    def jacobi(self, E, Ldiag):
        c = E.astype(np.float64) + self.gI * Ldiag
        d = _col_sq(self.Z, c) + self.gA
        if self.fit_b:
            d = np.concatenate([d, [max(float(c.sum()), 1e-12)]])
        return (1.0 / d).astype(self.dtype)


def lap_gram(Z, L, power=1):
    """(Z~' L^p Z~) for Z~ = [Z, 1]: the graph term's (D+1) x (D+1) matrix.

    For a dense Z with few columns (Nystroem) the Newton systems are then
    solved directly: this matrix is formed once (O(p nnz(L) D + n D^2),
    by blocks of rows: no second n x D array for p <= 2) and shared by every
    Newton step and every one-vs-rest problem.
    """
    n, D = Z.shape
    L = sp.csr_matrix(L)
    ones = np.ones((n, 1), dtype=Z.dtype)
    G = np.zeros((D + 1, D + 1))
    if power <= 2:
        for a in range(0, n, _BLOCK):
            Lb = L[a:a + _BLOCK]
            LZ = np.hstack([np.asarray(Lb @ Z, dtype=np.float64),
                            np.asarray(Lb @ ones, dtype=np.float64)])
            if power == 1:
                Zb = np.hstack([Z[a:a + _BLOCK], ones[a:a + _BLOCK]])
                G += Zb.T.astype(np.float64) @ LZ
            else:
                G += LZ.T @ LZ
    else:
        M = np.hstack([Z, ones]).astype(np.float64)
        for _ in range(power // 2):
            M = np.asarray(L @ M)
        G = M.T @ (np.asarray(L @ M) if power % 2 else M)
    return (G + G.T) / 2


def _direct(Z, gram, y, E, gA, gI, fit_b):
    """The Newton system with the error set E frozen, solved by Cholesky."""
    D = Z.shape[1]
    idx = np.flatnonzero(E)
    ZE = np.hstack([np.asarray(Z[idx], dtype=np.float64), np.ones((idx.size, 1))])
    H = gI * gram + ZE.T @ ZE
    H[np.arange(D), np.arange(D)] += gA
    rhs = ZE.T @ y[idx].astype(np.float64)
    if not fit_b:
        H, rhs = H[:D, :D], rhs[:D]
    else:
        H[D, D] = max(H[D, D], 1e-12)
    try:
        x = sla.solve(H, rhs, assume_a="pos", check_finite=False)
    except sla.LinAlgError:
        x = sla.lstsq(H, rhs, check_finite=False)[0]
    return x


def _cg(prob, E, rhs, x0, M, tol, max_iter):
    """Preconditioned CG on H x = rhs from x0; returns (x, iterations)."""
    x = x0.copy()
    r = rhs - prob.hess(x, E)
    bn = float(np.linalg.norm(rhs))
    if bn == 0:
        return np.zeros_like(x), 0
    z = M * r
    d = z.copy()
    rz = float(r @ z)
    it = 0
    while it < max_iter and float(np.linalg.norm(r)) > tol * bn:
        it += 1
        Hd = prob.hess(d, E)
        dHd = float(d @ Hd)
        if dHd <= 0:
            break
        a = rz / dHd
        x += prob.dtype.type(a) * d
        r -= prob.dtype.type(a) * Hd
        z = M * r
        rz_new = float(r @ z)
        d = z + prob.dtype.type(rz_new / rz) * d
        rz = rz_new
    return x, it


def _objective(prob, y, lab, hinge, w, b, f):
    r = f[lab] - y[lab]
    if hinge:
        r = r[y[lab] * f[lab] < 1]
    r = r.astype(np.float64)
    reg = prob.gA * float(w.astype(np.float64) @ w)
    if prob.gI > 0:
        reg += prob.gI * float(f.astype(np.float64) @ prob.lap(f))
    return 0.5 * (float(r @ r) + reg)


def lap_primal_w(Z, L, y, *, gamma_A=1e-4, gamma_I=1.0, loss="squared_hinge",
                 fit_intercept=True, power=1, max_iter=50, tol=1e-9,
                 cg_tol=None, cg_max_iter=None, gram=None, w0=None, intercept0=0.0,
                 verbose=False):
    r"""LapSVM / LapRLS over the features ``Z``: minimise over w, b

    .. math::

        F(w, b) = \frac12 \Big[ \sum_{i \le l} V(y_i, f_i)
        + \gamma_A \|w\|^2 + \gamma_I f^\top L^p f \Big],
        \qquad f = Z w + b\,\mathbf 1,

    V the squared hinge (``loss="squared_hinge"``) or squared loss.

    Parameters
    ----------
    Z : ndarray or CSR matrix of shape (n, D)
        Features of all n rows (labeled and unlabeled); never densified.
    L : sparse matrix (n, n)
        Symmetric graph Laplacian (applied ``power`` times as products).
    y : ndarray of shape (n,)
        +1 / -1 on the labeled rows, 0 on the unlabeled ones.
    cg_tol : float, optional
        CG's relative residual; default 1e-10 (float64), 1e-5 (float32).
    cg_max_iter : int, optional
        Per Newton system; default max(200, 2 (D + 1)) capped at 5000.
    gram : ndarray (D+1, D+1), optional
        :func:`lap_gram` of (Z, L, power): the Newton systems are then solved
        directly (Cholesky in D + 1 dimensions) instead of by CG.
    w0, intercept0 : ndarray (D,) and float, optional
        Warm start (e.g. the solution for a neighbouring regularisation):
        Newton starts from its error-vector set and CG from it. The minimiser
        is unique: only the work changes (and, with CG, the result within
        the CG tolerance).

    Returns
    -------
    LapWResult
    """
    t0 = time.perf_counter()
    n, D = Z.shape
    dtype = Z.dtype
    y = np.asarray(y, dtype=dtype)
    if y.shape != (n,):
        raise ValueError(f"y must have shape ({n},), got {y.shape}")
    if L.shape != (n, n):
        raise ValueError(f"L must have shape ({n}, {n}), got {L.shape}")
    gamma_A = check_positive(gamma_A, "gamma_A")
    gamma_I = check_positive(gamma_I, "gamma_I", allow_zero=True)
    power = check_int(power, "power")
    max_iter = check_int(max_iter, "max_iter")
    if loss not in ("squared_hinge", "squared"):
        raise ValueError(f"loss must be 'squared_hinge' or 'squared', got {loss!r}")
    hinge = loss == "squared_hinge"
    if cg_tol is None:
        cg_tol = 1e-5 if dtype == np.float32 else 1e-10
    if cg_max_iter is None:
        cg_max_iter = min(max(200, 2 * (D + 1)), 5000)
    L = sp.csr_matrix(L, dtype=dtype)
    fit_b = bool(fit_intercept)
    prob = _Problem(Z, L, power, gamma_A, gamma_I, fit_b)
    lab = np.flatnonzero(y != 0).astype(np.int32)
    Ldiag = np.abs(L.diagonal()).astype(np.float64) ** power
    x = np.zeros(D + fit_b, dtype=dtype)
    f = np.zeros(n, dtype=dtype)
    if w0 is not None:
        w0 = np.asarray(w0, dtype=dtype).ravel()
        if w0.shape != (D,) or not np.all(np.isfinite(w0)):
            raise ValueError(f"w0 must be a finite vector of length {D}")
        x[:D] = w0
        if fit_b:
            x[D] = float(intercept0)
        f = prob.out(x[:D], float(x[D]) if fit_b else 0.0)
    obj = _objective(prob, y, lab, hinge, x[:D], 0.0, f)
    hist = [obj]

    def err_mask(f):
        E = np.zeros(n, dtype=dtype)
        if hinge:
            E[lab[y[lab] * f[lab] < 1]] = 1
        else:
            E[lab] = 1
        return E

    E = err_mask(f)
    status, n_it, n_cg = "max_iter", 0, 0
    for it in range(max_iter):
        n_it = it + 1
        if gram is not None:
            xbar = _direct(Z, gram, y, E, gamma_A, gamma_I, fit_b).astype(dtype)
        else:
            M = prob.jacobi(E, Ldiag)
            xbar, k = _cg(prob, E, prob.rhs(y, E), x, M, cg_tol, cg_max_iter)
            n_cg += k
        bbar = float(xbar[D]) if fit_b else 0.0
        fbar = prob.out(xbar[:D], bbar)
        Ebar = err_mask(fbar)
        if not hinge or np.array_equal(Ebar, E):
            x, f = xbar, fbar
            obj = _objective(prob, y, lab, hinge, x[:D], bbar, f)
            hist.append(obj)
            status = "optimal"
            break
        obj_bar = _objective(prob, y, lab, hinge, xbar[:D], bbar, fbar)
        if obj_bar < obj:
            x, f, E = xbar, fbar, Ebar
            dec, obj = obj - obj_bar, obj_bar
            hist.append(obj)
            if dec <= tol * max(abs(obj), 1.0):
                status = "optimal"
                break
            continue
        # exact line search along the Newton direction (the regulariser's
        # slope along it is left + s right)
        d = (xbar - x).astype(np.float64)
        df = fbar - f
        reg_f = prob.lap(f) if gamma_I > 0 else None
        left = gamma_A * float(d[:D] @ x[:D].astype(np.float64))
        right = gamma_A * float(d[:D] @ d[:D])
        if gamma_I > 0:
            left += gamma_I * float(df.astype(np.float64) @ reg_f)
            right += gamma_I * float(df.astype(np.float64) @ prob.lap(df))
        s = _lapsvm.line_search(y, lab, f, df, left, right, True)
        if s <= 0:
            status = "optimal"
            break
        x = (x + dtype.type(s) * d.astype(dtype)).astype(dtype)
        b = float(x[D]) if fit_b else 0.0
        f = prob.out(x[:D], b)
        new = _objective(prob, y, lab, hinge, x[:D], b, f)
        dec, obj = obj - new, new
        hist.append(obj)
        E = err_mask(f)
        if dec <= tol * max(abs(obj), 1.0):
            status = "optimal"
            break
    b = float(x[D]) if fit_b else 0.0
    if verbose:
        logger.info("LapSVM in w (D=%d): %d Newton steps, %d CG iterations, "
                    "objective %.10g, %s", D, n_it, n_cg, obj, status)
    n_err = int(np.sum(y[lab] * f[lab] < 1)) if hinge else int(lab.size)
    return LapWResult(coef=x[:D].copy(), intercept=b, decision=f,
                      objective=float(obj), n_iter=n_it, n_cg_iter=n_cg,
                      converged=status != "max_iter", status=status,
                      n_error_vectors=n_err, history=np.asarray(hist),
                      time=time.perf_counter() - t0)


def nystroem_features(X, kernel, n_components, *, random_state=0, dtype=None,
                      include=None, parallel=False):
    """Nystroem feature map Z = K(X, X_m) K_mm^{-1/2} over m landmark rows.

    Landmarks: the rows ``include`` first (e.g. the labeled rows; the first
    m of them if there are more), then rows drawn uniformly without
    replacement from the others (in the order of
    ``numpy.random.RandomState(random_state).permutation(n)``, as
    scikit-learn's ``Nystroem``), m in all; ``K_mm^{-1/2}`` is the pseudo-inverse square
    root from ``eigh`` (eigenvalues below ``m * eps * max`` dropped), so Z Z'
    is the Nystroem approximation K_nm K_mm^+ K_mn of the kernel (= K when
    m = n). ``kernel(A, B)`` returns the dense kernel block between rows of
    A and B. Memory O(n m): Z is built by blocks of rows.

    Returns
    -------
    Z : ndarray (n, m) in ``dtype`` (default X's)
    landmarks : ndarray (m,) of row indices
    N : ndarray (m, m), K_mm^{-1/2}; a new point's features are
        ``kernel(x, X[landmarks]) @ N``.
    """
    n = X.shape[0]
    m = check_int(n_components, "n_components")
    if m > n:
        raise ValueError(
            f"n_components={m} must be at most the number of training rows n={n}")
    dtype = X.dtype if dtype is None else np.dtype(dtype)
    rng = (random_state if isinstance(random_state, np.random.RandomState)
           else np.random.RandomState(random_state))
    perm = rng.permutation(n)
    if include is not None and len(include):
        first = np.unique(np.asarray(include, dtype=np.intp))[:m]
        perm = np.concatenate([first, perm[~np.isin(perm, first)]])
    landmarks = np.sort(perm[:m])
    XL = X[landmarks]
    Kmm = np.asarray(kernel(XL, XL), dtype=np.float64)
    Kmm = (Kmm + Kmm.T) / 2
    s, U = sla.eigh(Kmm, check_finite=False)
    keep = s > max(float(s.max()), 0.0) * m * np.finfo(np.float64).eps
    N = (U[:, keep] / np.sqrt(s[keep])) @ U[:, keep].T
    Z = np.empty((n, m), dtype=dtype)

    def block(i):
        # each block's rows on their own (any thread: the same bits)
        a = i * _BLOCK
        Kb = np.asarray(kernel(X[a:a + _BLOCK], XL), dtype=np.float64)
        if Z.dtype == np.float64:
            # written into Z's rows: the same BLAS call as a new array's (C
            # rows, the same leading dimension), no block-sized copy
            np.matmul(Kb, N, out=Z[a:a + _BLOCK])
        else:
            Z[a:a + _BLOCK] = Kb @ N

    n_blocks = -(-n // _BLOCK)
    if parallel:
        map_blocks(block, n_blocks)
    else:
        for i in range(n_blocks):
            block(i)
    return Z, landmarks, N


# ---------------------------------------------------------------------------
# Graph transduction and its inductive extension (the two-stage mode)

def _lap_diag(L, power):
    """diag(L^p): exact for p <= 2 (row sums of squares for p = 2)."""
    if power == 1:
        return L.diagonal().astype(np.float64)
    if power == 2:
        Ls = sp.csr_matrix((L.data.astype(np.float64) ** 2, L.indices, L.indptr),
                           shape=L.shape)
        return np.asarray(Ls.sum(axis=1)).ravel()
    return np.abs(L.diagonal().astype(np.float64)) ** power


def graph_transduction(L, Y, *, gamma_I=1.0, ridge=1e-8, loss="squared",
                       power=1, null=None, max_iter=50, cg_tol=1e-4,
                       cg_max_iter=3000, F0=None, n_threads=1,
                       return_raw=False):
    r"""Graph-regularised scores on the n training rows, one column per problem.

    For each column y of ``Y`` (+1 / -1 on the labeled rows, 0 unlabeled),
    minimises over f in R^n

    .. math::

        G(f) = \frac12 \Big[ \sum_{i \le l} V(y_i, f_i)
        + \gamma_I f^\top L^p f + \epsilon \|f\|^2 \Big],

    V the squared loss (y - f)^2 or the squared hinge max(0, 1 - y f)^2,
    epsilon = ``ridge`` (a small ridge: G is then strictly convex even on
    graph components without a label). The squared loss is one linear
    system (E + gamma_I L^p + epsilon I) f = E y, E the labeled rows'
    indicator; the squared hinge is Newton over the error-vector set (each
    system the same with E restricted to the labeled rows with y f < 1,
    then the exact line search when the set changed). Every system is solved by
    Jacobi-preconditioned CG on all the columns at once
    (:func:`semisvm._core._lapsvm.graph_block_cg`: each iteration one pass
    over the sparse L per power and two over the (n, c) work arrays, rows
    split over ``n_threads`` threads with the same bits for any count):
    O(p nnz(L) c) per iteration, memory O(n c) beside L.

    With few labels and a graph term that dominates the labels' pull (large
    gamma_I relative to the labeled rows' weight) the minimiser tends to a
    constant plus ``L^+`` applied to the centred labels, which is Poisson
    learning's source term (Calder et al. 2020); with a small gamma_I it
    tends to Laplace learning (interpolation), whose solution is nearly
    constant with spikes at the labels at very low label rates.

    ``null``: the Laplacian's null vector v (``D^{1/2} 1`` for the
    normalised Laplacian, 1 for ``D - W``); each returned column is then
    the minimiser less its component along v, ``f - v (v'f) / (v'v)``
    (the same graph energy ``f'L^p f``, since L v = 0). This is the
    normalisation that makes the large-gamma_I limit Poisson learning's
    mean-zero solution: without it, the component along v, whose size
    differs between the one-vs-rest problems with the degrees of their
    labeled rows, decides the argmax (measured: 4.3 % against 2.25 % error
    on the scale benchmark's 100,000 rows at gamma_I = 1, p = 1; 23 %
    at gamma_I = 10).

    CG stops at a relative residual ``cg_tol * min(1, gamma_I)`` (with a
    small gamma_I the labeled rows' residual vanishes after one step while
    the unlabeled rows, coupled through gamma_I L, are still far off).

    ``F0`` (n, c): the start of the first solve (default 0), e.g. the
    minimiser for nearly the same labels (the fallback's label folds start
    from the fit's own solution, *before* the null-vector projection, which
    ``return_raw`` gives).

    Returns
    -------
    F : ndarray (n, c), float64
    n_newton : int
        Newton steps (the largest over the columns).
    n_cg : int
        CG iterations over all the steps.
    converged : bool
    F_raw : ndarray (n, c), only if ``return_raw``
        The minimiser before the null-vector projection.
    """
    L = sp.csr_matrix(L, dtype=np.float64)
    Y = np.asarray(Y, dtype=np.float64)
    if Y.ndim == 1:
        Y = Y[:, None]
    n, c = Y.shape
    hinge = loss == "squared_hinge"
    labm = Y != 0
    diag = gamma_I * _lap_diag(L, power) + ridge
    tol = cg_tol * min(1.0, gamma_I)

    def lap(P):
        for _ in range(power):
            P = L @ P
        return P

    L.sort_indices()
    indptr = L.indptr.astype(np.int32, copy=False)
    indices = L.indices.astype(np.int32, copy=False)
    F = np.zeros((n, c))
    if F0 is not None:
        F = np.array(F0, dtype=np.float64, order="C", copy=True)
        if F.shape != (n, c) or not np.all(np.isfinite(F)):
            raise ValueError(f"F0 must be a finite array of shape ({n}, {c})")
    E = labm.astype(np.float64)
    n_cg, n_newton, converged = 0, 0, False
    for it in range(max_iter):
        n_newton = it + 1
        Fbar = F.copy()
        k = _lapsvm.graph_block_cg(
            indptr, indices, L.data, E, diag, np.ascontiguousarray(E * Y), Fbar,
            gamma_I, ridge, int(power), tol, int(cg_max_iter), int(n_threads))
        n_cg += k
        # a CG that ran out of iterations has not solved its system: the
        # fit says so (ConvergenceWarning) rather than report convergence
        cg_done = k < cg_max_iter
        if not hinge:
            F, converged = Fbar, cg_done
            break
        Ebar = (labm & (Y * Fbar < 1)).astype(np.float64)
        if np.array_equal(Ebar, E):
            F, converged = Fbar, cg_done
            break
        # exact line search per column along Fbar - F (the regulariser is a
        # quadratic: its slope is left + s right)
        D = Fbar - F
        LF, LD = lap(F), lap(D)
        for j in range(c):
            lab_j = np.flatnonzero(labm[:, j]).astype(np.int32)
            left = gamma_I * float(D[:, j] @ LF[:, j]) + ridge * float(D[:, j] @ F[:, j])
            right = gamma_I * float(D[:, j] @ LD[:, j]) + ridge * float(D[:, j] @ D[:, j])
            s = _lapsvm.line_search(np.ascontiguousarray(Y[:, j]), lab_j,
                                    np.ascontiguousarray(F[:, j]),
                                    np.ascontiguousarray(D[:, j]), left, right, True)
            F[:, j] += s * D[:, j]
        Enew = (labm & (Y * F < 1)).astype(np.float64)
        if np.array_equal(Enew, E):
            converged = True
            break
        E = Enew
    raw = F
    if null is not None:
        v = np.asarray(null, dtype=np.float64).reshape(-1, 1)
        vv = float(v[:, 0] @ v[:, 0])
        if vv > 0:
            F = F - v * ((v.T @ F) / vv)
    if return_raw:
        return F, n_newton, n_cg, converged, raw
    return F, n_newton, n_cg, converged


def _ridge_normal(X, kernel, XL, T, G, s, R, keep, kernel_out=False):
    """K_nm'K_nm (upper triangle, in G), K_nm'1 and K_nm'T, by blocks of
    rows; with ``keep`` also K_nm (else None). ``kernel_out``: ``kernel``
    takes ``out=`` (an array of X's dtype that receives its block, as
    :func:`semisvm.kernels.kernel_matrix`'s ``out``): each block of K_nm is then
    computed in place, without a block-sized copy (the same values)."""
    from scipy.linalg.blas import dsyrk

    n, m = X.shape[0], XL.shape[0]
    Knm = None
    into = keep and kernel_out and X.dtype in (np.float32, np.float64)
    if into:
        Knm = np.empty((n, m), dtype=X.dtype)
    for a in range(0, n, _BLOCK):
        if into:
            blk = Knm[a:a + _BLOCK]
            Kb = kernel(X[a:a + _BLOCK], XL, out=blk)
            if Kb is not blk:
                # (a kernel that returned a new array instead)
                blk[...] = Kb
        else:
            Kb = np.asarray(kernel(X[a:a + _BLOCK], XL))
        if keep and not into:
            if Knm is None:
                Knm = np.empty((n, m), dtype=Kb.dtype)
            Knm[a:a + _BLOCK] = Kb
        Kb = Kb.astype(np.float64, copy=False)
        # Kb.T is Fortran-ordered (m, rows): syrk computes Kb'Kb in place
        G = dsyrk(1.0, Kb.T, beta=1.0, c=G, trans=0, lower=0, overwrite_c=1)
        s += Kb.sum(axis=0)
        R += Kb.T @ T[a:a + _BLOCK]
    return G, s, R, Knm


def landmark_ridge(X, kernel, XL, T, gamma_A, fit_intercept=True, keep=False):
    r"""Kernel ridge regression over landmarks, fitted on all n rows.

    For each column t of ``T`` (n, c), minimises over beta in R^m and b

    .. math::

        \frac12 \big[ \| K_{nm} \beta + b \mathbf 1 - t \|^2
        + \gamma_A \beta^\top K_{mm} \beta \big],

    K_nm = kernel(X, XL), K_mm = kernel(XL, XL) (Nystroem's subset of
    regressors: f(x) = k(x, XL) beta + b, with RKHS norm beta'K_mm beta;
    the bias is not penalised). One symmetric (m + 1) x (m + 1) system
    shared by the c columns; its normal matrix K_nm'K_nm is accumulated by
    blocks of rows in float64 (BLAS syrk: n m^2 / 2 flops; memory O(m^2 +
    block m), no n x m array). Returns (beta (m, c), b (c,)), float64;
    ``keep``: also K_nm itself (n, m) in the kernel's dtype (what the
    fitted model's decision on the n rows needs: it is then one product,
    not a second pass of kernel evaluations).
    """

    n = X.shape[0]
    m = XL.shape[0]
    T = np.asarray(T, dtype=np.float64)
    c = T.shape[1]
    G = np.zeros((m, m), order="F")
    s = np.zeros(m)
    R = np.zeros((m, c))
    # small problems (5,000 rows: 5e9 flops) in one BLAS thread: on a busy
    # machine OpenBLAS's threads spun for longer than the work
    small = n * m * m < 2e10
    with limit(None) if small else contextlib.nullcontext():
        G, s, R, Knm = _ridge_normal(X, kernel, XL, T, G, s, R, keep)
    G = np.triu(G) + np.triu(G, 1).T
    Kmm = np.asarray(kernel(XL, XL), dtype=np.float64)
    beta, b = ridge_solve(G, s, Kmm, n, R, T.sum(axis=0), gamma_A,
                          fit_intercept)
    return (beta, b, Knm) if keep else (beta, b)


def ridge_normal(X, kernel, XL, kernel_out=False):
    """The data part of :func:`landmark_ridge`'s system over the rows of X:
    ``(G, s, Kmm, Knm)`` with G = K_nm'K_nm (float64, symmetric), s =
    K_nm'1, Kmm = k(XL, XL) (float64) and K_nm itself (kernel dtype); with
    T, :func:`ridge_solve` finishes the fit. A row subset's G is
    ``G - K_h'K_h`` over the removed rows h (how the safety net's folds
    reuse a fit's system). ``kernel_out``: ``kernel`` takes ``out=``
    (see :func:`_ridge_normal`)."""
    n, m = X.shape[0], XL.shape[0]
    G = np.zeros((m, m), order="F")
    s = np.zeros(m)
    R = np.zeros((m, 0))
    with limit(None) if n * m * m < 2e10 else contextlib.nullcontext():
        G, s, _, Knm = _ridge_normal(X, kernel, XL, np.zeros((n, 0)), G, s, R,
                                     True, kernel_out)
    G = np.triu(G) + np.triu(G, 1).T
    Kmm = np.asarray(kernel(XL, XL), dtype=np.float64)
    return G, s, Kmm, Knm


def ridge_solve(G, s, Kmm, n, R, t_sum, gamma_A, fit_intercept=True,
                return_factor=False):
    """beta (m, c), b (c,) of :func:`landmark_ridge` from its normal
    equations: G = K_nm'K_nm, s = K_nm'1, R = K_nm'T, t_sum = 1'T over the
    n rows. ``return_factor``: also the Cholesky factor of the (m + 1)
    system (None where it was not positive definite), for
    :func:`ridge_solve_downdated`."""
    m = G.shape[0]
    c = R.shape[1]
    H = G + gamma_A * (Kmm + Kmm.T) / 2
    if fit_intercept:
        H = np.block([[H, s[:, None]], [s[None, :], np.array([[float(n)]])]])
        R = np.vstack([R, np.asarray(t_sum, dtype=np.float64)[None, :]])
    # one BLAS thread for this small system: threaded LAPACK on a busy
    # machine spun for seconds on the 1,001 x 1,001 system (5,000 rows, 10
    # classes: 4.1 s of a 7 s fit on 2 shared cores)
    cf = None
    with limit(None):
        try:
            cf = sla.cho_factor(H, lower=True, check_finite=False)
            sol = sla.cho_solve(cf, R, check_finite=False)
        except sla.LinAlgError:
            sol = sla.lstsq(H, R, check_finite=False)[0]
    out = (sol[:m], sol[m]) if fit_intercept else (sol, np.zeros(c))
    return out + (cf,) if return_factor else out


def ridge_solve_downdated(cf, A, drop, R, t_sum, fit_intercept=True):
    """:func:`ridge_solve` for the system of a fit whose rows are a subset
    of those of a fit with Cholesky factor ``cf``, without a new
    factorisation.

    Removing rows subtracts ``A A'`` from the (m + 1) system (the columns of
    A: each removed row's ``[k(x_r, X_m), 1]``); removing landmarks ``drop``
    (indices into the m) fixes their coefficients at 0. The first is
    Woodbury's identity with the capacitance ``I - A'H^-1 A`` (h x h), the
    second a Lagrange multiplier per dropped landmark: O((h + d + c) m^2)
    against the m^3 / 3 of a new factorisation. ``R``, ``t_sum``: the
    subset's K_nm'T (over the kept landmarks) and 1'T.
    """
    m1 = cf[0].shape[0]
    m = m1 - 1 if fit_intercept else m1
    keep = np.ones(m1, dtype=bool)
    keep[drop] = False
    c = R.shape[1]
    with limit(None):
        def hinv(V):
            return sla.cho_solve(cf, V, check_finite=False)

        HA = hinv(A)
        S = np.eye(A.shape[1]) - A.T @ HA

        def minv(V):
            HV = hinv(V)
            if A.shape[1] == 0:
                return HV
            return HV + HA @ np.linalg.solve(S, A.T @ HV)

        r = np.zeros((m1, c))
        rk = R if not fit_intercept else np.vstack(
            [R, np.asarray(t_sum, dtype=np.float64)[None, :]])
        r[keep] = rk
        Z = minv(r)
        if len(drop):
            E = np.zeros((m1, len(drop)))
            E[drop, np.arange(len(drop))] = 1.0
            W = minv(E)
            Z = Z - W @ np.linalg.solve(W[drop], Z[drop])
    sol = Z[keep]
    mk = int(keep[:m].sum())
    return (sol[:mk], sol[mk]) if fit_intercept else (sol, np.zeros(c))
