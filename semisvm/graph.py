"""kNN graphs and graph Laplacians over labeled + unlabeled points (CSR).

Shared by the manifold (LapSVM / LapRLS) and graph (TV / Cheeger) families.
Everything is a ``scipy.sparse.csr_matrix`` with int32 indices, in X's dtype.

- :class:`KNNGraph`: the affinity below as an object, built once over X and
  shared by every class, fold, grid point and refit (``graph=`` of the
  estimators); it can tell whether it was built on a given X and derives
  the graph of a subset of its rows (a cross-validation fold) from its
  stored neighbour lists.
- :func:`knn_affinity`: symmetrised k-nearest-neighbour affinity ``W``
  (Euclidean distance; exact by scikit-learn's ``NearestNeighbors`` up to
  ``ANN_MIN_SAMPLES`` points, approximate above by usearch's HNSW index,
  a core dependency chosen by measurement (``bench/bench_graph_index.py``);
  sparse rows from ``SPARSE_ANN_MIN_SAMPLES`` on by candidates from shared
  terms re-ranked by their exact distances, see :func:`knn_search`). An
  edge i-j is
  kept when j is among the k nearest neighbours of i *or* i among those of j
  (``W = max(W, W.T)``). Weights are heat ``exp(-d^2 / (2 t^2))`` with ``t``
  the mean distance of the kNN edges by default, or binary (1 on every edge).
- :func:`laplacian`: ``L = D - W`` (unnormalised) or
  ``I - D^-1/2 W D^-1/2`` (normalised; isolated vertices get ``L_ii = 0``),
  raised to the integer power ``p`` (iterated Laplacian, Belkin et al. 2006).
- :func:`kernel_distances`: the distances a kernel induces, for graphs
  over a precomputed Gram matrix.
- :func:`neighbors_affinity`: the same affinity from kNN lists computed
  elsewhere (e.g. by :func:`semisvm.kernels.kernel_matrix` while it builds
  the Gram matrix, which saves a second pass over all pairs).
- :func:`intrinsic_dimension`: the Levina-Bickel maximum-likelihood estimate
  of the data's intrinsic dimension from the kNN distances (used to pick the
  Laplacian's power ``p`` automatically).
- :func:`graph_laplacian`: both in one call, from points or from a
  user-given affinity matrix (validated: square, symmetric, non-negative,
  finite).
"""
from __future__ import annotations

import collections

import numpy as np
import scipy.sparse as sp
from sklearn.neighbors import NearestNeighbors

from semisvm._rows import n_threads
from semisvm._threads import limit_api
from semisvm._validation import (
    as_csr32,
    check_int,
    check_positive,
    check_sparse_structure,
    check_symmetric,
    check_X,
)

__all__ = ["knn_affinity", "knn_search", "laplacian", "graph_laplacian",
           "check_affinity", "kernel_distances", "intrinsic_dimension",
           "neighbors_affinity", "graph_nbytes", "KNNGraph", "ANN_MIN_SAMPLES",
           "SPARSE_ANN_MIN_SAMPLES", "SPARE_NEIGHBORS"]

#: ``method="auto"`` searches the k nearest neighbours approximately (usearch's
#: HNSW index) from this many dense points on, exactly below. At 50,000
#: points x 50 dense features the exact brute-force search costs 2.5e9
#: distance evaluations (about 10-20 s on one core) and grows as n^2; the
#: HNSW index's recall at k = 10 is about 0.96 on such data with the
#: settings below (0.99+ with costlier ones that gave the same LapSVM error;
#: tests/test_graph.py checks it on a small set) for a cost that grows
#: about as n log n.
ANN_MIN_SAMPLES = 50_000
#: the same switch for sparse rows, whose exact search (scikit-learn's brute
#: force over sparse products) grows faster: on bench/_text_like.py's rows
#: (50 terms of 50,000 a row) 0.5 s at 5,000 rows and 8.6 s at 20,000 on one
#: core, against 0.2 s and 0.8 s for the approximate search (recall@10 0.69
#: and 0.72, its 10th neighbour 0.2-0.3 % farther on average)
SPARSE_ANN_MIN_SAMPLES = 10_000


def graph_nbytes(n, n_neighbors, itemsize=8, n_features=0, nnz=None):
    """Bytes a kNN graph over ``n`` points holds at the peak of its build.

    The (n, k) distance and index lists, the symmetrised affinity (up to
    2 n k edges, value and int32 index) and the copies its symmetrisation
    and Laplacian make (four in all), and, from :data:`ANN_MIN_SAMPLES`
    points on, the approximate index (a float32 copy of the points and
    its neighbour links, the points' copy in locality order and the
    index's own copy of them). Used by the memory checks of the estimators.

    Parameters
    ----------
    n : int
        Number of points.
    n_neighbors : int
        k.
    itemsize : int, default=8
        Bytes per weight (4: float32, 8: float64).
    n_features : int, default=0
        Dimension of the points (for the approximate index).
    nnz : int or None, default=None
        Stored entries of sparse points: the approximate search of sparse
        rows holds their transpose (the posting lists, twice), the
        candidate lists and the exact distances to them, not a dense index.

    Returns
    -------
    int
        The estimate in bytes.

    See Also
    --------
    KNNGraph : The graph whose build this estimates.

    Examples
    --------
    >>> from semisvm.graph import graph_nbytes
    >>> graph_nbytes(1000, 10) / 2**20 < 2
    True
    """
    n, k = int(n), int(n_neighbors)
    lists = n * k * 16
    edges = 4 * 2 * n * k * (int(itemsize) + 4) + 4 * (n + 1) * 8
    if nnz is not None:
        m = SPARSE_CANDIDATES * (k + 1)
        index = (2 * int(nnz) * (int(itemsize) + 4) + n * m * (4 + 8 + 8)
                 if n >= SPARSE_ANN_MIN_SAMPLES else 0)
        return lists + edges + index
    # float32 copies of the points in row and in locality order, the
    # index's own copy of them, the links
    index = (n * (12 * int(n_features) + 2 * HNSW_M * 8 + 64)
             if n >= ANN_MIN_SAMPLES else 0)
    # more than one HNSW chunk: each merge holds both chunks' lists, their
    # concatenation and its argsort (about 72 bytes per candidate) at once
    merge = 72 * n * (k + 1) if n >= ANN_MIN_SAMPLES and n > HNSW_CHUNK else 0
    return lists + edges + index + merge


def knn_search(X, n_neighbors, *, method="auto", random_state=0, n_jobs=None):
    """The k nearest neighbours of every row of ``X`` (itself excluded).

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n, n_features)
    n_neighbors : int, 1 <= n_neighbors < n
    method : {"auto", "exact", "approximate", "nndescent"}, default="auto"
        ``"exact"``: scikit-learn's ``NearestNeighbors`` (Euclidean).
        ``"approximate"``: for dense ``X`` a hierarchical navigable
        small-world graph (HNSW, usearch's ``Index``, a core dependency;
        chosen by measurement, see ``bench/bench_graph_index.py``), one
        index per chunk of rows (ceil(n / ``HNSW_CHUNK``) chunks of equal
        size), each built with one thread (the
        chunks on ``n_jobs`` threads, their lists merged by distance: the
        same lists for any ``n_jobs``), searched with ``n_jobs`` threads,
        on a float32 copy of ``X``, the rows inserted and searched in a
        locality order (a k-d split, see ``HNSW_LEAF``); for sparse ``X``
        (the index holds dense vectors) candidates from shared terms,
        re-ranked by their exact distances (see :data:`SPARSE_TOP_TERMS`;
        X is not densified; the same lists for any ``n_jobs``). ``"nndescent"``:
        pynndescent's NN-descent (the optional extra ``pip install
        semisvm[ann]``; it compiles its numba kernels in each new process,
        tens of seconds; dense or CSR).
        ``"auto"``: exact below :data:`ANN_MIN_SAMPLES` dense points (or
        :data:`SPARSE_ANN_MIN_SAMPLES` sparse ones), ``"approximate"``
        from there on.
    random_state : int, default=0
        Seed of NN-descent. The HNSW index is deterministic without one:
        same input (and any ``n_jobs``) -> same neighbours.
    n_jobs : int or None, default=None
        Threads of the search (scikit-learn's convention: None is 1, -1 all
        cores). An HNSW index is built (its rows inserted) on one thread: up
        to ``HNSW_CHUNK`` rows (1,000,000) that is one index, so only the
        search and, above it, the chunks' builds use ``n_jobs``.

    Returns
    -------
    dist, ind : ndarrays of shape (n, k)
        Sorted distances (X's float dtype) and indices (int32) of the k
        nearest neighbours of each row.

    See Also
    --------
    knn_affinity : The symmetric kNN affinity built from these neighbours.
    KNNGraph : The affinity as a reusable object.
    sklearn.neighbors.NearestNeighbors : The exact search.

    Examples
    --------
    >>> import numpy as np
    >>> from semisvm.graph import knn_search
    >>> X = np.array([[0.0], [1.0], [3.0], [7.0]])
    >>> dist, ind = knn_search(X, 1, method="exact")
    >>> ind.ravel().tolist(), dist.ravel().tolist()
    ([1, 0, 1, 2], [1.0, 1.0, 2.0, 4.0])
    """
    X = check_X(X)
    n = X.shape[0]
    k = check_int(n_neighbors, "n_neighbors")
    if k >= n:
        raise ValueError(
            f"n_neighbors={k} must be smaller than the number of points n={n}")
    if method not in ("auto", "exact", "approximate", "nndescent"):
        raise ValueError("method must be 'auto', 'exact', 'approximate' or "
                         f"'nndescent', got {method!r}")
    threads = n_threads(n_jobs)
    method = _resolve_method(method, X)
    if method == "exact" or k + 1 >= n:
        dist, ind = _exact_search(X, k, threads)
        return dist.astype(X.dtype, copy=False), ind.astype(np.int32)
    if method == "approximate":
        if sp.issparse(X):
            return _sparse_token_search(X, k, threads=threads)
        return _hnsw_search(X, k, random_state=random_state, threads=threads)
    try:
        from pynndescent import NNDescent
    except ImportError as exc:  # pragma: no cover - the test extra has it
        raise ImportError(
            "method='nndescent' needs pynndescent: pip install semisvm[ann]"
        ) from exc
    index = NNDescent(X, n_neighbors=k + 1, metric="euclidean",
                      random_state=(None if random_state is None
                                    else int(random_state)), low_memory=True,
                      compressed=True, n_jobs=threads)
    ind, dist = index.neighbor_graph
    del index
    return _drop_self(np.asarray(ind), np.asarray(dist), k, X.dtype)


