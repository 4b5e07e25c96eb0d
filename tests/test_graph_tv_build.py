"""The TV solvers' graph set-up (edge list, Laplacian, band order, relabelled
edges, incidence lists) built in O(m + n) equals the sort-based construction
it replaced, array for array."""

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from scipy.sparse.csgraph import reverse_cuthill_mckee

import semisvm._tv_solvers as ts
from semisvm._core._graph_tv import (
    edge_incidence,
    laplacian_csr,
    lex_order,
    sym_csr,
    upper_edges,
)

# ---------------------------------------------------- the former constructions

def _incidence_ref(src, dst, w, n):
    src = np.asarray(src, dtype=np.int32)
    dst = np.asarray(dst, dtype=np.int32)
    w = np.asarray(w)
    m = src.shape[0]
    nodes = np.concatenate([src, dst])
    edges = np.concatenate([np.arange(m, dtype=np.int32)] * 2)
    order = np.lexsort((edges, nodes))
    inc_w = np.concatenate([-w, w])
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(nodes, minlength=n), out=ptr[1:])
    return ptr.astype(np.int32), edges[order], inc_w[order]


def _sym_ref(src, dst, v, n):
    return sp.coo_matrix((np.concatenate([v, v]),
                          (np.concatenate([src, dst]), np.concatenate([dst, src]))),
                         shape=(n, n)).tocsr()


def _laplacian_ref(src, dst, w, n):
    w2 = np.asarray(w, dtype=np.float64) ** 2
    deg2 = np.bincount(np.concatenate([src, dst]), weights=np.concatenate([w2, w2]),
                       minlength=n).astype(np.float64)
    return _sym_ref(src, dst, -w2, n) + sp.diags(deg2)


def _check_laplacian(src, dst, w, n):
    w2 = np.asarray(w, dtype=np.float64) ** 2
    indptr, indices, data, deg2 = laplacian_csr(src, dst, w2, n)
    _same(deg2, np.bincount(np.concatenate([src, dst]),
                            weights=np.concatenate([w2, w2]), minlength=n).astype(np.float64))
    _same_csr(sp.csr_matrix((data, indices, indptr), shape=(n, n)),
              _laplacian_ref(src, dst, w, n))


def _grad_norm_ref(src, dst, w, n):
    w2 = np.asarray(w, dtype=np.float64) ** 2
    deg2 = np.bincount(np.concatenate([src, dst]), weights=np.concatenate([w2, w2]),
                       minlength=n)
    bound = float(np.sqrt(max(2.0 * deg2.max(initial=0.0), 1e-300)))
    if src.shape[0] == 0 or n < 3:
        return bound
    lam = float(spla.eigsh(_laplacian_ref(src, dst, w, n), k=1, which="LA", tol=1e-6,
                           v0=np.ones(n) + np.arange(n) / n,
                           return_eigenvectors=False)[0])
    return min(bound, 1.01 * float(np.sqrt(max(lam, 0.0))) + 1e-12)


def _band_ref(src, dst, n):
    A = _sym_ref(src, dst, np.ones(src.shape[0], dtype=np.int8), n)
    return np.asarray(reverse_cuthill_mckee(A, symmetric_mode=True), dtype=np.int32)


def _relabel_ref(src, dst, w):
    lo = np.minimum(src, dst)
    hi = np.maximum(src, dst)
    order = np.lexsort((hi, lo))
    return lo[order].astype(np.int32), hi[order].astype(np.int32), w[order]


def _edges_ref(W, dtype=np.float64):
    S = (W + W.T).tocsr()
    U = sp.triu(S, k=1).tocoo()
    keep = U.data > 0
    return (np.ascontiguousarray(U.row[keep], dtype=np.int32),
            np.ascontiguousarray(U.col[keep], dtype=np.int32),
            np.ascontiguousarray(U.data[keep], dtype=dtype))


def _same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    assert a.tobytes() == b.tobytes()


