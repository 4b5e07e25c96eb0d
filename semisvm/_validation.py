"""All input checks of semisvm, run before any compiled code sees the data.

Cython kernels are compiled without bounds checks: every array they receive
has been validated here (dtype, layout, finiteness, index width, lengths).
"""
from __future__ import annotations

import functools
import math
import numbers
import os
import sys
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_array
from sklearn.utils.multiclass import check_classification_targets

UNLABELED = -1
_INT32_MAX = np.iinfo(np.int32).max
FLOAT_DTYPES = (np.float64, np.float32)


class NotEnoughMemoryError(ValueError, MemoryError):
    """A computation refused up front: it would need more memory than there is.

    Both a ``ValueError`` (bad input for this machine) and a ``MemoryError``.
    """


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def warn_user(message, category=UserWarning):
    """``warnings.warn`` pointed at the first frame outside semisvm.

    However deep in the library a warning is raised (a fit's wrapper, its
    solver, its check), it names the line that called into semisvm: the
    user's ``fit``, or scikit-learn's where a meta-estimator called it. A
    fixed ``stacklevel`` named a line of the library itself whenever a
    wrapper or helper stood in between.
    """
    level = 1
    frame = sys._getframe(0)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back
        level += 1
    warnings.warn(message, category, stacklevel=level)


def _gib(nbytes):
    return f"{nbytes / 2**30:.1f} GiB"


def memory_budget():
    """``(bytes, source)``: the memory this process may still allocate.

    The smallest of the memory the system reports available (``MemAvailable``
    of ``/proc/meminfo``, else the physical memory from ``os.sysconf``) and
    what ``RLIMIT_AS`` / ``RLIMIT_DATA`` leave above the current address
    space. ``(inf, "unknown")`` when none can be read.
    """
    budget, source = float("inf"), "unknown"
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    budget, source = int(line.split()[1]) * 1024.0, "available RAM"
                    break
    except (OSError, ValueError, IndexError):
        pass
    if source == "unknown":
        try:
            budget = float(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
            source = "physical RAM"
        except (ValueError, OSError, AttributeError):
            pass
    try:
        import resource
    except ImportError:  # pragma: no cover - not on POSIX
        return budget, source
    used = 0.0
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    used = int(line.split()[1]) * 1024.0
    except (OSError, ValueError, IndexError):
        pass
    for name in ("RLIMIT_AS", "RLIMIT_DATA"):
        lim = getattr(resource, name, None)
        if lim is None:
            continue
        soft = resource.getrlimit(lim)[0]
        if soft != resource.RLIM_INFINITY and soft - used < budget:
            budget, source = max(soft - used, 0.0), f"{name} limit"
    return budget, source


def check_memory(nbytes, what):
    """Raise :class:`NotEnoughMemoryError` before allocating ``nbytes`` for ``what``.

    ``what`` names the estimator/function, the sizes and the array, e.g.
    ``"LapSVM on n=40000 samples: the 40000 x 40000 float64 kernel matrix"``.
    """
    budget, source = memory_budget()
    if nbytes > budget:
        raise NotEnoughMemoryError(
            f"not enough memory: needs {_gib(nbytes)} ({int(nbytes)} bytes) for "
            f"{what}; {_gib(budget)} left ({source})")


def fits_in_memory(nbytes):
    """Whether ``nbytes`` fit in what :func:`memory_budget` leaves (the test
    :func:`check_memory` makes, for code that chooses a path by memory)."""
    return nbytes <= memory_budget()[0]


def check_positive(value, name, *, allow_zero=False):
    """Return ``value`` as float if it is a finite real > 0 (>= 0 if allowed)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    value = float(value)
    ok = value >= 0 if allow_zero else value > 0
    if not (np.isfinite(value) and ok):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be a finite number {bound}, got {value!r}")
    return value


def check_int(value, name, *, minimum=1):
    """Return ``value`` as int if it is an integer >= ``minimum``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value!r}")
    return int(value)


def _bad_structure(name, what):
    return ValueError(
        f"{name} is a malformed sparse matrix: {what} (build it with "
        "scipy.sparse constructors, or call its check_format(full_check=True) "
        "to see the problem)")


def _check_index_range(idx, bound, name, what):
    """One pass: every entry of the integer array ``idx`` is in [0, bound)."""
    if idx.size == 0:
        return
    # viewed as unsigned, a negative index becomes huge: max() checks both ends
    top = idx.view(np.dtype(f"u{idx.dtype.itemsize}")).max()
    if int(top) >= bound:
        lo, hi = int(idx.min()), int(idx.max())
        bad = lo if lo < 0 else hi
        raise _bad_structure(name, f"{what} {bad} outside [0, {bound})")


def _check_compressed(X, name, n_major, n_minor, major, minor):
    """Structure of a CSR/CSC (``major`` = rows/columns) or BSR matrix."""
    indptr, indices, data = X.indptr, X.indices, X.data
    for arr, what in ((indptr, "indptr"), (indices, "indices")):
        if not isinstance(arr, np.ndarray) or arr.ndim != 1 \
                or arr.dtype.kind not in "iu":
            raise _bad_structure(name, f"{what} is not a 1-D integer array")
    if not isinstance(data, np.ndarray) or data.shape[:1] != indices.shape:
        raise _bad_structure(
            name, f"data has shape {getattr(data, 'shape', None)} but indices "
                  f"{indices.shape}")
    if indptr.shape[0] != n_major + 1:
        raise _bad_structure(
            name, f"indptr has {indptr.shape[0]} entries, expected {n_major + 1} "
                  f"({major} + 1)")
    if int(indptr[0]) != 0:
        raise _bad_structure(name, f"indptr[0] is {int(indptr[0])}, expected 0")
    nnz = int(indptr[-1])
    if nnz > indices.shape[0]:
        raise _bad_structure(
            name, f"indptr[-1] = {nnz} but there are only {indices.shape[0]} "
                  "stored indices")
    if n_major and np.any(indptr[1:] < indptr[:-1]):
        k = int(np.flatnonzero(indptr[1:] < indptr[:-1])[0])
        raise _bad_structure(name, f"indptr decreases at {major[:-1]} {k}")
    _check_index_range(indices[:nnz], n_minor, name, f"{minor[:-1]} index")
    return nnz


