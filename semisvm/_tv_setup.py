"""The graph TV / Cheeger estimators' set-up: path, graph, kernel width, kernel.

Before a fit of :class:`~semisvm.graph_tv.TVRLS`, :class:`~semisvm.graph_tv.TVSVM`,
:class:`~semisvm.graph_tv.CheegerRLS` or :class:`~semisvm.graph_tv.CheegerSVM`
solves anything it decides its path (the exact n x n kernel or Nystroem
features, ``n_components``), refuses a path that does not fit in memory,
builds the kNN graph (or reads a shared :class:`~semisvm.graph.KNNGraph`),
sets the default RBF width and computes the kernel (or its features and the
nugget they miss on the diagonal). :class:`TVSetupMixin` holds these steps
for the estimators' base class; the decision of new rows uses its kernel.
"""
from __future__ import annotations

import hashlib
import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.metrics.pairwise import pairwise_kernels
from sklearn.neighbors import NearestNeighbors
from sklearn.utils import check_random_state

from semisvm import _fallback, _tv_check
from semisvm import graph as graph_module
from semisvm._feature_scale import record_scale
from semisvm._lowrank import nystroem_features
from semisvm._threads import limit_api
from semisvm._tv_inputs import check_label_tol_param
from semisvm._validation import (
    check_int,
    check_memory,
    check_positive,
    fits_in_memory,
)
from semisvm.graph import (
    SPARE_NEIGHBORS,
    KNNGraph,
    check_affinity,
    intrinsic_dimension,
    knn_affinity,
    knn_search,
    neighbors_affinity,
)

# n_components="auto": the exact kernel-matrix path up to this many training
# rows, the Nystroem feature map with AUTO_COMPONENTS landmarks above (the
# exact path factorises the n x n system: O(n^3) time, 2 n^2 floats)
LOWRANK_MIN_SAMPLES = 2000
AUTO_COMPONENTS = 500
# ... SCALE_COMPONENTS landmarks on more than SCALE_MIN_ROWS rows
# (semisvm._tv_check): the RKHS steps and the feature map cost O(n m) each;
# 100k x 50, 10 classes, 10 labels per class: CheegerRLS 1.90 % either way,
# TVRLS 1.76 -> 1.82 %, 12 % less CPU; a million rows: 2 GB of float64
# features instead of 4
SCALE_COMPONENTS = 250
# ... except the augmented iteration of the multi-class TV models (scheme=
# "augmented", or "auto" when its penalty iteration is rejected), exact up
# to this many rows: their normalised simplex iteration needs f = K alpha to follow the graph iterate
# closely, which a rank-m kernel cannot (USPS {0,1,4,9}, n = 4495, one label
# per class, seed 0: TV-RLS 1.4% error exact, 72% / 35% / 41% with 500 /
# 500 + nugget / 1000 landmarks, stuck at max_iter; 10 labels: 1.6% against
# 12% / 6.8% / 12%); two-class TV (USPS 4 vs 9: 2.5 / 3.2% exact, 2.4 /
# 2.4% with 500 landmarks) and Cheeger (3.9 / 2.4% both ways) keep their
# accuracy
LOWRANK_MIN_SAMPLES_MULTI_TV = 10_000

# TVRLS / TVSVM fits on a shared graph (graph=) with the same rows, labels
# and set-up (a grid search's grid points on one fold) start from the last
# one's graph iterate (no held-out label reaches it: the same labels). Off:
# the normalised iterations end near their start, and on 300-row blobs,
# moons and make_classification problems (lam in 0.01 / 0.1 / 1, 4 label
# folds, bench/RESULTS.md) the fold scores changed on 17 of 40 searches and
# the chosen lam on 6; 5,000 rows, 10 classes: the same choice and scores,
# 24-31 % less CPU than the shared set-up alone. True: warm
GRID_WARM_START = False


WEIGHTS = {"self-tuning": "self-tuning", "heat": "heat", "connectivity": "binary"}


