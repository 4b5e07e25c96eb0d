"""TV-RLS, TV-SVM, Cheeger-RLS and Cheeger-SVM at scale, beside graph peers.

Two parts, printed as one table (wall and CPU seconds, peak RSS growth,
transductive error on the unlabeled rows):

* ``--part small``: the held-out sizes, 5,000 rows x {10, 60} features x
  {2, 10} classes (``make_classification(n, d, n_informative=min(d, 10),
  n_redundant=min(2, d - n_informative), n_classes=c,
  n_clusters_per_class=1, class_sep=2.0, random_state=0)``),
  10 labels per class drawn per class with ``default_rng(0)``; each estimator
  with its defaults and with ``n_components=None`` (the exact kernel path),
  and scikit-learn's LabelSpreading (kNN kernel) as the peer.
* ``--part safe``: the cost of the checks, ``safe=False`` / ``"auto"`` (the
  default: two label folds and the Laplacian guard) / ``True`` (the
  cross-validated safety net), each estimator in one process (after an
  untimed warm-up fit on 300 rows: no import in the figures) on 3,000 x 20,
  2 classes and 5,000 x 10, 10 classes (the recipe above); ratios of CPU
  seconds (the target: ``True`` at most 3x a default fit).
* ``--part grid``: a grid search over ``lam`` (``default_param_grid``'s
  three values, ``LabeledStratifiedKFold(3)``) on a shared fitted
  ``KNNGraph`` (``graph=``), on the two problems of ``--part safe``: CPU
  seconds with the graph keeping no work (every fit sets itself up) and
  with its fits reading their fold's set-up from it (the default), the
  same choice and scores expected; ``--grid-warm`` also times the grid
  points' warm starts (``semisvm._tv_setup.GRID_WARM_START``).
* ``--part large``: 100,000 x 50, 10 classes (the graph-core benchmark's
  problem: ``make_classification(100000, 50, n_informative=20,
  n_classes=10, n_clusters_per_class=1, class_sep=2.0, random_state=0)``),
  10 labels per class, each estimator with its defaults, beside
  graphlearning's Poisson learning (``pip install graphlearning``; its own
  annoy kNN graph, k = 10) measured in the same run; ratios to Poisson.

    nice python bench/bench_graph_tv_scale.py --part small
    nice python bench/bench_graph_tv_scale.py --part safe --models TVRLS CheegerRLS
    nice python bench/bench_graph_tv_scale.py --part safe --tv-check '{"SAFE_TV_FOLD_MAX_ITER_TWO": null}'
    nice python bench/bench_graph_tv_scale.py --part large --models TVRLS CheegerRLS
    python bench/bench_graph_tv_scale.py --part large --n 1000000 --no-peer \
        --models CheegerRLS --threads 1 16 --params '{"safe": false}'

``--check`` (JSON) sets constants of ``semisvm._tv_check`` in each worker
(a rule under test; the ``labels`` column hashes ``transduction_``, which
the guard or the check may take from another model, where ``bits`` hashes
the fit's own decision values)::

    python bench/bench_graph_tv_scale.py --part small --no-exact --no-peer \
        --check '{"GUARD_COMPONENTS_RATIO": 0.5}'

``--params`` (JSON) sets estimator parameters of the semisvm fits; ``--threads``
(small and large parts) fits each model once per ``n_jobs``, one after the
other (0: ``n_jobs=None``; the ``bits`` column, a hash of the decision
values, must not change with it):

    python bench/bench_graph_tv_scale.py --part small --no-exact --no-peer --threads 0 -1

Each fit runs in a fresh process (``--one`` is the worker), so that peak RSS
is the fit's own. The ``cpu`` / ``wall`` columns count from after the data
are drawn (``sklearn.datasets`` imported) through the fit: they include
importing semisvm (and the scikit-learn modules it imports) and the fit's
first-call costs in a fresh interpreter; ``fit cpu`` is the ``fit`` call
alone (the target's figure), still a first fit in its process. Timings on a shared machine: print ``uptime`` beside them.
"""
import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import time
import warnings

import numpy as np

MODELS = ["TVRLS", "TVSVM", "CheegerRLS", "CheegerSVM"]


def _problem(n, d, c, n_informative):
    from sklearn.datasets import make_classification
    X, yt = make_classification(n, d, n_informative=n_informative,
                                n_redundant=min(2, d - n_informative),
                                n_classes=c, n_clusters_per_class=1,
                                class_sep=2.0, random_state=0)
    rng = np.random.default_rng(0)
    y = np.full(n, -1)
    for k in range(c):
        y[rng.choice(np.flatnonzero(yt == k), 10, replace=False)] = k
    return X, y, yt


