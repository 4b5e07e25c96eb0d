"""Kernel (Gram) matrices, computed blockwise in the input dtype.

One function, :func:`kernel_matrix`, shared by every kernel method of semisvm
(LapSVM / LapRLS, PUSVM, ...). It accepts dense arrays or CSR matrices (never
densified as a whole: sparse rows are multiplied block by block) and returns a
dense C-contiguous ``(n_X, n_Y)`` array in ``X``'s dtype (float32 or float64).

Kernels
-------
``"linear"``       k(x, z) = x . z
``"rbf"``          k(x, z) = exp(-gamma ||x - z||^2)
``"poly"``         k(x, z) = (gamma x . z + coef0) ** degree
``"precomputed"``  ``X`` already is the Gram matrix (validated and returned)
callable           ``kernel(X_block, Y)`` returns the ``(len(X_block), n_Y)`` block

``gamma=None`` is a data-derived scale: ``1 / (n_features * var)`` where
``var`` is the variance of all entries of ``X`` (scikit-learn's
``gamma="scale"``), so the kernel does not depend on the units of the
features. For the RBF kernel this is a Gaussian of width
``sigma = sqrt(n_features * var / 2)``, i.e. about the typical distance between
points divided by two; :func:`scale_gamma` returns the value used. Melacci &
Belkin write the Gaussian as ``exp(-||x - z||^2 / (2 sigma^2))``: pass
``gamma = 1 / (2 sigma^2)``.
"""
from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp

from semisvm._validation import KERNELS, check_memory, check_positive, check_X

__all__ = ["kernel_matrix", "scale_gamma", "KERNELS"]


# rows of X per block: keeps the temporaries of one block near 32 MB
_BLOCK_BYTES = 32 * 2**20


def scale_gamma(X):
    """Return the data-derived ``gamma = 1 / (n_features * X.var())``.

    ``X.var()`` is the variance of all entries (computed without densifying a
    sparse ``X``); a constant ``X`` gives ``gamma = 1``.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        The data.

    Returns
    -------
    float
        The RBF width used when ``gamma=None`` (scikit-learn's ``"scale"``).

    See Also
    --------
    kernel_matrix : Uses it for ``gamma=None``.

    Examples
    --------
    >>> import numpy as np
    >>> from semisvm.kernels import scale_gamma
    >>> scale_gamma(np.array([[0.0, 2.0], [2.0, 0.0]]))
    0.5
    """
    X = check_X(X)
    n, d = X.shape
    if sp.issparse(X):
        mean = X.sum(dtype=np.float64) / (n * d)
        var = X.multiply(X).sum(dtype=np.float64) / (n * d) - mean**2
    else:
        var = float(np.var(X, dtype=np.float64))
    return 1.0 / (d * var) if var > 0 else 1.0


def _row_sqnorms(X):
    if sp.issparse(X):
        return np.asarray(X.multiply(X).sum(axis=1)).ravel().astype(X.dtype)
    return np.einsum("ij,ij->i", X, X)


def _dot_block(A, B):
    """``A @ B.T`` as a dense array (A, B dense or CSR)."""
    out = A @ B.T
    if sp.issparse(out):
        out = out.toarray()
    return np.asarray(out)


