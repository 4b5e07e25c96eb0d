"""kNN graphs and graph Laplacians over labeled + unlabeled points (CSR).

Shared by the manifold (LapSVM / LapRLS) and graph (TV / Cheeger) families.
Everything is a ``scipy.sparse.csr_matrix`` with int32 indices, in X's dtype.

- :func:`knn_affinity`: symmetrised k-nearest-neighbour affinity ``W``
  (Euclidean distance; exact by scikit-learn's ``NearestNeighbors`` up to
  ``ANN_MIN_SAMPLES`` = 50,000 points, approximate by pynndescent's
  NN-descent above when the optional extra ``semisvm[ann]`` is installed,
  see :func:`knn_search`). An edge i-j is
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

import numpy as np
import scipy.sparse as sp
from sklearn.neighbors import NearestNeighbors

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
           "neighbors_affinity", "graph_nbytes", "ANN_MIN_SAMPLES"]

#: ``method="auto"`` searches the k nearest neighbours approximately (NN-descent,
#: pynndescent) from this many points on, exactly below. At 50,000 points x 50
#: dense features the exact brute-force search costs 2.5e9 distance
#: evaluations (about 10-20 s on one core) and grows as n^2; NN-descent's
#: recall at k = 10 is above 0.95 on such data (tests/test_graph.py checks
#: it on a small set) for a cost that grows about as n^1.14.
ANN_MIN_SAMPLES = 50_000


def graph_nbytes(n, n_neighbors, itemsize=8, n_features=0):
    """Bytes a kNN graph over ``n`` points holds at the peak of its build.

    The (n, k) distance and index lists, the symmetrised affinity (up to
    2 n k edges, value and int32 index) and the copies its symmetrisation
    and Laplacian make (four in all), and, from :data:`ANN_MIN_SAMPLES`
    points on, the approximate index (a float32 copy of the points and
    its neighbour links). Used by the memory checks of the estimators.

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

    Returns
    -------
    int
        The estimate in bytes.

    Examples
    --------
    >>> from semisvm.graph import graph_nbytes
    >>> graph_nbytes(1000, 10) / 2**20 < 2
    True
    """
    n, k = int(n), int(n_neighbors)
    lists = n * k * 16
    edges = 4 * 2 * n * k * (int(itemsize) + 4) + 4 * (n + 1) * 8
    index = n * (4 * int(n_features) + 2 * 32 * 4 + 64) if n >= ANN_MIN_SAMPLES else 0
    return lists + edges + index


def _have_pynndescent():
    try:
        import pynndescent  # noqa: F401
    except ImportError:
        return False
    return True


def knn_search(X, n_neighbors, *, method="auto", random_state=0):
    """The k nearest neighbours of every row of ``X`` (itself excluded).

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n, n_features)
    n_neighbors : int, 1 <= n_neighbors < n
    method : {"auto", "exact", "approximate"}, default="auto"
        ``"exact"``: scikit-learn's ``NearestNeighbors`` (Euclidean).
        ``"approximate"``: pynndescent's ``NNDescent`` (NN-descent over random
        projection trees; the optional extra ``pip install semisvm[ann]``),
        float32 data stays float32. ``"auto"``: approximate from
        :data:`ANN_MIN_SAMPLES` points on when pynndescent is installed,
        else exact.
    random_state : int, default=0
        Seed of NN-descent (same input and seed -> same graph).

    Returns
    -------
    dist, ind : ndarrays of shape (n, k)
        Sorted distances (X's float dtype) and indices (int32) of the k
        nearest neighbours of each row.

    See Also
    --------
    knn_affinity : The symmetric kNN affinity built from these neighbours.
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
    if method not in ("auto", "exact", "approximate"):
        raise ValueError(
            f"method must be 'auto', 'exact' or 'approximate', got {method!r}")
    if method == "auto":
        method = ("approximate" if n >= ANN_MIN_SAMPLES and _have_pynndescent()
                  else "exact")
    if method == "exact":
        nn = NearestNeighbors(n_neighbors=k).fit(X)
        dist, ind = nn.kneighbors(None, return_distance=True)
        return dist.astype(X.dtype, copy=False), ind.astype(np.int32)
    try:
        from pynndescent import NNDescent
    except ImportError as exc:  # pragma: no cover - the test extra has it
        raise ImportError(
            "method='approximate' needs pynndescent: pip install semisvm[ann]"
        ) from exc
    if k + 1 >= n:
        # NN-descent needs one neighbour more than asked (the point itself)
        return knn_search(X, k, method="exact")
    index = NNDescent(X, n_neighbors=k + 1, metric="euclidean",
                      random_state=(None if random_state is None
                                    else int(random_state)), low_memory=True,
                      compressed=True, n_jobs=1)
    ind, dist = index.neighbor_graph
    del index
    return _drop_self(np.asarray(ind), np.asarray(dist), k, X.dtype)


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
                 n_scale=7, return_distances=False, method="auto", random_state=0):
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
    method : {"auto", "exact", "approximate"}, default="auto"
        Neighbour search (``metric="euclidean"`` only), see
        :func:`knn_search`: approximate (pynndescent) from
        :data:`ANN_MIN_SAMPLES` points on when it is installed.
    random_state : int, default=0
        Seed of the approximate search.

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
        dist, ind = knn_search(X, k, method=method, random_state=random_state)
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


def laplacian(W, *, normalized=True, p=1):
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
    W = check_affinity(W, "W")
    p = check_int(p, "p")
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