def _same_csr(A, B):
    for name in ("indptr", "indices", "data"):
        _same(getattr(A, name), getattr(B, name))
    assert A.shape == B.shape


# --------------------------------------------------------------------- graphs

def _knn_like(n, k, seed, isolated=0):
    """A kNN-like weight matrix in random row order, the last ``isolated``
    rows without any edge."""
    rng = np.random.default_rng(seed)
    m = n - isolated
    rows = np.repeat(np.arange(m), k)
    cols = (rows + rng.integers(1, 8, rows.shape[0])) % m
    perm = rng.permutation(m)
    W = sp.csr_matrix((rng.random(rows.shape[0]) + 0.01, (perm[rows], perm[cols])),
                      shape=(n, n))
    return W


GRAPHS = [(300, 5, 0, 0), (300, 5, 1, 40), (1, 1, 2, 1), (2, 1, 3, 0), (50, 3, 4, 49), (60, 3, 6, 25)]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("n,k,seed,isolated", GRAPHS)
def test_setup_equals_sort_based_construction(n, k, seed, isolated, dtype):
    W = _knn_like(n, k, seed, isolated)
    src, dst, w = ts._edges(W, dtype)
    assert w.dtype == dtype
    for a, b in zip((src, dst, w), _edges_ref(W, dtype)):
        _same(a, b)
    # the Laplacian of the step bound and the RCM order
    w2 = np.asarray(w, dtype=np.float64) ** 2
    deg2 = np.bincount(np.concatenate([src, dst]), weights=np.concatenate([w2, w2]),
                       minlength=n).astype(np.float64)
    _same_csr(ts._sym_matrix(src, dst, -w2, n) + sp.diags(deg2),
              _laplacian_ref(src, dst, w, n))
    _check_laplacian(src, dst, w, n)
    assert ts._grad_norm(src, dst, w, n) == _grad_norm_ref(src, dst, w, n)
    perm = ts._band_order(src, dst, n)
    _same(perm, _band_ref(src, dst, n))
    inv = np.empty(n, dtype=np.int32)
    inv[perm] = np.arange(n, dtype=np.int32)
    new = ts._relabel(inv[src], inv[dst], w)
    ref = _relabel_ref(inv[src], inv[dst], w)
    for a, b in zip(new, ref):
        _same(a, b)
    for a, b in zip(edge_incidence(*new, n), _incidence_ref(*ref, n)):
        _same(a, b)
    for a, b in zip(edge_incidence(src, dst, w, n), _incidence_ref(src, dst, w, n)):
        _same(a, b)


def test_empty_graph():
    n = 7
    src, dst, w = ts._edges(sp.csr_matrix((n, n)))
    assert src.shape == (0,)
    for a, b in zip(edge_incidence(src, dst, w, n), _incidence_ref(src, dst, w, n)):
        _same(a, b)
    _same_csr(ts._sym_matrix(src, dst, w, n), _sym_ref(src, dst, w, n))
    _check_laplacian(src, dst, w, n)
    for a, b in zip(ts._relabel(src, dst, w), _relabel_ref(src, dst, w)):
        _same(a, b)
    _same(lex_order(src, dst, 0), np.lexsort((dst, src)))
    assert ts._grad_norm(src, dst, w, n) > 0


def test_incidence_and_order_of_unsorted_lists_with_repeats():
    # any edge list: repeated pairs, self loops, both orientations
    rng = np.random.default_rng(5)
    n, m = 40, 500
    src = rng.integers(0, n, m).astype(np.int32)
    dst = rng.integers(0, n, m).astype(np.int32)
    for dtype in (np.float64, np.float32, np.int64):
        w = (rng.random(m) * 10).astype(dtype)
        for a, b in zip(edge_incidence(src, dst, w, n), _incidence_ref(src, dst, w, n)):
            _same(a, b)
    _same(lex_order(src, dst, n), np.lexsort((dst, src)))
    # not as _edges lists them: the COO -> CSR conversion itself
    assert sym_csr(src, dst, n) is None
    assert sym_csr(np.array([1, 0], np.int32), np.array([2, 3], np.int32), 4) is None
    assert sym_csr(np.array([0, 0], np.int32), np.array([2, 2], np.int32), 4) is None
    lo, hi = np.minimum(src, dst), np.maximum(src, dst)
    keep = lo < hi
    v = rng.random(int(keep.sum()))
    _same_csr(ts._sym_matrix(lo[keep], hi[keep], v, n), _sym_ref(lo[keep], hi[keep], v, n))