def kernel_matrix(X, Y=None, kernel="rbf", gamma=None, degree=3, coef0=0.0,
                  *, block_size=None, n_neighbors=None, out=None):
    """Gram matrix ``K[i, j] = k(X[i], Y[j])`` as a dense array in X's dtype.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_X, n_features)
        float32 or float64 (other numeric types become float64). For
        ``kernel="precomputed"``, the Gram matrix itself (``(n_X, n_Y)``).
    Y : {ndarray, sparse matrix} of shape (n_Y, n_features), optional
        Second set of points; default ``X`` (then K is symmetric). Cast to
        X's dtype. Ignored for ``"precomputed"``.
    kernel : {"linear", "rbf", "poly", "precomputed"} or callable
        See the module docstring. A callable gets ``(X_block, Y)`` and must
        return a finite ``(len(X_block), n_Y)`` array.
    gamma : float > 0 or None
        RBF / poly scale. ``None``: ``1 / (n_features * X.var())``
        (:func:`scale_gamma`, computed on ``X``).
    degree : int >= 1
        Polynomial degree.
    coef0 : float
        Polynomial offset.
    block_size : int, optional
        Rows of X per block (default: about 32 MB of temporaries).
    n_neighbors : int, optional
        Also find, block by block from the same inner products, the k
        nearest neighbours of every row of X among the rows of Y in Euclidean
        distance (itself excluded when Y is X): the kNN graph then costs no
        second pass over all pairs. Not for callable or precomputed kernels.
    out : ndarray of shape (n_X, n_Y), optional
        A C-contiguous array of X's dtype (after its check) that receives K
        block by block and is returned (no new array; the same values).

    Returns
    -------
    K : ndarray of shape (n_X, n_Y), C-contiguous, X's dtype.
    dist, ind : ndarrays of shape (n_X, k), only with ``n_neighbors``:
        sorted distances (float64) and indices (intp) of the neighbours.

    See Also
    --------
    scale_gamma : The default RBF width.
    semisvm.graph.neighbors_affinity : A kNN graph from ``dist, ind``.

    Examples
    --------
    >>> import numpy as np
    >>> from semisvm.kernels import kernel_matrix
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0]])
    >>> kernel_matrix(X, kernel="linear")
    array([[0., 0.],
           [0., 1.]])
    >>> K = kernel_matrix(X, kernel="rbf", gamma=1.0)
    >>> print(round(float(K[0, 1]), 4))
    0.3679
    """
    return _kernel_matrix(X, Y, kernel, gamma, degree, coef0,
                          block_size=block_size, n_neighbors=n_neighbors, out=out)


