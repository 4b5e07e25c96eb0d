"""The kernel and graph families on the held-out benchmark suite, beside RBF SVC.

Every estimator of :mod:`semisvm.manifold` (LapSVM, LapRLS) and
:mod:`semisvm.graph_tv` (TVRLS, TVSVM, CheegerRLS, CheegerSVM) with its
defaults (or with ``--params`` overrides, for tuning) on the cells of
``bench/_suite.py``; the supervised counterpart is scikit-learn's ``SVC()``
(RBF, gamma="scale", C=1) fitted on the labeled rows only.  A cell is (set,
label scheme); its figure is the mean over seeds of the error (%) on the
unlabeled rows.  Prints per model the "worse by > 2 points" and "better by > 2
points" counts against SVC, the ConvergenceWarning count and the CPU time.

Tune on ``--part tune`` only; ``--part report`` is for reporting::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 nice -n 10 \\
        python bench/bench_graph_tv_suite.py --part tune --max-rows 600 \\
        --jsonl /tmp/tune.jsonl
    python bench/bench_graph_tv_suite.py --part report --models CheegerRLS \\
        --params '{"CheegerRLS": {"balance": "median"}}'

``--jsonl`` appends one line per fit (so a long run can be read while it
runs); ``--md`` appends the markdown table.
"""
import argparse
import json
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
    return dict(err=100.0 * float(np.mean(pred != y[unl])), cpu=cpu,
                warn=int(nwarn), n_iter=int(np.max(np.asarray(getattr(est, "n_iter_", 0)))),
                status=status,
                frac=np.bincount(pred.astype(np.intp), minlength=int(y.max()) + 1).tolist())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--part", default="tune", choices=["tune", "report"])
    ap.add_argument("--models", nargs="+", default=list(MODELS))
    ap.add_argument("--only", nargs="+", default=None, help="restrict to these sets")
    ap.add_argument("--schemes", nargs="+", default=list(_suite.SCHEMES))
    ap.add_argument("--seeds", type=int, nargs="+", default=list(_suite.SEEDS))
    ap.add_argument("--max-rows", type=int, default=_suite.MAX_ROWS)
    ap.add_argument("--params", default="{}",
                    help="JSON {model: {param: value}} overrides")
    ap.add_argument("--tag", default="", help="label stored with each jsonl line")
    ap.add_argument("--jsonl", default=None)
    ap.add_argument("--md", default=None)
    args = ap.parse_args()
    overrides = json.loads(args.params)
    models = ["SVC"] + [m for m in args.models if m != "SVC"]
    rows = []
    for d, scheme, seed, y_semi in _suite.cells(args.part, schemes=args.schemes,
                                                seeds=args.seeds,
                                                max_rows=args.max_rows,
                                                only=args.only):
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
    summarize(rows, models, md=args.md, title=f"{args.part} part, "
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
            "cpu s / fit": []}
    for m in models:
        d = np.array([mean[m, c] - mean["SVC", c] for c in cells])
        ok = ~np.isnan(d)
        foot["worse > 2"].append(f"{int(np.sum(d[ok] > 2))}/{int(ok.sum())}")
        foot["better > 2"].append(f"{int(np.sum(d[ok] < -2))}/{int(ok.sum())}")
        foot["mean err"].append(f"{np.nanmean([mean[m, c] for c in cells]):.2f}")
        mr = [r for r in rows if r["model"] == m]
        foot["conv. warnings"].append(f"{sum(r['warn'] > 0 for r in mr)}/{len(mr)}")
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
