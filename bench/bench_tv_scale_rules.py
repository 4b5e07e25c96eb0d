"""The graph TV / Cheeger scale rules, one factor at a time.

Above ``SCALE_MIN_ROWS`` rows the estimators take cheaper settings (the
Nystroem rank ``SCALE_COMPONENTS``, ``SCALE_ROF_MAX_ITER`` ROF steps per outer
iteration, ``SCALE_N_STABLE`` quiet iterations, ``FOLD_N_STABLE_SCALE`` for
the check's folds). This script fits one model on the problem of
``bench_graph_tv_scale.py --part large`` (``make_classification(n, 50,
n_informative=20, n_classes=10, n_clusters_per_class=1, class_sep=2.0,
random_state=0)``, 10 labels per class) once per variant, each variant a
JSON object of module constants to override (``"_tv_setup.SCALE_COMPONENTS":
500``) and estimator parameters (``"n_stable": 10``), and prints the error
on the unlabeled rows, the outer iterations and the CPU / wall seconds of the
fit. The default kNN graph is searched once and kept in ``--cache`` (a
``.npz`` per n), so every variant reads the same graph and the figures are
the solve's (plus the kernel features and the check, when ``safe`` is on).

    nice -n 10 python bench/bench_tv_scale_rules.py --n 300000 --variants \
        '{}' '{"_tv_setup.SCALE_COMPONENTS": 500}' '{"n_stable": 10}'

Each variant runs in a fresh process (``--one``), one after the other.
"""
import argparse
import json
import os
import subprocess
import sys
import time
import warnings

import numpy as np


def _problem(n):
    from sklearn.datasets import make_classification
    X, yt = make_classification(n, 50, n_informative=20, n_redundant=2,
                                n_classes=10, n_clusters_per_class=1,
                                class_sep=2.0, random_state=0)
    rng = np.random.default_rng(0)
    y = np.full(n, -1)
    for k in range(10):
        y[rng.choice(np.flatnonzero(yt == k), 10, replace=False)] = k
    return X, y, yt


def _cached_graph(cache, n_jobs):
    """knn_graph, its result read from / written to ``cache``."""
    import scipy.sparse as sp

    from semisvm import _tv_setup
    orig = _tv_setup.knn_graph

    def knn_graph(X, **kw):
        if os.path.exists(cache):
            z = np.load(cache)
            W = sp.csr_matrix((z["data"], z["indices"], z["indptr"]),
                              shape=(X.shape[0], X.shape[0]))
            return (W, z["dist"]) if kw.get("return_distances") else W
        W, dist = orig(X, **dict(kw, return_distances=True))
        np.savez(cache, data=W.data, indices=W.indices, indptr=W.indptr, dist=dist)
        return (W, dist) if kw.get("return_distances") else W

    _tv_setup.knn_graph = knn_graph


def _one(args, variant):
    import importlib

    import semisvm
    X, y, yt = _problem(args.n)
    params = {"n_jobs": args.n_jobs, "safe": args.safe}
    for key, v in variant.items():
        if "." in key:
            mod, name = key.split(".")
            m = importlib.import_module(f"semisvm.{mod}")
            if not hasattr(m, name):
                raise SystemExit(f"no constant {key}")
            setattr(m, name, v)
        else:
            params[key] = v
    _cached_graph(args.cache, args.n_jobs)
    trace = []
    if args.trace:
        from semisvm import _tv_solvers
        stop = _tv_solvers._stable_stop

        def traced(state, labels, unl, residual, tol, n_stable):
            prev = state["labels"]
            flips = (np.nan if prev is None
                     else 100 * float(np.mean(labels[unl] != prev[unl])))
            err = 100 * float(np.mean(labels[unl] != yt[unl]))
            trace.append(f"{err:.2f}/{flips:.2f}")
            return stop(state, labels, unl, residual, tol, n_stable)
        _tv_solvers._stable_stop = traced
    est = getattr(semisvm, args.model)(**params)
    t0, c0 = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    unl = y == -1
    res = est.result_
    print(json.dumps(dict(
        err=100 * float(np.mean(est.transduction_[unl] != yt[unl])),
        n_iter=int(est.n_iter_), status=res.status, wall=wall, cpu=cpu,
        rof_cpu=float(res.rof_cpu_time), fell_back=bool(getattr(est, "fell_back_", False)),
        load=os.getloadavg()[0], trace=" ".join(trace))), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=300_000)
    ap.add_argument("--model", default="TVRLS")
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument("--safe", default="false", choices=["false", "auto"],
                    help="the estimator's safe (false: the fit's own solve only)")
    ap.add_argument("--cache", default=None,
                    help="graph cache file (default /tmp/tv_scale_graph_<n>.npz)")
    ap.add_argument("--variants", nargs="*", default=["{}"])
    ap.add_argument("--trace", action="store_true",
                    help="print each outer iteration's error and label flips "
                         "(%% of the unlabeled rows) of every solve")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    args = ap.parse_args()
    args.safe = False if args.safe == "false" else "auto"
    args.cache = args.cache or f"/tmp/tv_scale_graph_{args.n}.npz"
    if args.one is not None:
        _one(args, json.loads(args.one))
        return
    print("load:", os.getloadavg(), "n:", args.n, "model:", args.model,
          "safe:", args.safe, flush=True)
    base = [sys.executable, __file__, "--n", str(args.n), "--model", args.model,
            "--n-jobs", str(args.n_jobs), "--cache", args.cache,
            "--safe", "false" if args.safe is False else "auto"]
    base += ["--trace"] if args.trace else []
    for v in args.variants:
        out = subprocess.run(base + ["--one", v], capture_output=True, text=True)
        lines = [ln for ln in out.stdout.splitlines() if ln.startswith("{")]
        if out.returncode or not lines:
            print(f"{v:60s} failed: {out.stderr.strip().splitlines()[-1:]}", flush=True)
            continue
        r = json.loads(lines[-1])
        print(f"{v:60s} err {r['err']:5.2f}%  it {r['n_iter']:3d} {r['status']:14s} "
              f"cpu {r['cpu']:6.1f} wall {r['wall']:6.1f} rof_cpu {r['rof_cpu']:5.1f}"
              f"{' fell back' if r['fell_back'] else ''}  load {r['load']:.1f}",
              flush=True)
        if r["trace"]:
            print(f"    error/flips % per outer iteration: {r['trace']}", flush=True)
    print("load:", os.getloadavg())


if __name__ == "__main__":
    main()
