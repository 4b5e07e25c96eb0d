"""The scale-aware default of the graph and kernel estimators (``feature_scaling``).

LapSVM, LapRLS, TVRLS, TVSVM, CheegerRLS and CheegerSVM build a kNN graph
and a kernel from Euclidean distances between the rows of X as given. When
the columns are in units that differ by orders of magnitude (raw wine or
breast-cancer measurements; two moons with one axis x100 and the other
x0.01), the widest column decides every distance and the fit sees that
axis alone (two moons so rescaled, 3 labels per class: 35-45 % error).
Scaling every column to unit variance always is no cure: near-constant
columns (MNIST's border pixels) are blown up to the weight of the
informative ones (LapRLS on MNIST: 17 -> 22 % error).

So ``feature_scaling="auto"`` scales only extreme spreads, measured
robustly: the ratio of the largest to the smallest interquartile range
over the columns whose IQR is positive (:func:`spread_ratio`; the IQR of a
near-constant or mostly-zero column is 0 and does not count). Above
``FEATURE_SCALE_RATIO`` every column is divided by its standard deviation
(:func:`feature_scale`, :func:`apply_scale`), at ``fit`` and again on the
rows given to ``predict`` / ``decision_function``. Measured ratios: MNIST
84, raw wine 2.9e3, raw breast cancer 2.5e5.

Sparse X is never densified: its quartiles count the implicit zeros, its
standard deviations come from sums over the stored values.
"""
from __future__ import annotations

import logging

import numpy as np
import scipy.sparse as sp

__all__ = ["FEATURE_SCALE_ATTR_DOC", "FEATURE_SCALE_RATIO", "FEATURE_SCALING_DOC",
           "apply_scale", "check_feature_scaling",
           "column_quartiles", "feature_scale", "fit_feature_scale",
           "spread_ratio"]

logger = logging.getLogger("semisvm")

# a column 1,000 times narrower than another weighs 1e-6 as much in a
# squared distance: the graph and the kernel do not see it
FEATURE_SCALE_RATIO = 1000.0

# dense X is read in blocks of columns of at most this many values (a
# float64 copy of a block: 32 MB), never copied whole
BLOCK_VALUES = 1 << 22

# the quartiles of the spread ratio
_QUARTILES = (0.25, 0.75)

# the parameter and the attribute in the six estimators' docstrings
FEATURE_SCALING_DOC = """    feature_scaling : {"auto", True, False}, default="auto"
        Divide each column of X by its standard deviation before the graph
        and the kernel are built from it, and the rows given to ``predict``
        and ``decision_function`` by the same values (``feature_scale_``).
        ``"auto"``: only where the columns' scales are far apart: the
        largest interquartile range (IQR) over the smallest, among the
        columns whose IQR is positive, above ``FEATURE_SCALE_RATIO`` = 1,000
        of :mod:`semisvm._feature_scale` (a column 1,000 times narrower than
        another weighs 1e-6 as much in a squared distance: the graph and the
        kernel do not see it; raw wine measures 2.9e3, raw breast cancer
        2.5e5, MNIST's pixels 84); logged at ``verbose``. Near-constant and
        mostly-zero columns (IQR 0) do not count, and where the rule does
        not fire they are not blown up to the weight of the others (scaling
        MNIST's pixels always took LapRLS from 17 to 22 % error). True:
        always; False: never (X as given). Sparse X stays sparse. No
        scaling with ``kernel="precomputed"`` or a fitted ``graph``: the
        user's kernel or graph fixes the geometry; with ``affinity=`` the
        kernel is still built on the scaled columns. Everything the fit
        builds from X (graph, kernel width, landmarks, ``X_fit_``, a
        callable kernel's input) sees the scaled columns, and an explicit
        kernel width or heat width applies to them.
"""
FEATURE_SCALE_ATTR_DOC = """    feature_scale_ : ndarray of shape (n_features_in_,) or None
        The standard deviations the columns of X were divided by (1.0 for a
        constant column; see ``feature_scaling``), or None: X as given.
"""


