"""The kernel and graph families on the held-out benchmark suite, beside RBF SVC.

Every estimator of :mod:`semisvm.manifold` (LapSVM, LapRLS) and
:mod:`semisvm.graph_tv` (TVRLS, TVSVM, CheegerRLS, CheegerSVM) with its
defaults (or with ``--params`` overrides, for tuning) on the cells of
``bench/_suite.py``; the supervised counterpart is scikit-learn's ``SVC()``
(RBF, gamma="scale", C=1) fitted on the labeled rows only.  A cell is (set,
label scheme); its figure is the mean over seeds of the error (%) on the
unlabeled rows.  Prints per model the "worse by > 2 points" and "better by > 2
points" counts against SVC, the ConvergenceWarning count and the CPU time.

Tune on ``--part tune`` only; ``--part report`` and ``--part fresh`` (data
nothing was chosen on) are for reporting; ``--part unseen`` is run once, only
after a rule is declared and committed in bench/RESULTS.md (it judges that
rule)::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 nice -n 10 \\
        python bench/bench_graph_tv_suite.py --part tune --max-rows 600 \\
        --jsonl /tmp/tune.jsonl
    python bench/bench_graph_tv_suite.py --part report --models CheegerRLS \\
        --params '{"CheegerRLS": {"balance": "median"}}'

``--cases classic`` runs the part's classic cases (moons, circles, nested
clouds, XOR, imbalanced blobs) with 1 / 3 / 10 labels per class instead of
its main sets; ``--cases both`` runs both (the default schemes of each)::

    python bench/bench_graph_tv_suite.py --part report --cases both --max-rows 600

``--jsonl`` appends one line per fit (so a long run can be read while it
runs); ``--md`` appends the markdown table.
"""
import argparse
import json
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _suite  # noqa: E402

from semisvm import TVRLS, TVSVM, CheegerRLS, CheegerSVM, LapRLS, LapSVM  # noqa: E402

MODELS = {"LapSVM": LapSVM, "LapRLS": LapRLS, "TVRLS": TVRLS, "TVSVM": TVSVM,
          "CheegerRLS": CheegerRLS, "CheegerSVM": CheegerSVM}