#: HNSW parameters of ``method="approximate"`` (usearch's ``Index``): links
#: per point (connectivity), candidate list of the insertion and of the
#: search (at least k + 1). Chosen on the manifold scale benchmark's 100,000
#: x 50 points (bench/bench_manifold_scale.py's problem, searching the 16
#: neighbours KNNGraph keeps, recall@10 on 1,000 rows), rows in row order:
#: M=16 / 64 / 64 took 21 CPU s for recall 0.998, M=12 / 24 / 24 8 CPU s
#: for recall 0.938 (M=16 / 32 / 32: 17 s, 0.982; M=8 / 32 / 24: 12 s,
#: 0.924); LapSVM's error on the unlabeled rows was 1.76-1.77 % with each
#: of them. With the locality order (:data:`HNSW_LEAF`) a longer insertion
#: list costs little (the candidates it visits are in cache): k = 10,
#: recall@10 on 20,000 rows against the exact lists, best CPU s of two runs
#: at load 6-9: M=12 / 24 / 24 5.8 s, 0.939 (row order: 12.1 s, 0.941);
#: M=12 / 32 / 24 6.1 s, 0.964; 12 / 40 / 24 8.3 s, 0.974; 12 / 32 / 28
#: 6.8 s, 0.970; 16 / 32 / 24 6.5 s, 0.971; 10 / 32 / 24 6.9 s, 0.952.
HNSW_M = 12
HNSW_EF_CONSTRUCTION = 32
HNSW_EF_SEARCH = 24
#: the search's candidate list in an index of more than
#: :data:`HNSW_LARGE_INDEX` rows: recall@10 falls with the index's size at
#: a fixed list (one index of 1,000,000 x 50 points, the TV scale problem,
#: 2,000 rows against the exact lists, CPU s of insertion + search on two
#: threads, load 4-6: ef 24 0.890, 171 s; ef 36 0.921, 192 s; ef 48 0.942,
#: 223 s; four indexes of 250,000 rows, every row searched in each, ef 24:
#: 0.947, 266 s at load 9). 48 keeps the chunked search's recall: with 36
#: the 1M TVRLS error rose from 1.32 % to 1.74 % (662 CPU s)
HNSW_EF_SEARCH_LARGE = 48
#: indexes of more rows than this search with :data:`HNSW_EF_SEARCH_LARGE`
HNSW_LARGE_INDEX = 250_000


#: ``method="approximate"`` builds one HNSW index per chunk of this many
#: rows at most (fixed by n alone: ceil(n / HNSW_CHUNK) chunks of equal
#: size, to a row, of consecutive rows, so 1,000,001 rows make two chunks of
#: 500,000 and 500,001 rows rather than one of 1,000,000 and one of 1), the
#: chunks' indexes side by side in ``n_jobs`` threads, each with one-thread
#: insertion, so the lists are the same for any thread count; every row is
#: then searched in each chunk's index and the lists merged by distance
#: (ties: the lower chunk first). Below it, one index. Chunks cost CPU: a
#: chunk holds about as many of a row's neighbours as any other, so every
#: row is searched in every index. On 1,000,000 x 50 points (the TV scale
#: problem, two threads) four chunks of 250,000 rows took 59 CPU s of
#: insertion and 201 s of searches (4,000,000 of them); one index 86 s and
#: 82 s (ef 24; see :data:`HNSW_EF_SEARCH_LARGE`). Chunks buy wall time only
#: where many cores insert them side by side. (Cells of the k-d split instead
#: of row ranges, each row searched in the cells near enough to hold a
#: nearer point, were tried: 4 cells of 250,000 rows, 270 CPU s, recall
#: 0.914 - a cell of the split still left about two other cells to search
#: per row at this dimension.)
HNSW_CHUNK = 1_000_000

#: ``method="approximate"`` inserts and searches the rows in a locality
#: order: the leaves (at most this many rows) of a k-d split of the rows
#: (see :func:`_locality_order`), so that the points an insertion or a
#: search visits one after the other lie close in memory and stay in cache.
#: The lists are a function of X alone as before (the order is). On the
#: manifold scale benchmark's 100,000 x 50 points (float32 index, M=12,
#: ef 24/24, one thread, the best of three runs at load 8-9): insertion
#: 6.3 -> 2.8 CPU s, search 5.9 -> 3.1 CPU s (the order 0.3 s), recall@10
#: 0.939 -> 0.942 on 2,000 rows against the exact lists; leaves of 256 rows:
#: 5.4 s in all but recall 0.938, leaves of 4,096: 6.1 s, 0.941. Searching in
#: that order alone (insertion in row order) gives the same lists as the
#: row order, 25-45 % faster.
HNSW_LEAF = 1024