def _safe_costs(X, y, yt, name, params):
    """CPU / wall seconds and errors of safe=False, "auto" and True fits of
    one model in this process (after an untimed warm-up fit)."""
    import semisvm
    Est = getattr(semisvm, name)
    unl = y == -1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Est(**params).fit(X[:300], y[:300])
        out = {}
        for safe in (False, "auto", True):
            est = Est(**dict(params, safe=safe))
            t0, c0 = time.perf_counter(), time.process_time()
            est.fit(X, y)
            out[str(safe)] = dict(
                wall=time.perf_counter() - t0, cpu=time.process_time() - c0,
                err=100 * float(np.mean(est.transduction_[unl] != yt[unl])),
                fell_back=bool(est.fell_back_),
                gain=getattr(est, "unlabeled_gain_", None))
    return out


def _grid_costs(X, y, name, params, warm):
    """CPU seconds, choice and scores of a grid search over lam on a shared
    graph: "cold" (the graph keeps no work), "shared" and, with ``warm``,
    "warm" (shared, grid points warm started), each after an untimed
    warm-up fit."""
    from sklearn.model_selection import GridSearchCV

    import semisvm
    import semisvm._tv_setup as tv_setup
    from semisvm.graph import KNNGraph
    from semisvm.model_selection import LabeledStratifiedKFold, default_param_grid
    Est = getattr(semisvm, name)
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Est(**params).fit(X[:300], y[:300])
        grid = {"lam": default_param_grid(Est())["lam"]}
        for mode in ("cold", "shared") + (("warm",) if warm else ()):
            g = KNNGraph(10, weight="self-tuning").fit(X)
            if mode == "cold":
                g._store = lambda *a, **k: None
            tv_setup.GRID_WARM_START = mode == "warm"
            est = Est(graph=g, **dict(params, safe=params.get("safe", False)))
            t0, c0 = time.perf_counter(), time.process_time()
            s = GridSearchCV(est, grid, cv=LabeledStratifiedKFold(3, random_state=0)).fit(X, y)
            out[mode] = dict(wall=time.perf_counter() - t0, cpu=time.process_time() - c0,
                             best=s.best_params_["lam"],
                             scores=s.cv_results_["mean_test_score"].tolist(),
                             hits=int(g._work_hits))
    return out


def _one(spec):
    """Fit one model on one problem; print a JSON line."""
    n, d, c, inf, name, exact, params = (list(spec) + [{}])[:7]
    params = dict(params)
    check = params.pop("_check", None)
    if check:
        # constants of semisvm._tv_check under test (--check)
        import semisvm._tv_check as tv_check
        for key, value in check.items():
            if not hasattr(tv_check, key):
                raise ValueError(f"--check: semisvm._tv_check has no {key!r}")
            setattr(tv_check, key, value)
    X, y, yt = _problem(n, d, c, inf)
    if exact == "safe":
        import semisvm._tv_check as tv_check
        if params.pop("_safe_warm", False):
            tv_check.SAFE_WARM_START = True
        for k, v in params.pop("_tv_check", {}).items():
            if not hasattr(tv_check, k):
                raise ValueError(f"--tv-check: semisvm._tv_check has no {k}")
            setattr(tv_check, k, v)
        print(json.dumps(_safe_costs(X, y, yt, name, params)))
        return
    if exact in ("grid", "grid-warm"):
        print(json.dumps(_grid_costs(X, y, name, params, exact == "grid-warm")))
        return
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0, c0 = time.perf_counter(), time.process_time()
    extra = {}
    if name == "GL-Poisson":
        import graphlearning as gl
        W = gl.weightmatrix.knn(X, 10)
        lab = np.flatnonzero(y != -1)
        pred = gl.ssl.poisson(W).fit_predict(lab, y[lab])
    elif name == "LabelSpreading":
        from sklearn.semi_supervised import LabelSpreading
        pred = LabelSpreading(kernel="knn", n_neighbors=10).fit(X, y).transduction_
    else:
        import semisvm
        est = getattr(semisvm, name)(**({"n_components": None} if exact else {}),
                                     **params)
        # the fit alone (the row's cpu also counts importing semisvm and
        # what it imports, and the first call's set-up, in this fresh process)
        t1, c1 = time.perf_counter(), time.process_time()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(X, y)
        extra = dict(fit_wall=time.perf_counter() - t1, fit_cpu=time.process_time() - c1)
        pred = est.transduction_
        extra.update(mode=est.mode_, n_iter=int(est.n_iter_),
                     labels=hashlib.sha1(np.ascontiguousarray(
                         est.transduction_).tobytes()).hexdigest()[:8],
                     status=est.result_.status,
                     rof_cpu=round(float(est.result_.rof_cpu_time), 2),
                     rof_wall=round(float(est.result_.rof_time), 2),
                     fell_back=bool(getattr(est, "fell_back_", False)),
                     digest=hashlib.sha1(np.ascontiguousarray(
                         est.result_.decision).tobytes()).hexdigest()[:8])
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    unl = y == -1
    print(json.dumps(dict(wall=wall, cpu=cpu, rss_gb=rss / 2**20,
                          drss_gb=(rss - rss0) / 2**20,
                          err=100 * float(np.mean(pred[unl] != yt[unl])), **extra)))