def knn_graph(X, *, n_neighbors=10, weights="self-tuning", return_distances=False,
              n_jobs=None):
    """The estimators' default graph: :func:`semisvm.graph.knn_affinity`.

    Symmetric kNN (an edge when either end is among the other's
    ``n_neighbors`` nearest neighbours, capped at n - 1), weights
    ``"self-tuning"`` (local scale: the 7th neighbour), ``"heat"`` or
    ``"connectivity"`` (1). ``return_distances``: also the (n, k) sorted
    neighbour distances. ``n_jobs``: threads of the neighbour search (the
    graph is the same for any value).
    """
    if weights not in WEIGHTS:
        raise ValueError("weights must be 'self-tuning', 'heat' or 'connectivity', "
                         f"got {weights!r}")
    n = X.shape[0]
    if n < 2:
        raise ValueError(f"at least 2 samples are needed to build a graph, got {n}")
    return knn_affinity(X, min(n_neighbors, n - 1), weight=WEIGHTS[weights],
                        return_distances=return_distances, n_jobs=n_jobs)


def intrinsic_dim(X, n_max=1000, k=10):
    """Levina-Bickel intrinsic dimension of the rows (None below 4 rows).

    From the k nearest neighbours among at most ``n_max`` evenly spaced rows
    (deterministic; the estimate does not depend on the density, so a
    subsample gives the same dimension).
    """
    n = X.shape[0]
    if n < 4:
        return None
    rows = np.unique(np.linspace(0, n - 1, min(n, n_max)).round().astype(np.intp))
    Xs = X[rows]
    kk = min(k, rows.size - 1)
    dist, _ = NearestNeighbors(n_neighbors=kk + 1).fit(Xs).kneighbors(Xs)
    return float(intrinsic_dimension(np.asarray(dist[:, 1:], dtype=np.float64)))


def median_rbf_gamma(X, random_state, n_max=1000):
    """RBF gamma = 1 / (2 s^2), s the median pairwise distance (on <= n_max rows).

    Above n_max rows the median is taken over n_max of them: evenly spaced
    rows (``random_state=None``, deterministic: the same input gives the same
    width) or a draw with ``random_state``.
    """
    n = X.shape[0]
    if n > n_max:
        if random_state is None:
            rows = np.linspace(0, n - 1, n_max).round().astype(np.intp)
        else:
            rows = check_random_state(random_state).choice(n, n_max, replace=False)
        X = X[rows]
    # (n_jobs=1: an outer joblib setting would cut the product into chunks,
    # other bits, and threads the estimator's n_jobs does not govern)
    D = pairwise_kernels(X, metric="linear", n_jobs=1)
    m = D.shape[0]
    if m < 2:
        return 0.5      # (no pair: the median taken as 1)
    # d2 = max(sq_i + sq_j - 2 D_ij, 0), each entry rounded as that
    # expression rounds it, in two arrays (1,000 rows: 8 MB each) instead
    # of six temporaries; the upper triangle's values by a boolean mask
    # (np.median depends on their values alone, not on their order)
    sq = np.diag(D).copy()
    d2 = np.add.outer(sq, sq)
    D *= 2
    d2 -= D
    np.maximum(d2, 0, out=d2)
    med = float(np.median(d2[np.triu(np.ones((m, m), dtype=bool), 1)],
                          overwrite_input=True))
    return 1.0 / (2.0 * med) if med > 0 else 1.0


