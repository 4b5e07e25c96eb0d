"""Cython kernels of LapSVM: exact line search and the BLAS gemv shim."""
import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from semisvm._core import _blas, _lapsvm
from semisvm._core._dataset import RowData


def _phi(s, y, lab, f, df, left, right, hinge):
    """Objective along the ray at the steps ``s`` (vectorised reference)."""
    o = f[lab][None] + s[:, None] * df[lab][None]
    r = o - y[lab][None]
    if hinge:
        r = np.where(y[lab][None] * o < 1, r, 0.0)
    return 0.5 * (r * r).sum(1) + left * s + 0.5 * right * s * s


@pytest.mark.parametrize("hinge", [True, False])
def test_line_search_is_exact_minimiser(hinge, dtype, seed):
    rng = np.random.RandomState(seed)
    n = 50
    y = np.where(rng.rand(n) > 0.5, 1.0, -1.0).astype(dtype)
    lab = np.arange(0, n, 2, dtype=np.int32)
    f = rng.randn(n).astype(dtype)
    df = rng.randn(n).astype(dtype)
    left, right = -0.5, 0.3
    s = _lapsvm.line_search(y, lab, f, df, left, right, hinge)
    grid = np.linspace(0, max(3 * s, 1.0), 20001)
    vals = _phi(grid, y.astype(float), lab, f.astype(float), df.astype(float),
                left, right, hinge)
    best = grid[int(np.argmin(vals))]
    assert s >= 0
    slack = 1e-3 if dtype == np.float32 else 0.0
    assert abs(s - best) <= 2 * (grid[1] - grid[0]) + slack


def test_line_search_no_descent_returns_zero():
    y = np.array([1.0, -1.0])
    lab = np.array([0, 1], dtype=np.int32)
    f = np.array([2.0, -2.0])  # both outside the margin
    df = np.array([1.0, -1.0])  # moving further out: only the regulariser
    assert _lapsvm.line_search(y, lab, f, df, 0.1, 1.0, True) == 0.0


def test_gemv_rowmajor(dtype):
    rng = np.random.RandomState(0)
    A = rng.rand(7, 5).astype(dtype)
    x = rng.rand(5).astype(dtype)
    with np.errstate(all="ignore"):
        # the reference: some OpenBLAS float32 kernels leave a spurious
        # floating-point flag that NumPy reports as a RuntimeWarning (inputs
        # in [0, 1): nothing can overflow)
        ref = A @ x
    np.testing.assert_allclose(_blas._gemv_py(A, x), ref, rtol=1e-5)


def test_pcg_rejects_bad_indices():
    K = np.eye(3)
    L = RowData(sp.csr_matrix((3, 3)))
    with pytest.raises(ValueError, match="lab has indices out of range"):
        _lapsvm.pcg(K, L, np.ones((1, 3)), np.array([5], np.int32), np.zeros(0, np.int32),
                    np.zeros((0, 3)), np.zeros((1, 0)), 1.0, 1.0, True, True,
                    np.zeros((1, 3)), np.zeros(1), 10, 0, 1e-8, 1, 0.015)


def test_gemm_rowmajor(dtype):
    rng = np.random.RandomState(1)
    A = rng.rand(3, 6).astype(dtype)
    B = rng.rand(6, 4).astype(dtype)
    with np.errstate(all="ignore"):
        ref = A @ B  # as in test_gemv_rowmajor
    np.testing.assert_allclose(_blas._gemm_py(A, B), ref, rtol=1e-5)


def test_module_name():
    assert _lapsvm.__name__ == "semisvm._core._lapsvm"


# --- PCG's stopping rules, pinned on hand-made problems --------------------
# rule codes and status codes of _lapsvm (the Python layer's maps)
NONE, STABILITY, VALIDATION, MIXED, GRADIENT, PGRADIENT, PNORM, OBJECTIVE = range(8)
ST_TOL, ST_STABILITY, ST_VALIDATION, ST_MIXED, ST_NO_DESCENT, ST_MAX_ITER = range(6)


def _pcg_problem(n=40, seed=0, c=1):
    rng = np.random.RandomState(seed)
    Z = rng.randn(n, 5)
    K = np.exp(-0.2 * ((Z[:, None] - Z[None]) ** 2).sum(-1))
    W = np.exp(-((Z[:, None] - Z[None]) ** 2).sum(-1))
    np.fill_diagonal(W, 0)
    L = np.diag(W.sum(1)) - W
    Y = np.where(rng.rand(c, n) > 0.5, 1.0, -1.0)
    lab = np.arange(0, n, 3, dtype=np.int32)
    unl = np.setdiff1d(np.arange(n), lab).astype(np.int32)
    return K, L, Y, lab, unl