def _trace(n, name, n_jobs, params, every=3.0):
    """One fit in this process with ``verbose=1``, and every ``every``
    seconds a line naming where the fit's thread is (its innermost semisvm
    frame), its CPU seconds and the load: the log shows where the time goes
    even when the run is stopped before the fit ends."""
    import logging
    import threading
    import traceback

    t = time.perf_counter()
    X, y, yt = _problem(n, 50, 10, 20)
    print(f"data {time.perf_counter() - t:.1f} s", flush=True)
    import semisvm
    logging.basicConfig(level=logging.INFO, stream=sys.stdout,
                        format="%(relativeCreated)8.0f ms %(message)s")
    t1, c1 = time.perf_counter(), time.process_time()

    def sample(main_id):
        while True:
            time.sleep(every)
            f = sys._current_frames().get(main_id)
            if f is None:
                return
            st = traceback.extract_stack(f)
            ours = [fr for fr in st if "semisvm" in fr.filename]
            a, b = (ours[-1] if ours else st[-1]), st[-1]
            print(f"[{time.perf_counter() - t1:6.1f} s cpu "
                  f"{time.process_time() - c1:7.1f} load {os.getloadavg()[0]:.1f}] "
                  f"{os.path.basename(a.filename)}:{a.lineno} {a.name} | "
                  f"{os.path.basename(b.filename)}:{b.lineno} {b.name}", flush=True)

    threading.Thread(target=sample, args=(threading.get_ident(),), daemon=True).start()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = getattr(semisvm, name)(n_jobs=n_jobs, verbose=1, **params).fit(X, y)
    unl = y == -1
    print(json.dumps(dict(
        model=name, n=n, n_jobs=n_jobs, wall=time.perf_counter() - t1,
        cpu=time.process_time() - c1,
        rss_gb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20,
        err=100 * float(np.mean(est.transduction_[unl] != yt[unl])))), flush=True)


def _run(spec, timeout):
    # (-S passed on: a run without site-packages' hooks, an installed copy on
    # PYTHONPATH, measures that copy in the workers too)
    cmd = ([sys.executable] + (["-S"] if sys.flags.no_site else [])
           + [__file__, "--one", json.dumps(spec)])
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timeout {timeout} s"}
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("{")]
    if out.returncode or not lines:
        return {"error": (out.stderr.strip().splitlines() or ["?"])[-1][:80]}
    return json.loads(lines[-1])