def test_bad_ends_raise():
    src = np.array([0, 1], np.int32)
    dst = np.array([1, 5], np.int32)
    with pytest.raises(ValueError, match="n\\)"):
        edge_incidence(src, dst, np.ones(2), 5)
    with pytest.raises(ValueError, match="n\\)"):
        lex_order(src, dst, 5)
    with pytest.raises(ValueError, match="n\\)"):
        lex_order(src - 1, dst, 6)


def test_laplacian_drops_zero_entries_as_the_sum_does():
    # weights whose squares underflow and isolated rows: the sum with the
    # diagonal matrix keeps no zero entry
    W = _knn_like(200, 4, 7, isolated=30)
    src, dst, w = ts._edges(W)
    w[::5] = 1e-170
    w[1] = 0.0
    n = 200
    w2 = w ** 2
    ref = _laplacian_ref(src, dst, w, n)
    assert ref.nnz < 2 * src.shape[0] + n - 30
    _check_laplacian(src, dst, w, n)
    assert laplacian_csr(dst, src, w2, n) is None
    assert ts._grad_norm(src, dst, w, n) == _grad_norm_ref(src, dst, w, n)


@pytest.mark.parametrize("wdtype", [np.float64, np.float32])
def test_edges_of_any_weight_matrix(wdtype):
    # asymmetric weights, explicit zeros, negative values, a diagonal, rows
    # without entries; W's own dtype float32 or float64
    rng = np.random.default_rng(9)
    n = 120
    cells = np.unique(rng.integers(0, n * n, 800))
    rows, cols = cells // n, cells % n
    rows = np.concatenate([rows, np.arange(n)])
    cols = np.concatenate([cols, np.arange(n)])
    out = (rows >= 100) & (rows < 110)
    rows, cols = rows[~out], cols[~out]
    data = rng.random(rows.shape[0]) - 0.2
    data[::7] = 0.0
    W = sp.coo_matrix((data.astype(wdtype), (rows, cols)), shape=(n, n)).tocsr()
    assert W.getnnz(axis=1)[100:110].sum() == 0 and (W.data == 0).sum() > 10
    assert W.has_canonical_format and upper_edges(W) is not None
    for dtype in (np.float64, np.float32):
        for a, b in zip(ts._edges(W, dtype), _edges_ref(W, dtype)):
            _same(a, b)
    # not canonical (unsorted, duplicates), another format, integer weights
    A = sp.csr_matrix((np.array([1.0, 2.0, 3.0, 4.0]), np.array([2, 1, 2, 0]),
                       np.array([0, 3, 3, 4])), shape=(3, 3))
    assert not A.has_canonical_format and upper_edges(A) is None
    for M in (A, W.tocoo(), W.tocsc(), (W > 0.3).astype(np.int64)):
        for a, b in zip(ts._edges(M), _edges_ref(M)):
            _same(a, b)


def test_edges_check_the_arrays_not_the_format_flag():
    W = _knn_like(100, 4, 11)
    assert W.has_canonical_format and upper_edges(W) is not None
    row = int(np.argmax(np.diff(W.indptr) > 1))
    a = W.indptr[row]
    W.indices[[a, a + 1]] = W.indices[[a + 1, a]]
    W.data[[a, a + 1]] = W.data[[a + 1, a]]
    assert upper_edges(W) is None
    for x, y in zip(ts._edges(W), _edges_ref(W)):
        _same(x, y)