def _fit_one(name, params, X, y_semi, y):
    unl = y_semi == -1
    lab = ~unl
    if name == "SVC":
        est = SVC(**params)
    else:
        est = MODELS[name](**params)
    t0 = time.process_time()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always", ConvergenceWarning)
        if name == "SVC":
            est.fit(X[lab], y_semi[lab])
            pred = est.predict(X[unl])
        else:
            est.fit(X, y_semi)
            pred = est.transduction_[unl]
    cpu = time.process_time() - t0
    nwarn = sum(issubclass(x.category, ConvergenceWarning) for x in w)
    res = getattr(est, "result_", None)
    status = getattr(res, "status", None) if not isinstance(res, list) else None
    sc = getattr(est, "safe_scores_", None)
    if sc is not None and getattr(est, "unlabeled_gain_", None) is not None:
        # the default check's held-out counts: semi right, SVC right, only
        # semi right, only SVC right (to replay other fallback rules)
        sc = [int(np.sum(sc[0])), int(np.sum(sc[1])), int(np.sum(sc[0] & ~sc[1])),
              int(np.sum(sc[1] & ~sc[0]))]
    else:
        sc = None
    semi = getattr(est, "_semi_transduction", None)   # set when it fell back
    err_semi = (100.0 * float(np.mean(semi[unl] != y[unl])) if semi is not None
                else None)
    return dict(err=100.0 * float(np.mean(pred != y[unl])), cpu=cpu,
                fell_back=bool(getattr(est, "fell_back_", False)), check=sc,
                check_mode=getattr(est, "safe_check_", None),
                check_stats=getattr(est, "_check_stats", None),
                err_semi=err_semi,
                warn=int(nwarn), n_iter=int(np.max(np.asarray(getattr(est, "n_iter_", 0)))),
                status=status,
                frac=np.bincount(pred.astype(np.intp), minlength=int(y.max()) + 1).tolist())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--part", default="tune", choices=list(_suite.PARTS))
    ap.add_argument("--models", nargs="+", default=list(MODELS))
    ap.add_argument("--only", nargs="+", default=None, help="restrict to these sets")
    ap.add_argument("--cases", default="main", choices=["main", "classic", "both"],
                    help="the part's main sets, its classic cases, or both")
    ap.add_argument("--schemes", nargs="+", default=None,
                    help="label schemes (default: 5 25 prop for the main sets, "
                         "1 3 10 for the classic cases)")
    ap.add_argument("--seeds", type=int, nargs="+", default=list(_suite.SEEDS))
    ap.add_argument("--max-rows", type=int, default=_suite.MAX_ROWS)
    ap.add_argument("--params", default="{}",
                    help="JSON {model: {param: value}} overrides")
    ap.add_argument("--fallback", default="{}",
                    help="JSON {name: value}: set these constants of "
                         "semisvm._fallback before any fit (a rule under test, e.g. "
                         "'{\"ADOPT_C\": {\"laplacian\": null, \"tv\": null}}')")
    ap.add_argument("--check", default="{}",
                    help="JSON {name: value}: set these constants of "
                         "semisvm._tv_check before any fit (a check rule under "
                         "test, e.g. '{\"CHEEGER_MID_FOLD_MAX_ITER\": null}')")
    ap.add_argument("--manifold", default="{}",
                    help="JSON {name: value}: set these constants of "
                         "semisvm.manifold before any fit (e.g. the guard's "
                         "LapRLS on its Nystroem path at the suite's sizes: "
                         "'{\"LOWRANK_MIN_SAMPLES\": 150, \"AUTO_COMPONENTS\": 120}')")
    ap.add_argument("--setup", default="{}",
                    help="JSON {name: value}: set these constants of "
                         "semisvm._tv_setup before any fit (e.g. the TV / Cheeger "
                         "fits on their Nystroem path at the suite's sizes: "
                         "'{\"LOWRANK_MIN_SAMPLES\": 150, \"AUTO_COMPONENTS\": 60}')")
    ap.add_argument("--tag", default="", help="label stored with each jsonl line")
    ap.add_argument("--jsonl", default=None)
    ap.add_argument("--md", default=None)
    ap.add_argument("--replay", nargs="+", default=None,
                    help="print the table of these --jsonl files (no fits); "
                         "--tag and --models filter their lines")
    args = ap.parse_args()
    if args.replay:
        rows = [json.loads(line) for f in args.replay for line in open(f) if line.strip()]
        if args.tag:
            rows = [r for r in rows if r.get("tag") == args.tag]
        if args.only:
            rows = [r for r in rows if r["set"] in args.only]
        rows = [r for r in rows if r["seed"] in args.seeds]
        models = ["SVC"] + [m for m in args.models if m != "SVC"]
        rows = [r for r in rows if r["model"] in models]
        summarize(rows, models, md=args.md, title=f"replay of {' '.join(args.replay)} "
                  f"{args.tag}")
        return
    overrides = json.loads(args.params)
    from semisvm import _fallback
    for key, value in json.loads(args.fallback).items():
        if not hasattr(_fallback, key):
            raise ValueError(f"--fallback: semisvm._fallback has no {key!r}")
        setattr(_fallback, key, value)
        print(f"# semisvm._fallback.{key} = {value!r}", flush=True)
    from semisvm import _tv_check
    for key, value in json.loads(args.check).items():
        if not hasattr(_tv_check, key):
            raise ValueError(f"--check: semisvm._tv_check has no {key!r}")
        setattr(_tv_check, key, value)
        print(f"# semisvm._tv_check.{key} = {value!r}", flush=True)
    from semisvm import manifold
    for key, value in json.loads(args.manifold).items():
        if not hasattr(manifold, key):
            raise ValueError(f"--manifold: semisvm.manifold has no {key!r}")
        setattr(manifold, key, value)
        print(f"# semisvm.manifold.{key} = {value!r}", flush=True)
    from semisvm import _tv_setup
    for key, value in json.loads(args.setup).items():
        if not hasattr(_tv_setup, key):
            raise ValueError(f"--setup: semisvm._tv_setup has no {key!r}")
        setattr(_tv_setup, key, value)
        print(f"# semisvm._tv_setup.{key} = {value!r}", flush=True)
    models = ["SVC"] + [m for m in args.models if m != "SVC"]
    rows = []
    groups = []
    if args.cases in ("main", "both"):
        groups.append((False, args.schemes or list(_suite.SCHEMES)))
    if args.cases in ("classic", "both"):
        groups.append((True, args.schemes or list(_suite.CLASSIC_SCHEMES)))
    load0 = os.getloadavg()
    print(f"# load average before: {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}", flush=True)
    wall0 = time.time()
    cells = [c for classic, schemes in groups
             for c in _suite.cells(args.part, schemes=schemes, seeds=args.seeds,
                                   max_rows=args.max_rows, only=args.only,
                                   classic=classic)]
    for d, scheme, seed, y_semi in cells:
        for name in models:
            r = _fit_one(name, overrides.get(name, {}), d.X, y_semi, d.y)
            r.update(set=d.name, scheme=scheme, seed=seed, model=name, tag=args.tag)
            rows.append(r)
            print(f"{d.name:14s} {scheme:4s} {seed} {name:11s} err {r['err']:6.2f} "
                  f"cpu {r['cpu']:7.2f} it {r['n_iter']:4d} {r['status'] or ''} "
                  f"warn {r['warn']}", flush=True)
            if args.jsonl:
                with open(args.jsonl, "a") as fh:
                    fh.write(json.dumps(r) + "\n")
    load1 = os.getloadavg()
    print(f"# load average after: {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f}; "
          f"wall {time.time() - wall0:.0f} s")
    summarize(rows, models, md=args.md, title=f"{args.part} part ({args.cases}), "
              f"max_rows {args.max_rows}, seeds {args.seeds} {args.tag}")


