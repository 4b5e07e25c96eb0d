"""Which approximate kNN index should build semisvm's graphs? Measured side by side.

For each candidate (faiss-cpu's HNSW, hnswlib, usearch, pynndescent's
NN-descent) and scikit-learn's exact search, on ``make_classification``
points (50 features, 10 well-separated classes, float32: the problem of the
manifold scale benchmark) at n = 20,000 and 200,000, k = 10 neighbours of
every point (the point itself excluded, the graph's kNN lists):

* ``build`` / ``query``: wall seconds to insert all points (single-threaded,
  the deterministic setting) and to search all of them (``n_jobs`` threads);
  ``cpu``: CPU seconds of both;
* ``recall``: recall@k against the exact neighbours (on 2,000 sampled rows
  above 20,000 points, exact on those rows by brute force);
* ``same``: whether two builds with the same input, seed and threads give the
  same kNN lists (``same-mt``: the same with a multi-threaded build; for
  ``semisvm`` / ``semisvm-rows``, the library's own search in the k-d
  locality order / in row order, one thread against ``n_jobs``);
* ``first``: seconds of a fresh process from ``import`` to the first graph
  of 2,000 points (imports and any JIT compilation included).

Wheel sizes and platforms are read from PyPI by hand and kept in
bench/RESULTS.md. Run::

    nice -n 10 python bench/bench_graph_index.py [--sizes 20000 200000] [--n-jobs 2]

``--phases CHUNK:M:EFC:EFS ...`` takes semisvm's own HNSW search apart
instead (the locality order, the chunks' insertion, every row's search in
every chunk's index, the merge; CPU / wall seconds and recall@k), e.g. at
1,000,000 rows with main's four chunks against one index::

    nice -n 10 python bench/bench_graph_index.py --sizes 1000000 --phases 250000:12:32:24 1000000:12:32:24

Results (2026-11-26, this 2-core machine shared with about seven agents,
load average 25-35: wall seconds are several times the CPU seconds; compare
CPU seconds; the full table and the wheel sizes: bench/RESULTS.md, "kNN
index for the graphs")::

    index            n       build   query     cpu  recall  same same-mt
    sklearn-exact    20000    0.00    8.90    1.92  1.0000  True    True
    faiss-hnsw       20000    7.93    8.18    3.33  0.9998  True    True
    usearch          20000    9.51    7.29    2.96  0.9996  True   False
    pynndescent      20000  708.28       -   45.90  0.9684  True    True

    first call (fresh process, import + 2,000 points): sklearn 2.15 s,
    faiss 0.45 s, usearch 0.47 s, pynndescent 324 s (numba compilation)

Chosen: usearch (HNSW M=16, ef_add=64, ef_search=64), a core dependency;
exact below 50,000 points.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

import numpy as np

K = 10


def data(n, seed=0):
    from sklearn.datasets import make_classification
    X, _ = make_classification(n, 50, n_informative=20, n_classes=10,
                               n_clusters_per_class=1, class_sep=2.0,
                               random_state=seed)
    return np.ascontiguousarray(X, dtype=np.float32)


def exact_rows(X, rows, k=K):
    """Exact k nearest neighbours (self excluded) of X[rows] by brute force."""
    sq = np.einsum("ij,ij->i", X, X).astype(np.float64)
    out = np.empty((rows.size, k), dtype=np.int64)
    for s in range(0, rows.size, 256):
        r = rows[s:s + 256]
        d2 = sq[r, None] + sq[None, :] - 2.0 * (X[r].astype(np.float64) @ X.T.astype(np.float64))
        d2[np.arange(r.size), r] = np.inf
        part = np.argpartition(d2, k, axis=1)[:, :k]
        out[s:s + 256] = part
    return out


def recall(ind, truth, rows):
    got = ind[rows]
    return float(np.mean([len(set(a) & set(b)) / truth.shape[1]
                          for a, b in zip(got, truth)]))


def drop_self(ind, k=K):
    n = ind.shape[0]
    is_self = ind == np.arange(n)[:, None]
    no_self = ~is_self.any(axis=1)
    is_self[no_self, -1] = True
    return ind[~is_self].reshape(n, -1)[:, :k]


# ------------------------------------------------------------- candidates

def run_sklearn(X, n_jobs, build_threads=1):
    from sklearn.neighbors import NearestNeighbors
    t0 = time.perf_counter()
    nn = NearestNeighbors(n_neighbors=K, n_jobs=n_jobs).fit(X)
    t1 = time.perf_counter()
    _, ind = nn.kneighbors(None)
    return ind, t1 - t0, time.perf_counter() - t1


def run_faiss(X, n_jobs, build_threads=1, M=32, ef_c=40, ef_s=64):
    import faiss
    old = faiss.omp_get_max_threads()
    try:
        faiss.omp_set_num_threads(build_threads)
        t0 = time.perf_counter()
        index = faiss.IndexHNSWFlat(X.shape[1], M)
        index.hnsw.efConstruction = ef_c
        index.add(X)
        t1 = time.perf_counter()
        faiss.omp_set_num_threads(n_jobs)
        index.hnsw.efSearch = ef_s
        _, ind = index.search(X, K + 1)
        t2 = time.perf_counter()
    finally:
        faiss.omp_set_num_threads(old)
    return drop_self(ind), t1 - t0, t2 - t1


def run_usearch(X, n_jobs, build_threads=1, M=16, ef_c=64, ef_s=64):
    from usearch.index import Index
    t0 = time.perf_counter()
    index = Index(ndim=X.shape[1], metric="l2sq", dtype="f32", connectivity=M,
                  expansion_add=ef_c, expansion_search=ef_s)
    index.add(np.arange(X.shape[0]), X, threads=build_threads)
    t1 = time.perf_counter()
    m = index.search(X, K + 1, threads=n_jobs)
    t2 = time.perf_counter()
    return drop_self(np.asarray(m.keys).astype(np.int64)), t1 - t0, t2 - t1


def run_hnswlib(X, n_jobs, build_threads=1, M=16, ef_c=100, ef_s=64):
    import hnswlib
    t0 = time.perf_counter()
    index = hnswlib.Index(space="l2", dim=X.shape[1])
    index.init_index(max_elements=X.shape[0], ef_construction=ef_c, M=M,
                     random_seed=0)
    index.add_items(X, num_threads=build_threads)
    t1 = time.perf_counter()
    index.set_ef(ef_s)
    ind, _ = index.knn_query(X, k=K + 1, num_threads=n_jobs)
    t2 = time.perf_counter()
    return drop_self(ind.astype(np.int64)), t1 - t0, t2 - t1


def run_pynndescent(X, n_jobs, build_threads=1):
    from pynndescent import NNDescent
    t0 = time.perf_counter()
    index = NNDescent(X, n_neighbors=K + 1, metric="euclidean", random_state=0,
                      low_memory=True, compressed=True, n_jobs=build_threads)
    ind, _ = index.neighbor_graph
    t1 = time.perf_counter()
    return drop_self(np.asarray(ind)), t1 - t0, 0.0


def run_semisvm(X, n_jobs, build_threads=1, leaf=None):
    """semisvm's own approximate search (``knn_search(method="approximate")``:
    the index above with the library's parameters, the rows inserted and
    searched in the k-d locality order); ``leaf``: HNSW_LEAF for this call
    (n: the row order, as before the locality order). The build and the
    search are one call: ``build`` holds both. Deterministic at any thread
    count, so ``build_threads`` does not enter."""
    import semisvm.graph as g
    old = g.HNSW_LEAF
    g.HNSW_LEAF = old if leaf is None else leaf
    try:
        t0 = time.perf_counter()
        _, ind = g.knn_search(X, K, method="approximate", n_jobs=n_jobs)
        t1 = time.perf_counter()
    finally:
        g.HNSW_LEAF = old
    return ind.astype(np.int64), t1 - t0, 0.0


def run_semisvm_rows(X, n_jobs, build_threads=1):
    return run_semisvm(X, n_jobs, build_threads, leaf=X.shape[0])


def phases(n, chunk, M, ef_c, ef_s, n_jobs, rows, truth, X):
    """semisvm's HNSW search (``graph._hnsw_search``) at ``n`` rows taken
    apart: CPU / wall seconds of the locality order, the chunks' insertion
    (chunks of ``chunk`` rows, ``n_jobs`` threads), the searches of every row
    in every chunk's index and the merge of their lists; recall@k of the
    merged lists against ``truth`` on ``rows``. The same steps as the
    library's, with the sizes given here."""
    import semisvm.graph as g
    saved = g.HNSW_CHUNK, g.HNSW_M, g.HNSW_EF_CONSTRUCTION, g.HNSW_EF_SEARCH
    g.HNSW_CHUNK, g.HNSW_M, g.HNSW_EF_CONSTRUCTION, g.HNSW_EF_SEARCH = chunk, M, ef_c, ef_s
    out = {}

    def clock():
        return np.array([time.process_time(), time.perf_counter()])
    try:
        t = clock()
        order = g._locality_order(X, g.HNSW_LEAF)
        Xo = X[order]
        out["order"], t = clock() - t, clock()
        q = K + 1
        bounds = [(a, min(n, a + chunk)) for a in range(0, n, chunk)]

        def build(b):
            mine = (order >= b[0]) & (order < b[1])
            return g._hnsw_index(order[mine], Xo[mine], q)
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(max(1, min(n_jobs, len(bounds)))) as pool:
            indexes = list(pool.map(build, bounds))
        out["insert"], t = clock() - t, clock()
        out["search"] = out["merge"] = 0
        D = ind = None
        for (a, b), index in zip(bounds, indexes):
            m = min(q, b - a)
            found = index.search(Xo, m, threads=n_jobs)
            Ic = np.asarray(found.keys).astype(np.int64).reshape(n, -1)[:, :m]
            Dc = np.asarray(found.distances, dtype=np.float32).reshape(n, -1)[:, :m]
            out["search"], t = out["search"] + clock() - t, clock()
            if D is not None:
                Dc, Ic = np.concatenate([D, Dc], axis=1), np.concatenate([ind, Ic], axis=1)
                pick = np.argsort(Dc, axis=1, kind="stable")[:, :q]
                Dc, Ic = np.take_along_axis(Dc, pick, axis=1), np.take_along_axis(Ic, pick, axis=1)
            D, ind = Dc, Ic
            out["merge"], t = out["merge"] + clock() - t, clock()
    finally:
        g.HNSW_CHUNK, g.HNSW_M, g.HNSW_EF_CONSTRUCTION, g.HNSW_EF_SEARCH = saved
    lists = np.empty_like(ind)
    lists[order] = ind
    return out, recall(drop_self(lists), truth, rows)


