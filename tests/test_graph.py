"""kNN graph and Laplacians against dense NumPy constructions."""
import numpy as np
import pytest
import scipy.sparse as sp

from semisvm.graph import KNNGraph, graph_laplacian, knn_affinity, laplacian


def _points(n=30, seed=0):
    return np.random.RandomState(seed).randn(n, 3)


def _dense_knn(X, k, weight):
    D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    np.fill_diagonal(D, np.inf)
    nbr = np.argsort(D, axis=1, kind="stable")[:, :k]
    A = np.zeros_like(D, dtype=bool)
    A[np.repeat(np.arange(len(X)), k), nbr.ravel()] = True
    t = np.take_along_axis(D, nbr, 1).mean()
    W = np.exp(-D**2 / (2 * t * t)) if weight == "heat" else np.ones_like(D)
    return np.where(A | A.T, W, 0.0)


@pytest.mark.parametrize("weight", ["heat", "binary"])
def test_knn_affinity_matches_dense(weight, container):
    X = _points()
    W = knn_affinity(container(X), 5, weight=weight)
    assert sp.issparse(W) and W.format == "csr" and W.indices.dtype == np.int32
    np.testing.assert_allclose(W.toarray(), _dense_knn(X, 5, weight), atol=1e-12)


def test_knn_affinity_float32_keeps_dtype():
    W = knn_affinity(_points().astype(np.float32), 4)
    assert W.dtype == np.float32


@pytest.mark.parametrize("normalized", [False, True])
@pytest.mark.parametrize("p", [1, 2, 3])
def test_laplacian_matches_dense(normalized, p):
    W = _dense_knn(_points(), 4, "heat")
    deg = W.sum(1)
    if normalized:
        s = 1 / np.sqrt(deg)
        L = np.eye(len(W)) - s[:, None] * W * s[None]
    else:
        L = np.diag(deg) - W
    Lp = laplacian(sp.csr_matrix(W), normalized=normalized, p=p)
    assert Lp.format == "csr"
    np.testing.assert_allclose(Lp.toarray(), np.linalg.matrix_power(L, p),
                               atol=1e-12)
    # positive semi-definite; unnormalised L annihilates constants
    assert np.linalg.eigvalsh(Lp.toarray()).min() > -1e-10
    if not normalized:
        np.testing.assert_allclose(Lp @ np.ones(len(W)), 0, atol=1e-12)


def test_graph_laplacian_from_affinity_equals_from_points():
    X = _points()
    W = knn_affinity(X, 6)
    L1 = graph_laplacian(X, n_neighbors=6, p=2)
    L2 = graph_laplacian(affinity=W.toarray(), p=2)
    np.testing.assert_allclose(L1.toarray(), L2.toarray(), atol=1e-12)


def test_isolated_vertex_has_zero_row():
    W = np.zeros((3, 3))
    W[0, 1] = W[1, 0] = 1.0
    L = laplacian(W, normalized=True).toarray()
    np.testing.assert_allclose(L[2], 0)
    np.testing.assert_allclose(L[:2, :2], [[1, -1], [-1, 1]])


def test_graph_errors():
    X = _points(5)
    with pytest.raises(ValueError, match="n_neighbors=5 must be smaller"):
        knn_affinity(X, 5)
    with pytest.raises(ValueError, match="weight"):
        knn_affinity(X, 2, weight="gauss")
    with pytest.raises(ValueError, match="symmetric"):
        laplacian(np.triu(np.ones((3, 3))))
    with pytest.raises(ValueError, match="non-negative"):
        laplacian(-np.ones((3, 3)))
    with pytest.raises(ValueError, match="square"):
        laplacian(np.ones((3, 2)))
    with pytest.raises(ValueError, match="exactly one"):
        graph_laplacian()
    X[0, 0] = np.inf
    with pytest.raises(ValueError, match="infinity|NaN"):
        knn_affinity(X, 2)


def test_knn_affinity_from_kernel_distances_equals_euclidean():
    from semisvm.graph import kernel_distances
    X = _points()
    W1 = knn_affinity(X, 5)
    W2 = knn_affinity(kernel_distances(X @ X.T), 5, metric="precomputed")
    np.testing.assert_allclose(W1.toarray(), W2.toarray(), atol=1e-10)


def test_knn_affinity_returns_sorted_distances():
    X = _points(40)
    W, dist = knn_affinity(X, 4, return_distances=True)
    np.testing.assert_array_equal(W.toarray(), knn_affinity(X, 4).toarray())
    D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    np.fill_diagonal(D, np.inf)
    np.testing.assert_allclose(dist, np.sort(D, axis=1)[:, :4], rtol=1e-12)


@pytest.mark.parametrize("dim", [1, 3, 6])
def test_intrinsic_dimension_of_flat_manifolds(dim):
    from semisvm.graph import intrinsic_dimension

    rng = np.random.RandomState(0)
    # a dim-dimensional cube embedded (rotated) in 10 dimensions
    Z = rng.rand(1500, dim)
    Q = np.linalg.qr(rng.randn(10, 10))[0][:dim]
    _, dist = knn_affinity(Z @ Q, 10, return_distances=True)
    assert abs(intrinsic_dimension(dist) - dim) < 0.2 * dim + 0.2
    with pytest.raises(ValueError, match="k >= 2"):
        intrinsic_dimension(dist[:, :1])