def _row(label, r, ref=None):
    if "error" in r:
        print(f"{label:44s} {r['error']}")
        return
    ratio = f"  x{r['wall'] / ref['wall']:.2f} Poisson wall" if ref else ""
    more = "" if "mode" not in r else (
        f"  fit cpu {r['fit_cpu']:6.2f}  {r['mode']:8s} it {r['n_iter']:3d}:{r['status'][0]} ROF cpu "
        f"{r['rof_cpu']:.2f} wall {r['rof_wall']:.2f}"
        f"{' fell back' if r['fell_back'] else ''} bits {r['digest']}"
        f" labels {r.get('labels', '-')}")
    print(f"{label:44s} wall {r['wall']:7.2f}  cpu {r['cpu']:7.2f}  "
          f"rss {r['rss_gb']:5.2f} GB  err {r['err']:6.2f}%{more}{ratio}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--part", choices=["small", "safe", "grid", "large", "trace"],
                    default="small",
                    help="trace: one fit of the first of --models at --n rows "
                         "(n_jobs the first of --threads) in this process, "
                         "logging where its time goes every few seconds")
    ap.add_argument("--models", nargs="*", default=MODELS)
    ap.add_argument("--no-exact", action="store_true",
                    help="small part: skip the n_components=None fits")
    ap.add_argument("--timeout", type=float, default=1800)
    ap.add_argument("--n", type=int, default=100_000,
                    help="large part: rows (the graph-core problem's recipe)")
    ap.add_argument("--params", default="{}",
                    help="JSON of estimator parameters for the semisvm fits")
    ap.add_argument("--no-peer", action="store_true",
                    help="large part: skip graphlearning's Poisson learning; "
                         "small part: skip LabelSpreading")
    ap.add_argument("--threads", type=int, nargs="*", default=None,
                    help="small and large parts: fit each model once per "
                         "n_jobs value, one after the other (same bits "
                         "expected; 0 stands for n_jobs=None)")
    ap.add_argument("--safe-warm", action="store_true",
                    help="safe part: the model's fold fits warm started from the "
                         "fit's iterate (semisvm._tv_check.SAFE_WARM_START)")
    ap.add_argument("--tv-check", default="{}",
                    help="safe part: JSON of semisvm._tv_check constants set in "
                         "the workers (A / B runs of a rule), e.g. "
                         "'{\"SAFE_TV_FOLD_MAX_ITER_TWO\": null}'")
    ap.add_argument("--grid-warm", action="store_true",
                    help="grid part: also time the grid points' warm starts")
    ap.add_argument("--check", default="{}",
                    help="JSON {name: value}: constants of semisvm._tv_check set "
                         "in each worker before its fit (a rule under test, e.g. "
                         "'{\"GUARD_COMPONENTS_RATIO\": 0.5}')")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        _one(json.loads(args.one))
        return
    print("load:", os.getloadavg(), "params:", args.params, "check:", args.check)
    params = json.loads(args.params)
    if json.loads(args.check):
        params["_check"] = json.loads(args.check)
    if args.threads:
        args.threads = [None if t == 0 else t for t in args.threads]
    if args.part == "trace":
        _trace(args.n, args.models[0], (args.threads or [None])[0], params)
        return
    if args.part == "small":
        for d in (10, 60):
            for c in (2, 10):
                prob = [5000, d, c, min(d, 10)]
                if not args.no_peer:
                    _row(f"n=5000 d={d} c={c} LabelSpreading",
                         _run(prob + ["LabelSpreading", False], args.timeout))
                for name in args.models:
                    for nj in (args.threads or [None]):
                        p = dict(params, **({} if nj is None else {"n_jobs": nj}))
                        tag = "" if nj is None else f" n_jobs={nj}"
                        _row(f"n=5000 d={d} c={c} {name}{tag}",
                             _run(prob + [name, False, p], args.timeout))
                        if not args.no_exact:
                            _row(f"n=5000 d={d} c={c} {name} n_components=None{tag}",
                                 _run(prob + [name, True, p], args.timeout))
    elif args.part == "safe":
        for n, d, c in ((3000, 20, 2), (5000, 10, 10)):
            for name in args.models:
                p = dict(params, **({"_safe_warm": True} if args.safe_warm else {}))
                tvc = json.loads(args.tv_check)
                if tvc:
                    p["_tv_check"] = tvc
                r = _run([n, d, c, min(d, 10), name, "safe", p], args.timeout)
                label = f"n={n} d={d} c={c} {name}"
                if "error" in r:
                    print(f"{label:32s} {r['error']}")
                    continue
                f, a, t = r["False"], r["auto"], r["True"]
                print(f"{label:32s} cpu False {f['cpu']:6.2f} auto {a['cpu']:6.2f} "
                      f"True {t['cpu']:6.2f}  True/auto x{t['cpu'] / a['cpu']:.2f} "
                      f"True/False x{t['cpu'] / f['cpu']:.2f}  wall True/auto "
                      f"x{t['wall'] / a['wall']:.2f}  err {f['err']:.2f} / "
                      f"{a['err']:.2f} / {t['err']:.2f}%  fell back "
                      f"{a['fell_back']:d}/{t['fell_back']:d}  True gain "
                      f"{float('nan') if t['gain'] is None else t['gain']:.4f}", flush=True)
    elif args.part == "grid":
        for n, d, c in ((3000, 20, 2), (5000, 10, 10)):
            for name in args.models:
                r = _run([n, d, c, min(d, 10), name,
                          "grid-warm" if args.grid_warm else "grid", params], args.timeout)
                label = f"n={n} d={d} c={c} {name}"
                if "error" in r:
                    print(f"{label:32s} {r['error']}")
                    continue
                line = f"{label:32s} cpu cold {r['cold']['cpu']:6.2f}"
                for mode in ("shared", "warm"):
                    if mode in r:
                        m = r[mode]
                        line += (f"  {mode} {m['cpu']:6.2f} (x{m['cpu'] / r['cold']['cpu']:.2f},"
                                 f" hits {m['hits']}, same choice "
                                 f"{m['best'] == r['cold']['best']:d}, same scores "
                                 f"{m['scores'] == r['cold']['scores']:d})")
                print(line, flush=True)
    else:
        prob = [args.n, 50, 10, 20]
        ref = None
        if not args.no_peer:
            ref = _run(prob + ["GL-Poisson", False], args.timeout)
            _row(f"n={args.n} d=50 c=10 graphlearning Poisson", ref)
            ref = None if "error" in ref else ref
        for name in args.models:
            for nj in (args.threads or [None]):
                p = dict(params, **({} if nj is None else {"n_jobs": nj}))
                tag = "" if nj is None else f" n_jobs={nj}"
                _row(f"n={args.n} d=50 c=10 {name}{tag}",
                     _run(prob + [name, False, p], args.timeout), ref)
    print("load:", os.getloadavg())


if __name__ == "__main__":
    main()
