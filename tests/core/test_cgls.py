import numpy as np
import pytest

from semisvm._core._cgls import _cgls_py
from semisvm._core._dataset import RowData


def test_cgls_solves_the_regularised_normal_equations(dtype, container):
    rng = np.random.RandomState(0)
    n, d, lam, s = 40, 12, 0.3, 0.7
    X = (rng.randn(n, d) * (rng.rand(n, d) < 0.5)).astype(dtype)
    a = rng.rand(n).astype(dtype) + 0.1
    t = np.sign(rng.randn(n)).astype(dtype)
    active = np.sort(rng.choice(n, 25, replace=False)).astype(np.int32)
    beta = (0.1 * rng.randn(d + 1)).astype(dtype)      # a seed, not zero
    Xa = np.c_[X, s * np.ones(n)].astype(np.float64)
    o = (Xa @ beta.astype(np.float64)).astype(dtype)
    ok, n_iter = _cgls_py(RowData(container(X)), s, active, a, t, lam, beta, o,
                          1e-10 if dtype == np.float64 else 1e-5, 1000)
    J = Xa[active]
    A = lam * np.eye(d + 1) + J.T @ (a[active, None] * J)
    ref = np.linalg.solve(A, J.T @ (a[active] * t[active]))
    tol = 1e-8 if dtype == np.float64 else 2e-3
    assert ok == 1 and 0 < n_iter <= 200
    np.testing.assert_allclose(beta, ref, rtol=tol, atol=tol)
    # outputs are maintained on the active rows
    np.testing.assert_allclose(o[active], J @ beta, rtol=tol, atol=tol)


def test_cgls_with_exact_seed_needs_no_iteration():
    rng = np.random.RandomState(3)
    X = rng.randn(20, 5)
    a, t = np.ones(20), np.sign(rng.randn(20))
    active = np.arange(20, dtype=np.int32)
    Xa = np.c_[X, np.ones(20)]
    beta = np.linalg.solve(np.eye(6) + Xa.T @ Xa, Xa.T @ t)
    o = Xa @ beta
    ok, n_iter = _cgls_py(RowData(X), 1.0, active, a, t, 1.0, beta, o, 1e-6, 100)
    assert ok and n_iter == 0


def test_cgls_empty_active_set_gives_zero():
    X = np.ones((4, 3))
    beta, o = np.ones(4), np.zeros(4)
    ok, _ = _cgls_py(RowData(X), 1.0, np.zeros(0, np.int32), np.ones(4), np.ones(4),
                     2.0, beta, o, 1e-8, 50)
    assert ok
    np.testing.assert_allclose(beta, 0, atol=1e-12)


def test_cgls_hook_rejects_bad_arguments():
    X = RowData(np.ones((4, 3)))
    with pytest.raises(ValueError, match="out-of-range"):
        _cgls_py(X, 1.0, np.array([7], np.int32), np.ones(4), np.ones(4), 1.0,
                 np.zeros(4), np.zeros(4), 1e-6, 10)
    with pytest.raises(TypeError, match="dtype"):
        _cgls_py(X, 1.0, np.array([0], np.int32), np.ones(4, np.float32),
                 np.ones(4, np.float32), 1.0, np.zeros(4, np.float32),
                 np.zeros(4, np.float32), 1e-6, 10)


def test_cgls_forcing_term_stops_early_with_status_2():
    rng = np.random.RandomState(2)
    X = rng.randn(200, 60)
    n = 200
    a, t = np.ones(n), np.sign(rng.randn(n))
    active = np.arange(n, dtype=np.int32)
    beta, o = np.zeros(61), np.zeros(n)
    status, n_loose = _cgls_py(RowData(X), 1.0, active, a, t, 1e-3, beta, o, 1e-12,
                               500, eta=0.1)
    Xa = np.c_[X, np.ones(n)]
    r = Xa.T @ (t - Xa @ beta) - 1e-3 * beta
    assert status == 2
    assert np.linalg.norm(r) <= 0.1 * np.linalg.norm(Xa.T @ t)
    beta2, o2 = np.zeros(61), np.zeros(n)
    status2, n_tight = _cgls_py(RowData(X), 1.0, active, a, t, 1e-3, beta2, o2, 1e-12, 500)
    assert status2 == 1 and n_tight > n_loose


# --- row blocks, threads and the one-pass product ---------------------------

from semisvm._core._cgls import _product_py, _set_blocking  # noqa: E402