def test_neighbors_affinity_equals_knn_affinity():
    from sklearn.neighbors import NearestNeighbors

    from semisvm.graph import neighbors_affinity

    X = _points(50)
    dist, ind = NearestNeighbors(n_neighbors=5).fit(X).kneighbors()
    for weight in ("heat", "binary"):
        np.testing.assert_allclose(
            neighbors_affinity(dist, ind, weight=weight).toarray(),
            knn_affinity(X, 5, weight=weight).toarray(), atol=1e-14)
    with pytest.raises(ValueError, match="same shape"):
        neighbors_affinity(dist, ind[:, :3])
    with pytest.raises(ValueError, match="out of range"):
        neighbors_affinity(dist, ind + 50)


# ------------------------------------------------------------ graphs at scale

def _clusters(n=600, d=8, seed=0, dtype=np.float64):
    rng = np.random.RandomState(seed)
    centers = rng.randn(5, d) * 3
    return (centers[rng.randint(5, size=n)] + rng.randn(n, d)).astype(dtype)


@pytest.mark.parametrize("method", [
    "approximate",
    # pynndescent compiles its numba kernels on first use (tens of seconds)
    pytest.param("nndescent", marks=pytest.mark.slow)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_approximate_knn_recall(dtype, method):
    from semisvm.graph import knn_search
    X = _clusters(dtype=dtype)
    k = 10
    d_ex, i_ex = knn_search(X, k, method="exact")
    d_ap, i_ap = knn_search(X, k, method=method, random_state=0)
    assert i_ap.shape == (X.shape[0], k) and i_ap.dtype == np.int32
    assert d_ap.dtype == dtype                      # float32 stays float32
    assert not np.any(i_ap == np.arange(X.shape[0])[:, None])   # self excluded
    assert np.all(np.diff(d_ap, axis=1) >= 0)       # sorted
    recall = np.mean([len(set(a) & set(b)) / k for a, b in zip(i_ex, i_ap)])
    assert recall > 0.95, recall
    # the distances are the Euclidean distances to the listed points
    true = np.linalg.norm(X[:, None, :] - X[i_ap], axis=2)
    np.testing.assert_allclose(d_ap, true, rtol=1e-4, atol=1e-5)
    # seeded: same input -> same graph (and for any number of threads)
    d2, i2 = knn_search(X, k, method=method, random_state=0,
                        n_jobs=2 if method == "approximate" else None)
    np.testing.assert_array_equal(i_ap, i2)
    W = knn_affinity(X, k, method=method)
    assert W.dtype == dtype and (W != W.T).nnz == 0


def test_knn_search_auto_threshold(monkeypatch):
    import semisvm.graph as g
    X = _clusters(n=80)
    # below ANN_MIN_SAMPLES: exact (bit-identical to NearestNeighbors)
    W_auto = knn_affinity(X, 5)
    W_ex = knn_affinity(X, 5, method="exact")
    assert (W_auto != W_ex).nnz == 0
    calls = []
    real = g._hnsw_search
    monkeypatch.setattr(g, "_hnsw_search",
                        lambda *a, **k: calls.append(1) or real(*a, **k))
    knn_affinity(X, 5)
    assert calls == []
    monkeypatch.setattr(g, "ANN_MIN_SAMPLES", 50)
    # above the threshold: the HNSW index, for dense X only
    W_ap = knn_affinity(X, 5)
    assert calls == [1] and W_ap.shape == W_ex.shape
    # sparse rows: the shared-term candidates (not the dense index) above,
    # exact below
    sp_calls = []
    real_sp = g._sparse_token_search
    monkeypatch.setattr(g, "_sparse_token_search",
                        lambda *a, **k: sp_calls.append(1) or real_sp(*a, **k))
    W_sp = knn_affinity(sp.csr_matrix(X), 5)          # exact (rounding aside)
    assert calls == [1] and sp_calls == [] and abs(W_sp - W_ex).max() < 1e-12
    monkeypatch.setattr(g, "SPARSE_ANN_MIN_SAMPLES", 80)
    W_sp = knn_affinity(sp.csr_matrix(X), 5)
    assert calls == [1] and sp_calls == [1] and W_sp.shape == W_ex.shape
    monkeypatch.setattr(g, "SPARSE_ANN_MIN_SAMPLES", 81)
    knn_affinity(sp.csr_matrix(X), 5)
    assert sp_calls == [1]
    with pytest.raises(ValueError, match="method"):
        knn_affinity(X, 5, method="annoy")


def test_check_affinity_drops_diagonal_without_lil():
    A = sp.random(50, 50, density=0.2, format="csr", random_state=1)
    A = A + A.T + sp.eye(50)
    from semisvm.graph import check_affinity
    W = check_affinity(A)
    assert W.diagonal().max() == 0
    ref = A.toarray()
    np.fill_diagonal(ref, 0)
    np.testing.assert_array_equal(W.toarray(), ref)
    assert W.indices.dtype == np.int32 and W.has_sorted_indices


def _ssl_problem(n=90, seed=0, n_classes=2):
    rng = np.random.RandomState(seed)
    centers = rng.randn(n_classes, 4) * 4
    yt = np.arange(n) % n_classes
    X = centers[yt] + rng.randn(n, 4)
    y = np.full(n, -1)
    for c in range(n_classes):
        y[np.flatnonzero(yt == c)[:3]] = c
    return X, y


@pytest.mark.parametrize("name", ["TVRLS", "TVSVM", "CheegerRLS", "CheegerSVM"])
def test_graph_tv_precomputed_affinity_same_fit(name):
    import semisvm.graph_tv as gt
    from semisvm._tv_setup import WEIGHTS
    X, y = _ssl_problem()
    est = getattr(gt, name)(max_iter=30)
    W = knn_affinity(X, est._n_neighbors(X.shape[0]), weight=WEIGHTS[est.weights])
    import warnings

    from sklearn.base import clone
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # max_iter: same in both fits
        a = clone(est).fit(X, y)
        b = clone(est).fit(X, y, affinity=W)
        c = clone(est).fit(X, y, affinity=W.toarray())
    np.testing.assert_array_equal(a.transduction_, b.transduction_)
    np.testing.assert_allclose(b.alpha_, a.alpha_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(c.alpha_, a.alpha_, rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match="affinity"):
        clone(est).fit(X, y, affinity=W[:10, :10])
    with pytest.raises(ValueError, match="not both"):
        clone(est).fit(X, y, W, affinity=W)


@pytest.mark.parametrize("name", ["LapSVM", "LapRLS"])
def test_manifold_precomputed_affinity_same_fit(name):
    import semisvm.manifold as m
    from semisvm.kernels import kernel_matrix, scale_gamma
    X, y = _ssl_problem(n_classes=3)
    est = getattr(m, name)(p=1, solver="newton")
    a = est.fit(X, y)
    # the internal graph: the kNN lists of the Gram matrix, heat weights
    _, dist, ind = kernel_matrix(X, kernel="rbf", gamma=scale_gamma(X),
                                 n_neighbors=10)
    from semisvm.graph import neighbors_affinity
    W = neighbors_affinity(dist, ind)
    b = getattr(m, name)(p=1, solver="newton").fit(X, y, affinity=W)
    np.testing.assert_array_equal(a.transduction_, b.transduction_)
    np.testing.assert_allclose(b.dual_coef_, a.dual_coef_, rtol=1e-8, atol=1e-10)
    # and with the public kNN graph (distances computed directly)
    W2 = knn_affinity(X, 10)
    c = getattr(m, name)(p=1, solver="newton").fit(X, y, affinity=W2)
    np.testing.assert_allclose(c.dual_coef_, a.dual_coef_, rtol=1e-6, atol=1e-8)


# ------------------------------------------------------------ KNNGraph

def test_knn_graph_is_the_float32_knn_affinity():
    from semisvm.graph import KNNGraph
    X = _clusters(n=300)
    g = KNNGraph(n_neighbors=7).fit(X)
    W = g.affinity_
    assert W.dtype == np.float32 and W.format == "csr" and (W != W.T).nnz == 0
    assert W.indices.dtype == np.int32 and W.diagonal().max() == 0
    ref = knn_affinity(X, 7)
    assert (W != W.T).nnz == 0 and W.nnz == ref.nnz
    np.testing.assert_allclose(W.toarray(), ref.toarray(), rtol=1e-6, atol=1e-30)
    assert g.distances_.shape == (300, 7) and g.distances_.dtype == np.float32
    assert g.indices_.dtype == np.int32 and g.method_ == "exact"
    assert g.n_builds_ == 1 and g.is_fitted_on(X) and not g.is_fitted_on(X[::-1])
    # float32 input: the same graph
    g32 = KNNGraph(n_neighbors=7).fit(X.astype(np.float32))
    np.testing.assert_array_equal(g32.indices_, g.indices_)
    # self-tuning and binary weights as knn_affinity gives them
    for weight in ("binary", "self-tuning"):
        Wb = KNNGraph(7, weight=weight).fit(X).affinity_
        np.testing.assert_allclose(Wb.toarray(), knn_affinity(X, 7, weight=weight)
                                   .toarray(), rtol=1e-6)


@pytest.mark.parametrize("sparse", [False, True])
def test_knn_graph_of_a_row_subset_equals_a_new_graph(sparse):
    from semisvm.graph import KNNGraph
    X = _clusters(n=400)
    rng = np.random.RandomState(0)
    # a fold: a few rows held out, the rest in a shuffled order; and a block
    # of 40 consecutive rows (neighbours of each other) held out, so that
    # rows lose more than the spare neighbours and are searched again
    folds = [rng.permutation(np.setdiff1d(np.arange(400), rng.choice(400, 20))),
             np.r_[0:100, 140:400]]
    order = np.argsort(np.linalg.norm(X - X[120], axis=1))
    X = X[order]                        # rows 100..139: the nearest to X[120]
    Xin = sp.csr_matrix(X) if sparse else X
    g = KNNGraph(n_neighbors=6).fit(Xin)
    for rows in folds:
        Xs = Xin[rows]
        assert np.array_equal(g.rows_of(Xs), rows)
        W, dist = g.graph_for(Xs)
        fresh = KNNGraph(n_neighbors=6).fit(Xs)
        np.testing.assert_allclose(W.toarray(), fresh.affinity_.toarray(),
                                   rtol=1e-6)
        np.testing.assert_allclose(dist, fresh.distances_, rtol=1e-6)
    assert g.n_builds_ == 2                  # the second fold searched again
    # rows that are not there, or a changed row: no match
    assert g.rows_of(Xin[:10] * 2) is None
    with pytest.raises(ValueError, match="subset"):
        g.affinity_for(_clusters(n=50, seed=3))


def test_knn_graph_is_shared_not_copied():
    import copy

    from sklearn.base import clone

    from semisvm.graph import KNNGraph
    X = _clusters(n=100)
    g = KNNGraph(5).fit(X)
    assert clone(g) is g and copy.deepcopy(g) is g
    fresh = clone(KNNGraph(5))
    assert not hasattr(fresh, "affinity_")
    with pytest.raises(ValueError, match="fitted"):
        g.set_params(n_neighbors=3)
    g.n_neighbors = 3                        # changed behind its back
    with pytest.raises(ValueError, match="changed"):
        g.affinity_for(X)
    with pytest.raises(ValueError, match="not fitted"):
        KNNGraph().affinity_for(X)
    with pytest.raises(ValueError, match="n_neighbors"):
        KNNGraph(100).fit(X)
    with pytest.raises(ValueError, match="weight"):
        KNNGraph(weight="cosine").fit(X)


def test_knn_graph_exact_below_the_threshold_approximate_above(monkeypatch):
    import semisvm.graph as g
    X = _clusters(n=300)
    exact = g.KNNGraph(8).fit(X)
    assert exact.method_ == "exact"
    monkeypatch.setattr(g, "ANN_MIN_SAMPLES", 200)
    ap = g.KNNGraph(8, n_jobs=2).fit(X)
    assert ap.method_ == "approximate"
    recall = np.mean([len(set(a) & set(b)) / 8
                      for a, b in zip(ap.indices_, exact.indices_)])
    assert recall > 0.99
    # deterministic: same input -> same graph, for any number of threads
    again = g.KNNGraph(8, n_jobs=1).fit(X)
    assert (again.affinity_ != ap.affinity_).nnz == 0
    # a fold's graph read from the approximate lists
    rows = np.arange(20, 300)
    W = ap.affinity_for(X[rows])
    assert W.shape == (280, 280) and W.dtype == np.float32 and (W != W.T).nnz == 0


def test_hnsw_chunked_build_same_lists_for_any_threads(monkeypatch):
    # above HNSW_CHUNK rows the index is built per chunk (fixed by n) in
    # n_jobs threads and the chunks' lists merged: the same lists for any
    # thread count, sorted, self excluded, recall at least the one index's
    import semisvm.graph as g
    X = _clusters(n=900)
    d_ex, i_ex = g.knn_search(X, 8, method="exact")
    one = g.knn_search(X, 8, method="approximate")
    monkeypatch.setattr(g, "HNSW_CHUNK", 400)         # chunks of 300, 300, 300
    outs = [g.knn_search(X, 8, method="approximate", n_jobs=nj) for nj in (1, 2, 3)]
    for d, i in outs[1:]:
        np.testing.assert_array_equal(i, outs[0][1])
        np.testing.assert_array_equal(d, outs[0][0])
    d, i = outs[0]
    assert i.shape == (900, 8) and not np.any(i == np.arange(900)[:, None])
    assert np.all(np.diff(d, axis=1) >= 0)
    np.testing.assert_allclose(d, np.linalg.norm(X[:, None] - X[i], axis=2),
                               rtol=1e-4, atol=1e-5)

    def recall(ind):
        return np.mean([len(set(a) & set(b)) / 8 for a, b in zip(i_ex, ind)])
    assert recall(i) >= recall(one[1]) - 0.01 and recall(i) > 0.97


def test_hnsw_locality_order_both_sides_of_the_leaf_size(monkeypatch):
    # the HNSW index inserts (and searches) the rows in the leaves of a k-d
    # split; up to HNSW_LEAF rows that is the row order itself
    import semisvm.graph as g
    X = _clusters(n=900)
    np.testing.assert_array_equal(g._locality_order(X, 900), np.arange(900))
    o = g._locality_order(X, 100)
    np.testing.assert_array_equal(np.sort(o), np.arange(900))   # a permutation
    assert not np.array_equal(o, np.arange(900))
    # rows next to each other in that order are near each other
    step = np.linalg.norm(np.diff(X[o], axis=0), axis=1).mean()
    assert step < 0.7 * np.linalg.norm(np.diff(X, axis=0), axis=1).mean()
    seen = []
    real = g._hnsw_index
    monkeypatch.setattr(g, "_hnsw_index",
                        lambda rows, V, q: seen.append(rows.copy()) or real(rows, V, q))
    d_ex, i_ex = g.knn_search(X, 8, method="exact")
    g.knn_search(X, 8, method="approximate")                  # 900 <= 1024
    np.testing.assert_array_equal(seen.pop(), np.arange(900))
    monkeypatch.setattr(g, "HNSW_LEAF", 100)
    outs = [g.knn_search(X, 8, method="approximate", n_jobs=nj) for nj in (1, 2)]
    np.testing.assert_array_equal(seen[0], o)
    np.testing.assert_array_equal(outs[0][1], outs[1][1])    # any n_jobs
    np.testing.assert_array_equal(outs[0][0], outs[1][0])
    d, i = outs[0]
    assert not np.any(i == np.arange(900)[:, None]) and np.all(np.diff(d, axis=1) >= 0)
    np.testing.assert_allclose(d, np.linalg.norm(X[:, None] - X[i], axis=2),
                               rtol=1e-4, atol=1e-5)
    assert np.mean([len(set(a) & set(b)) / 8 for a, b in zip(i_ex, i)]) > 0.97
    # chunked as well: each chunk inserts its own rows in the same order
    seen.clear()
    monkeypatch.setattr(g, "HNSW_CHUNK", 400)
    d3, i3 = g.knn_search(X, 8, method="approximate", n_jobs=3)
    seen.sort(key=lambda r: r.min())          # the chunks' threads end in any order
    assert [r.size for r in seen] == [300, 300, 300]   # ceil(900 / 400) equal chunks
    for r, a in zip(seen, (0, 300, 600)):
        np.testing.assert_array_equal(r, o[(o >= a) & (o < a + 300)])
    d1, i1 = g.knn_search(X, 8, method="approximate", n_jobs=1)
    np.testing.assert_array_equal(i3, i1)
    np.testing.assert_array_equal(d3, d1)
    # one row above a whole number of chunks: equal chunks, not a chunk of one row
    seen.clear()
    monkeypatch.setattr(g, "HNSW_CHUNK", 449)
    g.knn_search(X, 8, method="approximate", n_jobs=1)
    assert sorted(r.size for r in seen) == [300, 300, 300]
    seen.clear()
    monkeypatch.setattr(g, "HNSW_CHUNK", 450)                 # exactly two chunks
    g.knn_search(X, 8, method="approximate", n_jobs=1)
    assert sorted(r.size for r in seen) == [450, 450]


def test_hnsw_search_list_both_sides_of_the_large_index_size(monkeypatch):
    # an index of more than HNSW_LARGE_INDEX points searches with the longer
    # candidate list HNSW_EF_SEARCH_LARGE; up to it with HNSW_EF_SEARCH; the
    # lists stay the same for any n_jobs on both sides
    import semisvm.graph as g
    X = _clusters(n=900)
    built = []
    real = g._hnsw_index
    monkeypatch.setattr(g, "_hnsw_index",
                        lambda rows, V, q: built.append(real(rows, V, q)) or built[-1])
    monkeypatch.setattr(g, "HNSW_EF_SEARCH", 12)
    monkeypatch.setattr(g, "HNSW_EF_SEARCH_LARGE", 40)
    monkeypatch.setattr(g, "HNSW_LARGE_INDEX", 900)          # 900 rows: not above
    small = [g.knn_search(X, 8, method="approximate", n_jobs=nj) for nj in (1, 2)]
    assert [b.expansion_search for b in built] == [12, 12]
    monkeypatch.setattr(g, "HNSW_LARGE_INDEX", 899)          # 900 rows: above
    large = [g.knn_search(X, 8, method="approximate", n_jobs=nj) for nj in (1, 2)]
    assert [b.expansion_search for b in built[2:]] == [40, 40]
    for d, i in (small, large):
        np.testing.assert_array_equal(d[0], i[0])
        np.testing.assert_array_equal(d[1], i[1])
    # a chunk is an index of its own rows: 899 rows in chunks of 449 and 450
    # rows with the switch at 449, the second chunk above it, the first not
    built.clear()
    monkeypatch.setattr(g, "HNSW_CHUNK", 500)
    monkeypatch.setattr(g, "HNSW_LARGE_INDEX", 449)
    g.knn_search(X[:899], 8, method="approximate", n_jobs=2)
    assert sorted((len(b), b.expansion_search) for b in built) == [(449, 12), (450, 40)]
    d_ex, i_ex = g.knn_search(X, 8, method="exact")

    def recall(ind):
        return np.mean([len(set(a) & set(b)) / 8 for a, b in zip(i_ex, ind)])
    assert recall(large[0][1]) >= recall(small[0][1]) and recall(large[0][1]) > 0.97


def test_knn_graph_pickle_leaves_the_work_cache_behind():
    # a fitted estimator holds its graph; the graph's shared work (kernel
    # features, ridge systems, solutions) is a cache, not part of the model
    import pickle

    from semisvm import LapRLS
    X = _clusters(n=1000)
    y = np.full(X.shape[0], -1)
    y[:20] = (X[:20, 0] > 0).astype(int)
    y[20:40] = 1 - y[:20]
    clf = LapRLS(n_components=60, lowrank_fit="graph", safe=False).fit(X, y)
    g = clf.graph_
    assert g._work, "the fit stored no work: the test checks nothing"
    blob = pickle.dumps(clf)
    again = pickle.loads(blob)
    assert not again.graph_._work and again.graph_._work_hits == 0
    assert g._work                               # the original keeps its cache
    np.testing.assert_array_equal(again.decision_function(X),
                                  clf.decision_function(X))
    np.testing.assert_array_equal(again.graph_.affinity_.toarray(),
                                  g.affinity_.toarray())


def test_graph_nbytes_counts_the_chunk_merge_above_one_chunk():
    # the size switch of the chunked HNSW build, both sides: one chunk has
    # no merge; the next row adds the merge's buffers to the estimate
    from semisvm import graph as gmod
    n, k = gmod.HNSW_CHUNK, 10
    one = gmod.graph_nbytes(n, k, n_features=50)
    two = gmod.graph_nbytes(n + 1, k, n_features=50)
    step = gmod.graph_nbytes(n - 1, k, n_features=50)
    assert two - one >= 72 * (n + 1) * (k + 1)
    assert one - step < 5000                   # a row's worth below it


def _topic_rows(n=1200, d=2000, n_topics=8, per_row=25, seed=0, dtype=np.float32):
    """Text-like CSR rows (L2-normalised) drawn from topic vocabularies,
    plus a few rows sharing no term with any other row."""
    rng = np.random.default_rng(seed)
    vocab = d // n_topics
    topic = rng.integers(0, n_topics, n)
    rows, cols, vals = [], [], []
    for i in range(n):
        t = topic[i]
        own = t * vocab + rng.zipf(1.3, per_row) % vocab
        common = rng.integers(d - 50, d, 5)
        c = np.unique(np.r_[own, common])
        if i < 3:
            c = np.array([d + i])                 # a term nobody else has
        rows.append(np.full(c.size, i))
        cols.append(c)
        vals.append(rng.random(c.size) + 0.5)
    X = sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows),
                                              np.concatenate(cols))),
                      shape=(n, d + 3))
    X = sp.csr_matrix(X.multiply(1 / np.sqrt(X.multiply(X).sum(axis=1))))
    return X.astype(dtype), topic


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sparse_rows_approximate_search_against_exact(dtype):
    """CSR rows above the switch: candidates from each row's largest terms'
    (capped) posting lists, re-ranked by the exact sparse distances; rows
    with fewer than k candidates searched exactly. Against the exact search:
    recall, the distances themselves, the same lists for any n_jobs."""
    import semisvm.graph as g

    X, _ = _topic_rows(n=600, dtype=dtype)
    k = 10
    d_ex, i_ex = g.knn_search(X, k, method="exact")
    d_ap, i_ap = g.knn_search(X, k, method="approximate")
    assert i_ap.dtype == np.int32 and d_ap.dtype == dtype
    assert not np.any(i_ap == np.arange(X.shape[0])[:, None])
    assert np.all(np.diff(d_ap, axis=1) >= 0)
    recall = np.mean([len(set(a) & set(b)) / k for a, b in zip(i_ex, i_ap)])
    assert recall > 0.9, recall
    # the isolated rows (no shared term: no candidate) got the exact lists
    np.testing.assert_array_equal(np.sort(i_ap[:3], axis=1), np.sort(i_ex[:3], axis=1))
    Xd = X.toarray().astype(np.float64)
    true = np.linalg.norm(Xd[:, None, :] - Xd[i_ap], axis=2)
    np.testing.assert_allclose(d_ap, true, rtol=1e-5, atol=1e-6)
    for nj in (2, 3):
        d2, i2 = g.knn_search(X, k, method="approximate", n_jobs=nj)
        np.testing.assert_array_equal(i_ap, i2)
        np.testing.assert_array_equal(d_ap, d2)