def _pcg(K, L, Y, lab, unl, K_val, Y_val, rule, *, tol=1e-8, check_every=1,
         eta=0.015, max_iter=100, joint=False, hinge=True, dense_L=False):
    c, n = Y.shape
    Lr = RowData(np.ascontiguousarray(L) if dense_L else sp.csr_matrix(L))
    return _lapsvm.pcg(K, Lr, Y, lab, unl, K_val, Y_val, 1e-2, 1e-1, hinge, True,
                       np.zeros((c, n), K.dtype), np.zeros(c), max_iter, rule, tol,
                       check_every, eta, 1, joint)


@pytest.mark.parametrize("check_every", [1, 3])
@pytest.mark.parametrize("joint", [False, True])
def test_pcg_validation_stop_on_a_flat_validation_error(check_every, joint):
    # K_val = 0 and no intercept movement that helps: every validation point
    # stays misclassified (error 1 at every check), so the error never
    # decreases by a point: the rule stops at the second check (the first
    # only records the error), i.e. after exactly 2 check_every iterations
    K, L, Y, lab, unl = _pcg_problem(c=2 if joint else 1)
    c = Y.shape[0]
    n_val = 5
    K_val = np.zeros((n_val, K.shape[0]))
    Y_val = np.zeros((c, n_val))            # y = 0: f y <= 0, always an error
    b, F, n_iter, status, obj, hist, hval, n_chk = _pcg(
        K, L, Y, lab, unl, K_val, Y_val, VALIDATION, check_every=check_every,
        joint=joint)
    np.testing.assert_array_equal(status, ST_VALIDATION)
    np.testing.assert_array_equal(n_iter, 2 * check_every)
    np.testing.assert_array_equal(n_chk, 2)
    np.testing.assert_array_equal(hval[:, :2], 1.0)


def test_pcg_validation_error_that_falls_keeps_going():
    # the same problem with validation points that PCG learns: the error
    # falls below the start's and the rule does not stop at the second check
    K, L, Y, lab, unl = _pcg_problem()
    K_val = K[lab]
    Y_val = Y[:, lab]
    *_, n_iter, status, _, _, hval, n_chk = _pcg(K, L, Y, lab, unl, K_val, Y_val,
                                                  VALIDATION, max_iter=200)
    k = int(n_chk[0])
    errs = hval[0, :k]
    assert k >= 3 and errs[-1] < errs[0]
    if status[0] == ST_VALIDATION:
        # it stopped at the first check whose error did not fall by a point
        drops = errs[:-1] - errs[1:]
        assert np.all(drops[:-1] >= 1 / len(lab) - 1e-12)
        assert drops[-1] < 1 / len(lab) - 1e-12


@pytest.mark.parametrize("joint", [False, True])
def test_pcg_stability_needs_a_reference_check(joint):
    # with no unlabeled point the flip fraction is 0 at every check: the
    # first check only takes the reference snapshot, so the stop comes at the
    # second one
    K, L, Y, lab, _ = _pcg_problem(c=2 if joint else 1)
    c = Y.shape[0]
    *_, n_iter, status, _, _, _, n_chk = _pcg(
        K, L, Y, lab, np.zeros(0, np.int32), np.zeros((0, K.shape[0])),
        np.zeros((c, 0)), STABILITY, check_every=2, joint=joint)
    np.testing.assert_array_equal(status, ST_STABILITY)
    np.testing.assert_array_equal(n_iter, 4)


@pytest.mark.parametrize("dense_L", [False, True])
def test_pcg_objective_rule_stops_at_the_first_small_decrease(dense_L):
    K, L, Y, lab, unl = _pcg_problem()
    e = (np.zeros((0, K.shape[0])), np.zeros((1, 0)))
    full = _pcg(K, L, Y, lab, unl, *e, OBJECTIVE, tol=0.0, max_iter=25,
                dense_L=dense_L)
    h = full[5][0]
    dec = (h[:-1] - h[1:]) / h[0]
    k = 6
    assert np.all(dec[:k] > dec[k]) and dec[k] > 0
    tol = np.sqrt(dec[k - 1] * dec[k]) if dec[k - 1] > dec[k] else dec[k] * 1.01
    tol = min(tol, 0.999 * dec[:k].min())
    out = _pcg(K, L, Y, lab, unl, *e, OBJECTIVE, tol=tol, max_iter=25,
               dense_L=dense_L)
    assert out[3][0] == ST_TOL and out[2][0] == k + 1
    assert out[4][0] == h[k + 1]


