"""The TV / Cheeger ROF solver's graph set-up at scale, beside the former
sort-based construction, on a synthetic kNN-like graph.

The pieces between the kNN search and the first ROF solve (``_ROF``'s
set-up): the edge list (``_edges``), the step bound (``_grad_norm``: the
Laplacian and ARPACK), the reverse Cuthill-McKee order (``_band_order``),
the relabelled edges (``_relabel``) and the rows' incidence lists
(``edge_incidence``). Each is timed (wall and CPU seconds), alternated with
the former construction (``np.lexsort`` / COO -> CSR / ``W + W.T``) in the
same process, and the two results are compared bit for bit (``same``).

The graph: n rows, each with k = 10 neighbours among the next 40 positions,
the rows then permuted (a kNN graph's locality without its search), weights
``neighbors_affinity(..., weight="self-tuning")``.

    nice python bench/bench_tv_setup.py --n 1000000 --threads 2
    python bench/bench_tv_setup.py --n 1000000 --threads 16 --repeat 1

Timings on a shared machine: print ``uptime`` beside them.
"""
import argparse
import time

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from scipy.sparse.csgraph import reverse_cuthill_mckee

import semisvm._tv_solvers as ts
from semisvm._core._graph_tv import edge_incidence, laplacian_csr
from semisvm._threads import limit
from semisvm.graph import neighbors_affinity

# ---------------------------------------------------- the former constructions


def edges_old(W):
    S = (W + W.T).tocsr()
    U = sp.triu(S, k=1).tocoo()
    keep = U.data > 0
    return (np.ascontiguousarray(U.row[keep], dtype=np.int32),
            np.ascontiguousarray(U.col[keep], dtype=np.int32),
            np.ascontiguousarray(U.data[keep]))


def _sym_old(src, dst, v, n):
    return sp.coo_matrix((np.concatenate([v, v]),
                          (np.concatenate([src, dst]), np.concatenate([dst, src]))),
                         shape=(n, n)).tocsr()


def laplacian_old(src, dst, w, n):
    w2 = np.asarray(w, dtype=np.float64) ** 2
    deg2 = np.bincount(np.concatenate([src, dst]), weights=np.concatenate([w2, w2]),
                       minlength=n)
    return _sym_old(src, dst, -w2, n) + sp.diags(deg2)


def laplacian_new(src, dst, w, n):
    indptr, indices, data, _ = laplacian_csr(src, dst, np.asarray(w, np.float64) ** 2, n)
    return sp.csr_matrix((data, indices, indptr), shape=(n, n))


def grad_norm_old(src, dst, w, n):
    w2 = np.asarray(w, dtype=np.float64) ** 2
    deg2 = np.bincount(np.concatenate([src, dst]), weights=np.concatenate([w2, w2]),
                       minlength=n)
    bound = float(np.sqrt(max(2.0 * deg2.max(initial=0.0), 1e-300)))
    lam = float(spla.eigsh(ts._row_blocks_operator(laplacian_old(src, dst, w, n)), k=1,
                           which="LA", tol=1e-6, v0=np.ones(n) + np.arange(n) / n,
                           return_eigenvectors=False)[0])
    return np.array(min(bound, 1.01 * float(np.sqrt(max(lam, 0.0))) + 1e-12))


def band_order_old(src, dst, n):
    A = _sym_old(src, dst, np.ones(src.shape[0], dtype=np.int8), n)
    return np.asarray(reverse_cuthill_mckee(A, symmetric_mode=True), dtype=np.int32)


def relabel_old(src, dst, w):
    lo = np.minimum(src, dst)
    hi = np.maximum(src, dst)
    order = np.lexsort((hi, lo))
    return lo[order].astype(np.int32), hi[order].astype(np.int32), w[order]


def incidence_old(src, dst, w, n):
    m = src.shape[0]
    nodes = np.concatenate([src, dst])
    edges = np.concatenate([np.arange(m, dtype=np.int32)] * 2)
    order = np.lexsort((edges, nodes))
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(nodes, minlength=n), out=ptr[1:])
    return ptr.astype(np.int32), edges[order], np.concatenate([-w, w])[order]


# ----------------------------------------------------------------------- run


def graph(n, k=10, seed=0):
    rng = np.random.default_rng(seed)
    base = (np.arange(n)[:, None] + rng.integers(1, 40, (n, k))) % n
    perm = rng.permutation(n)
    inv = np.empty(n, dtype=np.int64)
    inv[perm] = np.arange(n)
    ind = inv[base[perm]]
    dist = np.sort(rng.random((n, k)), axis=1)
    return neighbors_affinity(dist, ind, weight="self-tuning", dtype=np.float64)


def same(a, b):
    if sp.issparse(a):
        return all(same(getattr(a, x), getattr(b, x)) for x in ("indptr", "indices", "data"))
    if isinstance(a, tuple):
        return all(same(x, y) for x, y in zip(a, b))
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def timed(f, *args):
    t, c = time.perf_counter(), time.process_time()
    r = f(*args)
    return r, time.perf_counter() - t, time.process_time() - c


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    n = args.n
    W = graph(n)
    with limit(args.threads):
        src, dst, w = ts._edges(W)
        perm = ts._band_order(src, dst, n)
        inv = np.empty(n, dtype=np.int32)
        inv[perm] = np.arange(n, dtype=np.int32)
        a, b = inv[src], inv[dst]
        s2 = ts._relabel(a, b, w)
        print(f"n = {n}, edges = {src.shape[0]}, threads = {args.threads}")
        pieces = [
            ("edges", edges_old, ts._edges, (W,)),
            ("grad_norm", grad_norm_old, lambda *x: np.array(ts._grad_norm(*x)),
             (src, dst, w, n)),
            ("(laplacian)", laplacian_old, laplacian_new, (src, dst, w, n)),
            ("band_order", band_order_old, ts._band_order, (src, dst, n)),
            ("relabel", relabel_old, ts._relabel, (a, b, w)),
            ("incidence", incidence_old, edge_incidence, (*s2, n)),
        ]
        total = np.zeros((args.repeat, 2))
        print(f"{'piece':12s} {'former s':>9s} {'cpu':>7s} {'new s':>7s} {'cpu':>7s}"
              f" {'ratio':>6s} same")
        for name, old, new, fargs in pieces:
            for rep in range(args.repeat):
                ro, to, co = timed(old, *fargs)
                rn, tn, cn = timed(new, *fargs)
                ok = same(ro, rn)
                del ro, rn
                if not name.startswith("("):
                    total[rep] += (to, tn)
                print(f"{name:12s} {to:9.2f} {co:7.2f} {tn:7.2f} {cn:7.2f}"
                      f" {tn / to:6.2f} {ok}", flush=True)
        for rep in range(args.repeat):
            print(f"{'set-up':12s} {total[rep, 0]:9.2f} {'':7s} {total[rep, 1]:7.2f}"
                  f" {'':7s} {total[rep, 1] / total[rep, 0]:6.2f}")


if __name__ == "__main__":
    main()