def test_sparse_candidates_capped_posting_lists(monkeypatch):
    """The posting-list cap and the top-terms cut bound the work: with both
    at their smallest the lists are still valid (exact distances, sorted),
    and with no cut at all the search is exact."""
    import semisvm.graph as g

    X, _ = _topic_rows(n=400, dtype=np.float64)
    d_ex, i_ex = g.knn_search(X, 5, method="exact")
    monkeypatch.setattr(g, "SPARSE_TOP_TERMS", 1)
    monkeypatch.setattr(g, "SPARSE_POSTING_CAP", 3)
    d1, i1 = g.knn_search(X, 5, method="approximate")
    Xd = X.toarray()
    np.testing.assert_allclose(d1, np.linalg.norm(Xd[:, None] - Xd[i1], axis=2),
                               rtol=1e-10)
    assert np.all(np.diff(d1, axis=1) >= 0)
    monkeypatch.setattr(g, "SPARSE_TOP_TERMS", 10_000)
    monkeypatch.setattr(g, "SPARSE_POSTING_CAP", 10_000)
    monkeypatch.setattr(g, "SPARSE_CANDIDATES", 100)
    d2, i2 = g.knn_search(X, 5, method="approximate")
    np.testing.assert_allclose(d2, d_ex, rtol=1e-10)