def check_sparse_structure(X, name="X"):
    """Refuse a SciPy sparse matrix whose index arrays are inconsistent.

    SciPy checks little when a matrix is built from arrays (and nothing when
    its arrays are modified later), while compiled code -- ours and SciPy's own
    conversions -- trusts them. Checked: CSR/CSC/BSR ``indptr`` (length,
    starts at 0, non-decreasing, last entry <= number of stored indices) and
    ``indices`` in range; COO ``row``/``col`` in range. Costs one pass over
    the indices (NumPy ``max``) and one over ``indptr``. Dense input and other
    formats are returned unchecked. Returns ``X``.
    """
    if not sp.issparse(X):
        return X
    shape = X.shape
    if len(shape) != 2 or min(shape) < 0:
        raise _bad_structure(name, f"shape {shape} is not 2-D")
    n_rows, n_cols = (int(s) for s in shape)
    fmt = X.format
    if fmt == "csr":
        _check_compressed(X, name, n_rows, n_cols, "rows", "columns")
    elif fmt == "csc":
        _check_compressed(X, name, n_cols, n_rows, "columns", "rows")
    elif fmt == "bsr":
        r, c = X.blocksize
        if r < 1 or c < 1 or n_rows % r or n_cols % c:
            raise _bad_structure(name, f"blocksize {X.blocksize} does not divide "
                                       f"shape {shape}")
        if X.data.ndim != 3 or X.data.shape[1:] != (r, c):
            raise _bad_structure(name, f"data has shape {X.data.shape}")
        _check_compressed(X, name, n_rows // r, n_cols // c, "block rows",
                          "block columns")
    elif fmt == "coo":
        coords = getattr(X, "coords", None) or (X.row, X.col)
        if len(coords) != 2:
            raise _bad_structure(name, "coords are not 2-D")
        for arr, bound, what in ((coords[0], n_rows, "row index"),
                                 (coords[1], n_cols, "column index")):
            if not isinstance(arr, np.ndarray) or arr.ndim != 1 \
                    or arr.dtype.kind not in "iu" or arr.shape != X.data.shape:
                raise _bad_structure(name, f"{what} array does not match data")
            _check_index_range(arr, bound, name, what)
    return X


def validate_fit_data(estimator, X, y, *, sumsq=False):
    """``validate_data(estimator, X, y)`` for a linear estimator's fit: X CSR
    or C-contiguous, float32/float64 (``FLOAT_DTYPES``), y 1-D.

    Input that scikit-learn's ``check_X_y`` would return unchanged -- a CSR
    matrix with int32 index arrays or a C-contiguous 2-D ndarray, of a float
    dtype, with at least one row and column and finite values, and integer
    labels (never NaN) or finite float labels in a 1-D array of one entry
    per row -- only sets
    what ``validate_data`` sets for input without feature names:
    ``n_features_in_``, and no ``feature_names_in_``; without its fixed
    cost (a tenth of a small fit's time). Any other input takes the full
    check and its messages.

    ``sumsq``: return ``(X, y, total)``, ``total`` the sum of the squared
    values of X when the fast path computed it (its finiteness test; else
    None), for :func:`as_csr32`'s scale check of the same matrix.
    """
    from sklearn.utils.validation import validate_data

    total = None
    if (isinstance(y, np.ndarray) and y.ndim == 1
            and (y.dtype.kind in "iu" or (y.dtype.kind == "f"
                                          and np.isfinite(y).all()))
            and len(getattr(X, "shape", ())) == 2 and y.shape[0] == X.shape[0]):
        total = _clean_float_matrix(X)
    if total is not None:
        estimator.n_features_in_ = X.shape[1]
        if hasattr(estimator, "feature_names_in_"):
            del estimator.feature_names_in_
    else:
        X, y = validate_data(estimator, X, y, accept_sparse="csr",
                             dtype=list(FLOAT_DTYPES), order="C",
                             accept_large_sparse=True)
    return (X, y, total) if sumsq else (X, y)


def _clean_float_matrix(X):
    """The sum of the squared values of X (a float) if X is a CSR matrix with
    int32 index arrays or a C-contiguous 2-D ndarray (not an ``np.matrix``),
    float32/float64, non-empty, with finite values; else None. One pass (a
    BLAS dot: a finite sum of squares has no NaN or inf behind it; values
    whose squares overflow give None, and the full check); :func:`check_scale`
    takes the same sum."""
    if type(X) is np.ndarray:
        if not (X.ndim == 2 and X.flags.c_contiguous):
            return None
        data = X
    elif isinstance(X, (sp.csr_matrix, sp.csr_array)):
        if not (X.indices.dtype == np.int32 and X.indptr.dtype == np.int32):
            return None
        data = X.data
    else:
        return None
    if X.dtype not in FLOAT_DTYPES or len(X.shape) != 2 or not (
            X.shape[0] and X.shape[1]):
        return None
    scan = None if type(X) is np.ndarray else _csr_scan(X)
    total = _sumsq(data.reshape(-1)) if scan is None else scan[2]
    return total if np.isfinite(total) else None