def _column_blocks(n, d):
    """``(start, stop)`` of the column blocks of an (n, d) dense X."""
    step = max(1, BLOCK_VALUES // max(n, 1))
    return [(a, min(d, a + step)) for a in range(0, d, step)]


def _ranks(n, q):
    """``(previous, next, gamma)`` of NumPy's linear quantile ``q`` of n
    values: the two ranks in the sorted values and the weight of the next
    (``numpy.quantile``'s ``_get_indexes`` / ``_get_gamma``)."""
    virtual = np.float64((n - 1) * q)
    prev = np.floor(virtual)
    if virtual >= n - 1:
        # (NumPy takes the last value twice, previous index -1)
        return n - 1, n - 1, np.float64(virtual - (-1.0))
    return int(prev), int(prev) + 1, np.float64(virtual - prev)


def _lerp(a, b, t):
    """NumPy's quantile interpolation (``numpy.lib._function_base_impl._lerp``)
    of the arrays a, b at the float64 weight t: the same operations in the
    same dtypes, so the same bits."""
    t = np.full(1, t, dtype=np.float64)   # an array: not a weak scalar
    diff = b - a
    if t[0] >= 0.5:
        return np.subtract(b, diff * (1 - t), dtype=np.float64)
    return np.add(a, diff * t)


def _sparse_quartiles(X):
    """The (2, d) quartiles of the columns of sparse X, counting its
    implicit zeros: a column's sorted values are its sorted stored negative
    values, then its zeros (implicit and stored), then its stored positive
    values. One pass over the values (the CSC form, the negatives' counts),
    then one partition of the stored values of each column that has a
    quartile among them (a mostly-zero column has none)."""
    X = X.tocsc()
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    n, d = X.shape
    data, indptr = X.data, X.indptr
    nnz = np.diff(indptr).astype(np.int64)
    neg_cum = np.concatenate(([0], np.cumsum(data < 0, dtype=np.int64)))
    n_neg = neg_cum[indptr[1:]] - neg_cum[indptr[:-1]]
    n_zero = n - nnz                   # implicit zeros (stored ones are in data)
    zero = np.zeros(1, dtype=data.dtype)[0]
    plan = [_ranks(n, q) for q in _QUARTILES]
    ranks = sorted({r for p, nx, _ in plan for r in (p, nx)})
    # the position of each rank among a column's sorted stored values, -1
    # where it falls among the implicit zeros
    pos = {}
    for r in ranks:
        k = np.where(r < n_neg, r, r - n_zero)
        k[(r >= n_neg) & (r < n_neg + n_zero)] = -1
        pos[r] = k
    values = {r: np.full(d, zero, dtype=data.dtype) for r in ranks}
    stack = np.stack([pos[r] for r in ranks])
    for j in np.flatnonzero((stack >= 0).any(axis=0)):
        ks = stack[:, j]
        seg = np.partition(data[indptr[j]:indptr[j + 1]], np.unique(ks[ks >= 0]))
        for i, r in enumerate(ranks):
            if ks[i] >= 0:
                values[r][j] = seg[ks[i]]
    return np.stack([_lerp(values[p], values[nx], g) for p, nx, g in plan])


def column_quartiles(X):
    """The first and third quartiles of each column of X.

    ``numpy.percentile(X, [25, 75], axis=0)`` (linear interpolation over
    all n rows), computed over blocks of columns for dense X (no copy of the
    whole of X) and, for sparse X, from the stored values and the count of
    implicit zeros (never densified); the same values to the bit.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)

    Returns
    -------
    ndarray of shape (2, n_features)
        Float64 (``numpy.percentile``'s dtype for a list of percentiles).
    """
    if sp.issparse(X):
        n, d = X.shape
        if n == 0:
            return np.zeros((2, d))
        return _sparse_quartiles(X)
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D, got {X.ndim} dimension(s)")
    n, d = X.shape
    out = np.zeros((2, d))
    if n == 0:
        return out
    for a, b in _column_blocks(n, d):
        # one column per row of the block: the partition reads contiguous
        # values (the same order statistics, so the same quartiles)
        block = np.array(X[:, a:b].T, order="C")
        out[:, a:b] = np.percentile(block, [25, 75], axis=1, overwrite_input=True)
    return out


def spread_ratio(X):
    """How far apart the scales of X's columns are.

    The interquartile range (IQR, q75 - q25: :func:`column_quartiles`) of
    each column, then the largest IQR over the smallest among the columns
    whose IQR is positive: near-constant and mostly-zero columns (IQR 0)
    do not count.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)

    Returns
    -------
    float
        The ratio; 1.0 when fewer than two columns have a positive IQR.
    """
    q = column_quartiles(X)
    iqr = q[1] - q[0]
    iqr = iqr[iqr > 0]
    if iqr.size < 2:
        return 1.0
    return float(iqr.max() / iqr.min())


def check_feature_scaling(how):
    """``how`` as given (``"auto"``, True or False), else ValueError."""
    if isinstance(how, (bool, np.bool_)):
        return bool(how)
    if isinstance(how, str) and how == "auto":
        return how
    raise ValueError(
        f"feature_scaling must be 'auto', True or False, got {how!r}")


def _column_std(X):
    """The standard deviation (ddof=0) of each column, float64."""
    n, d = X.shape
    if sp.issparse(X):
        X = X.tocsr()
        if not X.has_canonical_format:
            X = X.copy()
            X.sum_duplicates()
        if n == 0:
            return np.zeros(d)
        data = X.data.astype(np.float64)
        col = X.indices
        mean = np.bincount(col, weights=data, minlength=d) / n
        nnz = np.bincount(col, minlength=d)
        # the stored values' squared deviations, and the implicit zeros' mean^2
        dev = data - mean[col]
        var = (np.bincount(col, weights=dev * dev, minlength=d)
               + (n - nnz) * mean * mean) / n
        return np.sqrt(var)
    out = np.zeros(d)
    if n == 0:
        return out
    for a, b in _column_blocks(n, d):
        out[a:b] = X[:, a:b].std(axis=0, dtype=np.float64)
    return out


def feature_scale(X, how="auto"):
    """The per-column scale of ``feature_scaling``, or None (no scaling).

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    how : {"auto", True, False}, default="auto"
        True: always scale; False: never; "auto": scale when
        :func:`spread_ratio` of X is above ``FEATURE_SCALE_RATIO``.

    Returns
    -------
    ndarray of shape (n_features,) or None
        Each column's standard deviation (ddof=0; float64; sparse: from the
        sums of the stored values, never densified), 1.0 where it is 0 or
        not finite; None where X is not scaled.
    """
    return _feature_scale(X, check_feature_scaling(how))[0]


def _feature_scale(X, how):
    """``(scale or None, spread ratio or None)``."""
    if how is False:
        return None, None
    ratio = None
    if how == "auto":
        ratio = spread_ratio(X)
        if not ratio > FEATURE_SCALE_RATIO:
            return None, ratio
    if not sp.issparse(X):
        X = np.asarray(X)
    s = _column_std(X)
    s[~np.isfinite(s) | (s == 0)] = 1.0
    return s, ratio


def fit_feature_scale(X, how, *, fixed=False, verbose=0, name="estimator"):
    """``feature_scale_`` of a fit on the validated X: ``how`` (the
    estimator's ``feature_scaling``) checked, then :func:`feature_scale`,
    or None where the geometry is fixed by the user (``fixed``: a
    precomputed kernel, a fitted graph); logged when the rule fires."""
    how = check_feature_scaling(how)
    if fixed:
        return None
    s, ratio = _feature_scale(X, how)
    if s is not None and ratio is not None:
        logger.log(logging.INFO if verbose else logging.DEBUG,
                   "%s: the columns' interquartile ranges span a ratio of %.3g "
                   "(> %g): each column is divided by its standard deviation "
                   "(feature_scaling='auto')", name, ratio, FEATURE_SCALE_RATIO)
    return s


def apply_scale(X, s):
    """X with each column divided by ``s`` (None: X itself, the same object).

    Dense X: ``X / s`` in X's dtype (floating; C-contiguous); sparse X: a
    CSR copy (X's index dtype and structure) with ``data / s[indices]``,
    never densified.
    """
    if s is None:
        return X
    s = np.asarray(s)
    if X.shape[1] != s.shape[0]:
        raise ValueError(f"X has {X.shape[1]} features, the scale {s.shape[0]}")
    if sp.issparse(X):
        X = X.tocsr()
        dtype = X.dtype if X.dtype.kind == "f" else np.dtype(np.float64)
        data = np.divide(X.data, s.astype(dtype)[X.indices], dtype=dtype)
        ind, ptr = X.indices.copy(), X.indptr.copy()
        out = type(X)((data, ind, ptr), shape=X.shape)
        # (SciPy's constructor may narrow int64 indices: X's are kept)
        out.indices, out.indptr = ind, ptr
        return out
    dtype = X.dtype if X.dtype.kind == "f" else np.dtype(np.float64)
    return np.divide(X, s.astype(dtype), dtype=dtype, order="C")