def test_pcg_sparse_and_dense_laplacian_agree(dtype):
    K, L, Y, lab, unl = (a.astype(dtype) if a.dtype.kind == "f" else a
                         for a in _pcg_problem())
    e = (np.zeros((0, K.shape[0]), dtype), np.zeros((1, 0), dtype))
    s = _pcg(K, L, Y, lab, unl, *e, GRADIENT, max_iter=30)
    d = _pcg(K, L, Y, lab, unl, *e, GRADIENT, max_iter=30, dense_L=True)
    rtol = 1e-4 if dtype == np.float32 else 1e-10
    np.testing.assert_allclose(s[1], d[1], rtol=rtol, atol=rtol)
    np.testing.assert_array_equal(s[2], d[2])


def test_pcg_rejects_a_laplacian_of_the_wrong_shape_or_dtype():
    K, L, Y, lab, unl = _pcg_problem()
    e = (np.zeros((0, 40)), np.zeros((1, 0)))
    args = (Y, lab, unl, *e, 1e-2, 1e-1, True, True, np.zeros((1, 40)),
            np.zeros(1), 10, GRADIENT, 1e-8, 1, 0.015)
    with pytest.raises(ValueError, match=r"L must have shape \(40, 40\)"):
        _lapsvm.pcg(K, RowData(sp.csr_matrix(L[:39])), *args)
    with pytest.raises(TypeError, match="dtype"):
        _lapsvm.pcg(K, RowData(sp.csr_matrix(L.astype(np.float32))), *args)
    bad = sp.csr_matrix(L)
    bad.indices[3] = 77
    with pytest.raises(ValueError, match="column indices out of range"):
        _lapsvm.pcg(K, RowData(bad), *args)
    with pytest.raises(TypeError):
        _lapsvm.pcg(K, None, *args)


@pytest.mark.parametrize("power", [1, 2, 3])
def test_graph_block_cg_solves_the_system_with_the_same_bits_for_any_threads(power):
    # (E o X + gamma_I L^p X + ridge X) = B against a dense solve per column,
    # and 1, 2, 3 threads (blocks of rows summed in block order) agree bit
    # for bit; n spans several reduction blocks
    rng = np.random.RandomState(power)
    n, c = 2500, 3
    # a kNN graph over 2-D points (a sparse LU of it fills in little)
    from semisvm.graph import knn_affinity, laplacian
    L = sp.csr_matrix(laplacian(knn_affinity(rng.rand(n, 2), 8)), dtype=np.float64)
    L.sort_indices()
    E = np.zeros((n, c))
    E[rng.choice(n, 30, replace=False)] = 1.0
    E[rng.choice(n, 5, replace=False), 1] = 0.0
    B = E * rng.choice([-1.0, 1.0], (n, c))
    gI, ridge = 0.5, 1e-3
    Lp = L
    for _ in range(power - 1):
        Lp = sp.csr_matrix(Lp @ L)
    outs = []
    for nt in (1, 2, 3):
        X = np.zeros((n, c))
        it = _lapsvm.graph_block_cg(L.indptr, L.indices, L.data, E,
                                    gI * Lp.diagonal() + ridge, B, X, gI,
                                    ridge, power, 1e-10, 5000, nt)
        assert 0 < it < 5000
        outs.append(X)
    assert all(np.array_equal(outs[0], o) for o in outs[1:])
    for j in range(c):
        M = sp.csc_matrix(sp.diags(E[:, j] + ridge) + gI * Lp)
        ref = spla.spsolve(M, B[:, j])
        np.testing.assert_allclose(outs[0][:, j], ref, rtol=0, atol=1e-6 * np.abs(ref).max())


def test_graph_block_cg_refuses_bad_power_and_solves_without_edges():
    n, c = 50, 2
    E = np.zeros((n, c))
    E[:5] = 1.0
    B = E.copy()
    L = sp.csr_matrix((n, n))                    # a graph without edges
    args = (L.indptr.astype(np.int32), L.indices.astype(np.int32),
            L.data.astype(np.float64), E, np.full(n, 0.1), B)
    for power in (0, -1):
        with pytest.raises(ValueError, match="power must be at least 1"):
            _lapsvm.graph_block_cg(*args, np.zeros((n, c)), 1.0, 0.1, power,
                                   1e-10, 100, 1)
    X = np.zeros((n, c))
    _lapsvm.graph_block_cg(*args, X, 1.0, 0.1, 1, 1e-12, 100, 1)
    # no graph term: (E + ridge) X = B row by row
    np.testing.assert_allclose(X, B / (E + 0.1), rtol=1e-10)
    empty = np.zeros((0, c))
    assert _lapsvm.graph_block_cg(np.zeros(1, np.int32), np.zeros(0, np.int32),
                                  np.zeros(0), empty, np.zeros(0), empty,
                                  empty.copy(), 1.0, 0.1, 1, 1e-10, 100, 1) == 0