def _csr_scan(X):
    """``(canonical, stored zeros, sum of squares)`` of a CSR matrix with
    int32 index arrays and float values, in one compiled pass on the threads
    of the fit (:func:`semisvm._thread_state.current`; the sums in a fixed chunk
    order: the same result for any count)."""
    from semisvm._core._dataset import csr_scan
    from semisvm._thread_state import current
    ip, ix, data = X.indptr, X.indices, X.data
    if not (isinstance(ip, np.ndarray) and isinstance(ix, np.ndarray)
            and isinstance(data, np.ndarray)
            and ip.ndim == ix.ndim == data.ndim == 1
            and ip.dtype == ix.dtype == np.int32 and data.dtype in FLOAT_DTYPES
            and ip.shape[0] == X.shape[0] + 1 and ix.shape == data.shape
            and ip.flags.c_contiguous and ix.flags.c_contiguous
            and data.flags.c_contiguous and 0 <= ip[-1] <= ix.shape[0]):
        # strided, mis-shaped or malformed arrays: None, the callers' former
        # passes (and the structure check's errors, which name X)
        return None
    return csr_scan(ip, ix, data, current())


def _sumsq(flat):
    """``flat . flat`` as a Python float (inf or NaN where it overflows or
    ``flat`` holds one), without warnings.

    NumPy's own loop (``einsum``), not BLAS: it runs before a fit holds BLAS
    at one thread (:func:`semisvm._threads.limit`), and OpenBLAS threads a
    dot of more than about 10,000 entries, after which its idle thread
    spins: at 5,000 x 10 to 5,000 x 60 rows 0.04-0.1 CPU s of the second
    core per fit, for one pass that only bounds the row norms (the sum is
    compared with a quarter of the dtype's range, and only decides whether
    the exact row norms are computed)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return float(np.einsum("i,i->", flat, flat))


def check_scale(X, name="X", *, total=None):
    """Refuse entries so large that squared row norms overflow ``X.dtype``.

    Kernels and line searches form ``||x||^2`` and ``||x - z||^2``: with
    entries near ``sqrt(finfo.max / n_features)`` (about 1e150 in float64,
    1e18 in float32) these become inf and the solvers NaN. One BLAS pass: the
    sum of all squared entries bounds every row's; only when it exceeds a
    quarter of the dtype's range are the row norms computed exactly (scaled,
    in float64), and ``X`` is refused if one of them does. ``total``: that
    sum, when the caller has just computed it for this very matrix
    (:func:`validate_fit_data`).
    """
    data = X.data if sp.issparse(X) else X
    if not isinstance(data, np.ndarray) or data.dtype.kind != "f" or data.size == 0:
        return X
    flat = data.reshape(-1)
    limit = float(np.finfo(data.dtype).max) / 4
    if total is None:
        total = _sumsq(flat)
    if total <= limit:
        return X
    if not np.isfinite(total) and not np.isfinite(flat).all():
        # NaN/inf entries: the caller's finiteness check names them
        return X
    big = max(float(data.max()), -float(data.min()))
    scaled = data.astype(np.float64) / big  # exact scaled norms: no overflow
    if sp.issparse(X):
        sq = np.asarray(type(X)((scaled ** 2, X.indices, X.indptr),
                                shape=X.shape).sum(axis=1)).ravel()
    else:
        sq = np.einsum("ij,ij->i", scaled, scaled)
    worst = float(np.sqrt(sq.max())) * big
    if worst * worst > limit:
        raise ValueError(
            f"{name} has entries up to {big:.3g}: the squared norm of a row "
            f"({worst:.3g}^2) overflows {data.dtype}; rescale the features "
            "(e.g. sklearn.preprocessing.MaxAbsScaler)")
    return X


def canonical_csr(X, *, scan=None):
    """CSR ``X`` in canonical form: duplicate entries summed, explicit zeros
    dropped, indices sorted (a copy; ``X`` itself when it already is).

    Every computation then sees one matrix whatever its representation: the
    solvers' row products sum duplicates anyway, but data-dependent defaults
    (``lam="auto"``'s mean squared norm, kernel widths, row norms of kNN
    distances) square entries and would count ``(a, b)`` as ``a^2 + b^2``
    instead of ``(a + b)^2``. One O(nnz) check when nothing is to be done
    (none when ``scan``, :func:`_csr_scan` of this very X, is given).
    """
    if scan is None and X.indices.shape[0] == X.indptr[-1]:
        scan = _csr_scan(X)
    if scan is not None:
        # one compiled pass on the fit's threads (sorted, unique, no zeros)
        if scan[0] and scan[1] == 0:
            return X
    elif X.has_canonical_format and np.count_nonzero(X.data) == X.data.size:
        # (count_nonzero: one SIMD pass, no n-entry mask of X.data == 0;
        # -0.0 counts as a zero in both)
        return X
    X = X.copy()
    X.sum_duplicates()
    X.eliminate_zeros()
    return X


def as_csr32(X, name="X", *, checked=False, sumsq=None, scan=None):
    """Return CSR ``X`` with int32 ``indices``/``indptr`` (no copy of the values).

    Validates the structure first (:func:`check_sparse_structure`), then
    downcasts int64 index arrays when ``nnz`` and the shape fit in int32 and
    raises otherwise; the compiled kernels index with int32. Stored entries
    past ``indptr[-1]`` are dropped (views, no copy), a matrix with
    duplicate entries or explicit zeros is made canonical
    (:func:`canonical_csr`, a copy), and strided arrays are made contiguous
    (a copy). ``checked``: the caller has just checked the structure of
    this very matrix (its pass is not made again); ``sumsq``: the sum of its
    squared values, just computed (:func:`check_scale`'s ``total``; not used
    for a matrix changed here); ``scan``: :func:`_csr_scan` of this very
    matrix, just computed (its canonical-form answer is taken).
    """
    if not sp.issparse(X):
        return check_scale(X, name, total=sumsq)
    if not checked:
        check_sparse_structure(X, name)
    X_in = X
    if X.format != "csr":
        X = X.tocsr()
    nnz = int(X.indptr[-1])
    if X.indices.shape[0] != nnz or X.data.shape[0] != nnz:
        X = type(X)((X.data[:nnz], X.indices[:nnz], X.indptr), shape=X.shape)
    X = canonical_csr(X, scan=scan if X is X_in else None)
    if not (X.data.flags.c_contiguous and X.indices.flags.c_contiguous
            and X.indptr.flags.c_contiguous):
        # strided views (e.g. values sliced from a larger array): the
        # compiled kernels read contiguous arrays
        X = type(X)((np.ascontiguousarray(X.data),
                     np.ascontiguousarray(X.indices),
                     np.ascontiguousarray(X.indptr)), shape=X.shape)
    check_scale(X, name, total=sumsq if X is X_in else None)
    if X.indices.dtype == np.int32 and X.indptr.dtype == np.int32:
        return X
    if nnz > _INT32_MAX or max(X.shape) > _INT32_MAX:
        raise ValueError(
            f"{name} has {nnz} stored entries and shape {X.shape}: more than "
            "int32 indices can address; split it into row blocks"
        )
    return type(X)(
        (X.data, X.indices.astype(np.int32), X.indptr.astype(np.int32)),
        shape=X.shape,
    )


def check_X(X, name="X", *, dtype=FLOAT_DTYPES, reset_dtype=None):
    """Validate a 2-D float32/float64 array or CSR matrix (never densified).

    Dense input becomes C-contiguous; sparse input becomes CSR with int32
    indices; NaN/inf and empty input raise ``ValueError``.
    """
    if X is None:
        raise ValueError(f"{name} must be an array or sparse matrix, got None")
    if (reset_dtype is None and type(X) is np.ndarray and X.ndim == 2
            and X.dtype in dtype and X.flags.c_contiguous and X.size):
        # already valid (e.g. validated by the estimator): skip check_array's
        # fixed cost; a finite sum means no NaN/inf (else the full check)
        with np.errstate(over="ignore", invalid="ignore"):
            finite = np.isfinite(np.sum(X))
        if finite:
            return check_scale(X, name)
    if (reset_dtype is None and isinstance(X, (sp.csr_matrix, sp.csr_array))
            and len(X.shape) == 2 and X.dtype in dtype
            and X.indices.dtype == np.int32 and X.indptr.dtype == np.int32
            and X.shape[0] and X.shape[1]):
        # int32 CSR (e.g. validated by the estimator): finiteness from the
        # compiled scan's sum of squares (on the fit's threads), then
        # structure, canonical form and scale (that sum) as below, without
        # check_array's fixed cost
        scan = _csr_scan(X)
        total = np.nan
        if scan is not None and X.indptr[-1] == X.data.shape[0]:
            total = scan[2]
        if np.isfinite(total):
            return as_csr32(X, name, sumsq=total, scan=scan)
    if sp.issparse(X):
        X = as_csr32(X, name)
    X = check_array(
        X,
        accept_sparse="csr",
        accept_large_sparse=True,
        dtype=list(dtype) if reset_dtype is None else reset_dtype,
        order="C",
        ensure_all_finite=True,
        input_name=name,
    )
    if sp.issparse(X) and not (X.indices.dtype == X.indptr.dtype == np.int32):
        return as_csr32(X, name)
    # check_array copies, never alters, the validated index arrays; a cast to
    # float32 may bring the values near its range
    return check_scale(X, name)


def check_costs(costs, n_samples, dtype, name="sample_weight"):
    """Return per-example costs as a finite, non-negative 1-D array of ``dtype``."""
    if costs is None:
        return np.ones(n_samples, dtype=dtype)
    if isinstance(costs, numbers.Real):
        costs = np.full(n_samples, float(costs))
    costs = np.asarray(costs)
    if costs.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be numeric, got dtype {costs.dtype}")
    if costs.ndim != 1 or costs.shape[0] != n_samples:
        raise ValueError(
            f"{name} must have shape ({n_samples},), got {costs.shape}"
        )
    costs = costs.astype(dtype)
    if not np.all(np.isfinite(costs)):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    if np.any(costs < 0):
        raise ValueError(f"{name} must be non-negative")
    if n_samples and not np.any(costs > 0):
        raise ValueError(f"{name} must not be all zero (no example would count)")
    return np.ascontiguousarray(costs)


def check_targets(y, name="y"):
    """scikit-learn's ``check_classification_targets``, with an error naming
    ``name`` when an object array mixes label types (``"a"`` and ``-1``)."""
    arr = np.asarray(y) if not sp.issparse(y) else y
    if (isinstance(arr, np.ndarray) and arr.ndim == 1 and arr.size
            and arr.dtype.kind in "biu"):
        # integer labels in one column: always "binary" or "multiclass" to
        # scikit-learn's type_of_target (whose checks cost a small fit's time)
        return
    if (isinstance(arr, np.ndarray) and arr.ndim == 1 and arr.size
            and arr.dtype.kind == "f"):
        # float labels with integer values (-1.0 / 1.0): the same, when all
        # are finite and exactly integers of at most 2^53 in magnitude (else
        # scikit-learn's checks below, and their errors)
        with np.errstate(invalid="ignore"):
            if (np.all(np.abs(arr) <= 2.0 ** 53)
                    and np.array_equal(arr, np.trunc(arr))):
                return
    if isinstance(arr, np.ndarray) and arr.dtype == object:
        try:
            np.unique(arr)
        except TypeError:
            types = sorted({type(v).__name__ for v in arr.flat})
            raise TypeError(
                f"{name} mixes labels of types {', '.join(types)}: all labels must "
                "be of one type. -1 marks unlabeled rows, so with string labels "
                "encode them as integers first (sklearn.preprocessing."
                "LabelEncoder on the labeled rows)") from None
    check_classification_targets(y)


def unique_inverse(y):
    """``np.unique(y, return_inverse=True)`` with a flat inverse.

    Integer labels spanning at most ``4 len(y) + 1024`` values (class
    indices, 0/1, -1/+1, years) are counted in one pass (``np.bincount``)
    instead of sorted: the same arrays, without the sort's cost in a small
    fit. Other labels (wider ranges, floats, strings) take ``np.unique``.
    """
    y = np.asarray(y)
    if y.ndim == 1 and y.size and y.dtype.kind in "iu":
        lo, hi = int(y.min()), int(y.max())
        if -2**62 < lo and hi < 2**62 and hi - lo <= 4 * y.size + 1024:
            shifted = y.astype(np.intp) - lo
            present = np.bincount(shifted) > 0
            classes = (np.flatnonzero(present) + lo).astype(y.dtype)
            return classes, (np.cumsum(present) - 1)[shifted]
    classes, y_idx = np.unique(y, return_inverse=True)
    return classes, y_idx.ravel()


def encode_binary(y, name="y", estimator="This estimator"):
    """Map two labels to -1/+1 (sorted order: first -> -1). Return (classes, y_pm)."""
    check_targets(y, name)
    classes, y_idx = unique_inverse(y)
    if classes.shape[0] > 2:
        raise ValueError(
            f"Only binary classification is supported. {name} has "
            f"{classes.shape[0]} classes: {classes[:5].tolist()}"
        )
    if classes.shape[0] < 2:
        raise ValueError(
            f"{estimator} needs 2 classes in {name}; got 1 class ({classes.tolist()})"
        )
    return classes, np.where(y_idx == 1, 1.0, -1.0)


def encode_classes(y, name="y", estimator="This estimator"):
    """Sorted labels (two or more) and each row's index among them.

    Returns ``(classes, y_idx)``; two labels give the binary problem with
    ``classes[1]`` positive, more a one-vs-rest fit.
    """
    two = _two_labels(y)
    if two is not None:
        return two
    check_targets(y, name)
    classes, y_idx = unique_inverse(y)
    if classes.shape[0] < 2:
        raise ValueError(
            f"{estimator} needs 2 classes in {name}; got 1 class ({classes.tolist()})"
        )
    return classes, y_idx


def _two_labels(y):
    """:func:`encode_classes` of a 1-D array of exactly two integer labels,
    or of two finite float labels with integer values of at most 2^53 in
    magnitude (what :func:`check_targets` lets pass as "binary"): the same
    arrays as :func:`unique_inverse`, from a min, a max and one comparison
    pass (a small fit's fixed cost: the checks and the count cost about 60
    us of a 5 ms fit). None for any other input (the general path, and its
    errors). A float zero with its sign bit set takes the general path
    (np.unique decides which zero it returns)."""
    if not (type(y) is np.ndarray and y.ndim == 1 and y.size
            and y.dtype.kind in "iuf"):
        return None
    lo, hi = y.min(), y.max()
    if y.dtype.kind == "f":
        if not (abs(lo) <= 2.0 ** 53 and abs(hi) <= 2.0 ** 53
                and lo == np.trunc(lo) and hi == np.trunc(hi)):
            return None      # NaN, inf, fractional or huge labels
        if (lo == 0 or hi == 0) and np.signbit(y[y == 0]).any():
            return None
    if lo == hi:
        return None
    hit = y == hi
    if not np.all(hit | (y == lo)):
        return None
    return np.array([lo, hi], dtype=y.dtype), hit.astype(np.intp)


def check_pm1(y, n_samples, name="y"):
    """Validate a vector of -1/+1 targets for the functional API."""
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != n_samples:
        raise ValueError(f"{name} must have shape ({n_samples},), got {y.shape}")
    if y.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be numeric -1/+1 labels, got dtype {y.dtype}")
    if not np.all((y == 1) | (y == -1)):
        raise ValueError(f"{name} must contain only -1 and +1")
    return y.astype(np.float64)


def pm1_from_01(y):
    """Labels given as 1 / 0 mapped to +1 / -1 (values that are not all 0 or
    1, e.g. +1 / -1, are returned as they are, for the caller's check)."""
    a = np.asarray(y)
    if a.dtype.kind in "biuf" and a.size and np.all((a == 0) | (a == 1)):
        return np.where(a == 1, 1.0, -1.0)
    return y


def check_gram(K, name="K"):
    """Validate a square, finite kernel matrix -> C-contiguous float32/64 ndarray."""
    if sp.issparse(K):
        K = check_sparse_structure(K, name).toarray()
    K = check_array(K, dtype=list(FLOAT_DTYPES), order="C", ensure_all_finite=True,
                    input_name=name)
    if K.shape[0] != K.shape[1]:
        raise ValueError(f"{name} must be a square kernel matrix, got shape {K.shape}")
    return K


def check_laplacian(L, n, dtype, name="L"):
    """Validate a symmetric, finite (n, n) graph Laplacian -> CSR int32, ``dtype``."""
    if L is None:
        raise ValueError(f"{name} must be an (n, n) matrix, got None")
    check_sparse_structure(L, name)
    if not sp.issparse(L):
        L = np.asarray(L)
        if L.dtype.kind not in "biuf":
            raise TypeError(f"{name} must be numeric, got dtype {L.dtype}")
    L = sp.csr_matrix(L, dtype=dtype)
    if L.shape != (n, n):
        raise ValueError(f"{name} must have shape ({n}, {n}), got {L.shape}")
    L.sum_duplicates()
    L.sort_indices()
    check_symmetric(L, name, 1e-3 if dtype == np.float32 else 1e-8)
    return as_csr32(L, name)


def check_symmetric(M, name, rtol):
    """A sparse square matrix is finite and symmetric to ``rtol`` times its
    largest entry (at least 1): the one check of graph Laplacians and
    user-given affinities."""
    if not np.all(np.isfinite(M.data)):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    asym = abs(M - M.T)
    scale = max(float(abs(M).max()) if M.nnz else 0.0, 1.0)
    if asym.nnz and float(asym.max()) > rtol * scale:
        raise ValueError(f"{name} must be symmetric")


def check_fraction(value, name):
    """Return ``value`` as float if it is a real number strictly inside (0, 1)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    value = float(value)
    if not 0 < value < 1:
        raise ValueError(f"{name} must be strictly between 0 and 1, got {value!r}")
    return value


def ssl_block_targets(y, n_samples, name="y"):
    """Values of functional-API semi-supervised targets, without the class
    checks (a row block of a dask y is checked alone): ``1`` positive, ``0``
    negative, ``-1`` unlabeled (the estimators' and :func:`graph_tv`'s marker).

    Returns the solvers' internal float64 coding: +1 / -1 labeled, 0 unlabeled.
    """
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != n_samples:
        raise ValueError(f"{name} must have shape ({n_samples},), got {y.shape}")
    if y.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be numeric (1 / 0 labeled, -1 unlabeled), "
                        f"got dtype {y.dtype}")
    if not np.all((y == 1) | (y == 0) | (y == -1)):
        raise ValueError(f"{name} must contain only 1, 0 (labeled: positive, "
                         "negative) and -1 (unlabeled)")
    return np.where(y == -1, 0.0, np.where(y == 1, 1.0, -1.0))


def check_ssl_targets(y, n_samples, name="y"):
    """Validate functional-API semi-supervised targets: 1 / 0 labeled, -1 unlabeled.

    Needs at least one labeled row of each class. Returns the internal coding
    (float64: +1 / -1 labeled, 0 unlabeled).
    """
    y = ssl_block_targets(y, n_samples, name)
    if not np.any(y != 0):
        raise ValueError(f"{name} has no labeled rows (all entries are -1 = unlabeled)")
    if not (np.any(y == 1) and np.any(y == -1)):
        raise ValueError(
            f"{name} needs labeled rows of both classes (1 and 0); "
            f"got only {1 if np.any(y == 1) else 0}")
    return y


PU_UNLABELED = (-1, 0)
KERNELS = ("linear", "rbf", "poly", "precomputed")


def check_prior(prior, name="prior"):
    """Return the class prior as a float strictly inside (0, 1)."""
    if prior is None:
        raise ValueError(
            f"{name} is required: pass the fraction of positives among the "
            "unlabeled data, a number in (0, 1)"
        )
    if isinstance(prior, (bool, np.bool_)) or not isinstance(prior, numbers.Real):
        raise TypeError(f"{name} must be a real number in (0, 1), got "
                        f"{type(prior).__name__}")
    prior = float(prior)
    if not (0.0 < prior < 1.0):
        raise ValueError(f"{name} must be in the open interval (0, 1), got {prior!r}")
    return prior


def check_pu_labels(y, n_samples, name="y"):
    """Validate PU labels: 1 = labeled positive, -1 or 0 = unlabeled.

    Returns a boolean mask of the labeled positives. Raises if any other label
    occurs, or if there is no positive or no unlabeled row.
    """
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != n_samples:
        raise ValueError(f"{name} must have shape ({n_samples},), got {y.shape}")
    if y.dtype.kind not in "biuf":
        raise TypeError(
            f"{name} must be numeric PU labels (1 = positive, -1 or 0 = "
            f"unlabeled), got dtype {y.dtype}"
        )
    if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
        raise ValueError(f"{name} must not contain NaN or inf")
    pos = y == 1
    unl = (y == -1) | (y == 0)
    bad = ~(pos | unl)
    if np.any(bad):
        other = np.unique(y[bad])[:5].tolist()
        raise ValueError(
            f"{name} must contain only 1 (labeled positive) and -1 or 0 "
            f"(unlabeled); got also {other}"
        )
    if not np.any(pos):
        raise ValueError(f"{name} has one class only: no labeled positive (no entry "
                         "equal to 1)")
    if not np.any(unl):
        raise ValueError(f"{name} has one class only: no unlabeled row (no entry "
                         "equal to -1 or 0)")
    return pos


def check_kernel_params(kernel, gamma, degree, coef0, X):
    """Validate kernel/gamma/degree/coef0 and resolve ``gamma``.

    ``gamma=None`` (or ``"scale"``) is ``1 / (n_features * X.var())`` as in
    scikit-learn's SVC (1.0 when X has zero variance); ``"auto"`` is
    ``1 / n_features``. Returns ``(kernel, gamma, degree, coef0)``.
    """
    if not isinstance(kernel, str) or kernel not in KERNELS:
        raise ValueError(f"kernel must be one of {KERNELS}, got {kernel!r}")
    degree = check_int(degree, "degree", minimum=0)
    if isinstance(coef0, (bool, np.bool_)) or not isinstance(coef0, numbers.Real):
        raise TypeError(f"coef0 must be a real number, got {type(coef0).__name__}")
    coef0 = float(coef0)
    if not np.isfinite(coef0):
        raise ValueError(f"coef0 must be finite, got {coef0!r}")
    if gamma is None or (isinstance(gamma, str) and gamma == "scale"):
        if kernel in ("linear", "precomputed"):
            gamma = 1.0
        else:
            if sp.issparse(X):
                var = float(X.multiply(X).mean() - X.mean() ** 2)
            else:
                var = float(np.asarray(X, dtype=np.float64).var())
            gamma = 1.0 / (X.shape[1] * var) if var > 0 else 1.0
    elif isinstance(gamma, str) and gamma == "auto":
        gamma = 1.0 / X.shape[1]
    elif isinstance(gamma, str):
        raise ValueError(f"gamma must be None, 'scale', 'auto' or a float > 0, "
                         f"got {gamma!r}")
    else:
        gamma = check_positive(gamma, "gamma")
    if kernel == "precomputed" and X.shape[0] != X.shape[1]:
        raise ValueError(
            f"kernel='precomputed' needs the square training Gram matrix as X, "
            f"got shape {X.shape}"
        )
    return kernel, float(gamma), degree, coef0


# ---- graph TV / Cheeger (semisvm.graph_tv) ----


def check_kernel_matrix(K):
    """Return a square, finite kernel matrix, C-contiguous, float32 kept, else float64."""
    K = np.asarray(K)
    if K.dtype.kind not in "biuf":
        raise TypeError(f"K must be a numeric matrix, got dtype {K.dtype}")
    if K.ndim != 2 or K.shape[0] != K.shape[1] or K.shape[0] == 0:
        raise ValueError(
            f"K must be a square (n, n) kernel matrix, got shape {K.shape}")
    K = np.ascontiguousarray(
        K, dtype=np.float32 if K.dtype == np.float32 else np.float64)
    if not np.all(np.isfinite(K)):
        raise ValueError("K must be finite (no NaN or inf)")
    return K


def check_class_indices(y, n):
    """Check class indices 0..c-1 with -1 (UNLABELED) for unlabeled; return (y, c)."""
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != n:
        raise ValueError(f"y must have shape ({n},), got {y.shape}")
    if y.dtype.kind not in "biuf" or not np.all(np.mod(y, 1) == 0):
        raise ValueError("y must hold integer class indices (-1 = unlabeled)")
    y = y.astype(np.intp)
    if np.any(y < UNLABELED):
        raise ValueError("y must hold class indices >= 0 or -1 (unlabeled)")
    lab = y != UNLABELED
    if not np.any(lab):
        raise ValueError("y has no labeled sample (every entry is -1)")
    n_classes = int(y.max()) + 1
    present = np.unique(y[lab])
    if present.shape[0] < 2:
        raise ValueError(
            f"y must contain labeled samples of at least 2 classes, got "
            f"{present.shape[0]} ({present.tolist()})")
    if present.shape[0] != n_classes:
        missing = sorted(set(range(n_classes)) - set(present.tolist()))
        raise ValueError(f"classes {missing} have no labeled sample in y")
    return y, n_classes


def class_codes(y_idx):
    """The labeled rows' class indices renamed ``0, 1, ...`` in the order of
    each class's first row: the codes a fit reads instead of the labels, so
    that renaming the classes (swapping two, any one-to-one map of their
    values) gives the same codes and the same fit.

    ``y_idx`` : the labeled rows' indices into the sorted labels
    (``np.unique(y[labeled], return_inverse=True)``), every class present.
    Returns ``(codes, order)``: ``codes`` (intp) the code of each labeled
    row, ``order`` (intp) with ``order[c]`` the sorted index of code ``c``'s
    class (``classes[order]``: each code's label). ``order`` is the identity
    where the classes first appear in sorted order.
    """
    y_idx = np.asarray(y_idx, dtype=np.intp).ravel()
    _, first = np.unique(y_idx, return_index=True)
    order = np.argsort(first, kind="stable").astype(np.intp, copy=False)
    code = np.empty(order.shape[0], dtype=np.intp)
    code[order] = np.arange(order.shape[0], dtype=np.intp)
    return code[y_idx], order


def unlabeled_hint(y):
    """The end of the error for a semi-supervised ``y`` with one labeled
    class: when ``y`` holds ``UNLABELED`` (-1), say that -1 never is a class
    (labels -1/+1, SVM-light's convention, read as "unlabeled" and one
    class) and how to encode such data; else ``""``."""
    y = np.asarray(y)
    if y.dtype.kind in "biuf" and np.any(y == UNLABELED):
        return (f"; {UNLABELED} marks unlabeled rows (scikit-learn's "
                "semi-supervised convention), never a class: encode labels "
                "-1/+1 as 0/1 (e.g. (y + 1) // 2, or any two other values) and "
                "mark the unlabeled rows with -1")
    return ""


def encode_semisupervised_multiclass(y, name="y", estimator="This estimator"):
    """Split ``y`` (``UNLABELED`` = -1 marks unlabeled rows), two or more classes.

    -1 is never a class: ``y`` in {-1, 0, 1} is the binary 0/1 problem with
    unlabeled rows, and -1/+1 labels on every row (SVM-light's convention)
    are refused with a message saying how to encode them (:func:`unlabeled_hint`).

    Returns ``(classes, y_idx)``: the sorted labels of the labeled rows and,
    per row, the index of its class in ``classes`` or -1 when unlabeled.
    """
    check_targets(y, name)
    y = np.asarray(y)
    unl = y == UNLABELED if y.dtype.kind in "biuf" else np.zeros(y.shape, bool)
    if not np.any(~unl):
        raise ValueError(
            f"{estimator} needs labeled rows: every entry of {name} is "
            f"{UNLABELED} (unlabeled)")
    classes, idx = unique_inverse(y[~unl])
    if classes.shape[0] < 2:
        raise ValueError(
            f"{estimator} needs 2 classes in {name}; got 1 class ({classes.tolist()})"
            + unlabeled_hint(y))
    y_idx = np.full(y.shape[0], -1, dtype=np.intp)
    y_idx[~unl] = idx.ravel()
    return classes, y_idx


def check_class_fractions(r, n_classes, name="r"):
    """``r`` for a one-vs-rest fit: None, or one fraction in (0, 1) per class."""
    if r is None:
        return [None] * n_classes
    if isinstance(r, numbers.Real) and not isinstance(r, (bool, np.bool_)):
        raise ValueError(
            f"{name} must be None or an array of {n_classes} fractions (one per "
            f"class, for its one-vs-rest problem) with {n_classes} classes, "
            f"got the scalar {r!r}")
    r = np.asarray(r)
    if r.shape != (n_classes,):
        raise ValueError(
            f"{name} must have shape ({n_classes},) (one fraction per class), "
            f"got {r.shape}")
    return [check_fraction(v.item(), name) for v in r]


def is_dask(X):
    """A dask collection (checked without importing dask)."""
    mod = type(X).__module__ or ""
    return mod.split(".")[0] == "dask" and hasattr(X, "__dask_graph__")


# ---- the outcome of a fit: all or nothing, and finite ----

_PLAIN_FLOATS = (float, np.float64, np.float32, np.float16)


def _nonfinite(value):
    """True if ``value`` (a number, array, sparse matrix or a list/tuple/dict
    of them) holds a NaN or an infinity."""
    # (the usual fitted attributes first, each at its cheapest test: this
    # runs after every fit)
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "fc" and not np.isfinite(value).all()
    if type(value) in _PLAIN_FLOATS:
        return not math.isfinite(value)
    if isinstance(value, (list, tuple)):
        return any(_nonfinite(v) for v in value)
    if isinstance(value, dict):
        return any(_nonfinite(v) for v in value.values())
    if sp.issparse(value):
        value = value.data
    if isinstance(value, (float, np.floating, np.complexfloating, np.ndarray)):
        arr = np.asarray(value)
        return arr.dtype.kind in "fc" and not bool(np.all(np.isfinite(arr)))
    return False


def nonfinite_fitted_attribute(estimator):
    """Name of the first public fitted attribute (``name_``) of ``estimator``
    holding NaN or inf, or None. Result dataclasses (``result_``, whose
    histories are NaN-padded) and nested estimators are not looked at."""
    import dataclasses
    for name, value in vars(estimator).items():
        if not name.endswith("_") or name.startswith("_"):
            continue
        if dataclasses.is_dataclass(value) or (
                isinstance(value, tuple) and value
                and all(dataclasses.is_dataclass(v) for v in value)):
            continue
        if _nonfinite(value):
            return name
    return None


def _extreme_parameters(estimator):
    """``name=value`` of the numeric parameters far from 1 (|log10| > 30, or
    negative zero ...): the usual suspects when a fit overflows."""
    out = []
    for name, value in estimator.get_params(deep=False).items():
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
            continue
        v = abs(float(value))
        if v != 0 and not (1e-30 <= v <= 1e30):
            out.append(f"{name}={value!r}")
    return out


# parameters several estimators share, checked by name before every fit:
# name -> (check, allow None)
def _nonneg(value, name):
    return check_positive(value, name, allow_zero=True)


_SHARED_PARAMS = {"graph_t": (check_positive, True),
                  "conflict_tol": (_nonneg, True)}


def check_shared_params(estimator):
    """Check the parameters in ``_SHARED_PARAMS`` that ``estimator`` has
    (the error names the parameter as the user spelled it)."""
    names = _param_names(type(estimator))
    for name, (check, allow_none) in _SHARED_PARAMS.items():
        if name in names:
            # (get_params(deep=False)'s value, without its signature lookup)
            value = getattr(estimator, name)
            if not (allow_none and value is None):
                check(value, name)


@functools.lru_cache(maxsize=None)
def _param_names(cls):
    """The parameter names of an estimator class (scikit-learn's, from the
    signature of its ``__init__``: read once per class, not per fit)."""
    return frozenset(cls._get_param_names())


def check_n_jobs(n_jobs):
    """scikit-learn's n_jobs convention -- None: 1, -1: all cores, -2: all
    but one, k: k -- with the count capped at the cores this process may
    use (more threads only add start-up cost and, by the thousand, exhaust
    the address space)."""
    if n_jobs is None:
        return 1
    n_jobs = check_int(n_jobs, "n_jobs", minimum=-(2**31))
    if n_jobs == 0:
        raise ValueError("n_jobs must be a non-zero integer or None, got 0")
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not on Linux
        cpus = os.cpu_count() or 1
    cpus = max(1, cpus)
    return max(1, cpus + 1 + n_jobs) if n_jobs < 0 else min(n_jobs, cpus)


def atomic_fit(fit):
    """Decorate an estimator's ``fit``: all or nothing, and never a NaN model.

    On any exception -- ``KeyboardInterrupt`` included -- the estimator's
    attributes are put back exactly as they were before the call (the same
    objects), so a refit stopped by Ctrl-C leaves the previous model whole.
    A fit that leaves a non-finite number in a public fitted attribute is
    undone the same way and raises ``ValueError`` naming the attribute and
    the numeric parameters far outside the usual range (the likely cause).
    """
    import functools

    @functools.wraps(fit)
    def wrapper(self, *args, **kwargs):
        check_shared_params(self)
        before = dict(vars(self))
        try:
            out = fit(self, *args, **kwargs)
            bad = nonfinite_fitted_attribute(self)
            if bad is not None:
                suspects = _extreme_parameters(self)
                cause = (f"parameter(s) {', '.join(suspects)} out of the range "
                         "where the arithmetic stays finite" if suspects
                         else "the data or a parameter is out of the range where "
                              "the arithmetic stays finite (rescale X)")
                raise ValueError(f"{type(self).__name__}.fit gave non-finite values "
                                 f"in {bad}: {cause}")
        except BaseException:
            vars(self).clear()
            vars(self).update(before)
            raise
        return out
    return wrapper


def apart(X, Y):
    """``X`` itself, or (when X and Y share their data) a copy of it.

    A Gram routine takes a symmetric shortcut when its two arguments are one
    object (scikit-learn sets the diagonal exactly) or one buffer (NumPy's
    ``X @ X.T`` becomes a symmetric rank-k update). A model's decision on the
    very array it was fitted on would then differ in the last bits from its
    decision on a copy, or from a pickled model's: passing the query through
    ``apart`` makes the result depend on the values alone. Sparse rows share
    no such path: a new matrix object over the same arrays is enough."""
    if X is not Y and not (isinstance(X, np.ndarray) and isinstance(Y, np.ndarray)
                           and np.shares_memory(X, Y)):
        return X
    if sp.issparse(X):
        return type(X)((X.data, X.indices, X.indptr), shape=X.shape, copy=False)
    return np.array(X, copy=True)