def _kernel_matrix(X, Y=None, kernel="rbf", gamma=None, degree=3, coef0=0.0,
                   *, block_size=None, n_neighbors=None, out=None):
    """:func:`kernel_matrix`; ``out``: a C-contiguous ``(n_X, n_Y)`` array of
    X's dtype (after its check) that receives K (returned), instead of a new
    one (the Laplacian family's landmark ridge writes its blocks of K_nm in
    place: no block-sized copy, the same values)."""
    if isinstance(kernel, str) and kernel == "precomputed":
        K = check_X(X, name="X (precomputed kernel)")
        if sp.issparse(K):
            K = K.toarray()
        if out is not None:
            _check_out(out, K.shape, K.dtype)
            out[...] = K
            return out
        return np.ascontiguousarray(K)
    if not (callable(kernel) or (isinstance(kernel, str) and kernel in KERNELS)):
        raise ValueError(
            f"kernel must be one of {KERNELS} or a callable, got {kernel!r}")
    X = check_X(X)
    dtype = X.dtype
    Y = X if Y is None else check_X(Y, name="Y", reset_dtype=dtype)
    if Y.shape[1] != X.shape[1]:
        raise ValueError(
            f"Y has {Y.shape[1]} features but X has {X.shape[1]}")
    if kernel in ("rbf", "poly"):
        gamma = scale_gamma(X) if gamma is None else check_positive(gamma, "gamma")
    if kernel == "poly":
        if isinstance(degree, (bool, np.bool_)) or not isinstance(
                degree, numbers.Integral) or degree < 1:
            raise ValueError(f"degree must be an integer >= 1, got {degree!r}")
        if not isinstance(coef0, numbers.Real) or not np.isfinite(coef0):
            raise ValueError(f"coef0 must be a finite real, got {coef0!r}")
    n_x, n_y = X.shape[0], Y.shape[0]
    knn = n_neighbors is not None
    if knn:
        if callable(kernel):
            raise ValueError("n_neighbors needs a named kernel, not a callable")
        k = int(n_neighbors)
        if k < 1 or k > n_y - (Y is X):
            raise ValueError(
                f"n_neighbors={n_neighbors} must be in [1, {n_y - (Y is X)}]")
        dist = np.empty((n_x, k), dtype=np.float64)
        ind = np.empty((n_x, k), dtype=np.intp)
        yy = _row_sqnorms(Y)
        xx = yy if Y is X else _row_sqnorms(X)
    if block_size is None:
        # the kNN search adds a float64 distance block and its argpartition
        per = dtype.itemsize * 2 + (24 if knn else 0)
        block_size = max(1, _BLOCK_BYTES // (max(n_y, 1) * per))
    check_memory(n_x * n_y * np.dtype(dtype).itemsize,
                 f"kernel_matrix: the {n_x} x {n_y} {np.dtype(dtype)} kernel matrix")
    if out is None:
        K = np.empty((n_x, n_y), dtype=dtype)
    else:
        _check_out(out, (n_x, n_y), dtype)
        K = out
    if kernel == "rbf":
        yy = _row_sqnorms(Y)
        xx = yy if Y is X else _row_sqnorms(X)
    for start in range(0, n_x, block_size):
        stop = min(n_x, start + block_size)
        Xb = X[start:stop]
        if callable(kernel):
            blk = np.asarray(kernel(Xb, Y))
            if blk.shape != (stop - start, n_y):
                raise ValueError(
                    f"the kernel callable returned shape {blk.shape} for a block "
                    f"of {stop - start} rows against {n_y}; expected "
                    f"({stop - start}, {n_y})")
            if not np.all(np.isfinite(blk)):
                raise ValueError("the kernel callable returned non-finite values")
            K[start:stop] = blk
            continue
        blk = K[start:stop]
        if sp.issparse(Xb) or sp.issparse(Y):
            blk[...] = _dot_block(Xb, Y)
        else:
            # the product written into the block itself: the same BLAS
            # call as a new array's (C-contiguous rows, the same leading
            # dimension), without a block-sized temporary and its copy
            np.matmul(Xb, Y.T, out=blk)
        if knn:
            _block_knn(blk, xx[start:stop], yy, start if Y is X else None, k,
                       dist[start:stop], ind[start:stop])
        if kernel == "rbf":
            # ||x - z||^2 = ||x||^2 + ||z||^2 - 2 x.z, clipped at 0 (rounding)
            blk *= -2
            blk += xx[start:stop, None]
            blk += yy[None, :]
            np.maximum(blk, 0, out=blk)
            blk *= -dtype.type(gamma)
            np.exp(blk, out=blk)
        elif kernel == "poly":
            blk *= dtype.type(gamma)
            blk += dtype.type(coef0)
            blk **= int(degree)
    if Y is X and kernel == "rbf":
        np.fill_diagonal(K, 1)
    if knn:
        return K, dist, ind
    return K


def _check_out(out, shape, dtype):
    if not (isinstance(out, np.ndarray) and out.shape == tuple(shape)
            and out.dtype == dtype and out.flags.c_contiguous):
        raise ValueError(
            f"out must be a C-contiguous {np.dtype(dtype)} array of shape "
            f"{tuple(shape)}")


def _block_knn(dot, xx, yy, self_offset, k, dist, ind):
    """k nearest rows of Y for a block of rows of X, from their inner products."""
    d2 = xx[:, None].astype(np.float64) + yy[None, :].astype(np.float64)
    d2 -= 2 * dot
    np.maximum(d2, 0, out=d2)
    rows = np.arange(dot.shape[0])
    if self_offset is not None:
        d2[rows, self_offset + rows] = np.inf    # the point itself
    part = np.argpartition(d2, k - 1, axis=1)[:, :k]
    dp = np.take_along_axis(d2, part, axis=1)
    order = np.argsort(dp, axis=1, kind="stable")
    ind[...] = np.take_along_axis(part, order, axis=1)
    dist[...] = np.sqrt(np.take_along_axis(dp, order, axis=1))