class TVSetupMixin:
    """The set-up of a graph TV / Cheeger fit (the estimators' base class
    mixes it in; ``_scheme_choice``: the TV models, whose multi-class
    ``scheme="auto"`` may take the exact kernel)."""

    # default RBF width s = min(median pairwise distance, _knn_width x the
    # mean distance to the n_neighbors-th neighbour); None: the median alone
    _knn_width = None
    _scheme_choice = False
    # whether the solver takes a warm start (the TV models: TVSchemeMixin)
    _warm_starts = False

    def _default_kernel_gamma(self, X, dist=None):
        """The default kernel width; ``dist``: the (n, k) kNN distances of
        the graph, when it was built from X (else searched here)."""
        gamma = median_rbf_gamma(X, self.random_state)
        if (self._knn_width is None or X.shape[0] < 3
                or self.classes_.shape[0] != 2):
            # [NP] multi-class keeps the median: its normalised iteration is
            # sensitive to the width (USPS {0,1,4,9}, one label per class:
            # 1.4% error at the median width, 17.5% at median / 1.1)
            return gamma
        k = min(10 if self.n_neighbors is None else self.n_neighbors,
                X.shape[0] - 1)
        if dist is not None and dist.shape[1] >= k and (
                dist.dtype == np.float64 or self._graph_obj is not None):
            # the graph's own search: the k-th neighbour of each row (the
            # default graph of float32 X keeps float32 distances: the width
            # is then taken from float64 ones, searched here, as before the
            # graph's distances were reused)
            kth = dist[:, k - 1]
        else:
            kth = NearestNeighbors(n_neighbors=k + 1).fit(X).kneighbors(X)[0][:, k]
        s = self._knn_width * float(np.mean(kth))
        return max(gamma, 1.0 / (2.0 * s * s)) if s > 0 else gamma

    def _kernel(self, X, Y=None):
        if getattr(self, "_decision_kernel", None) == "linear":
            # a fallback to the linear SVC (semisvm._fallback)
            return pairwise_kernels(X, Y, metric="linear", n_jobs=1)
        params = {}
        if self.kernel in ("rbf", "laplacian", "sigmoid", "polynomial", "poly",
                           "chi2"):
            params["gamma"] = self._kernel_gamma
        if self.kernel in ("polynomial", "poly"):
            params.update(degree=self.degree, coef0=self.coef0)
        if self.kernel == "sigmoid":
            params["coef0"] = self.coef0
        # (n_jobs=1: the same bits under any outer joblib setting)
        return pairwise_kernels(X, Y, metric=self.kernel, n_jobs=1, **params)

    def _check_params(self):
        if not (callable(self.kernel) or self.kernel in (
                "rbf", "linear", "poly", "polynomial", "laplacian", "sigmoid")):
            raise ValueError(f"kernel must be 'rbf', 'linear', 'poly', 'laplacian' "
                             f"or 'sigmoid', got {self.kernel!r}")
        if self.kernel_gamma is not None:
            check_positive(self.kernel_gamma, "kernel_gamma")
        if self.n_neighbors is not None:
            check_int(self.n_neighbors, "n_neighbors")
        if self.graph is not None and not isinstance(self.graph, KNNGraph):
            raise TypeError("graph must be a semisvm.graph.KNNGraph or None, "
                            f"got {type(self.graph).__name__}")
        # before the graph: a bad stop is refused before minutes of search
        check_label_tol_param(self.label_tol)

    def _own_graph(self, X, k, safe):
        """``(W, distances, lists)``: the default graph (:func:`knn_graph`)
        and, where the Laplacian guard of ``safe="auto"`` may run (at most
        ``GUARD_MAX_ROWS`` rows, exact search), the search's lists
        ``(dist, ind)`` for the guard's LapRLS graph (``k +
        SPARE_NEIGHBORS`` of them per row, as a :class:`KNNGraph` keeps):
        one exact search for both, W from its first k columns, else None.
        W is then the graph of a search for k (the same set of k nearest
        points per row) unless a row's k-th and (k+1)-th distances tie: which
        of the tied points a search keeps may depend on how many it keeps,
        so such data take a search for k of their own."""
        n = X.shape[0]
        ks = min(k + SPARE_NEIGHBORS, n - 1)
        # knn_search's "auto" switch (read from the module: the exact search
        # up to its size switch)
        exact_below = (graph_module.SPARSE_ANN_MIN_SAMPLES if sp.issparse(X)
                       else graph_module.ANN_MIN_SAMPLES)
        if (safe != "auto" or n > _fallback.GUARD_MAX_ROWS or ks <= k
                or n >= exact_below
                or self.weights not in WEIGHTS):
            W, dist = knn_graph(X, n_neighbors=k, weights=self.weights,
                                return_distances=True, n_jobs=self.n_jobs)
            return W, dist, None
        dist_all, ind_all = knn_search(X, ks, method="exact", n_jobs=self.n_jobs)
        if np.any(dist_all[:, k - 1] == dist_all[:, k]):
            W, dist = knn_graph(X, n_neighbors=k, weights=self.weights,
                                return_distances=True, n_jobs=self.n_jobs)
            return W, dist, (dist_all, ind_all)
        dist = np.ascontiguousarray(dist_all[:, :k])
        W = neighbors_affinity(dist, np.ascontiguousarray(ind_all[:, :k]),
                               weight=WEIGHTS[self.weights], dtype=X.dtype)
        return W, dist, (dist_all, ind_all)

    def _shared_graph(self, X, k):
        """(W, distances) from a :class:`KNNGraph`: the given ``graph``
        (fitted on X or on a superset of its rows: a fold reads its subset)
        or, for ``safe=True``, one built here on X and shared with the
        check's fits."""
        g = self.graph
        if g is None:
            g = KNNGraph(k, weight=WEIGHTS[self.weights], n_jobs=self.n_jobs)
        if not hasattr(g, "affinity_"):
            g = clone(g).fit(X)
            # built here, on X as scaled by this fit: a fit given this
            # graph (graph_) scales its X alike
            record_scale(g, getattr(self, "feature_scale_", None))
        out = g.graph_for(X)
        if out is None:
            raise ValueError(
                f"graph was fitted on {g.n_samples_fit_} rows that X "
                f"(n={X.shape[0]}) is neither equal to nor a subset of: fit "
                "the graph on these rows (or on a superset of them)")
        self._graph_obj = g
        return out

    def _n_neighbors(self, n):
        """k of the kNN graph: None -> 10 (n - 1 below 11 rows); k >= n refused."""
        if self.n_neighbors is None:
            return max(1, min(10, n - 1))
        k = check_int(self.n_neighbors, "n_neighbors")
        if k >= n:
            raise ValueError(
                f"n_neighbors={k} must be smaller than the number of training "
                f"samples n={n}")
        return k

    def _set_up(self, X, W, name, safe, k, lab):
        """``(W, K, Z, landmarks, N)`` of a fit on X: the graph (built here,
        read from ``graph``, or the user's ``W`` checked under ``name``), the
        kernel width, the kernel matrix K (exact path) or the Nystroem
        features Z with their landmarks and map N; sets the fit's caches."""
        if getattr(self, "_safety_setup", None) is not None and W is None:
            # a fit of the safety net's folds (_tv_check)
            return self._fold_set_up(X, k, lab)
        key = self._shared_work_key(X, W, lab)
        self._shared_key = key
        if key is not None:
            got = self.graph._recall(key)
            if got is not None:
                return self._shared_work_restore(got, X)
        out = self._set_up_new(X, W, name, safe, k, lab)
        if key is not None:
            self._shared_work_keep(key, out)
        return out

    # the set-up of a fit on a user-given KNNGraph (graph=) kept on it
    # (KNNGraph._store: least recently used first out) and read back by the
    # next fit on the same rows and labeled rows with the same parameters of
    # the set-up (a grid search's grid points on one fold; the refit on all
    # rows): the fold's graph, intrinsic dimension, kernel width, kernel
    # matrix or Nystroem features, nugget and the solve cache (edge list,
    # step bound, Z'Z, label-free factorisations), each the same arrays a
    # new set-up computes (nothing in them depends on a label value or on
    # a parameter outside the key)
    _SHARED_WORK_ATTRS = ("intrinsic_dim_", "_kernel_gamma", "nugget_")

    def _shared_work_key(self, X, W, lab):
        """The key of this fit's set-up on the shared graph, or None (no
        ``graph=``, a user-given affinity, a callable kernel or a
        RandomState: no sharing)."""
        g = self.graph
        if (g is None or W is not None or callable(self.kernel)
                or not (self.random_state is None
                        or isinstance(self.random_state, numbers.Integral))
                or not hasattr(g, "_recall") or not hasattr(g, "affinity_")):
            return None
        rows = g.rows_of(X)
        if rows is None:
            return None

        def digest(a):
            return hashlib.blake2b(np.ascontiguousarray(a).tobytes(),
                                   digest_size=16).hexdigest()

        key = ("tv-set-up", type(self).__name__, digest(rows),
               digest(np.flatnonzero(lab)), X.dtype.str, self.mode_,
               self.n_components_, self.kernel, self.kernel_gamma,
               self.degree, self.coef0, self.random_state, self.n_neighbors,
               self.weights, self.classes_.shape[0] == 2,
               getattr(self, "scheme", None))
        try:
            hash(key)
        except TypeError:
            return None     # (a parameter given as an array or list: no sharing)
        return key

    def _shared_warm_start(self, y):
        """Sets the warm start of this fit's solve (``_fold_init``): the
        graph iterate of the last fit with the same set-up key and the same
        labels on the shared graph (``GRID_WARM_START``), if any."""
        key = getattr(self, "_shared_key", None)
        if key is None or not GRID_WARM_START or not self._warm_starts:
            return None
        wkey = ("tv-warm", hashlib.blake2b(np.ascontiguousarray(y).tobytes(),
                                           digest_size=16).hexdigest()) + key
        got = self.graph._recall(wkey)
        if got is not None:
            self._fold_init = got
        return wkey

    def _shared_warm_keep(self, wkey, res):
        if wkey is None:
            return
        start = np.array(res.decision, dtype=np.float64, copy=True)
        if res.model == "tv" and start.ndim == 1:
            start = start - float(res.intercept)
        self.graph._store(wkey, start, start.nbytes)

    def _shared_work_keep(self, key, out):
        W, K, Z, landmarks, N = out
        cache = {}
        # the fit takes this dict as its solve cache (as a safety fold's);
        # the later fits read its label-free part (_shared_solve_cache), to
        # which the fit cuts it when it ends (_shared_work_prune)
        self._fold_solve_cache = cache
        self._shared_kept_cache = cache
        value = (out, {a: getattr(self, a) for a in self._SHARED_WORK_ATTRS},
                 cache)
        # (K counted twice: this fit's factorisation of it is in the cache
        # until the fit ends; counted as kept, the cap errs on the safe side)
        nbytes = sum(a.nbytes for a in (K, K, Z, N) if a is not None) + (
            W.data.nbytes + W.indices.nbytes + W.indptr.nbytes)
        self.graph._store(key, value, nbytes)

    def _shared_work_prune(self):
        """At the end of a fit that stored its set-up on the shared graph:
        its solve cache, kept there, cut to the part later fits read (the
        lam-specific factorisations dropped; the same values read)."""
        cache = self.__dict__.pop("_shared_kept_cache", None)
        if cache is not None:
            kept = self._shared_solve_cache(cache)
            cache.clear()
            cache.update(kept)

    @staticmethod
    def _shared_solve_cache(cache):
        """A new solve cache holding the label-free, parameter-free part of
        ``cache`` (the ROF edge list and step bound of W, Z'Z): a grid's
        other points solve with another ``lam`` (their factorisations are
        their own, and are not kept on the graph)."""
        out = {}
        for k, entry in list(cache.items()):      # (keys: _tv_inputs.shared_cache)
            if k[0] == "rof":
                out[k] = entry
            elif k[0] == "rkhs" and "gram" in entry["data"]:
                out[k] = {"ref": entry["ref"], "data": {"gram": entry["data"]["gram"]}}
        return out

    def _shared_work_restore(self, got, X):
        (W, K, Z, landmarks, N), attrs, cache = got
        for a, v in attrs.items():
            setattr(self, a, v)
        self._graph_obj = self.graph
        self._knn_lists = None
        self._decision_kernel = None
        self._fold_solve_cache = self._shared_solve_cache(cache)
        self._exact_rows = (X if Z is not None
                            and self._exact_fallback(X.shape[0], X.dtype) else None)
        self._exact_K = None
        return W, K, Z, landmarks, N

    def _set_up_new(self, X, W, name, safe, k, lab):
        """The set-up of :meth:`_set_up` computed here."""
        n = X.shape[0]
        dist = None
        self._graph_obj = None
        self._knn_lists = None
        user_graph = W is not None
        if user_graph and self.graph is not None:
            raise ValueError("give graph= or affinity=, not both")
        if not user_graph and (self.graph is not None or safe is True):
            W, dist = self._shared_graph(X, k)
        elif not user_graph:
            W, dist, self._knn_lists = self._own_graph(X, k, safe)
        # the intrinsic dimension of the rows: sets how the default weights
        # grow with n (the same whichever graph is used)
        self.intrinsic_dim_ = intrinsic_dim(X)
        if user_graph:
            if safe is True:
                raise ValueError(
                    "safe=True refits on folds of the rows and needs the graph "
                    "built from X: pass no affinity (or safe=False)")
            W = check_affinity(W, name)
            if W.shape != (X.shape[0], X.shape[0]):
                raise ValueError(
                    f"{name} must have shape ({X.shape[0]}, {X.shape[0]}) (one "
                    f"row per training sample), got {W.shape}")
        self._decision_kernel = None
        self._kernel_gamma = (self.kernel_gamma if self.kernel_gamma is not None
                              else self._default_kernel_gamma(X, dist))
        with limit_api(1, "blas"):
            # one thread, as in the solvers: the same K (to the last bit)
            # whatever the BLAS thread count
            landmarks = N = None
            if self.mode_ == "exact":
                K, Z = self._kernel(X), None
            else:
                rs = self.random_state
                # the labeled rows are landmarks (as LapSVM's Nystroem mode);
                # random_state=None draws the others with seed 0 (same input,
                # same bits)
                K = None
                Z, landmarks, N = nystroem_features(
                    X, self._kernel, self.n_components_,
                    random_state=0 if rs is None else rs, include=np.flatnonzero(lab),
                    parallel=not callable(self.kernel))
        self.nugget_ = 0.0 if Z is None else self._nugget(X, Z)
        # multi-class TV on the Nystroem path below LOWRANK_MIN_SAMPLES_MULTI_TV
        # rows: the augmented iteration (scheme="auto", when the penalty one
        # is rejected) takes the exact kernel of these rows
        self._exact_rows = (X if Z is not None and self._exact_fallback(n, X.dtype)
                            else None)
        self._exact_K = None
        return W, K, Z, landmarks, N


    def _mode(self, n):
        """("exact" | "nystroem", n_components_) for a fit on n rows."""
        m = self.n_components
        if m is None:
            return "exact", None
        if isinstance(m, str):
            if m != "auto":
                raise ValueError(
                    f"n_components must be None, 'auto' or an int, got {m!r}")
            multi_tv = self._scheme_choice and self.classes_.shape[0] > 2
            if n <= (LOWRANK_MIN_SAMPLES_MULTI_TV if multi_tv
                     and self.scheme == "augmented" else LOWRANK_MIN_SAMPLES):
                return "exact", None
            m = (SCALE_COMPONENTS if n > _tv_check.SCALE_MIN_ROWS
                 else AUTO_COMPONENTS)
            return "nystroem", min(m, n)
        m = check_int(m, "n_components")
        if m > n:
            raise ValueError(f"n_components={m} must be at most the number of "
                             f"training samples n={n}")
        return "nystroem", m

    def _exact_fallback(self, n, dtype):
        """Whether a rejected penalty iteration (multi-class TV,
        ``scheme="auto"``) may take the exact kernel: up to
        ``LOWRANK_MIN_SAMPLES_MULTI_TV`` rows, when the n x n kernel and its
        factorisation fit in memory, and ``n_components="auto"``."""
        return (self._scheme_choice and self.classes_.shape[0] > 2
                and isinstance(self.n_components, str)
                and getattr(self, "scheme", None) == "auto"
                and n <= LOWRANK_MIN_SAMPLES_MULTI_TV
                and fits_in_memory(2 * n * n * np.dtype(dtype).itemsize))

    def _nugget(self, X, Z, n_max=1000):
        """Mean of ``k(x, x) - ||z(x)||^2`` (what the Nystroem map misses on
        the kernel's diagonal) over at most n_max evenly spaced rows."""
        rows = np.unique(np.linspace(0, X.shape[0] - 1, min(X.shape[0], n_max))
                         .round().astype(np.intp))
        kd = np.diag(np.asarray(self._kernel(X[rows], X[rows]), dtype=np.float64))
        zz = np.sum(np.asarray(Z[rows], dtype=np.float64) ** 2, axis=1)
        return max(float(np.mean(kd - zz)), 0.0)

    def _check_memory(self, n, dtype, copy=0):
        """Refuse a fit whose path (exact or Nystroem) does not fit in
        memory; ``copy``: the bytes of the scaled copy of X
        (``feature_scaling``; 0: none), counted with the path."""
        size = np.dtype(dtype).itemsize
        name = type(self).__name__
        extra = " and the scaled copy of X (feature_scaling)" if copy else ""
        if self.mode_ == "exact":
            # the dense n x n kernel matrix and the factorised system beside it
            check_memory(2 * n * n * size + copy,
                         f"{name} on n={n} samples: the {n} x {n} {np.dtype(dtype)} "
                         "kernel matrix and its factorisation (n_components="
                         "'auto' or an int takes the Nystroem path)" + extra)
        else:
            m = self.n_components_
            # Z and a block of kernel values, the m x m systems, the iterates
            check_memory(2 * n * m * size + 4 * m * m * 8 + 32 * n * 8 + copy,
                         f"{name} on n={n} samples: the {n} x {m} {np.dtype(dtype)} "
                         "Nystroem features and the iterates" + extra)
