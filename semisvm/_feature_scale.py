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
over the columns whose IQR measures their spread (:func:`spread_ratio`).
The IQR of a near-constant or mostly-zero column is 0, and where about
three quarters of a column sit at one value its third quartile is
interpolated between that value and the next (an MNIST pixel 75 % zero:
IQR 0.25 where its standard deviation is 77): such a column, whose IQR is
below ``IQR_STD_SHARE`` (1/50) of its standard deviation, does not count.
Above ``FEATURE_SCALE_RATIO`` every column is divided by its standard
deviation (:func:`feature_scale`, :func:`apply_scale`), at ``fit`` and
again on the rows given to ``predict`` / ``decision_function``. Measured
ratios (at most 600 rows): MNIST 63 (1,012 counting its 75 %-zero pixels),
raw wine 2.9e3, raw breast cancer 2.5e5.

Sparse X is never densified: its quartiles count the implicit zeros, its
standard deviations come from sums over the stored values.
"""
from __future__ import annotations

import logging

import numpy as np
import scipy.sparse as sp

from semisvm._validation import warn_user

__all__ = ["FEATURE_SCALE_ATTR_DOC", "FEATURE_SCALE_RATIO", "FEATURE_SCALING_DOC",
           "IQR_STD_SHARE", "apply_scale", "check_feature_scaling",
           "column_quartiles", "feature_scale", "fit_feature_scale",
           "record_scale", "scaled_nbytes", "spread_ratio"]

logger = logging.getLogger("semisvm")

# a column 1,000 times narrower than another weighs 1e-6 as much in a
# squared distance: the graph and the kernel do not see it
FEATURE_SCALE_RATIO = 1000.0

# a column counts in the spread ratio only where its IQR is at least this
# share of its standard deviation: below it the IQR does not measure the
# column's spread but where its quartiles fall at the edge of a mass of
# equal values (MNIST's pixels at 300-1,000 rows: shares 0.003-0.006; every
# column of the tune part's tabular sets: 0.57 and above; a lognormal
# column of sigma 2.3, heavy-tailed as measurements go, about 0.02);
# chosen on the tune part (bench/RESULTS.md)
IQR_STD_SHARE = 0.02

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
        columns whose IQR is at least ``IQR_STD_SHARE`` = 1/50 of their
        standard deviation, above ``FEATURE_SCALE_RATIO`` = 1,000 of
        :mod:`semisvm._feature_scale` (a column 1,000 times narrower than
        another weighs 1e-6 as much in a squared distance: the graph and the
        kernel do not see it; raw wine measures 2.9e3, raw breast cancer
        2.5e5, MNIST's pixels 63-127); logged at ``verbose``. Near-constant
        and mostly-zero columns (IQR 0, or an IQR that is the edge of a mass
        of zeros: an MNIST pixel 75 % zero) do not count, and where the
        rule does not fire they are not blown up to the weight of the others
        (scaling MNIST's pixels took the six from 24-25 to 27-29 % mean
        error, 600 rows). True:
        always; False: never (X as given). Sparse X stays sparse. No
        scaling with ``kernel="precomputed"`` (True refused). A fitted
        ``graph`` fixes the geometry: a graph this estimator built on scaled
        rows (``graph_``) records the scale, and a fit given it scales X by
        that scale (pass the raw X); a graph fitted by the user on X as
        given keeps X unscaled (True refused; ``"auto"`` warns where it
        would have scaled: scale X before fitting the graph, or let the
        estimator build it). With ``affinity=`` the kernel is still built
        on the scaled columns. Everything the fit
        builds from X (graph, kernel width, landmarks, ``X_fit_``, a
        callable kernel's input) sees the scaled columns, and an explicit
        kernel width or heat width applies to them.
"""
FEATURE_SCALE_ATTR_DOC = """    feature_scale_ : ndarray of shape (n_features,) or None
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


# sparse X is read in chunks of at most this many stored values (the
# column ids of a chunk as intp, its sign mask): never a copy of the whole
SPARSE_CHUNK = 1 << 20
# CSR X: the columns whose quartiles are among their stored values are
# gathered in about this many passes over the values (each holds
# 1 / SPARSE_PASSES of the needed values; 4 passes: 1.9x the memory, 0.85x
# the time, bench/bench_feature_scale_memory.py)
SPARSE_PASSES = 8


def _sparse_chunks(X, step=None):
    """``(data, columns)`` of consecutive chunks of the stored values of a
    CSR or CSC X: the values as stored (views) and their column ids (intp,
    a chunk's worth), so that per-column counts and gathers never copy the
    whole of X."""
    step = SPARSE_CHUNK if step is None else step
    data, nnz = X.data, X.data.shape[0]
    csr = X.format == "csr"
    for a in range(0, nnz, step):
        b = min(nnz, a + step)
        if csr:
            cols = X.indices[a:b].astype(np.intp)
        else:
            cols = np.searchsorted(X.indptr, np.arange(a, b), side="right") - 1
        yield data[a:b], cols


def _sparse_quartiles(X):
    """The (2, d) quartiles of the columns of sparse X, counting its
    implicit zeros: a column's sorted values are its sorted stored negative
    values, then its zeros (implicit and stored), then its stored positive
    values. One pass over the stored values in chunks of ``SPARSE_CHUNK``
    (each column's count of stored and of negative values), then only the
    columns that have a quartile among their stored values (a mostly-zero
    column has none) are read and partitioned: CSC, each column's
    contiguous values; CSR, gathered in blocks of columns (at most about
    eight passes over the values, an eighth of the needed values held at
    a time). CSR and CSC X are read as they are (no conversion, no copy of
    X)."""
    if X.format not in ("csr", "csc"):
        X = X.tocsr()
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    n, d = X.shape
    data = X.data
    nnz = np.zeros(d, dtype=np.int64)
    n_neg = np.zeros(d, dtype=np.int64)
    for vals, cols in _sparse_chunks(X):
        nnz += np.bincount(cols, minlength=d)
        neg = vals < 0
        if neg.any():
            n_neg += np.bincount(cols[neg], minlength=d)
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
    need = np.flatnonzero((stack >= 0).any(axis=0))

    def take(j, seg):
        ks = stack[:, j]
        seg.partition(np.unique(ks[ks >= 0]))
        for t, r in enumerate(ranks):
            if ks[t] >= 0:
                values[r][j] = seg[ks[t]]

    if X.format == "csc":
        # a column's stored values are contiguous: one copy of each
        for j in need:
            take(j, data[X.indptr[j]:X.indptr[j + 1]].copy())
        return np.stack([_lerp(values[p], values[nx], g) for p, nx, g in plan])
    # CSR: the needed columns' values gathered in blocks of columns, each a
    # pass over the stored values: blocks of at most max(SPARSE_CHUNK, an
    # eighth of the needed values) values (a column with more: a block of
    # its own), so at most about eight passes and an eighth of the values
    # held at a time
    cap = max(SPARSE_CHUNK, int(nnz[need].sum()) // SPARSE_PASSES)
    blocks, cur, size = [], [], 0
    for j in need:
        if cur and (size + nnz[j] > cap or len(cur) == 65535):
            blocks.append(cur)
            cur, size = [], 0
        cur.append(j)
        size += nnz[j]
    if cur:
        blocks.append(cur)
    indices = X.indices
    for block in blocks:
        block = np.asarray(block)
        # each column's place in the block, 0 outside it (uint16: a radix sort)
        local = np.zeros(d, dtype=np.uint16)
        local[block] = np.arange(1, block.size + 1, dtype=np.uint16)
        got_v, got_c = [], []
        for a in range(0, data.shape[0], SPARSE_CHUNK):
            loc = local[indices[a:a + SPARSE_CHUNK]]
            keep = loc > 0
            if keep.any():
                got_v.append(data[a:a + SPARSE_CHUNK][keep])
                if block.size > 1:
                    got_c.append(loc[keep])
        gv = np.concatenate(got_v)
        del got_v
        if block.size > 1:
            # (grouped by column; the order within a column is immaterial
            # to its order statistics)
            gv = gv[np.argsort(np.concatenate(got_c), kind="stable")]
            del got_c
        starts = np.concatenate(([0], np.cumsum(nnz[block])))
        for i, j in enumerate(block):
            take(j, gv[starts[i]:starts[i + 1]])
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
    whose IQR measures their spread: positive and at least
    ``IQR_STD_SHARE`` of the column's standard deviation. Near-constant and
    mostly-zero columns (IQR 0) do not count, nor a column whose third
    quartile falls at the edge of a mass of zeros (about three quarters of
    it zero: the quartile is interpolated between 0 and the next value, an
    IQR far below the column's spread).

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)

    Returns
    -------
    float
        The ratio; 1.0 when fewer than two columns count.
    """
    return _spread_ratio(X)[0]


def _spread_ratio(X, above=None):
    """``(ratio, std)``: :func:`spread_ratio` and the columns' standard
    deviations (:func:`_column_std`), or None where none was needed: fewer
    than two columns with a positive IQR, or, given ``above``, the ratio
    over all the columns with a positive IQR is not above it (leaving
    columns out only lowers the ratio: it is not above ``above`` either;
    that bound is returned as the ratio, a pass over X saved)."""
    q = column_quartiles(X)
    iqr = q[1] - q[0]
    pos = iqr > 0
    if np.count_nonzero(pos) < 2:
        return 1.0, None
    bound = float(iqr[pos].max() / iqr[pos].min())
    if above is not None and not bound > above:
        return bound, None
    if not sp.issparse(X):
        X = np.asarray(X)
    s = _column_std(X)
    iqr = iqr[pos & (iqr >= IQR_STD_SHARE * s)]
    if iqr.size < 2:
        return 1.0, s
    return float(iqr.max() / iqr.min()), s


def check_feature_scaling(how):
    """``how`` as given (``"auto"``, True or False), else ValueError."""
    if isinstance(how, (bool, np.bool_)):
        return bool(how)
    if isinstance(how, str) and how == "auto":
        return how
    raise ValueError(
        f"feature_scaling must be 'auto', True or False, got {how!r}")


def _column_std(X):
    """The standard deviation (ddof=0) of each column, float64. A column
    whose squares overflow (values near 1e160 and above: the plain std is
    inf) is measured as ``std(x / max|x|) * max|x|``, finite where its
    values are (the other columns keep the plain formula, to the bit)."""
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
        nnz = np.bincount(col, minlength=d)

        def std(data):
            mean = np.bincount(col, weights=data, minlength=d) / n
            # the stored values' squared deviations, and the implicit zeros' mean^2
            dev = data - mean[col]
            var = (np.bincount(col, weights=dev * dev, minlength=d)
                   + (n - nnz) * mean * mean) / n
            return np.sqrt(var)

        with np.errstate(over="ignore", invalid="ignore"):
            out = std(data)
        over = ~np.isfinite(out)
        if over.any():
            m = np.zeros(d)
            np.maximum.at(m, col, np.abs(data))
            fix = over & np.isfinite(m) & (m > 0)
            if fix.any():
                w = np.where(fix, m, 1.0)
                with np.errstate(over="ignore", invalid="ignore"):
                    out = np.where(fix, std(data / w[col]) * w, out)
        return out
    out = np.zeros(d)
    if n == 0:
        return out
    for a, b in _column_blocks(n, d):
        blk = X[:, a:b]
        with np.errstate(over="ignore", invalid="ignore"):
            sd = blk.std(axis=0, dtype=np.float64)
        over = ~np.isfinite(sd)
        if over.any():
            for j in np.flatnonzero(over):
                x = np.asarray(blk[:, j], dtype=np.float64)
                m = np.abs(x).max()
                if np.isfinite(m) and m > 0:
                    sd[j] = (x / m).std() * m
        out[a:b] = sd
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
    """``(scale or None, spread ratio or None)``; where "auto" does not
    fire the ratio may be an upper bound of :func:`spread_ratio`
    (:func:`_spread_ratio`)."""
    if how is False:
        return None, None
    ratio = s = None
    if how == "auto":
        ratio, s = _spread_ratio(X, FEATURE_SCALE_RATIO)
        if not ratio > FEATURE_SCALE_RATIO:
            return None, ratio
    if s is None:
        if not sp.issparse(X):
            X = np.asarray(X)
        s = _column_std(X)
    s[~np.isfinite(s) | (s == 0)] = 1.0
    return s, ratio


def fit_feature_scale(X, how, *, precomputed=False, graph=None, verbose=0,
                      name="estimator"):
    """``feature_scale_`` of a fit on the validated X: ``how`` (the
    estimator's ``feature_scaling``) checked, then :func:`feature_scale`;
    logged when the rule fires.

    ``precomputed`` (``kernel="precomputed"``): X is a Gram matrix, never
    scaled (True is refused). ``graph``: the estimator's ``graph``; a
    fitted one fixes the geometry. Where a fit of the estimators built it
    on scaled rows it records that scale (``graph.feature_scale_``): that
    scale is the fit's, so the raw X (or a subset of its rows: a fold) is
    found in it. A graph fitted without a recorded scale keeps X as given
    (True is refused; ``"auto"`` warns where it would have scaled). False:
    X as given, whatever the graph records (the estimators' internal fits
    pass X already scaled).
    """
    how = check_feature_scaling(how)
    if precomputed:
        if how is True:
            raise ValueError(
                "feature_scaling=True cannot be honoured with "
                "kernel='precomputed': X is a Gram matrix, not columns to "
                "scale; use feature_scaling='auto' or False")
        return None
    if graph is not None and hasattr(graph, "affinity_"):
        if how is False:
            return None
        rec = getattr(graph, "feature_scale_", None)
        if rec is not None:
            rec = np.array(rec, dtype=np.float64)   # (the fit's own copy)
            if rec.shape != (X.shape[1],):
                raise ValueError(
                    f"graph records a feature scale of shape {rec.shape} "
                    f"(graph.feature_scale_), X has {X.shape[1]} features")
            return rec
        if how is True:
            raise ValueError(
                "feature_scaling=True cannot be honoured with a graph fitted "
                "on unscaled rows (graph fixes the geometry): scale X before "
                "fitting the graph, pass an unfitted KNNGraph (the "
                "estimator then builds it on the scaled rows), or use "
                "feature_scaling='auto' or False")
        ratio = spread_ratio(X)
        if ratio > FEATURE_SCALE_RATIO:
            warn_user(
                f"{name}: the columns' interquartile ranges span a ratio of "
                f"{ratio:.3g} (> {FEATURE_SCALE_RATIO:g}), where "
                "feature_scaling='auto' divides each column by its standard "
                "deviation, but the given graph was fitted on X as given and "
                "fixes the geometry: X is not scaled. Scale X before fitting "
                "the graph, or let the estimator build the graph (an "
                "unfitted KNNGraph or graph=None)", UserWarning)
        return None
    s, ratio = _feature_scale(X, how)
    if s is not None and ratio is not None:
        logger.log(logging.INFO if verbose else logging.DEBUG,
                   "%s: the columns' interquartile ranges span a ratio of %.3g "
                   "(> %g): each column is divided by its standard deviation "
                   "(feature_scaling='auto')", name, ratio, FEATURE_SCALE_RATIO)
    return s


def record_scale(graph, s):
    """Record on a KNNGraph the estimator built (fitted) on the rows
    scaled by ``s`` that scale (``graph.feature_scale_``; None: X as
    given), read by :func:`fit_feature_scale` when the graph is passed to
    another fit (kept by pickle and by ``clone``, which returns a fitted
    graph itself)."""
    graph.feature_scale_ = None if s is None else np.array(s, dtype=np.float64)


def scaled_nbytes(X, s):
    """Bytes of :func:`apply_scale`'s copy of X (0 where ``s`` is None):
    dense X's size in its floating dtype; sparse X's values and index
    arrays."""
    if s is None:
        return 0
    dtype = X.dtype if X.dtype.kind == "f" else np.dtype(np.float64)
    if sp.issparse(X):
        X = X.tocsr() if X.format != "csr" else X
        return (X.nnz * dtype.itemsize + X.indices.nbytes + X.indptr.nbytes)
    return int(np.prod(X.shape)) * dtype.itemsize


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
