"""kNN graphs and graph Laplacians over labeled + unlabeled points (CSR).

Shared by the manifold (LapSVM / LapRLS) and graph (TV / Cheeger) families.
Everything is a ``scipy.sparse.csr_matrix`` with int32 indices, in X's dtype.

- :func:`knn_affinity`: symmetrised k-nearest-neighbour affinity ``W``
  (scikit-learn's ``NearestNeighbors``, Euclidean distance). An edge i-j is
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

__all__ = ["knn_affinity", "laplacian", "graph_laplacian", "check_affinity",
           "kernel_distances", "intrinsic_dimension", "neighbors_affinity"]


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
                 n_scale=7, return_distances=False):
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
    nn = NearestNeighbors(n_neighbors=k, metric=metric).fit(X)
    dist, ind = nn.kneighbors(None, return_distance=True)
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
    W = W.tolil()
    W.setdiag(0)
    return _csr(W, dtype)


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
    rows = np.repeat(np.arange(n), k)
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
        w = np.exp(-(d * d) / (s_loc[rows] * s_loc[ind.ravel()]))
    else:
        w = np.ones_like(d)
    if weight != "binary":
        # keep edges whose weight underflows: the graph's structure stays kNN
        w = np.maximum(w, np.finfo(dtype).tiny)
    W = sp.csr_matrix((w, (rows, ind.ravel())), shape=(n, n))
    W = W.maximum(W.T)
    W.setdiag(0)
    W.eliminate_zeros()
    return _csr(W, dtype)