CANDIDATES = {"sklearn-exact": ("sklearn", run_sklearn),
              "faiss-hnsw": ("faiss", run_faiss),
              "hnswlib": ("hnswlib", run_hnswlib),
              "usearch": ("usearch", run_usearch),
              "pynndescent": ("pynndescent", run_pynndescent),
              "semisvm": ("semisvm", run_semisvm),
              "semisvm-rows": ("semisvm", run_semisvm_rows)}

_FIRST = """
import time, numpy as np
t0 = time.perf_counter()
import sys; sys.path.insert(0, {here!r})
from bench_graph_index import CANDIDATES, data
X = data(2000)
t1 = time.perf_counter()
CANDIDATES[{name!r}][1](X, 1)
print(time.perf_counter() - t1)
"""


def first_call(name):
    here = os.path.dirname(os.path.abspath(__file__))
    out = subprocess.run([sys.executable, "-c", _FIRST.format(here=here, name=name)],
                         capture_output=True, text=True, check=True)
    return float(out.stdout.split()[-1])


def available(mod):
    try:
        __import__(mod)
    except ImportError:
        return False
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[20_000, 200_000])
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--no-first", action="store_true")
    ap.add_argument("--recall-rows", type=int, default=2000,
                    help="rows whose exact lists give the recall above 20,000 points")
    ap.add_argument("--phases", nargs="+", default=None, metavar="CHUNK:M:EFC:EFS",
                    help="instead of the candidates: semisvm's HNSW search taken "
                         "apart (order / insertion / search / merge) with these "
                         "chunk sizes and parameters, e.g. 250000:12:32:24")
    args = ap.parse_args()
    if args.phases:
        print(f"# load average {os.getloadavg()}, n_jobs={args.n_jobs}, k={K}; CPU/wall s")
        for n in args.sizes:
            X = data(n)
            rows = np.random.default_rng(0).choice(n, min(n, args.recall_rows),
                                                   replace=False)
            truth = exact_rows(X, rows)
            for spec in args.phases:
                chunk, M, ef_c, ef_s = (int(v) for v in spec.split(":"))
                t, rec = phases(n, chunk, M, ef_c, ef_s, args.n_jobs, rows, truth, X)
                total = sum(t.values())
                print(f"n={n} chunk={chunk} M={M} ef={ef_c}/{ef_s} " + " ".join(
                    f"{k}={v[0]:.1f}/{v[1]:.1f}" for k, v in t.items())
                    + f" total={total[0]:.1f}/{total[1]:.1f} recall@{K}={rec:.4f}"
                    f" load={os.getloadavg()[0]:.1f}", flush=True)
        return
    names = [n for n in CANDIDATES if (args.only is None or n in args.only)
             and available(CANDIDATES[n][0])]
    print(f"# load average {os.getloadavg()}, n_jobs={args.n_jobs}, k={K}")
    if not args.no_first:
        for name in names:
            print(f"first-call {name}: {first_call(name):.2f} s", flush=True)
    print(f"{'index':15s} {'n':>8s} {'build':>7s} {'query':>7s} {'cpu':>7s} "
          f"{'recall':>7s} {'same':>5s} {'same-mt':>7s}", flush=True)
    for n in args.sizes:
        X = data(n)
        rows = (np.arange(n) if n <= 20_000
                else np.random.default_rng(0).choice(n, args.recall_rows,
                                                     replace=False))
        truth = exact_rows(X, rows)
        for name in names:
            if name == "sklearn-exact" and n > 50_000:
                continue
            fn = CANDIDATES[name][1]
            c0 = time.process_time()
            ind, tb, tq = fn(X, args.n_jobs)
            cpu = time.process_time() - c0
            rec = recall(ind, truth, rows)
            ind2 = fn(X, args.n_jobs)[0]
            same = bool(np.array_equal(ind, ind2))
            if name in ("sklearn-exact",):
                same_mt = same
            elif name.startswith("semisvm"):
                # the library's lists for any n_jobs: one thread against n_jobs
                same_mt = bool(np.array_equal(ind, fn(X, 1)[0]))
            else:
                a = fn(X, args.n_jobs, build_threads=args.n_jobs)[0]
                b = fn(X, args.n_jobs, build_threads=args.n_jobs)[0]
                same_mt = bool(np.array_equal(a, b))
            print(f"{name:15s} {n:8d} {tb:7.2f} {tq:7.2f} {cpu:7.2f} {rec:7.4f} "
                  f"{str(same):>5s} {str(same_mt):>7s}", flush=True)
    print(f"# load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