def summarize(rows, models, md=None, title=""):
    """Per-cell means and the worse/better-by-2-points counts against SVC."""
    cells = sorted({(r["set"], r["scheme"]) for r in rows},
                   key=lambda c: (c[0], c[1]))
    mean = {}
    for m in models:
        for c in cells:
            e = [r["err"] for r in rows if r["model"] == m and (r["set"], r["scheme"]) == c]
            mean[m, c] = float(np.mean(e)) if e else np.nan
    lines = [f"{title}", "", "| set | scheme | " + " | ".join(models) + " |",
             "|---|---|" + "---|" * len(models)]
    for c in cells:
        lines.append(f"| {c[0]} | {c[1]} | " + " | ".join(
            f"{mean[m, c]:.1f}" for m in models) + " |")
    foot = {"worse > 2": [], "better > 2": [], "mean err": [], "conv. warnings": [],
            "fell back": [], "cpu s / fit": []}
    for m in models:
        d = np.array([mean[m, c] - mean["SVC", c] for c in cells])
        ok = ~np.isnan(d)
        foot["worse > 2"].append(f"{int(np.sum(d[ok] > 2))}/{int(ok.sum())}")
        foot["better > 2"].append(f"{int(np.sum(d[ok] < -2))}/{int(ok.sum())}")
        foot["mean err"].append(f"{np.nanmean([mean[m, c] for c in cells]):.2f}")
        mr = [r for r in rows if r["model"] == m]
        foot["conv. warnings"].append(f"{sum(r['warn'] > 0 for r in mr)}/{len(mr)}")
        foot["fell back"].append(f"{sum(bool(r.get('fell_back')) for r in mr)}/{len(mr)}")
        foot["cpu s / fit"].append(f"{np.mean([r['cpu'] for r in mr]):.2f}")
    for k, v in foot.items():
        lines.append(f"| **{k}** | | " + " | ".join(v) + " |")
    text = "\n".join(lines)
    print(text)
    if md:
        with open(md, "a") as fh:
            fh.write("\n" + text + "\n")
    return text


if __name__ == "__main__":
    main()
