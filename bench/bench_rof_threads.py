"""The graph ROF solver's primal-dual step on one thread and on several.

One thread runs the specialised one-pass kernels (the dual update scatters
``div`` as it goes); several run two parallel passes per step (edges, then
the rows' incidence lists) with a fork and a barrier each. This measures,
per step, the wall and CPU milliseconds of ``rof_pd_multi`` called directly
(no size switch: ``n_threads`` as given) on a kNN graph (k = 10,
self-tuning weights) of the scale benchmark's problems, for each row count
and number of columns, the thread counts alternated (A B A B) in one
process; ``same`` compares the solutions bit for bit across the thread
counts; ``switch`` is the thread count ``semisvm._tv_solvers._ROF`` now
takes there (``ROF_THREADS_MIN_WORK``).

The rows: ``make_classification(n, d, ...)`` with d = 10 up to 5,000 rows
(the small part of ``bench_graph_tv_scale.py``) and d = 50 above (its large
part), in the data's order below ``ROF_REORDER_MIN_SAMPLES`` rows and in the
solver's band order from there (as ``_ROF`` takes them).

    python bench/bench_rof_threads.py
    python bench/bench_rof_threads.py --n 5000 100000 --cols 1 10 --threads 1 2

Wall time with several threads means something only while the machine's
other cores are free: the script prints the load (``os.getloadavg``) with
each row.
"""
import argparse
import os
import time

import numpy as np


def _graph(n):
    from sklearn.datasets import make_classification

    from semisvm.graph import knn_affinity
    d, inf = (10, 10) if n <= 5000 else (50, 20)
    X, _ = make_classification(n, d, n_informative=inf, n_redundant=0,
                               random_state=0)
    return knn_affinity(X, 10, weight="self-tuning")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, nargs="*", default=[5000, 20000, 100000])
    ap.add_argument("--cols", type=int, nargs="*", default=[1, 10])
    ap.add_argument("--threads", type=int, nargs="*", default=[1, 2])
    ap.add_argument("--steps", type=int, default=200,
                    help="primal-dual steps per solve (tol 0: all of them)")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    import semisvm._tv_solvers as ts
    from semisvm._core._graph_tv import rof_pd_multi
    from semisvm._threads import limit

    print("load:", os.getloadavg())
    print(f"{'n':>7s} {'edges':>8s} {'c':>3s} " + " ".join(
        f"{'t=' + str(t) + ' wall/cpu ms':>21s}" for t in args.threads)
        + "   ratio wall   same  switch  load")
    for n in args.n:
        W = _graph(n)
        rof = ts._ROF(W, 1, 0.0, 1)      # the edge list in the solver's order
        src, dst, w, L, inc = rof.src, rof.dst, rof.w, rof.L, rof.incidence
        m = src.shape[0]
        rng = np.random.default_rng(0)
        for c in args.cols:
            Z = rng.standard_normal((n, c))
            best = {t: [np.inf, np.inf] for t in args.threads}
            bits = {}
            for _ in range(args.repeat):
                for t in args.threads:
                    G = np.zeros((n, c))
                    P = np.zeros((m, c))
                    with limit(t):
                        t0, c0 = time.perf_counter(), time.process_time()
                        it = rof_pd_multi(src, dst, w, Z, 0.5, 1.0, G, P, tol=0.0,
                                          max_iter=args.steps, L=L, incidence=inc,
                                          n_threads=t)[0]
                        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
                    best[t][0] = min(best[t][0], 1e3 * wall / it)
                    best[t][1] = min(best[t][1], 1e3 * cpu / it)
                    bits[t] = G.tobytes() + P.tobytes()
            same = all(b == bits[args.threads[0]] for b in bits.values())
            t0, t1 = args.threads[0], args.threads[-1]
            print(f"{n:7d} {m:8d} {c:3d} " + " ".join(
                f"{best[t][0]:10.3f}/{best[t][1]:10.3f}" for t in args.threads)
                + f"   x{best[t1][0] / best[t0][0]:9.2f}   {same!s:5s}  "
                f"{ts._rof_threads(t1, m, c):6d}  {os.getloadavg()[0]:.2f}", flush=True)


if __name__ == "__main__":
    main()