def _locality_order(X, leaf):
    """The rows of X grouped by a k-d split, as one permutation.

    A node of more than ``leaf`` rows is halved at the median of its widest
    column (the largest variance over evenly spaced rows, at most 8,191, of
    the node, in float64; ties of values by row position), the lower half
    first. NumPy alone, no BLAS or threads: the same order for any
    ``n_jobs``. O(n d log(n / leaf)).
    """
    n = X.shape[0]
    out = []
    stack = [np.arange(n, dtype=np.intp)]
    while stack:
        idx = stack.pop()
        if idx.size <= leaf:
            out.append(idx)
            continue
        sample = X[idx[::max(1, idx.size // 4096)]]
        c = int(np.argmax(np.var(sample, axis=0, dtype=np.float64)))
        o = np.argsort(X[idx, c], kind="stable")
        h = idx.size // 2
        stack.append(idx[o[h:]])
        stack.append(idx[o[:h]])
    return np.concatenate(out) if out else np.arange(n, dtype=np.intp)


def _hnsw_index(rows, V, q):
    """An HNSW index holding the points ``V`` under the keys ``rows``,
    inserted in that order on one thread (the search's candidate list
    :data:`HNSW_EF_SEARCH`, :data:`HNSW_EF_SEARCH_LARGE` above
    :data:`HNSW_LARGE_INDEX` points)."""
    from usearch.index import Index

    ef = HNSW_EF_SEARCH_LARGE if V.shape[0] > HNSW_LARGE_INDEX else HNSW_EF_SEARCH
    index = Index(ndim=V.shape[1], metric="l2sq", dtype="f32",
                  connectivity=HNSW_M, expansion_add=HNSW_EF_CONSTRUCTION,
                  expansion_search=max(ef, q))
    index.add(rows.astype(np.uint64), V, threads=1)
    return index


def _hnsw_search(X, k, *, random_state=0, threads=1):
    """kNN lists by usearch's HNSW index: one-thread insertion in the
    locality order of :func:`_locality_order` per chunk of consecutive rows
    (ceil(n / :data:`HNSW_CHUNK`) chunks of equal size, to a row; the graph
    is then a function of the input
    alone: ``random_state`` does not enter), ``threads`` threads for the
    chunks' builds and the search (each query independent: the same lists
    for any thread count; the queries in the same locality order). usearch
    runs its own threads (no OpenMP runtime beside scikit-learn's and
    semisvm's)."""
    del random_state            # the index is deterministic as built
    X32 = np.ascontiguousarray(X, dtype=np.float32)
    n = X32.shape[0]
    q = k + 1
    order = _locality_order(X32, HNSW_LEAF)
    Xo = X32[order]                       # the queries, in the locality order
    c = -(-n // HNSW_CHUNK)               # chunks of equal size (to a row)
    bounds = [(i * n // c, (i + 1) * n // c) for i in range(c)]

    def build(b):
        if len(bounds) == 1:
            return _hnsw_index(order, Xo, q)
        mine = (order >= b[0]) & (order < b[1])
        return _hnsw_index(order[mine], Xo[mine], q)

    threads = int(threads)
    if len(bounds) > 1 and threads > 1:
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(min(threads, len(bounds))) as pool:
            indexes = list(pool.map(build, bounds))
    else:
        indexes = [build(b) for b in bounds]
    D = ind = None
    for (start, stop), index in zip(bounds, indexes):
        m = min(q, stop - start)
        found = index.search(Xo, m, threads=threads)
        Ic = np.asarray(found.keys).astype(np.int64).reshape(n, -1)[:, :m]
        Dc = np.asarray(found.distances, dtype=np.float32).reshape(n, -1)[:, :m].copy()
        counts = np.asarray(found.counts).reshape(-1)
        Dc[np.arange(m)[None, :] >= counts[:, None]] = np.inf
        del found
        if D is None:
            D, ind = Dc, Ic
            continue
        # merge by distance, the earlier chunks first among ties
        Dm = np.concatenate([D, Dc], axis=1)
        Im = np.concatenate([ind, Ic], axis=1)
        pick = np.argsort(Dm, axis=1, kind="stable")[:, :q]
        D = np.take_along_axis(Dm, pick, axis=1)
        ind = np.take_along_axis(Im, pick, axis=1)
    del indexes
    # back to row order
    D_rows, ind_rows = np.empty_like(D), np.empty_like(ind)
    D_rows[order], ind_rows[order] = D, ind
    D, ind = D_rows, ind_rows
    bad = np.flatnonzero(~np.isfinite(D[:, -1])) if D.shape[1] == q else np.arange(n)
    if bad.size:
        # a query that found fewer than k + 1 points: exact for that row
        if D.shape[1] < q:
            D = np.pad(D, ((0, 0), (0, q - D.shape[1])), constant_values=np.inf)
            ind = np.pad(ind, ((0, 0), (0, q - ind.shape[1])))
        nn = NearestNeighbors(n_neighbors=q).fit(X32)
        db, ib = nn.kneighbors(X32[bad], return_distance=True)
        D[bad], ind[bad] = db * db, ib
    dist = np.sqrt(np.maximum(D, 0, out=D), out=D)
    return _drop_self(ind, dist, k, X.dtype)


#: sparse ``X``, ``method="approximate"``: candidates from shared tokens.
#: Each row's ``SPARSE_TOP_TERMS`` largest entries (by absolute value; for
#: tf-idf rows, its rarest terms) are looked up in the columns' posting
#: lists, each list cut to its ``SPARSE_POSTING_CAP`` largest entries (ties:
#: the lower row); the rows found are scored by the partial inner product
#: over those terms, the best ``SPARSE_CANDIDATES * (k + 1)`` of them are
#: re-ranked by their exact Euclidean distances (a merge of the two sparse
#: rows, on ``n_jobs`` threads), and a row with fewer than k candidates is
#: searched exactly. O(n * SPARSE_TOP_TERMS * SPARSE_POSTING_CAP) at most:
#: linear in n, X never densified. A dense random-projection sketch fed to
#: the HNSW index was tried first and dropped: on text-like rows (tf-idf,
#: L2-normalised) the nearest neighbours are only a few percent closer
#: than a random row, and a 64- or 256-dimensional sketch found 2-9 % of
#: the exact lists (bench/RESULTS.md, "Sparse rows: the kNN graph at scale").
SPARSE_TOP_TERMS = 10
SPARSE_POSTING_CAP = 500
SPARSE_CANDIDATES = 4


def _sparse_token_search(X, k, *, threads=1):
    """kNN lists of CSR rows from shared-term candidates (see above): the
    same lists for any ``threads``."""
    from semisvm._core._lapsvm import (
        csr_pair_sqdist,
        csr_top_entries,
        sparse_candidates,
    )

    X = sp.csr_matrix(X)
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()          # sorted, unique column indices
    n = X.shape[0]
    threads = int(threads)
    indptr = X.indptr.astype(np.int64)
    indices = X.indices.astype(np.int32, copy=False)
    # each row's largest terms
    top = csr_top_entries(indptr, indices, X.data, SPARSE_TOP_TERMS, threads)
    kept = np.r_[0, np.cumsum(top, dtype=np.int64)]
    Xt = sp.csr_matrix((X.data[top], indices[top], kept[indptr]), shape=X.shape)
    # the posting lists, each cut to its largest entries
    C = X.T.tocsr()                 # (d, n): column j's rows, sorted
    C.sort_indices()
    cptr = C.indptr.astype(np.int64)
    keep = csr_top_entries(cptr, C.indices.astype(np.int32, copy=False), C.data,
                           SPARSE_POSTING_CAP, threads)
    P = sp.csr_matrix((C.data[keep], C.indices[keep],
                       np.r_[0, np.cumsum(np.minimum(np.diff(cptr),
                                                     SPARSE_POSTING_CAP))]),
                      shape=C.shape)
    del C, keep
    M = min(n - 1, SPARSE_CANDIDATES * (k + 1))
    cand = sparse_candidates(Xt.indptr.astype(np.int64),
                             Xt.indices.astype(np.int32, copy=False), Xt.data,
                             P.indptr.astype(np.int64),
                             P.indices.astype(np.int32, copy=False), P.data, M,
                             threads)
    del Xt, P
    D2 = csr_pair_sqdist(indptr, indices, X.data, cand, threads)
    order = np.argsort(D2, axis=1, kind="stable")[:, :k]
    ind = np.take_along_axis(cand, order, axis=1)
    D2 = np.take_along_axis(D2, order, axis=1)
    short = np.flatnonzero(~np.isfinite(D2[:, -1]))
    if short.size:
        # fewer than k candidates: an exact search for those rows
        db, ib = _one_thread_rows(X, short, k)
        D2[short], ind[short] = db * db, ib
    dist = np.sqrt(np.maximum(D2, 0))
    return dist.astype(X.dtype, copy=False), ind.astype(np.int32)


# the exact search asks for this many neighbours beyond k to see the whole run
# of ties at the k-th distance
TIE_SLACK = 8


def _exact_search(X, k, threads):
    """Exact kNN lists of X's rows (each row's own index left out), ties at equal
    distances broken by the smaller index.

    scikit-learn's brute-force search keeps whichever of several equally near
    points its OpenMP threads meet first, so on data with exact ties (integer
    features, duplicated rows) the lists changed with the thread count. Here
    the search runs on ``threads`` OpenMP threads for ``k + TIE_SLACK``
    neighbours and each list is ordered by (distance, index); a row whose
    k-th distance is still tied at the end of that window (a point with many
    duplicates) is searched again on one OpenMP thread (:func:`_one_thread_rows`):
    the same lists, bit for bit, for any thread count. Where scikit-learn
    would take its k-d tree and its brute force is cheaper
    (:func:`_brute_candidates_apply`), the window comes from the brute
    force's candidates with the tree's distances (:func:`_brute_tree_search`:
    the same lists and bits as the tree's; the tree itself where a sample of
    rows shows the candidates mostly uncertified).
    """
    n = X.shape[0]
    q = min(n - 1, k + TIE_SLACK)
    got = _brute_tree_search(X, q, threads) if _brute_candidates_apply(X, q) else None
    if got is not None:
        dist, ind = got
    else:
        with limit_api(threads, "openmp"):
            nn = NearestNeighbors(n_neighbors=q).fit(X)
            dist, ind = nn.kneighbors(None, return_distance=True)
    order = np.lexsort((ind, dist), axis=1)
    dist = np.take_along_axis(dist, order, axis=1)
    ind = np.take_along_axis(ind, order, axis=1)
    # a run of ties at the k-th distance that may go on past the window
    again = np.flatnonzero(dist[:, k - 1] == dist[:, -1]) if q < n - 1 else []
    dist, ind = dist[:, :k].copy(), ind[:, :k].copy()
    if len(again):
        dist[again], ind[again] = _one_thread_rows(X, again, k)
    return dist, ind


# The exact search's k-d tree (scikit-learn's choice for at most 15 dense
# features) against its brute force: on 5,000 rows of 10 informative
# features, 23 neighbours, one thread, 0.27-0.38 s against 0.11-0.17 s; the
# tree wins below about 8 features (5,000 x 5: 0.08 against 0.11 s) and the
# brute force costs n^2 (10,000 x 10: 0.79 against 0.38 s; 20,000 x 5:
# 0.27 against 1.27 s). Between BRUTE_MIN_FEATURES and 15 features on at
# most BRUTE_MAX_ROWS rows the lists come from the brute force with the
# tree's distances (:func:`_brute_tree_search`): the same lists and bits.
BRUTE_MIN_FEATURES = 8
BRUTE_MAX_ROWS = 10_000
# candidates beyond the q asked for, and the bound on the brute force's
# error in a squared distance relative to ||x||^2 + max ||x'||^2 of the
# centred rows it searches: its ||x||^2 - 2 <x, x'> + ||x'||^2 in float64
# errs by ~(d + 3) 1.1e-16 of it; for float32 rows (float32 products at
# worst, ~(d + 3) 6e-8, d <= 15) plus the centred rows' rounding to float32
# (each coordinate by 6e-8 of itself: ~5e-7 of the sum) and the distances
# returned in float32 (~2.4e-7): ~2.4e-6, within BRUTE_REL_ERR_32
BRUTE_EXTRA = 4
BRUTE_REL_ERR = 1e-12
BRUTE_REL_ERR_32 = 1e-5
# the candidates are first certified on this many rows (evenly spaced); where
# more than BRUTE_PROBE_MAX_BAD of them are not (ties at the q-th distance:
# integer or binary features), the tree searches all rows (brute force plus
# the tree on 80-95 % of the rows cost 1.15-1.35x the tree alone: integers
# 0-2 on 5,000 x 9, binary 5,000 x 12)
BRUTE_PROBE_ROWS = 64
BRUTE_PROBE_MAX_BAD = 0.5
# whether the recomputed distances are the tree's to the bit in this process
# (checked at first use, see _brute_same_bits)
_BRUTE_BITS = []


def _brute_candidates_apply(X, q):
    """Whether :func:`_exact_search` takes :func:`_brute_tree_search` for q
    neighbours: dense rows of ``BRUTE_MIN_FEATURES`` to 15 features (where
    scikit-learn's search would take its k-d tree), at most
    ``BRUTE_MAX_ROWS`` of them, q + ``BRUTE_EXTRA`` below half of them, and
    the distances recomputed as the tree's, bit for bit, in this process
    (:func:`_brute_same_bits`)."""
    n, d = X.shape
    return (not sp.issparse(X) and BRUTE_MIN_FEATURES <= d <= 15
            and n <= BRUTE_MAX_ROWS and q + BRUTE_EXTRA + 1 < n // 2
            and _brute_same_bits())


def _brute_same_bits():
    """Whether :func:`_squared_distances` gives scikit-learn's k-d tree's
    distances to the bit: checked once per process on fixed float64 and
    float32 rows (256 x 12, 8 neighbours of 16 of them). A compiled tree
    whose sums are contracted into fused multiply-adds (some arm64 builds)
    differs in the last bit; the exact search then keeps the tree."""
    if not _BRUTE_BITS:
        rng = np.random.default_rng(0)
        A = rng.standard_normal((256, 12))
        rows = np.arange(0, 256, 16)
        ok = True
        for Xs in (A, A.astype(np.float32)):
            with limit_api(1, "openmp"):
                nn = NearestNeighbors(n_neighbors=8, algorithm="kd_tree").fit(Xs)
                db, ib = nn.kneighbors(Xs[rows], return_distance=True)
            r2 = _squared_distances(np.asarray(Xs, dtype=np.float64), rows, ib)
            ok = ok and np.array_equal(np.sqrt(r2), db)
        _BRUTE_BITS.append(bool(ok))
    return _BRUTE_BITS[0]


def _squared_distances(X64, rows, cand):
    """Squared distances of X64[rows] to X64[cand] (rows: an index array or
    a slice; cand: (len(rows), m)) as scikit-learn's k-d tree sums them:
    the squared differences added feature by feature, in float64."""
    r2 = np.zeros(cand.shape)
    for j in range(X64.shape[1]):
        col = X64[:, j]
        t = col[cand] - col[rows, None]
        r2 += t * t
    return r2


def _brute_tree_search(X, q, threads):
    """The q nearest neighbours of every row of X (its own index left out)
    as scikit-learn's k-d tree finds them, from its brute force; None where
    a sample of rows shows the brute force's candidates mostly uncertified
    (the caller then takes the tree).

    The brute force (``threads`` OpenMP threads) searches the centred rows
    (X less its column means: the same distances, with smaller norms, so a
    smaller bound on its error) and proposes q + ``BRUTE_EXTRA`` candidates
    by its GEMM distances; their distances are then computed from X as the
    tree computes them (float64, the squared differences summed feature by
    feature, then the square root: the same bits). A row's candidates hold
    its q nearest when the farthest candidate's brute-force distance, less
    the bound on its error (``BRUTE_REL_ERR``), is beyond the q-th exact
    one: then the sorted distances' first q are the tree's, and any ties
    among them are ordered by the caller. First ``BRUTE_PROBE_ROWS`` evenly
    spaced rows are certified so; where more than ``BRUTE_PROBE_MAX_BAD``
    of them fail, None. Rows without that certificate, or with a zero
    distance (duplicated rows, whose self-removal the tree decides), are
    searched by the tree (:func:`_tree_rows`). Returns (dist, ind) of shape
    (n, q), each row sorted by distance (ties in any order).
    """
    n = X.shape[0]
    q2 = q + BRUTE_EXTRA
    X64 = np.asarray(X, dtype=np.float64)
    C = X64 - X64.mean(axis=0)
    if X.dtype != np.float64:
        C = C.astype(X.dtype)
    Cs = np.asarray(C, dtype=np.float64)
    sq = np.einsum("ij,ij->i", Cs, Cs)
    # float32 rows: the brute force's products (and distances) may be
    # float32 ones
    rel = BRUTE_REL_ERR if X.dtype == np.float64 else BRUTE_REL_ERR_32
    err = rel * (sq + sq.max(initial=0.0))
    probe = np.unique(np.linspace(0, n - 1, min(n, BRUTE_PROBE_ROWS)).astype(np.intp))
    with limit_api(threads, "openmp"):
        nn = NearestNeighbors(n_neighbors=q2, algorithm="brute").fit(C)
        # (each probe row finds itself too: q + 1 and q2 + 1 with it)
        dp, cp = nn.kneighbors(C[probe], n_neighbors=q2 + 1, return_distance=True)
    r2p = np.sort(_squared_distances(X64, probe, cp), axis=1)
    far = dp[:, -1].astype(np.float64) ** 2
    bad = (far - err[probe] <= r2p[:, q]) | (r2p[:, 1] == 0)
    if bad.mean() > BRUTE_PROBE_MAX_BAD:
        return None
    with limit_api(threads, "openmp"):
        dapp, cand = nn.kneighbors(None, return_distance=True)
    r2 = _squared_distances(X64, slice(None), cand)
    order = np.argsort(r2, axis=1, kind="stable")
    r2 = np.take_along_axis(r2, order, axis=1)
    cand = np.take_along_axis(cand, order, axis=1)
    far = dapp[:, -1].astype(np.float64) ** 2
    bad = np.flatnonzero((far - err <= r2[:, q - 1]) | (r2[:, 0] == 0)
                         | np.any(cand == np.arange(n)[:, None], axis=1))
    dist = np.sqrt(r2[:, :q])
    ind = cand[:, :q]
    if bad.size:
        dist[bad], ind[bad] = _tree_rows(X, bad, q, threads)
    return dist, ind


def _tree_rows(X, rows, q, threads):
    """The q nearest neighbours of X[rows] (their own index left out) from
    scikit-learn's k-d tree, as its ``kneighbors(None)`` removes them."""
    with limit_api(threads, "openmp"):
        nn = NearestNeighbors(n_neighbors=q + 1, algorithm="kd_tree").fit(X)
        db, ib = nn.kneighbors(X[rows], return_distance=True)
    keep = ib != rows[:, None]
    # the tree's own self-removal (kneighbors(None)): the row itself, or
    # the first column where it is not among the q + 1 (duplicates)
    keep[keep.all(axis=1), 0] = False
    return db[keep].reshape(rows.size, q), ib[keep].reshape(rows.size, q)


def _one_thread_rows(X, rows, k):
    """The exact kNN lists of the given rows (their own index left out) from
    scikit-learn's search on one OpenMP thread, which keeps one fixed choice
    among equally near points, whatever the caller's thread count (used where
    ties outlast the (distance, index) window: many duplicated rows)."""
    with limit_api(1, "openmp"):
        nn = NearestNeighbors(n_neighbors=k + 1).fit(X)
        db, ib = nn.kneighbors(X[rows], return_distance=True)
    return _drop_self_rows(ib, db, rows, k)


def _resolve_method(method, X):
    """"auto" and "approximate" made concrete for X: the HNSW index for
    dense X, NN-descent for sparse X (the index holds dense vectors)."""
    if method == "auto":
        least = SPARSE_ANN_MIN_SAMPLES if sp.issparse(X) else ANN_MIN_SAMPLES
        return "exact" if X.shape[0] < least else "approximate"
    return method


def _drop_self(ind, dist, k, dtype):
    """Remove each row's own index from kNN lists of k (+1) columns."""
    n = ind.shape[0]
    rows = np.arange(n)[:, None]
    is_self = ind == rows
    # rows without themselves (duplicates ahead, or a missed self) drop the last
    no_self = ~is_self.any(axis=1)
    is_self[no_self, -1] = True
    # rows holding themselves more than once cannot happen (distinct indices);
    # missing neighbours (-1, NN-descent on tiny sets) are kept as they come
    keep = ~is_self
    ind = ind[keep].reshape(n, -1)[:, :k]
    dist = dist[keep].reshape(n, -1)[:, :k]
    if np.any(ind < 0):
        raise RuntimeError("NN-descent returned incomplete neighbour lists; "
                           "use method='exact'")
    return dist.astype(dtype, copy=False), ind.astype(np.int32)


def kernel_distances(K):
    """Distances ``sqrt(max(K_ii + K_jj - 2 K_ij, 0))`` induced by a Gram matrix.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        A symmetric positive semi-definite kernel (Gram) matrix.

    Returns
    -------
    D : ndarray of shape (n, n)
        The distances in the kernel's feature space, zero on the diagonal.

    See Also
    --------
    knn_affinity : A kNN graph from these distances (``metric="precomputed"``).

    Examples
    --------
    >>> import numpy as np
    >>> from semisvm.graph import kernel_distances
    >>> X = np.array([[0.0, 0.0], [3.0, 4.0]])
    >>> kernel_distances(X @ X.T)
    array([[0., 5.],
           [5., 0.]])
    """
    K = np.asarray(K)
    dg = np.diag(K)
    D = dg[:, None] + dg[None, :] - 2 * K
    np.maximum(D, 0, out=D)
    np.sqrt(D, out=D)
    np.fill_diagonal(D, 0)
    return D


def _csr(A, dtype):
    A = sp.csr_matrix(A, dtype=dtype)
    A.sum_duplicates()
    A.sort_indices()
    return as_csr32(A)


def knn_affinity(X, n_neighbors=6, *, weight="heat", t=None, metric="euclidean",
                 n_scale=7, return_distances=False, method="auto", random_state=0,
                 n_jobs=None):
    """Symmetrised kNN affinity matrix over the rows of ``X``.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n, n_features)
        All points, labeled and unlabeled.
    n_neighbors : int, 1 <= n_neighbors < n
        k, neighbours per point (the point itself excluded).
    weight : {"heat", "binary", "self-tuning"}
        ``"heat"``: ``exp(-d_ij^2 / (2 t^2))``; ``"binary"``: 1;
        ``"self-tuning"``: ``exp(-d_ij^2 / (s_i s_j))`` with s_i the distance
        from i to its ``n_scale``-th nearest neighbour (Zelnik-Manor & Perona
        2004, local scaling: dense and sparse regions get their own width).
    t : float > 0, optional
        Heat width; default the mean distance over all kNN edges (a constant
        data set gives t = 1).
    metric : {"euclidean", "precomputed"}
        ``"precomputed"``: ``X`` is a dense (n, n) matrix of distances (e.g.
        the kernel-induced ``sqrt(K_ii + K_jj - 2 K_ij)``).
    n_scale : int, default=7
        Neighbour whose distance is the local scale of ``"self-tuning"``
        weights (capped at ``n_neighbors``; ignored by the other weights).
        Zero scales (duplicates) are replaced by the mean scale.
    return_distances : bool, default=False
        Also return the (n, k) sorted distances of every point to its k
        nearest neighbours (e.g. for :func:`intrinsic_dimension`).
    method : {"auto", "exact", "approximate", "nndescent"}, default="auto"
        Neighbour search (``metric="euclidean"`` only), see
        :func:`knn_search`: approximate (usearch's HNSW index) from
        :data:`ANN_MIN_SAMPLES` dense points on.
    random_state : int, default=0
        Seed of the approximate search.
    n_jobs : int or None, default=None
        Threads of the search (the graph is the same for any value).

    Returns
    -------
    W : csr_matrix of shape (n, n), symmetric, zero diagonal, X's dtype.
    dist : ndarray of shape (n, k), only if ``return_distances``.

    See Also
    --------
    neighbors_affinity : The same graph from precomputed kNN lists.
    laplacian : The Laplacian of this affinity.

    Examples
    --------
    >>> import numpy as np
    >>> from semisvm.graph import knn_affinity
    >>> X = np.array([[0.0], [1.0], [2.0], [10.0]])
    >>> W = knn_affinity(X, n_neighbors=1, weight="binary")
    >>> W.toarray()
    array([[0., 1., 0., 0.],
           [1., 0., 1., 0.],
           [0., 1., 0., 1.],
           [0., 0., 1., 0.]])
    """
    if metric not in ("euclidean", "precomputed"):
        raise ValueError(f"metric must be 'euclidean' or 'precomputed', got {metric!r}")
    X = check_X(X)
    n = X.shape[0]
    if metric == "precomputed":
        if sp.issparse(X) or X.shape != (n, n):
            raise ValueError(
                f"a precomputed distance matrix must be dense and square, got "
                f"shape {X.shape}")
        if np.any(X < 0):
            raise ValueError("a precomputed distance matrix must be non-negative")
    k = check_int(n_neighbors, "n_neighbors")
    if k >= n:
        raise ValueError(
            f"n_neighbors={k} must be smaller than the number of points n={n}")
    if weight not in ("heat", "binary", "self-tuning"):
        raise ValueError(
            f"weight must be 'heat', 'binary' or 'self-tuning', got {weight!r}")
    if metric == "precomputed":
        nn = NearestNeighbors(n_neighbors=k, metric=metric).fit(X)
        dist, ind = nn.kneighbors(None, return_distance=True)
    else:
        dist, ind = knn_search(X, k, method=method, random_state=random_state,
                               n_jobs=n_jobs)
    W = neighbors_affinity(dist, ind, weight=weight, t=t, n_scale=n_scale,
                           dtype=X.dtype)
    if return_distances:
        return W, dist
    return W


def check_affinity(W, name="affinity"):
    """Validate a user-given affinity: square, symmetric, finite, >= 0 (-> CSR).

    Parameters
    ----------
    W : {array-like, sparse matrix} of shape (n, n)
        The affinity (weights of the graph's edges).
    name : str, default="affinity"
        The argument's name in error messages.

    Returns
    -------
    W : csr_matrix of shape (n, n)
        The affinity as CSR (float32 or float64) with a zero diagonal.

    Raises
    ------
    ValueError
        If W is not square, not symmetric, not finite or has a negative entry.

    See Also
    --------
    laplacian : Checks its ``W`` with this function.

    Examples
    --------
    >>> from semisvm.graph import check_affinity
    >>> check_affinity([[1, 2], [2, 0]]).toarray()
    array([[0., 2.],
           [2., 0.]])
    """
    if W is None:
        raise ValueError(f"{name} must be a square matrix, got None")
    check_sparse_structure(W, name)
    if not sp.issparse(W):
        W = np.asarray(W)
        if W.dtype.kind not in "biuf":
            raise TypeError(f"{name} must be numeric, got dtype {W.dtype}")
    dtype = W.dtype if W.dtype in (np.float32, np.float64) else np.float64
    W = _csr(W, dtype)
    if W.ndim != 2 or W.shape[0] != W.shape[1]:
        raise ValueError(f"{name} must be square, got shape {W.shape}")
    check_symmetric(W, name, 1e-6)
    if np.any(W.data < 0):
        raise ValueError(f"{name} must be non-negative")
    return _drop_diagonal(W)


def _drop_diagonal(W):
    """CSR W without its diagonal entries (O(nnz), no LIL round trip)."""
    n = W.shape[0]
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(W.indptr))
    off = W.indices != rows
    if np.all(off):
        return W
    counts = np.bincount(rows[off], minlength=n)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    W = sp.csr_matrix((W.data[off], W.indices[off], indptr), shape=W.shape)
    return as_csr32(W)


def laplacian(W, *, normalized=True, p=1, check_input=True):
    """Graph Laplacian of a symmetric affinity, to the power ``p`` (CSR).

    Parameters
    ----------
    W : {array-like, sparse matrix} of shape (n, n)
        Symmetric, non-negative affinity.
    normalized : bool, default=True
        ``False``: ``L = D - W``; ``True``: ``I - D^-1/2 W D^-1/2`` (rows of
        isolated vertices are zero).
    p : int, default=1
        The iterated degree (>= 1): ``L^p`` by sparse products (its fill grows
        with p: keep p small).
    check_input : bool, default=True
        ``False`` skips the checks on W for an affinity known to be valid
        (a :class:`KNNGraph`'s: canonical CSR, exactly symmetric,
        non-negative, zero diagonal) and, for ``p = 1``, builds L in one
        pass over W's entries. Garbage in, garbage out: leave it ``True``
        for any other W.

    Returns
    -------
    L : csr_matrix of shape (n, n)
        The (iterated) Laplacian, exactly symmetric, in W's dtype.

    See Also
    --------
    graph_laplacian : The kNN graph and its Laplacian in one call.

    Examples
    --------
    >>> from semisvm.graph import laplacian
    >>> laplacian([[0, 1], [1, 0]], normalized=False).toarray()
    array([[ 1., -1.],
           [-1.,  1.]])
    """
    p = check_int(p, "p")
    if not check_input and p == 1:
        return _knn_laplacian(W, normalized=normalized)
    W = check_affinity(W, "W")
    n = W.shape[0]
    deg = np.asarray(W.sum(axis=1)).ravel()
    if normalized:
        with np.errstate(divide="ignore"):
            s = np.where(deg > 0, 1.0 / np.sqrt(deg), 0.0)
        S = sp.diags(s)
        L = sp.diags((deg > 0).astype(np.float64)) - S @ W @ S
    else:
        L = sp.diags(deg) - W
    L = sp.csr_matrix(L)
    Lp = L
    for _ in range(p - 1):
        Lp = Lp @ L
    Lp = _csr(Lp, W.dtype)
    # exact symmetry (rounding in the products)
    Lp = _csr((Lp + Lp.T) * 0.5, W.dtype)
    assert Lp.shape == (n, n)
    return Lp


def _knn_laplacian(W, normalized=True):
    """:func:`laplacian` (p = 1) of an affinity known to be valid (a
    :class:`KNNGraph`'s: canonical CSR, symmetric, non-negative, zero
    diagonal), without its checks and in one pass over the entries: the
    off-diagonal entries ``-w_ij s_i s_j`` (``s = D^-1/2``; ``-w_ij``
    unnormalised) and the diagonal, in float64, then W's dtype. Exactly
    symmetric (``s_i s_j`` is one product either way round)."""
    n = W.shape[0]
    if not W.has_sorted_indices:
        W = W.sorted_indices()
    deg = np.asarray(W.sum(axis=1), dtype=np.float64).ravel()
    counts = np.diff(W.indptr)
    rows = np.repeat(np.arange(n, dtype=np.int64), counts)
    w = W.data.astype(np.float64)
    if normalized:
        with np.errstate(divide="ignore"):
            s = np.where(deg > 0, 1.0 / np.sqrt(deg), 0.0)
        off = -(w * (s[rows] * s[W.indices]))
        diag = (deg > 0).astype(np.float64)
    else:
        off, diag = -w, deg
    # each row: its off-diagonal entries (sorted by column) with the
    # diagonal one slotted in after those below it
    below = np.zeros(W.nnz + 1, dtype=np.int64)
    np.cumsum(W.indices < rows, out=below[1:])
    indptr = W.indptr.astype(np.int64) + np.arange(n + 1, dtype=np.int64)
    dpos = indptr[:-1] + below[W.indptr[1:]] - below[W.indptr[:-1]]
    data = np.empty(W.nnz + n)
    indices = np.empty(W.nnz + n, dtype=np.int32)
    is_diag = np.zeros(W.nnz + n, dtype=bool)
    is_diag[dpos] = True
    data[is_diag] = diag
    indices[is_diag] = np.arange(n, dtype=np.int32)
    data[~is_diag] = off
    indices[~is_diag] = W.indices
    L = sp.csr_matrix((data, indices, indptr), shape=(n, n))
    L.eliminate_zeros()
    return _csr(L, W.dtype)


def graph_laplacian(X=None, *, affinity=None, n_neighbors=6, weight="heat",
                    t=None, normalized=True, p=1, metric="euclidean"):
    """kNN-graph Laplacian of ``X`` (or of a given ``affinity``), to power ``p``.

    Exactly one of ``X`` and ``affinity`` is given.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n, n_features), optional
        Points from which :func:`knn_affinity` builds the graph.
    affinity : {array-like, sparse matrix} of shape (n, n), optional
        A given graph instead of ``X``.
    n_neighbors, weight, t, metric
        As in :func:`knn_affinity`.
    normalized, p
        As in :func:`laplacian`.

    Returns
    -------
    L : csr_matrix of shape (n, n)
        The Laplacian.

    See Also
    --------
    knn_affinity, laplacian

    Examples
    --------
    >>> import numpy as np
    >>> from semisvm.graph import graph_laplacian
    >>> L = graph_laplacian(np.arange(6.0).reshape(-1, 1), n_neighbors=2)
    >>> L.shape, bool(abs(L - L.T).max() == 0)
    ((6, 6), True)
    """
    if (X is None) == (affinity is None):
        raise ValueError("give exactly one of X and affinity")
    if affinity is None:
        W = knn_affinity(X, n_neighbors, weight=weight, t=t, metric=metric)
    else:
        W = check_affinity(affinity)
    return laplacian(W, normalized=normalized, p=p)


def intrinsic_dimension(dist):
    """Levina-Bickel maximum-likelihood estimate of the intrinsic dimension.

    Each point's estimate is ``[1/(k-1) sum_{j<k} log(T_k / T_j)]^-1``; the
    points are combined as MacKay & Ghahramani suggest (the inverse of the mean
    inverse). Duplicate points (zero distances) are ignored.

    Parameters
    ----------
    dist : ndarray of shape (n, k)
        Row by row, the sorted distances of each point to its k nearest
        neighbours (k >= 2, the point itself excluded), as returned by
        ``knn_affinity(..., return_distances=True)``.

    Returns
    -------
    float
        The estimate, in ``[0, inf)``.

    See Also
    --------
    knn_affinity : Returns ``dist`` with ``return_distances=True``.

    Examples
    --------
    >>> import numpy as np
    >>> from semisvm.graph import intrinsic_dimension, knn_affinity
    >>> t = np.random.default_rng(0).random(500) * 6
    >>> X = np.c_[np.cos(t), np.sin(t), t]           # a curve in 3-D
    >>> _, dist = knn_affinity(X, 10, return_distances=True)
    >>> round(intrinsic_dimension(dist))
    1
    """
    dist = np.asarray(dist, dtype=np.float64)
    if dist.ndim != 2 or dist.shape[1] < 2:
        raise ValueError(
            f"dist must be an (n, k) array with k >= 2, got shape {dist.shape}")
    ok = dist[:, 0] > 0
    if not np.any(ok):
        return 0.0
    d = dist[ok]
    inv = np.mean(np.log(d[:, -1:] / d[:, :-1]), axis=1)
    m = float(np.mean(inv))
    return 1.0 / m if m > 0 else 0.0


def neighbors_affinity(dist, ind, *, weight="heat", t=None, n_scale=7,
                       dtype=np.float64):
    """:func:`knn_affinity` from precomputed kNN lists.

    Parameters
    ----------
    dist : ndarray of shape (n, k)
        Row i: the distances to the k nearest neighbours of point i (itself
        excluded), as returned by ``kernel_matrix(..., n_neighbors=k)`` (or
        sorted, as scikit-learn's ``kneighbors`` returns them: ``"self-tuning"``
        reads the local scale from column ``n_scale - 1``).
    ind : ndarray of shape (n, k)
        The indices of those neighbours.
    weight, t, n_scale
        As in :func:`knn_affinity`.
    dtype : {np.float64, np.float32}, default=np.float64
        dtype of the result.

    Returns
    -------
    W : csr_matrix of shape (n, n)
        The symmetrised affinity, zero diagonal.

    See Also
    --------
    knn_affinity : Computes the kNN lists itself.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.neighbors import NearestNeighbors
    >>> from semisvm.graph import neighbors_affinity
    >>> X = np.array([[0.0], [1.0], [2.0], [10.0]])
    >>> dist, ind = NearestNeighbors(n_neighbors=2).fit(X).kneighbors(X)
    >>> W = neighbors_affinity(dist[:, 1:], ind[:, 1:], weight="binary")
    >>> W.toarray()
    array([[0., 1., 0., 0.],
           [1., 0., 1., 0.],
           [0., 1., 0., 1.],
           [0., 0., 1., 0.]])
    """
    dist = np.asarray(dist, dtype=np.float64)
    ind = np.asarray(ind)
    if dist.ndim != 2 or ind.shape != dist.shape:
        raise ValueError(
            f"dist and ind must be (n, k) arrays of the same shape, got "
            f"{dist.shape} and {ind.shape}")
    n, k = dist.shape
    if ind.size and (ind.min() < 0 or ind.max() >= n):
        raise ValueError("ind has indices out of range")
    if not np.all(np.isfinite(dist)) or np.any(dist < 0):
        raise ValueError("dist must be finite and non-negative")
    if weight not in ("heat", "binary", "self-tuning"):
        raise ValueError(
            f"weight must be 'heat', 'binary' or 'self-tuning', got {weight!r}")
    d = dist.ravel()
    if weight == "heat":
        if t is None:
            t = float(d.mean()) if d.size else 1.0
            if not t > 0:
                t = 1.0
        else:
            t = check_positive(t, "t")
        w = np.exp(-(d * d) / (2.0 * t * t))
    elif weight == "self-tuning":
        n_scale = check_int(n_scale, "n_scale")
        s_loc = dist[:, min(n_scale, k) - 1] if k else np.ones(n)
        pos = s_loc > 0
        s_loc = np.where(pos, s_loc, float(s_loc[pos].mean()) if np.any(pos) else 1.0)
        w = np.exp(-(d * d) / (np.repeat(s_loc, k) * s_loc[ind.ravel()]))
    else:
        w = np.ones_like(d)
    if weight != "binary":
        # keep edges whose weight underflows: the graph's structure stays kNN
        w = np.maximum(w, np.finfo(dtype).tiny)
    # row i's k neighbours are row i of the CSR (no COO triplets)
    W = sp.csr_matrix((w.astype(dtype, copy=False),
                       ind.ravel().astype(np.int32),
                       np.arange(n + 1, dtype=np.int64) * k), shape=(n, n))
    W.sum_duplicates()
    W = W.maximum(W.T)
    W = _drop_diagonal(as_csr32(sp.csr_matrix(W)))
    W.eliminate_zeros()
    return _csr(W, dtype)


# --------------------------------------------------------------- the object

#: neighbours stored beyond k, so that the graph of a row subset (a
#: cross-validation fold without its held-out labeled rows) is read from the
#: stored lists: a row needs a new search only when more than this many of
#: its nearest neighbours were removed
SPARE_NEIGHBORS = 5
_SPARE_NEIGHBORS = SPARE_NEIGHBORS


def _row_hashes(X):
    """Two 64-bit hashes of each row's float64 values (dense or CSR): rows
    of another matrix are matched to these rows by equal hashes."""
    n = X.shape[0]
    rng = np.random.RandomState(12345)
    out = np.empty((2, n), dtype=np.uint64)
    if sp.issparse(X):
        vals = np.ascontiguousarray(X.data, dtype=np.float64).view(np.uint64)
        cols = X.indices.astype(np.uint64)
        starts = X.indptr[:-1]
        nnz_rows = np.diff(X.indptr) > 0
    for h in range(2):
        a, b, c = (np.uint64(v | 1) for v in
                   rng.randint(1, 2**62, size=3, dtype=np.int64))
        with np.errstate(over="ignore"):
            if sp.issparse(X):
                terms = (vals * a) ^ ((cols + np.uint64(1)) * b)
                terms = terms * c
                acc = np.zeros(n, dtype=np.uint64)
                if terms.size:
                    sums = np.add.reduceat(terms, starts[nnz_rows])
                    acc[nnz_rows] = sums
                out[h] = acc ^ (np.diff(X.indptr).astype(np.uint64) * a)
            else:
                V = np.ascontiguousarray(X, dtype=np.float64).view(np.uint64)
                mult = (np.arange(1, V.shape[1] + 1, dtype=np.uint64) * b) | np.uint64(1)
                acc = np.zeros(n, dtype=np.uint64)
                for s in range(0, n, 8192):
                    blk = V[s:s + 8192]
                    acc[s:s + 8192] = ((blk * a) ^ mult).__mul__(c).sum(
                        axis=1, dtype=np.uint64)
                out[h] = acc
    return out


class KNNGraph:
    """A symmetric sparse kNN affinity over the rows of ``X``, built once and shared.

    ``KNNGraph(...).fit(X)`` searches the k nearest neighbours of every row
    (exact below :data:`ANN_MIN_SAMPLES` points, the HNSW index above, see
    :func:`knn_search`) and keeps the symmetrised affinity ``affinity_``
    (CSR, float32, zero diagonal; an edge i-j when either end is among the
    other's k nearest, weights as :func:`knn_affinity`) with the parameters
    and kNN lists that produced it. Pass the fitted object to the graph
    estimators (``graph=``): every one-vs-rest class, every refit, every
    clone (scikit-learn's ``clone`` returns a fitted graph itself, not a
    copy), every cross-validation fold and every grid point then reads it
    instead of searching again. A fold's training rows (a subset of the
    fitted rows, as the labeled-row splitters of
    :mod:`semisvm.model_selection` make) get the graph a new search over
    them would give (exact search: the same neighbours), read from the
    stored lists (k + 5 per row; a row that lost more neighbours than that
    is searched again).

    Parameters
    ----------
    n_neighbors : int, default=10
        k, neighbours per point (the point itself excluded); at most n - 1.
    weight : {"heat", "binary", "self-tuning"}, default="heat"
        Edge weights, see :func:`knn_affinity`.
    t : float > 0 or None, default=None
        Heat width; None: the mean kNN distance (of the rows the graph is
        for).
    n_scale : int, default=7
        Neighbour giving the local scale of ``"self-tuning"`` weights.
    method : {"auto", "exact", "approximate", "nndescent"}, default="auto"
        Neighbour search, see :func:`knn_search`.
    n_jobs : int or None, default=None
        Threads of the neighbour search (None: 1, -1: all cores). The
        graph is the same for any value.
    random_state : int, default=0
        Seed of the approximate search.

    Attributes
    ----------
    affinity_ : csr_matrix of shape (n, n), float32
        The symmetric affinity W.
    distances_ : ndarray of shape (n, k), float32
        Sorted distances of each row to its k nearest neighbours.
    indices_ : ndarray of shape (n, k), int32
        Their row indices.
    method_ : {"exact", "approximate", "nndescent"}
        The search used.
    n_samples_fit_, n_features_in_ : int
        Shape of the fitted ``X``.
    n_builds_ : int
        Neighbour searches run by this object (1 after ``fit``; a fold whose
        rows lost more than the spare neighbours adds a partial one).
    feature_scale_ : ndarray of shape (n_features,) or None
        Set only on a graph that a graph estimator (LapSVM, LapRLS, the
        graph TV and Cheeger models) built: the column scale of that fit's
        ``feature_scaling`` (None: X as given). A fit given this graph
        scales its X by it, so the raw X is found among the graph's rows.
        Absent on a graph fitted by the user: its rows are X as given.

    See Also
    --------
    knn_affinity : The same affinity as a function.
    semisvm.LapSVM : Takes ``graph=``.

    Examples
    --------
    >>> import numpy as np
    >>> from semisvm.graph import KNNGraph
    >>> X = np.random.default_rng(0).normal(size=(100, 3))
    >>> g = KNNGraph(n_neighbors=5).fit(X)
    >>> g.affinity_.shape, g.affinity_.dtype, g.is_fitted_on(X)
    ((100, 100), dtype('float32'), True)
    >>> g.is_fitted_on(X[:50]), g.affinity_for(X[10:60]).shape
    (False, (50, 50))

    One search for a whole grid search (every class, fold and grid point):

    >>> from sklearn.model_selection import GridSearchCV
    >>> from semisvm import LapRLS
    >>> from semisvm.model_selection import LabeledStratifiedKFold
    >>> y = np.full(100, -1); y[:10] = np.arange(10) % 2
    >>> cv = LabeledStratifiedKFold(2, random_state=0)
    >>> g = KNNGraph(n_neighbors=5).fit(X)
    >>> search = GridSearchCV(LapRLS(graph=g), {"gamma_I": [0.1, 1.0]}, cv=cv)
    >>> search.fit(X, y).best_estimator_.graph_ is g, g.n_builds_
    (True, 1)
    """

    def __init__(self, n_neighbors=10, *, weight="heat", t=None, n_scale=7,
                 method="auto", n_jobs=None, random_state=0):
        self.n_neighbors = n_neighbors
        self.weight = weight
        self.t = t
        self.n_scale = n_scale
        self.method = method
        self.n_jobs = n_jobs
        self.random_state = random_state

    # -- scikit-learn parameter protocol (a fitted graph is shared) -------
    _PARAMS = ("n_neighbors", "weight", "t", "n_scale", "method", "n_jobs",
               "random_state")

    def get_params(self, deep=True):
        """The constructor's parameters (scikit-learn's protocol)."""
        return {name: getattr(self, name) for name in self._PARAMS}

    def set_params(self, **params):
        """Set parameters of an unfitted graph (a fitted one is shared by
        every estimator that holds it: build another instead)."""
        if hasattr(self, "affinity_"):
            raise ValueError("a fitted KNNGraph is shared by the estimators "
                             "that hold it and cannot change: build another")
        for name, value in params.items():
            if name not in self._PARAMS:
                raise ValueError(f"invalid parameter {name!r} for KNNGraph")
            setattr(self, name, value)
        return self

    def __sklearn_clone__(self):
        if hasattr(self, "affinity_"):
            return self
        return type(self)(**self.get_params())

    def __deepcopy__(self, memo):
        return self.__sklearn_clone__()

    def __repr__(self):
        diff = {k: v for k, v in self.get_params().items()
                if v != type(self)().get_params()[k]}
        args = ", ".join(f"{k}={v!r}" for k, v in diff.items())
        return f"KNNGraph({args})"

    def _key(self):
        return tuple(self.get_params()[k] for k in
                     ("n_neighbors", "weight", "t", "n_scale", "method",
                      "random_state"))

    def _check_params(self, n):
        k = check_int(self.n_neighbors, "n_neighbors")
        if k >= n:
            raise ValueError(f"n_neighbors={k} must be smaller than the number "
                             f"of points n={n}")
        if self.weight not in ("heat", "binary", "self-tuning"):
            raise ValueError("weight must be 'heat', 'binary' or 'self-tuning', "
                             f"got {self.weight!r}")
        if self.t is not None:
            check_positive(self.t, "t")
        check_int(self.n_scale, "n_scale")
        return k

    # -- building ---------------------------------------------------------
    def fit(self, X, y=None):
        """Search the neighbours of every row of ``X`` and build the affinity.

        Parameters
        ----------
        X : {ndarray, sparse matrix} of shape (n, n_features)
            All points (labeled and unlabeled).
        y : ignored

        Returns
        -------
        self : KNNGraph
        """
        X = check_X(X)
        n = X.shape[0]
        k = self._check_params(n)
        ks = min(k + _SPARE_NEIGHBORS, n - 1)
        method = _resolve_method(self.method, X)
        dist, ind = knn_search(X, ks, method=method,
                               random_state=self.random_state, n_jobs=self.n_jobs)
        return self._fit_lists(X, dist, ind, method)

    def _takes_lists(self, X, lists):
        """Whether ``(dist, ind)`` from an exact search of X can stand for
        this graph's own search (:meth:`_fit_lists`): its search would be
        exact too and the lists hold its k + spare columns."""
        n = X.shape[0]
        k = self._check_params(n)
        dist, ind = lists
        return (_resolve_method(self.method, X) == "exact"
                and dist.shape[0] == n and ind.shape == dist.shape
                and dist.shape[1] >= min(k + _SPARE_NEIGHBORS, n - 1))

    def _fit_lists(self, X, dist, ind, method):
        """:meth:`fit` from the search's lists (``knn_search(X, ks,
        method=method)`` with ``ks = min(k + _SPARE_NEIGHBORS, n - 1)``, or
        the first ks columns of an exact search for more: the same lists):
        a caller that searched X already shares its search."""
        n = X.shape[0]
        k = self._check_params(n)
        ks = min(k + _SPARE_NEIGHBORS, n - 1)
        if dist.shape[0] != n or dist.shape[1] < ks or ind.shape != dist.shape:
            raise ValueError(f"the kNN lists must have shape ({n}, >= {ks})")
        dist, ind = dist[:, :ks], ind[:, :ks]
        self.n_builds_ = 1
        self.method_ = method
        # (a refit: the scale an estimator recorded was for the old rows)
        self.__dict__.pop("feature_scale_", None)
        self.n_samples_fit_, self.n_features_in_ = X.shape
        self._dist_all = np.ascontiguousarray(dist, dtype=np.float32)
        self._ind_all = np.ascontiguousarray(ind, dtype=np.int32)
        self._hashes = _row_hashes(X)
        self._fit_key = self._key()
        self._work = collections.OrderedDict()
        self._work_hits = 0
        self.distances_ = self._dist_all[:, :k]
        self.indices_ = self._ind_all[:, :k]
        self.affinity_ = self._affinity(self.distances_, self.indices_)
        return self

    def _affinity(self, dist, ind):
        return neighbors_affinity(dist, ind, weight=self.weight, t=self.t,
                                  n_scale=self.n_scale, dtype=np.float32)

    def fit_transform(self, X, y=None):
        """``fit(X)`` and return ``affinity_``."""
        return self.fit(X).affinity_

    def transform(self, X):
        """The affinity over ``X``: the fitted rows or a subset of them
        (see :meth:`affinity_for`)."""
        return self.affinity_for(X)

    # -- reuse ------------------------------------------------------------
    def _check_fitted(self):
        if not hasattr(self, "affinity_"):
            raise ValueError("this KNNGraph is not fitted: call fit(X) first")
        if self._key() != self._fit_key:
            raise ValueError("the parameters of this KNNGraph changed after "
                             "fit: build another")

    def _has_duplicate_rows(self):
        """Whether two fitted rows are equal (by :meth:`rows_of`'s hashes):
        a subset holding either of them is then not matched
        (:meth:`rows_of` None), so a fit on a subset cannot read its graph
        from this one."""
        self._check_fitted()
        # (the first hash, as rows_of reads an ambiguous match)
        return bool(np.unique(self._hashes[0]).size < self.n_samples_fit_)

    def rows_of(self, X):
        """Positions of the rows of ``X`` among the fitted rows, or None.

        Parameters
        ----------
        X : {ndarray, sparse matrix} of shape (m, n_features)

        Returns
        -------
        rows : ndarray of shape (m,) or None
            ``rows[i]`` is the fitted row equal to ``X[i]`` (compared by two
            64-bit hashes of the float64 values); None when a row of ``X``
            is not among the fitted rows, or matches a row that is there
            twice, or two rows of ``X`` match the same one.
        """
        self._check_fitted()
        if X.shape[1] != self.n_features_in_:
            return None
        h = _row_hashes(X)
        if X.shape[0] == self.n_samples_fit_ and np.array_equal(h, self._hashes):
            return np.arange(X.shape[0])
        fit = self._hashes[0]
        order = np.argsort(fit, kind="stable")
        sorted_h = fit[order]
        pos = np.searchsorted(sorted_h, h[0])
        pos = np.minimum(pos, sorted_h.size - 1)
        if not np.array_equal(sorted_h[pos], h[0]):
            return None
        rows = order[pos]
        if not np.array_equal(self._hashes[1][rows], h[1]):
            return None
        # a duplicated fitted row (the match is ambiguous) or two rows of X
        # on one fitted row: no subset match
        dup = sorted_h[1:] == sorted_h[:-1]
        if np.any(dup) and np.isin(h[0], sorted_h[1:][dup]).any():
            return None
        if np.unique(rows).size != rows.size:
            return None
        return rows

    def is_fitted_on(self, X):
        """True when ``X`` holds the fitted rows, in the fitted order."""
        rows = self.rows_of(X)
        return rows is not None and rows.size == self.n_samples_fit_ and bool(
            np.all(rows == np.arange(rows.size)))

    def graph_for(self, X):
        """``(affinity, distances)`` over the rows of ``X``, or None.

        ``X`` the fitted rows: the stored graph. ``X`` a subset of them
        (in any order): the graph of that subset, its kNN lists read from
        the stored ones with the removed rows skipped (rows that lost more
        than the spare neighbours are searched again, exactly, among the
        rows of ``X``), heat width and weights computed as for a new graph
        over ``X``. Else None.

        Parameters
        ----------
        X : {ndarray, sparse matrix} of shape (m, n_features)

        Returns
        -------
        (affinity, distances) or None
            The (m, m) float32 CSR affinity and the (m, k) distances.
        """
        out = self._graph_and_rows(X)
        return None if out is None else out[:2]

    def _graph_and_rows(self, X, rows=None):
        # (rows: ``rows_of(X)``, known to the caller, who checked X)
        self._check_fitted()
        X = check_X(X)
        if rows is None:
            rows = self.rows_of(X)
            if rows is None:
                return None
        n, m = self.n_samples_fit_, rows.size
        if m == n and np.all(rows == np.arange(n)):
            return self.affinity_, self.distances_, rows
        k = self._check_params(m)
        new = np.full(n, -1, dtype=np.int64)
        new[rows] = np.arange(m)
        ind = new[self._ind_all[rows]]
        dist = self._dist_all[rows]
        keep = ind >= 0
        # stable: the kept neighbours stay in distance order
        order = np.argsort(~keep, axis=1, kind="stable")
        ind = np.take_along_axis(ind, order, axis=1)[:, :k]
        dist = np.take_along_axis(dist, order, axis=1)[:, :k]
        short = np.flatnonzero(keep.sum(axis=1) < k)
        if short.size:
            d2, i2 = _one_thread_rows(X, short, k)
            ind[short], dist[short] = i2, d2
            self.n_builds_ += 1
        ind = ind.astype(np.int32)
        dist = np.ascontiguousarray(dist, dtype=np.float32)
        return self._affinity(dist, ind), dist, rows

    # -- work shared by the estimators that hold this graph ----------------
    #: bytes of shared work (kernel features, solutions) kept, least
    #: recently used first out
    _WORK_BYTES = 1 << 30

    def __getstate__(self):
        # the shared work is a cache (up to _WORK_BYTES: kernel features,
        # ridge systems, graph solutions): a pickle (joblib, a copy for a
        # worker) carries the graph and not the cache
        state = self.__dict__.copy()
        if state.get("_work") is not None:
            state["_work"] = collections.OrderedDict()
            state["_work_hits"] = 0
        return state

    def _recall(self, key):
        """Work stored under ``key`` by an estimator fitted on (a subset of)
        this graph's rows, or None."""
        work = getattr(self, "_work", None)
        entry = None if work is None else work.get(key)
        if entry is None:
            return None
        self._work_hits += 1
        try:
            work.move_to_end(key)   # (the most recently used now)
        except KeyError:
            pass                    # (another thread's store evicted it)
        return entry[0]

    def _store(self, key, value, nbytes):
        """Keep ``value`` (about ``nbytes``) for the next fit on these rows."""
        work = getattr(self, "_work", None)
        if work is None or nbytes > self._WORK_BYTES // 2:
            return
        work[key] = (value, int(nbytes))
        work.move_to_end(key)
        while work and sum(v[1] for v in list(work.values())) > self._WORK_BYTES:
            work.popitem(last=False)

    def affinity_for(self, X):
        """The float32 CSR affinity over ``X`` (see :meth:`graph_for`).

        Raises ``ValueError`` when ``X`` is neither the fitted rows nor a
        subset of them.
        """
        out = self.graph_for(X)
        if out is None:
            raise ValueError(
                f"this KNNGraph was fitted on {self.n_samples_fit_} other rows: "
                "X must be its rows or a subset of them")
        return out[0]


def _drop_self_rows(ind, dist, rows, k):
    """Drop each queried row's own index from its k + 1 neighbours."""
    is_self = ind == rows[:, None]
    no_self = ~is_self.any(axis=1)
    is_self[no_self, -1] = True
    keep = ~is_self
    m = ind.shape[0]
    return dist[keep].reshape(m, -1)[:, :k], ind[keep].reshape(m, -1)[:, :k]