@pytest.fixture
def small_blocks():
    """Cut even small passes into (up to 5) row blocks, as large ones are."""
    old = _set_blocking(1, 5, 1)
    yield
    _set_blocking(*old)


def _problem(dtype, sparse, n=300, d=40, seed=0):
    import scipy.sparse as sp
    rng = np.random.RandomState(seed)
    X = (rng.randn(n, d) * (rng.rand(n, d) < 0.3)).astype(dtype)
    a = (rng.rand(n) + 0.1).astype(dtype)
    a[rng.rand(n) < 0.2] = 0          # some rows weigh nothing
    active = np.sort(rng.choice(n, 2 * n // 3, replace=False)).astype(np.int32)
    v = rng.randn(d + 1).astype(dtype)
    return RowData(sp.csr_matrix(X) if sparse else X), X, a, active, v


@pytest.mark.parametrize("sparse", [True, False])
def test_one_pass_product_is_the_two_pass_product_bit_for_bit(dtype, sparse):
    # one block: each row's a x.v and its terms are added in the same order;
    # x.v itself: BLAS on dense rows in both, on CSR rows the one-pass
    # product's four partial sums (row_dot4) against row_dot's one
    R, X, a, active, v = _problem(dtype, sparse)
    u1, q1, s1 = _product_py(R, 0.7, active, a, v, one_pass=True)
    u2, q2, s2 = _product_py(R, 0.7, active, a, v, one_pass=False)
    if sparse:
        from semisvm._core._dataset import _row_dot4_py, _row_dot_py
        vb = dtype(0.7) * v[-1]
        want4 = np.array([_row_dot4_py(R, i, v) for i in active], dtype=dtype) + vb
        want1 = np.array([_row_dot_py(R, i, v) for i in active], dtype=dtype) + vb
        assert q1.tobytes() == want4.tobytes()
        assert q2.tobytes() == want1.tobytes()
        assert not np.array_equal(q1, q2)       # (the two orders differ here)
        # the same products from the same q: the same bits
        u3, q3, s3 = _product_py(R, 0.7, active, a, v, one_pass=True,
                                 slices=False)
        assert u3.tobytes() == u1.tobytes() and q3.tobytes() == q1.tobytes()
        tol2 = 1e-12 if dtype == np.float64 else 1e-5
        np.testing.assert_allclose(u1, u2, rtol=tol2, atol=tol2)
        assert s1 == pytest.approx(s2, rel=tol2)
    else:
        assert u1.tobytes() == u2.tobytes() and q1.tobytes() == q2.tobytes()
        assert s1 == s2
    # and it is X_J' A X_J v (float64 reference)
    Xa = np.c_[X, 0.7 * np.ones(X.shape[0])].astype(np.float64)[active]
    q = Xa @ v.astype(np.float64)
    tol = 1e-10 if dtype == np.float64 else 1e-4
    np.testing.assert_allclose(q1, q, rtol=tol, atol=tol)
    np.testing.assert_allclose(u1, Xa.T @ (a[active] * q), rtol=tol, atol=tol)
    assert s1 == pytest.approx(float(a[active] @ q ** 2), rel=tol)


@pytest.mark.parametrize("sparse", [True, False])
def test_blocked_products_have_the_same_bits_for_any_thread_count(
        dtype, sparse, small_blocks):
    R, X, a, active, v = _problem(dtype, sparse, seed=1)
    outs = [_product_py(R, 1.0, active, a, v, n_threads=k, one_pass=op)
            for op in (True, False) for k in (1, 2, 3, 8)]
    for j, (u, q, s) in enumerate(outs):
        # (one pass and two: the same bits on dense rows; CSR rows' x.v
        # are summed in another order by the two, see above)
        ref = outs[0] if not sparse else outs[4 * (j // 4)]
        assert u.tobytes() == ref[0].tobytes()
        assert q.tobytes() == ref[1].tobytes()
        # q'Aq: block sums in one pass, one running sum in two
        assert s == outs[4 * (j // 4)][2]
    assert outs[0][2] == pytest.approx(outs[4][2], rel=1e-12 if dtype == np.float64 else 1e-5)
    # blocked sums are a re-association of the one-block sums
    _set_blocking(10**9, 1)
    u1, _, _ = _product_py(R, 1.0, active, a, v)
    tol = 1e-12 if dtype == np.float64 else 1e-5
    np.testing.assert_allclose(outs[0][0], u1, rtol=tol, atol=tol)


@pytest.mark.parametrize("sparse", [True, False])
def test_cg_one_pass_and_cgls_reach_the_same_solution(dtype, sparse, small_blocks):
    R, X, a, active, _ = _problem(dtype, sparse, seed=2)
    n, d = X.shape
    t = np.sign(np.random.RandomState(5).randn(n)).astype(dtype)
    res = {}
    for one_pass in (True, False):
        for k in (1, 2):
            beta = np.zeros(d + 1, dtype=dtype)
            o = np.zeros(n, dtype=dtype)
            st, it = _cgls_py(R, 1.0, active, a, t, 0.5, beta, o,
                              1e-10 if dtype == np.float64 else 1e-5, 500,
                              n_threads=k, one_pass=one_pass)
            assert st == 1
            res[one_pass, k] = (beta, o, it)
    # the same bits for any thread count, in either form
    for op in (True, False):
        assert res[op, 1][0].tobytes() == res[op, 2][0].tobytes()
        assert res[op, 1][1].tobytes() == res[op, 2][1].tobytes()
    # the two forms differ by rounding only, with about as many iterations
    tol = 1e-8 if dtype == np.float64 else 2e-3
    np.testing.assert_allclose(res[True, 1][0], res[False, 1][0], rtol=tol, atol=tol)
    assert abs(res[True, 1][2] - res[False, 1][2]) <= 2
    # o stays X beta on the active rows (one pass: the folded updates)
    Xa = np.c_[X, np.ones(n)].astype(np.float64)
    beta, o, _ = res[True, 1]
    np.testing.assert_allclose(o[active], Xa[active] @ beta, rtol=tol, atol=tol)


def test_cgls_gradient_stop_changes_nothing():
    rng = np.random.RandomState(4)
    X = rng.randn(60, 8)
    a, t = np.ones(60), np.sign(rng.randn(60))
    active = np.arange(60, dtype=np.int32)
    beta, o = np.zeros(9), np.zeros(60)
    g0 = np.linalg.norm(np.c_[X, np.ones(60)].T @ t) ** 2     # ||r_seed||^2
    st, it = _cgls_py(RowData(X), 1.0, active, a, t, 1.0, beta, o, 1e-8, 100,
                      gstop2=1.0001 * g0)
    assert (st, it) == (3, 0) and not beta.any() and not o.any()
    st, it = _cgls_py(RowData(X), 1.0, active, a, t, 1.0, beta, o, 1e-8, 100,
                      gstop2=0.9999 * g0)
    assert st == 1 and it > 0


def test_set_blocking_rejects_bad_values():
    with pytest.raises(ValueError, match="block_nnz"):
        _set_blocking(0, 4)
    with pytest.raises(ValueError, match="max_blocks"):
        _set_blocking(10, 257)


@pytest.mark.slow
@pytest.mark.parametrize("preset, expected", [(None, "PASSIVE"), ("active", "active")])
def test_openmp_threads_wait_passively_unless_the_user_says(preset, expected):
    import os
    import subprocess
    import sys
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    if preset is not None:
        env["OMP_WAIT_POLICY"] = preset
    out = subprocess.run(
        [sys.executable, "-c", "import os, semisvm._core._cgls; "
         "print(os.environ['OMP_WAIT_POLICY'])"],
        env=env, capture_output=True, text=True, check=True,
        cwd=__import__("tempfile").gettempdir()).stdout.strip()   # not the source tree
    assert out == expected


# --- the stopping rules, pinned against a reference PCG --------------------

def _pcg_reference(Xa, a, t, lam, beta0, k):
    """k iterations of preconditioned CG on (lam I + X'AX) beta = X'At from
    beta0, with CGLS's preconditioner lam + 0.01 diag(X'AX): the iterates and
    the residual norms ||r_0||, ..., ||r_k||."""
    H = lam * np.eye(Xa.shape[1]) + Xa.T @ (a[:, None] * Xa)
    b = Xa.T @ (a * t)
    minv = 1.0 / (lam + 0.01 * np.einsum("ij,ij,i->j", Xa, Xa, a))
    beta = beta0.copy()
    r = b - H @ beta
    s = minv * r
    p = s.copy()
    rho = r @ s
    norms = [np.linalg.norm(r)]
    for _ in range(k):
        gamma = rho / (p @ H @ p)
        beta = beta + gamma * p
        r = r - gamma * (H @ p)
        norms.append(np.linalg.norm(r))
        s = minv * r
        rho_new = r @ s
        p = s + rho_new / rho * p
        rho = rho_new
    return beta, np.array(norms), np.linalg.norm(b)


def _cgls_problem(seed=5, n=120, d=30):
    rng = np.random.RandomState(seed)
    X = rng.randn(n, d) * rng.rand(d) * 3
    a = rng.rand(n) + 0.5
    t = np.sign(rng.randn(n))
    Xa = np.c_[X, np.ones(n)]
    return X, Xa, a, t


@pytest.mark.parametrize("k", [1, 2, 7])
def test_cgls_iteration_limit_is_exact(k):
    # max_iter = k: exactly k iterations, status 0, and the iterate is the k-th
    # of the reference PCG (not one more, not one fewer)
    X, Xa, a, t = _cgls_problem()
    n = X.shape[0]
    beta0 = 0.01 * np.arange(Xa.shape[1])
    beta, o = beta0.copy(), Xa @ beta0
    status, n_iter = _cgls_py(RowData(X), 1.0, np.arange(n, dtype=np.int32), a, t,
                              0.05, beta, o, 1e-14, k)
    assert (status, n_iter) == (0, k)
    ref, _, _ = _pcg_reference(Xa, a, t, 0.05, beta0, k)
    np.testing.assert_allclose(beta, ref, rtol=1e-9, atol=1e-12)
    ref_prev, _, _ = _pcg_reference(Xa, a, t, 0.05, beta0, k - 1)
    assert not np.allclose(beta, ref_prev, rtol=1e-6)
    np.testing.assert_allclose(o, Xa @ beta, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("k", [3, 6])
def test_cgls_tolerance_stops_at_the_first_small_residual(k):
    # tol between the reference residual ratios after k - 1 and k iterations:
    # CGLS must stop after exactly k (||r|| <= tol ||X'At||, status 1)
    X, Xa, a, t = _cgls_problem()
    n = X.shape[0]
    beta0 = np.zeros(Xa.shape[1])
    _, norms, bnorm = _pcg_reference(Xa, a, t, 0.05, beta0, k)
    ratios = norms / bnorm
    assert np.all(np.diff(ratios[:k + 1]) < 0)   # monotone on this problem
    tol = np.sqrt(ratios[k - 1] * ratios[k])
    beta, o = beta0.copy(), np.zeros(n)
    status, n_iter = _cgls_py(RowData(X), 1.0, np.arange(n, dtype=np.int32), a, t,
                              0.05, beta, o, tol, 100)
    assert (status, n_iter) == (1, k)
    # the forcing term eta (relative to the seed's residual) in the same way
    beta, o = beta0.copy(), np.zeros(n)
    eta = np.sqrt(ratios[k - 1] * ratios[k]) / ratios[0]
    status, n_iter = _cgls_py(RowData(X), 1.0, np.arange(n, dtype=np.int32), a, t,
                              0.05, beta, o, 1e-14, 100, eta=eta)
    assert (status, n_iter) == (2, k)


@pytest.mark.parametrize("one_pass", [True, False])
def test_interleaved_slices_have_the_bits_of_separate_vectors(dtype, one_pass):
    # CSR blocks accumulate in slices interleaved by column; each entry gets
    # the same terms in the same order as in a vector of its own
    R, X, a, active, v = _problem(dtype, True, seed=3)
    u1, q1, s1 = _product_py(R, 0.7, active, a, v, one_pass=one_pass)
    u2, q2, s2 = _product_py(R, 0.7, active, a, v, one_pass=one_pass,
                             slices=False)
    assert u1.tobytes() == u2.tobytes() and q1.tobytes() == q2.tobytes()
    assert s1 == s2
    # the setup pass (X_J' A t, X_J' A (t - o), diag) and whole CG solves,
    # with the caller's buffer, one of the solve's own, or none
    n, d = X.shape
    t = np.sign(np.random.RandomState(6).randn(n)).astype(dtype)
    outs = []
    for slices in ("kept", "own", "none"):
        beta = np.full(d + 1, 0.01, dtype=dtype)
        o = (X.astype(np.float64) @ beta[:d].astype(np.float64)
             + beta[d]).astype(dtype)
        st, it = _cgls_py(R, 1.0, active, a, t, 0.5, beta, o, 1e-12, 7,
                          slices=slices)
        outs.append((beta.tobytes(), o.tobytes(), st, it))
    assert outs[0] == outs[1] == outs[2]


def test_blocks_follow_the_work_not_a_fixed_cap():
    # more entries, more blocks (never fewer), up to the cap; the same bits
    # for any thread count with more blocks than threads
    import scipy.sparse as sp

    from semisvm._core._cgls import _n_blocks_py
    rng = np.random.RandomState(0)
    X = sp.random(4000, 30, density=0.5, format="csr", random_state=rng)
    R = RowData(X)
    old = _set_blocking(100, 256)
    try:
        counts = [_n_blocks_py(R, m) for m in (1, 100, 1000, 4000)]
        assert counts == sorted(counts) and counts[0] == 1
        assert counts[-1] > 32          # far above the former cap of 8
        a = rng.rand(4000) + 0.1
        active = np.arange(0, 4000, 2, dtype=np.int32)
        v = rng.randn(31)
        outs = [_product_py(R, 1.0, active, a, v, n_threads=k) for k in (1, 2, 3, 8)]
        assert _n_blocks_py(R, active.shape[0]) > 8
        for u, q, s in outs:
            assert u.tobytes() == outs[0][0].tobytes() and s == outs[0][2]
    finally:
        _set_blocking(*old)
    # the default layout: a block per 16 (d + 1) entries at least
    assert _n_blocks_py(R, 4000) == 1            # 60,000 entries < 100,000


def test_block_count_rounds_to_multiples_of_16():
    import scipy.sparse as sp

    from semisvm._core._cgls import _n_blocks_py
    X = sp.random(5000, 10, density=1.0, format="csr", random_state=0)
    R = RowData(X)
    old = _set_blocking(100, 256, 1)       # a block per 100 entries
    try:
        # 50,000 entries: 500 blocks' worth, capped at 256
        assert _n_blocks_py(R, 5000) == 256
        assert _n_blocks_py(R, 170) == 16          # 17 blocks' worth -> 16
        assert _n_blocks_py(R, 150) == 15          # 15 (at most 16: as is)
        assert _n_blocks_py(R, 330) == 32          # 33 -> 32
    finally:
        _set_blocking(*old)


@pytest.mark.parametrize("one_pass", [True, False])
def test_one_thread_fused_blocks_have_the_bits_of_the_reduction(
        dtype, one_pass, small_blocks):
    # one thread over CSR rows adds each block's slice to the outputs as
    # soon as it is made, in one slice kept in cache: the reduction's sums
    # in its block order (the products, the setup pass, whole CG solves)
    from semisvm._core._cgls import _cgls_py, _set_fused
    R, X, a, active, v = _problem(dtype, True, seed=4)
    n, d = X.shape
    t = np.sign(np.random.RandomState(7).randn(n)).astype(dtype)
    outs = []
    old = _set_fused(True)
    try:
        for fused in (True, False):
            _set_fused(fused)
            u, q, s = _product_py(R, 0.7, active, a, v, one_pass=one_pass)
            beta = np.full(d + 1, 0.01, dtype=dtype)
            o = (X.astype(np.float64) @ beta[:d].astype(np.float64)
                 + beta[d]).astype(dtype)
            st, it = _cgls_py(R, 0.7, active, a, t, 0.5, beta, o, 1e-12, 7,
                              one_pass=one_pass)
            outs.append((u.tobytes(), q.tobytes(), s, beta.tobytes(),
                         o.tobytes(), st, it))
    finally:
        _set_fused(old)
    assert outs[0] == outs[1]
    # (several blocks: the fused loop did run over more than one)
    from semisvm._core._cgls import _slice_len_py
    assert _slice_len_py(R) > 4 * d + 1


def _rows_of_many_lengths(dtype, n=400, d=300, seed=11):
    """CSR rows of 0 to 40 stored entries (every remainder mod 4, 8 and 16
    of the SIMD loops), unsorted columns within a row, zero-weight rows."""
    import scipy.sparse as sp
    rng = np.random.RandomState(seed)
    lengths = rng.randint(0, 41, size=n)
    lengths[:17] = np.arange(17)
    cols = [rng.choice(d, k, replace=False) for k in lengths]
    indptr = np.r_[0, np.cumsum(lengths)].astype(np.int32)
    indices = np.concatenate(cols).astype(np.int32)
    data = rng.randn(indices.size).astype(dtype)
    X = sp.csr_matrix((data, indices, indptr), shape=(n, d))
    a = (rng.rand(n) + 0.1).astype(dtype)
    a[rng.rand(n) < 0.2] = 0
    active = np.sort(rng.choice(n, 3 * n // 4, replace=False)).astype(np.int32)
    v = rng.randn(d + 1).astype(dtype)
    return RowData(X), X, a, active, v


@pytest.mark.parametrize("blocks", [False, True])
def test_product_kernels_have_the_bits_of_the_cython_loop(dtype, blocks):
    # the CSR product in C (baseline, AVX2 gathers, AVX-512 gathers, as
    # far as this processor has them) adds the same terms in
    # the same order as the Cython loop: the products, and whole CG solves
    from semisvm._core._cgls import HESSP_KERNELS, _set_hessp_kernel
    R, X, a, active, v = _rows_of_many_lengths(dtype)
    n, d = X.shape
    t = np.sign(np.random.RandomState(5).randn(n)).astype(dtype)
    old_blocks = _set_blocking(1, 5, 1) if blocks else None
    old = _set_hessp_kernel(0)[0]
    outs, used = [], []
    try:
        for k in range(len(HESSP_KERNELS)):
            used.append(_set_hessp_kernel(k)[1])
            u, q, s = _product_py(R, 0.7, active, a, v)
            beta = np.full(d + 1, 0.01, dtype=dtype)
            o = (X.astype(np.float64) @ beta[:d].astype(np.float64)
                 + 0.7 * beta[d]).astype(dtype)
            st, it = _cgls_py(R, 0.7, active, a, t, 0.5, beta, o, 1e-12, 9)
            outs.append((u.tobytes(), q.tobytes(), s, beta.tobytes(),
                         o.tobytes(), st, it))
    finally:
        _set_hessp_kernel(old)
        if old_blocks is not None:
            _set_blocking(*old_blocks)
    assert used[:2] == [0, 1] and used == sorted(used)
    for out in outs[1:]:
        assert out == outs[0]
    # and the product is X_J' A X_J v
    Xa = np.c_[X.toarray(), 0.7 * np.ones(n)].astype(np.float64)[active]
    qq = Xa @ v.astype(np.float64)
    u, q, s = _product_py(R, 0.7, active, a, v)
    tol = 1e-10 if dtype == np.float64 else 1e-4
    np.testing.assert_allclose(q, qq, rtol=tol, atol=tol)
    np.testing.assert_allclose(u, Xa.T @ (a[active] * qq), rtol=tol, atol=tol)


def test_product_kernels_sum_a_column_repeated_within_a_row(dtype):
    # a CSR matrix with a column stored twice in a row (as after editing
    # X.indices in place: SciPy's cached canonical flag can go stale): every
    # kernel adds both entries (scalar output updates), the same bits as
    # the Cython loop, and the product is that of the summed matrix
    import scipy.sparse as sp

    from semisvm._core._cgls import HESSP_KERNELS, _set_hessp_kernel
    rng = np.random.RandomState(3)
    n, d = 60, 12
    lengths = rng.randint(8, 25, size=n)
    indices = np.concatenate([rng.randint(0, d, k) for k in lengths]).astype(np.int32)
    indptr = np.r_[0, np.cumsum(lengths)].astype(np.int32)
    data = rng.randn(indices.size).astype(dtype)
    X = sp.csr_matrix((data, indices, indptr), shape=(n, d))
    assert any(np.unique(indices[indptr[i]:indptr[i + 1]]).size < lengths[i]
               for i in range(n))
    R = RowData(X)
    a = (rng.rand(n) + 0.1).astype(dtype)
    active = np.arange(n, dtype=np.int32)
    v = rng.randn(d + 1).astype(dtype)
    old = _set_hessp_kernel(0)[0]
    outs = []
    try:
        for k in range(len(HESSP_KERNELS)):
            _set_hessp_kernel(k)
            u, q, s = _product_py(R, 0.7, active, a, v)
            outs.append((u.tobytes(), q.tobytes(), s))
    finally:
        _set_hessp_kernel(old)
    for out in outs[1:]:
        assert out == outs[0]
    Xs = X.copy()
    Xs.sum_duplicates()
    Xa = np.c_[Xs.toarray(), 0.7 * np.ones(n)].astype(np.float64)
    qq = Xa @ v.astype(np.float64)
    tol = 1e-10 if dtype == np.float64 else 1e-4
    np.testing.assert_allclose(q, qq, rtol=tol, atol=tol)
    np.testing.assert_allclose(u, Xa.T @ (a * qq), rtol=tol, atol=tol)


def test_set_hessp_kernel_rejects_bad_values():
    from semisvm._core._cgls import HESSP_KERNELS, _set_hessp_kernel
    for bad in (-1, len(HESSP_KERNELS)):
        with pytest.raises(ValueError, match="kernel"):
            _set_hessp_kernel(bad)
