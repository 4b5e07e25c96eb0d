"""Input checks of the graph TV / Cheeger solver functions and their solve cache.

:func:`semisvm.graph_tv.graph_tv` and :func:`semisvm.graph_tv.graph_cheeger`
check their arguments here before any compiled code runs: the kernel (the
matrix K or its factor Z, K = Z Z'), the affinity W, the class indices and
the weights. The solve cache is a dict a caller keeps across solves on the
same W and kernel (the ``safe="auto"`` check's fold solves): the edge list,
step bound, Z'Z and label-independent factorisations are computed once.
"""
from __future__ import annotations

import numpy as np

from semisvm._results import GraphTVResult
from semisvm._tv_solvers import RKHS
from semisvm._validation import (
    check_class_indices,
    check_int,
    check_kernel_matrix,
    check_positive,
)
from semisvm.graph import check_affinity


def check_normalize(normalize):
    if normalize is None or normalize is False:
        return None
    if normalize not in ("n", "sqrt"):
        raise ValueError(f"normalize must be 'n', 'sqrt' or None, got {normalize!r}")
    return normalize


def make_result(**kw):
    kw["history"] = np.asarray(kw["history"], dtype=np.float64)
    kw["residual_history"] = np.asarray(kw["residual_history"], dtype=np.float64)
    return GraphTVResult(**kw)


def check_features(Z):
    """The kernel factor Z (n, m), K = Z Z': finite, C-contiguous, float32 kept."""
    Z = np.asarray(Z)
    if Z.dtype.kind not in "biuf":
        raise TypeError(f"Z must be a numeric matrix, got dtype {Z.dtype}")
    if Z.ndim != 2 or 0 in Z.shape:
        raise ValueError(f"Z must be a (n, m) feature matrix, got shape {Z.shape}")
    Z = np.ascontiguousarray(
        Z, dtype=np.float32 if Z.dtype == np.float32 else np.float64)
    if not np.all(np.isfinite(Z)):
        raise ValueError("Z must be finite (no NaN or inf)")
    return Z


def shared_cache(cache, key, ref, *values):
    """The part of a solve cache (a dict kept by the caller across solves,
    e.g. the check's folds) for the array ``ref`` (by identity: the cache
    holds it, so its id is not reused meanwhile) and the ``values``."""
    if cache is None:
        return None
    k = (key, id(ref)) + values
    entry = cache.get(k)
    if entry is None or entry["ref"] is not ref:
        entry = cache[k] = {"ref": ref, "data": {}}
    return entry["data"]


def common_checks(K, Z, nugget, W, y, lam, r_values, tol, max_iter, n_stable, rof_tol,
                  rof_max_iter, cache=None):
    """The checked ``(rk, W, y, n_classes, rof_cache)`` of a solve: the RKHS
    factorisation object of K (or Z), W as CSR, the class indices, and the
    part of ``cache`` for the graph ROF steps on this W."""
    rof_cache = shared_cache(cache, "rof", W)
    if Z is None:
        rk_cache = shared_cache(cache, "rkhs", K)
        K = check_kernel_matrix(K)
        rk = RKHS(K=K, cache=rk_cache)
    elif K is not None:
        raise ValueError("give the kernel as K or as its factor Z, not both")
    else:
        rk_cache = shared_cache(cache, "rkhs", Z, float(nugget))
        rk = RKHS(Z=check_features(Z),
                  delta=check_positive(nugget, "nugget", allow_zero=True),
                  cache=rk_cache)
    n = rk.n
    W = check_affinity(W, "W")     # square, symmetric, finite, >= 0 (CSR)
    if W.shape != (n, n):
        raise ValueError(f"W must have shape ({n}, {n}) (one row per sample), "
                         f"got {W.shape}")
    y, n_classes = check_class_indices(y, n)
    check_positive(lam, "lam")
    for name, v in r_values.items():
        check_positive(v, name)
    check_positive(tol, "tol")
    check_positive(rof_tol, "rof_tol")
    check_int(max_iter, "max_iter")
    check_int(n_stable, "n_stable", minimum=0)
    check_int(rof_max_iter, "rof_max_iter")
    return rk, W, y, n_classes, rof_cache


def check_label_tol(label_tol):
    label_tol = check_positive(label_tol, "label_tol", allow_zero=True)
    if label_tol >= 1:
        raise ValueError(f"label_tol must be in [0, 1), got {label_tol!r}")


def check_label_tol_param(label_tol):
    """The estimators' ``label_tol``: "auto", or a float in [0, 1)
    (returned as given, "auto" included)."""
    if isinstance(label_tol, str):
        if label_tol != "auto":
            raise ValueError("label_tol must be 'auto' or a float in [0, 1), "
                             f"got {label_tol!r}")
        return label_tol
    check_label_tol(label_tol)
    return label_tol
