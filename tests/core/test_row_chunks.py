"""The O(n) steps of an MFN iteration (loss, step, activation, same state, line
search) over a fixed partition of the rows into chunks: both sides of the
one-chunk size (ROW_CHUNK rows: the former row-order loops, bit for bit; above
it: chunk sums added in chunk order), the same bits for any thread count, and
the chunked line search against an independent minimiser."""
import numpy as np
import pytest
from _reference import mfn_ray_objective
from scipy.optimize import minimize_scalar

from semisvm._core import _mfn
from semisvm._core._linesearch import ROW_CHUNK_ROWS, _row_chunks_py

C = ROW_CHUNK_ROWS


def _terms(o, cpos, cneg):
    # the per-row loss terms in the kernels' order (cpos term, then cneg)
    mp = np.maximum(1.0 - o, 0.0)
    mn = np.maximum(1.0 + o, 0.0)
    tp = np.where((mp > 0) & (cpos > 0), cpos * mp * mp, 0.0)
    tn = np.where((mn > 0) & (cneg > 0), cneg * mn * mn, 0.0)
    return np.column_stack([tp, tn]).ravel()


def _row_order_sum(v):
    # np.cumsum adds in order: its last entry has the bits of a row-order loop
    return float(np.cumsum(v)[-1]) if v.size else 0.0


def _problem(n, seed=0, two_sided=False):
    rng = np.random.default_rng(seed)
    o, obar = 1.5 * rng.standard_normal(n), 1.5 * rng.standard_normal(n)
    c = rng.random(n)
    if two_sided:
        p = rng.random(n)
        return o, obar, c * p, c * (1 - p)
    y = rng.random(n) < 0.5
    return o, obar, np.where(y, c, 0.0), np.where(y, 0.0, c)


def test_row_chunks_partition_by_size_only():
    assert _row_chunks_py(1) == (1, C)
    assert _row_chunks_py(C) == (1, C)
    assert _row_chunks_py(C + 1) == (2, C)
    assert _row_chunks_py(5 * C) == (5, C)
    # MAX_CHUNKS (1024) chunks of ROW_CHUNK rows at most; past them the
    # chunks grow (both sides of the cap)
    assert _row_chunks_py(1024 * C) == (1024, C)
    nc, cs = _row_chunks_py(1024 * C + 1)
    assert cs > C
    assert nc <= 1024 and nc * cs >= 1024 * C + 1 and (nc - 1) * cs < 1024 * C + 1


@pytest.mark.parametrize("n", [C, 2 * C + 123])
def test_loss_and_step_sum_rows_then_chunks_in_order(n):
    o, obar, cpos, cneg = _problem(n)
    if n <= C:          # one chunk: the row-order loop
        want = 0.5 * _row_order_sum(_terms(o, cpos, cneg))
    else:               # chunk sums, each in row order, added in chunk order
        parts = [_row_order_sum(_terms(o[i:i + C], cpos[i:i + C], cneg[i:i + C]))
                 for i in range(0, n, C)]
        want = 0.5 * _row_order_sum(np.array(parts))
    for nt in (1, 3):
        assert _mfn.loss(o, cpos, cneg, nt) == want
    out = np.empty(n)
    want_out = o + 0.25 * (obar - o)
    s1 = _mfn.step(o, obar, 0.25, cpos, cneg, out, 1)
    np.testing.assert_array_equal(out, want_out)
    out3 = np.empty(n)
    assert _mfn.step(o, obar, 0.25, cpos, cneg, out3, 3) == s1
    np.testing.assert_array_equal(out3, out)
    assert s1 == _mfn.loss(out, cpos, cneg)