def test_graph_nbytes_of_sparse_rows_counts_no_dense_index():
    """Sparse rows: the approximate search holds the posting lists and the
    candidate lists (about 9 GB for 1M x 50k text rows of 50 terms, float32),
    never an n x n_features index (200 GB); exact below its own switch."""
    import semisvm.graph as gmod

    n, nnz = 1_000_000, 50_000_000
    b = gmod.graph_nbytes(n, 10, 4, 50_000, nnz=nnz)
    assert b < 10 * 2**30 < gmod.graph_nbytes(n, 10, 4, 50_000)
    m = gmod.SPARSE_CANDIDATES * 11
    below = gmod.graph_nbytes(gmod.SPARSE_ANN_MIN_SAMPLES - 1, 10, 4, 50_000, nnz=50)
    at = gmod.graph_nbytes(gmod.SPARSE_ANN_MIN_SAMPLES, 10, 4, 50_000, nnz=50)
    assert at - below > gmod.SPARSE_ANN_MIN_SAMPLES * m * 20 > 0


@pytest.mark.parametrize("normalized", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_laplacian_without_checks_matches_the_checked_one(normalized, dtype):
    # the one-pass build for a KNNGraph's own affinity: the same matrix as
    # the checked build, exactly symmetric, in the affinity's dtype
    X = np.random.default_rng(3).normal(size=(60, 4)).astype(dtype)
    W = KNNGraph(n_neighbors=5).fit(X).affinity_for(X)
    fast = laplacian(W, normalized=normalized, check_input=False)
    ref = laplacian(W, normalized=normalized)
    assert fast.dtype == ref.dtype == W.dtype
    assert (fast != fast.T).nnz == 0
    # a KNNGraph's affinity is float32 for either input: both builds round
    # to float32 (the one-pass build from float64 sums)
    tol = 1e-7 if W.dtype == np.float32 else 1e-12
    np.testing.assert_allclose(fast.toarray(), ref.toarray(), atol=tol)
    # p > 1 keeps the checked product path
    np.testing.assert_allclose(
        laplacian(W, normalized=normalized, p=2, check_input=False).toarray(),
        laplacian(W, normalized=normalized, p=2).toarray(), atol=tol)


# ------------------------------------------------ exact search: ties by index
def _tied_rows(n=1500, d=20, dup=0, seed=1):
    """Small-integer rows (many exact distance ties); ``dup`` copies of row 0 make a
    run of ties longer than the search window."""
    X = np.random.default_rng(seed).integers(0, 5, size=(n, d)).astype(float)
    X[100:100 + dup] = X[0]
    return X


@pytest.mark.parametrize("dup", [0, 300])
def test_exact_search_breaks_ties_by_index_for_any_thread_count(dup, monkeypatch):
    """The same lists whatever the OpenMP thread count: with ties inside the
    window (dup=0: the (distance, index) order's first k) and with a run of ties
    longer than it (dup=300: those rows searched again on one thread)."""
    from sklearn.metrics import pairwise_distances
    from threadpoolctl import threadpool_limits

    import semisvm.graph as g

    X = _tied_rows(dup=dup)
    out = []
    for threads in (1, 2):
        with threadpool_limits(limits=threads, user_api="openmp"):
            out.append(g.knn_search(X, 10, method="exact", n_jobs=threads))
    assert np.array_equal(out[0][0], out[1][0])
    assert np.array_equal(out[0][1], out[1][1])
    D = pairwise_distances(X)
    np.fill_diagonal(D, np.inf)
    ref = np.lexsort((np.broadcast_to(np.arange(len(X)), D.shape), D), axis=1)[:, :10]
    # which side of the window: rows searched again only when ties outlast it
    Ds = np.sort(D, axis=1)
    long_runs = Ds[:, 10 + g.TIE_SLACK - 1] == Ds[:, 10 - 1]
    assert (~long_runs).any() and (long_runs.sum() > 250) == bool(dup)
    # within the window: the (distance, index) order; past it: exact distances
    assert np.array_equal(out[0][1][~long_runs], ref[~long_runs])
    np.testing.assert_allclose(out[0][0], np.take_along_axis(D, ref, axis=1), atol=1e-12)


def test_graph_estimator_same_bits_for_any_n_jobs_on_tied_rows():
    """LapRLS on rows with exact distance ties: the same decision values, bit for
    bit, for n_jobs=1 and n_jobs=2 (its graph search runs on n_jobs OpenMP
    threads)."""
    from semisvm import LapRLS

    X = _tied_rows()
    y = np.full(len(X), -1)
    y[:20] = (X[:20, 0] > 2).astype(int)
    y[0], y[1] = 0, 1
    dec = [LapRLS(safe=False, n_jobs=j).fit(X, y).decision_function(X) for j in (1, 2)]
    assert np.array_equal(dec[0], dec[1])


def _brute_cases():
    rng = np.random.default_rng(3)
    cont = rng.standard_normal((1200, 10))
    ties = rng.integers(0, 3, size=(900, 9)).astype(float)
    dups = rng.standard_normal((900, 12))
    dups[100:130] = dups[0]          # a run of duplicates longer than the window
    far = rng.standard_normal((900, 8)) * 1e6 + 1e7   # large norms, small gaps
    far32 = (rng.standard_normal((1200, 10)) + 100).astype(np.float32)
    binary = rng.integers(0, 2, size=(900, 12)).astype(float)
    return {"continuous": cont, "integer ties": ties, "duplicates": dups,
            "offset": far, "float32": cont.astype(np.float32),
            "float32 offset": far32, "binary": binary}


# the route each case takes: the brute force's candidates with none / some
# rows sent to the tree, or the tree for all rows (the probe's ties)
_BRUTE_ROUTES = {"integer ties": "tree", "binary": "tree", "duplicates": "some rows"}


@pytest.mark.parametrize("case", list(_brute_cases()))
def test_exact_search_brute_candidates_same_lists_both_sides(case, monkeypatch):
    """Between BRUTE_MIN_FEATURES and 15 features on at most BRUTE_MAX_ROWS
    rows the exact search takes the brute force's candidates with the k-d
    tree's distances: the same lists and distances, bit for bit, as the
    tree's search (the switch off), for continuous rows, integer and binary
    ties, duplicated rows, float32 and rows far from the origin; the rows
    without the certificate go to the tree, and the tree takes all rows
    where the probe's rows are mostly uncertified (the tied cases). Where
    this process's tree sums differently (fused multiply-adds), the path is
    off (:func:`semisvm.graph._brute_same_bits`)."""
    import semisvm.graph as g

    X = _brute_cases()[case]
    bits = g._brute_same_bits()         # (its own tree search, checked once)
    seen = {}
    real = g.NearestNeighbors

    def spy(*a, **kw):
        seen[kw.get("algorithm", "auto")] = seen.get(kw.get("algorithm", "auto"), 0) + 1
        return real(*a, **kw)

    monkeypatch.setattr(g, "NearestNeighbors", spy)
    real_search, probe_gave_up = g._brute_tree_search, []

    def search(*a):
        got = real_search(*a)
        probe_gave_up.append(got is None)
        return got

    monkeypatch.setattr(g, "_brute_tree_search", search)
    assert g._brute_candidates_apply(X, 10 + g.TIE_SLACK) == bits
    on = g.knn_search(X, 10, method="exact", n_jobs=1)
    on2 = g.knn_search(X, 10, method="exact", n_jobs=2)
    route = _BRUTE_ROUTES.get(case, "brute")
    assert probe_gave_up == ([route == "tree"] * 2 if bits else [])
    if not bits:
        assert set(seen) == {"auto"}
    elif route == "tree":                   # the probe, then the tree for all
        # (and the caller's one-thread searches of rows whose ties outlast
        # the window: "auto" too)
        assert seen.get("brute") == 2 and seen.get("auto", 0) >= 2
        assert "kd_tree" not in seen
    else:
        assert seen.get("brute") == 2
        # uncertified rows: the tree (only the duplicates)
        assert bool(seen.get("kd_tree")) == (route == "some rows")
        if route == "brute":
            assert "auto" not in seen
    monkeypatch.setattr(g, "BRUTE_MAX_ROWS", X.shape[0] - 1)
    assert not g._brute_candidates_apply(X, 10 + g.TIE_SLACK)
    seen.clear()
    off = g.knn_search(X, 10, method="exact", n_jobs=1)
    assert set(seen) == {"auto"}
    for a in (on, on2):
        assert a[0].dtype == off[0].dtype
        assert np.array_equal(a[0], off[0]) and np.array_equal(a[1], off[1])


def test_brute_candidates_off_where_the_tree_sums_differently(monkeypatch):
    """The first use in a process compares the recomputed distances with the
    k-d tree's: any bit different (as with a tree compiled with fused
    multiply-adds, faked here a few ulps off) turns the brute-force candidates
    off, and the exact search is the tree's."""
    from sklearn.neighbors import NearestNeighbors

    import semisvm.graph as g

    X = _brute_cases()["continuous"]
    real = g._squared_distances
    monkeypatch.setattr(g, "_BRUTE_BITS", [])
    monkeypatch.setattr(g, "_squared_distances",
                        lambda *a: real(*a) * (1 + 1e-15))
    assert not g._brute_same_bits()
    assert not g._brute_candidates_apply(X, 10 + g.TIE_SLACK)
    taken = []
    monkeypatch.setattr(g, "_brute_tree_search", lambda *a: taken.append(a))
    got = g.knn_search(X, 10, method="exact", n_jobs=1)
    assert taken == []
    nn = NearestNeighbors(n_neighbors=10, algorithm="kd_tree").fit(X)
    dist, ind = nn.kneighbors(None)
    assert np.array_equal(got[0], dist) and np.array_equal(got[1], ind)


def test_brute_candidates_rule_both_sides():
    """The switch's sides: features (below BRUTE_MIN_FEATURES, above 15),
    rows (above BRUTE_MAX_ROWS), sparse rows, and q too large for the tree."""
    import scipy.sparse as sp

    import semisvm.graph as g

    X = np.zeros((1000, g.BRUTE_MIN_FEATURES))
    assert g._brute_candidates_apply(X, 18)
    assert not g._brute_candidates_apply(np.zeros((1000, g.BRUTE_MIN_FEATURES - 1)), 18)
    assert g._brute_candidates_apply(np.zeros((1000, 15)), 18)
    assert not g._brute_candidates_apply(np.zeros((1000, 16)), 18)
    assert g._brute_candidates_apply(np.zeros((g.BRUTE_MAX_ROWS, 10)), 18)
    assert not g._brute_candidates_apply(np.zeros((g.BRUTE_MAX_ROWS + 1, 10)), 18)
    assert not g._brute_candidates_apply(sp.csr_matrix(X), 18)
    assert not g._brute_candidates_apply(np.zeros((40, 10)), 18)