@pytest.mark.parametrize("n", [C, 3 * C + 7])
def test_activate_and_same_state_any_thread_count(n):
    o, obar, cpos, cneg = _problem(n, seed=1, two_sided=True)
    cpos[::5] = 0.0
    res = []
    for nt in (1, 2, 3, 8):
        a, t = np.empty(n), np.empty(n)
        act = np.full(n, -1, dtype=np.int32)
        m = _mfn.activate(o, cpos, cneg, a, t, act, nt)
        res.append((m, a, t, act[:m].copy()))
    m, a, t, act = res[0]
    # an independent activation: the terms active at o
    on_p = (cpos > 0) & (o < 1)
    on_n = (cneg > 0) & (o > -1)
    a_ref = np.where(on_p, cpos, 0.0) + np.where(on_n, cneg, 0.0)
    np.testing.assert_array_equal(a, a_ref)
    np.testing.assert_array_equal(act, np.flatnonzero(a_ref > 0))
    assert m == np.count_nonzero(a_ref > 0)
    for m2, a2, t2, act2 in res[1:]:
        assert m2 == m
        np.testing.assert_array_equal(a2, a)
        np.testing.assert_array_equal(t2, t)
        np.testing.assert_array_equal(act2, act)
    # rows with both terms: moving o across both margins changes the state
    both = np.flatnonzero((cpos > 0) & (cneg > 0))
    for nt in (1, 3):
        assert _mfn.same_state(o, o.copy(), cpos, cneg, nt)
        assert not _mfn.same_state(o, obar, cpos, cneg, nt)
        # one row changes its state, in the first, a middle and the last chunk
        for i in (both[0], both[both.size // 2], both[-1]):
            o2 = o.copy()
            o2[i] = -5.0 if o[i] > 0 else 5.0
            assert not _mfn.same_state(o, o2, cpos, cneg, nt), (nt, i)


_phi = mfn_ray_objective


@pytest.mark.parametrize("two_sided", [False, True])
@pytest.mark.parametrize("n", [C, 2 * C + 5])
def test_line_search_chunks_exact_minimiser_same_bits(n, two_sided):
    o, obar, cpos, cneg = _problem(n, seed=2, two_sided=two_sided)
    rng = np.random.default_rng(3)
    D, lam = 6, 0.5
    w, wbar = rng.standard_normal(D), rng.standard_normal(D)
    events = np.empty(2 * n * 32, dtype=np.uint8)
    args = (w, wbar, lam, o, obar, cpos, cneg)
    deltas = [_mfn.line_search(*args, events, nt) for nt in (1, 2, 3)]
    assert deltas[1] == deltas[0] and deltas[2] == deltas[0]
    ref = minimize_scalar(lambda t: _phi(t, *args), bounds=(0, 50),
                          method="bounded", options=dict(xatol=1e-12))
    assert deltas[0] >= 0
    assert _phi(deltas[0], *args) <= ref.fun * (1 + 1e-12) + 1e-12
    assert deltas[0] == pytest.approx(ref.x, abs=1e-5)


def test_line_search_chunks_root_beyond_the_newton_point():
    # rows of two chunks, the minimiser at delta 6 > 1 (the slope's search
    # doubles hi across chunks): one active row moving towards its margin
    n = C + 10
    o = np.full(n, 5.0)
    obar = o.copy()
    o[-1], obar[-1] = -2.0, -1.5
    cpos = np.zeros(n)
    cpos[-1] = 1.0
    cneg = np.zeros(n)
    w = wbar = np.zeros(3)
    events = np.empty(2 * n * 32, dtype=np.uint8)
    for nt in (1, 2):
        assert _mfn.line_search(w, wbar, 1.0, o, obar, cpos, cneg, events, nt) \
            == pytest.approx(6.0, rel=1e-12)


@pytest.mark.slow
def test_linear_svm_same_bits_any_n_jobs_above_one_chunk():
    # rows of three chunks: every O(n) step of the fit runs chunk by chunk
    import scipy.sparse as sp

    from semisvm import LinearSVM
    rng = np.random.default_rng(0)
    n, d = 2 * C + 500, 300
    X = sp.random(n, d, density=0.02, format="csr", random_state=1)
    y = np.where(X @ rng.standard_normal(d) + 0.1 * rng.standard_normal(n) > 0, 1, -1)
    coefs = [LinearSVM(lam=0.1, n_jobs=k).fit(X, y).coef_ for k in (1, 2, 3, 8)]
    for c in coefs[1:]:
        np.testing.assert_array_equal(c, coefs[0])


@pytest.mark.parametrize("sparse", [False, True])
def test_compiled_loop_equals_the_python_loop_above_one_chunk(sparse):
    # mfn_run (compiled) and mfn_loop's Python iteration, both on three
    # threads (the backend's own count: no cap by the machine's cores), rows
    # of three chunks: the same iterates, bit for bit
    import scipy.sparse as sp

    from semisvm._core._dataset import RowData
    from semisvm._rows import LocalRows, mfn_loop

    class _PythonRows(LocalRows):
        compiled = False

    rng = np.random.default_rng(4)
    n, d = 2 * C + 777, 12
    X = rng.standard_normal((n, d))
    if sparse:
        X[rng.random((n, d)) < 0.6] = 0.0
        X = sp.csr_matrix(X)
    y = np.where(rng.standard_normal(n) + (X @ np.ones(d)) > 0, 1, -1)
    cpos0 = np.where(y > 0, 1.0, 0.0)
    cneg0 = np.where(y < 0, 1.0, 0.0)
    kw = dict(tol=1e-6, max_iter=50, cg_max_iter=1000, cold_start=True,
              rel_tol=1e-9, direct=False)
    runs = []
    for cls in (LocalRows, _PythonRows):
        B = cls(RowData(X), 1.0, cpos0.copy(), cneg0.copy(), n_threads=3)
        w = np.full(d + 1, 0.01)
        out = mfn_loop(B, w, 0.05, **kw)
        runs.append((w, B.outputs().copy(), out))
    (w1, o1, a1), (w2, o2, a2) = runs
    np.testing.assert_array_equal(w1, w2)
    np.testing.assert_array_equal(o1, o2)
    assert a1[:3] == a2[:3] and a1[0] >= 1
    # objectives: ||w||^2 by the BLAS of SciPy vs NumPy (as tests/test_rows.py)
    np.testing.assert_allclose(a1[4], a2[4], rtol=1e-14)


def _chunked_line_search_reference(w, wbar, lam, o, obar, cpos, cneg):
    """The chunked line search in plain Python floats, step by step (the
    regulariser's sums, each chunk's break points and sums in row order, the
    chunks' sums in chunk order, hi doubled, one sort of the kept points by
    (delta, key), the scan): an independent statement of what the kernel
    computes, to the bit."""
    L = R = 0.0
    for j in range(w.shape[0]):
        wd = float(wbar[j]) - float(w[j])
        L += lam * float(w[j]) * wd
        R += lam * wd * wd
    n = o.shape[0]
    chunks = []
    for c0 in range(0, n, C):
        ev, sl, sr = [], 0.0, 0.0
        for i in range(c0, min(n, c0 + C)):
            oi = float(o[i])
            di = float(obar[i]) - oi
            for term, c, m, bound in ((0, float(cpos[i]), oi - 1, 1.0),
                                      (1, float(cneg[i]), oi + 1, -1.0)):
                if c <= 0:
                    continue
                active = oi < 1 if term == 0 else oi > -1
                leaves = di > 0 if term == 0 else di < 0
                enters = di < 0 if term == 0 else di > 0
                if active:
                    sl += c * m * di
                    sr += c * di * di
                    if leaves:
                        ev.append(((bound - oi) / di, 2 * i + term,
                                   -c * m * di, -c * di * di))
                elif enters:
                    ev.append(((bound - oi) / di, 2 * i + term,
                               c * m * di, c * di * di))
        chunks.append((ev, sl, sr))
    for _, sl, sr in chunks:
        L += sl
        R += sr
    if L >= 0 or R <= 0:
        return 0.0
    hi = 1.0
    while hi < 1e30:
        sl, sr = L, R
        for ev, _, _ in chunks:
            a = b = 0.0
            for e in ev:
                if e[0] < hi:
                    a += e[2]
                    b += e[3]
            sl += a
            sr += b
        if not sl + hi * sr < 0:
            break
        hi *= 2
    kept = sorted((e for ev, _, _ in chunks for e in ev if e[0] < hi),
                  key=lambda e: (e[0], e[1]))
    root = -L / R
    for delta, _, dl, dr in kept:
        if delta >= root:
            break
        L += dl
        R += dr
        if R <= 0:
            return delta
        root = -L / R
    return root


@pytest.mark.parametrize("two_sided", [False, True])
def test_chunked_line_search_bits_of_its_statement(two_sided):
    n = 2 * C + 300
    o, obar, cpos, cneg = _problem(n, seed=5, two_sided=two_sided)
    # ties: a block of rows with one break point value
    o[10:2000] = 0.5
    obar[10:2000] = 2.0
    rng = np.random.default_rng(6)
    w, wbar = rng.standard_normal(4), rng.standard_normal(4)
    events = np.empty(2 * n * 32, dtype=np.uint8)
    want = _chunked_line_search_reference(w, wbar, 0.5, o, obar, cpos, cneg)
    for nt in (1, 3):
        assert _mfn.line_search(w, wbar, 0.5, o, obar, cpos, cneg, events,
                                nt) == want
