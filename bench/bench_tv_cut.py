"""A cut check for the TV / Cheeger defaults: record each fit's Cheeger ratios, replay rules.

The rule measured (not in the defaults: on the held-out report part it
raised the worse cells, see bench/RESULTS.md): where the ``safe="auto"``
label-fold check of TVRLS, TVSVM, CheegerRLS or CheegerSVM ran and kept a
fit (before the Laplacian guard), compare the Cheeger ratio
(:func:`cheeger_ratio`) of the fit's labels on its own graph with that of
the labels of the first counterpart candidate (``SVC(C=10)``, RBF at
``gamma="scale"``) trained on the labeled rows, and fall back to that SVC
when its ratio is below ``f`` x the fit's. This bench records, per cell of
a part of ``bench/_suite.py`` and label draw, for each model fitted with
``safe=False`` (its own labels, the same bits as the fit the check sees):
the ratio of its labels, of LapRLS's and of each counterpart candidate's
(:func:`semisvm._fallback.supervised_candidates`, trained on all the labels)
on the model's graph, and its error; ``--replay`` joins these with a
recording of ``bench/bench_tv_choice.py`` (the same part, same draws) and
evaluates the rule ``AFTER`` of that bench with and without the cut check
at several ratios, exactly (every input of the rule is recorded)::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 nice -n 10 python \\
        bench/bench_tv_cut.py --part tune --cases main --jsonl cut_tune_main.jsonl
    python bench/bench_tv_cut.py --replay tune_main_a.jsonl tune_main_b.jsonl \\
        tune_classic.jsonl demo.jsonl --cuts cut_tune_main.jsonl cut_tune_classic.jsonl \\
        cut_demo.jsonl

``--demo`` records the ``semisvm demo`` draws (a target, not a part to tune
on: the demo is drawn from the report part's digits set).
"""
import argparse
import json
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _suite  # noqa: E402
import bench_tv_choice as choice  # noqa: E402

from semisvm import LapRLS  # noqa: E402
from semisvm._fallback import (  # noqa: E402
    _decide,
    _labels,
    fit_counterpart,
    graph_cut_ratio,
    supervised_candidates,
)

MODELS = choice.MODELS


# the Cheeger ratio of a labelling on a graph: the library's own (the cut
# check's), so that the recorded ratios are the ones it compares
cheeger_ratio = graph_cut_ratio


def _fit_with_graph(cls, X, y_semi):
    """A ``safe=False`` fit and the graph W its solve was given."""
    est = cls(safe=False)
    box = {}
    solve = est._fit_solve

    def spy(X_, y_, y_enc, K, W, *args, **kw):
        box["W"] = W
        return solve(X_, y_, y_enc, K, W, *args, **kw)
    est._fit_solve = spy
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y_semi)
    del est._fit_solve
    return est, sp.csr_matrix(box["W"])


def record(X, y_semi, y):
    lab = y_semi != -1
    idx = np.flatnonzero(lab)
    unl = np.flatnonzero(~lab)
    classes = np.unique(y_semi[lab])
    cands = []
    for _, sup in supervised_candidates("rbf", idx.size):
        basis, coef, b, g = fit_counterpart(sup, X[idx], y_semi[idx], classes)
        lab_c = y_semi.copy()
        lab_c[unl] = _labels(_decide(X[unl], X[idx] if basis is None else basis,
                                     coef, b, g), classes)
        cands.append(lab_c)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lap = LapRLS(safe=False).fit(X, y_semi).transduction_
    out = {}
    for m, cls in MODELS.items():
        est, W = _fit_with_graph(cls, X, y_semi)
        t = est.transduction_
        out[m] = {"own": cheeger_ratio(W, t), "lap": cheeger_ratio(W, lap),
                  "cand": [cheeger_ratio(W, c) for c in cands],
                  "err": 100.0 * float(np.mean(t[unl] != y[unl]))}
    return out


def with_cut(rule, cuts, f):
    """``rule`` of bench_tv_choice (the defaults before the cut check) with
    the cut check at ratio ``f`` where the label-fold check ran and kept the
    fit (before the guard)."""
    def choose(r, m):
        mr = r["models"][m]
        c = cuts[(r["set"], r["scheme"], r["seed"])][m]
        if mr["ok"] is not None:       # the label folds ran
            tv = np.array(mr["ok"], bool)
            sup, sup_err = choice._counterpart(r)
            if choice._lead(tv, sup) >= rule.get("lead_sup", 1):
                return sup_err, "svc"
            if f is not None and c["cand"][0] < f * c["own"]:
                return r["cand"][0]["err"], "svc(cut)"
        return choice.choose(r, m, rule)
    return choose


def replay(rows, cuts, ratios=(None, 1.0, 1.05, 1.1, 1.15, 1.2, 1.25, 1.3)):
    demo = [r for r in rows if r["set"] == "demo"]
    rows = [r for r in rows if r["set"] != "demo"]
    missing = [r for r in rows + demo if (r["set"], r["scheme"], r["seed"]) not in cuts]
    if missing:
        raise SystemExit(f"{len(missing)} recorded draws have no cut record")
    bad = sum(abs(cuts[(r["set"], r["scheme"], r["seed"])][m]["err"]
                  - r["models"][m]["err_semi"]) > 1e-9
              for r in rows for m in r["models"])
    print(f"{len(rows)} draws, {len(demo)} demo draws; own errors that differ between "
          f"the two recordings: {bad}")
    keys = sorted({(r["set"], r["scheme"]) for r in rows})
    print(f"{len(keys)} cells")
    print("| rule | " + " | ".join(MODELS) + (" | demo " + " / ".join(MODELS)
                                              if demo else "") + " |")
    print("|---|" + "---|" * (len(MODELS) + bool(demo)))
    for f in ratios:
        out = []
        for m in MODELS:
            ch = with_cut(choice.AFTER, cuts, f)
            cells, n_cut = {}, 0
            for r in rows:
                e, what = ch(r, m)
                n_cut += what == "svc(cut)"
                cells.setdefault((r["set"], r["scheme"]), []).append((e, r["svc_err"]))
            d = np.array([np.mean([e for e, _ in v]) - np.mean([s for _, s in v])
                          for v in cells.values()])
            mean = np.mean([np.mean([e for e, _ in v]) for v in cells.values()])
            out.append(f"{int(np.sum(d > 2))}/{int(np.sum(d < -2))}, {mean:.2f} %, "
                       f"cut {n_cut}")
        if demo:
            out.append(" / ".join(f"{np.mean([with_cut(choice.AFTER, cuts, f)(r, m)[0] for r in demo]):.1f}"
                                  for m in MODELS))
        name = "no cut check (AFTER)" if f is None else f"cut check at {f}"
        print(f"| {name} | " + " | ".join(out) + " |")
    print("(worse/better cells than SVC() on the labels by > 2 points, mean error over "
          "cells, fits the cut check gave to the SVC; demo: mean test error %)")


def verify(rows, cuts, n, ratio=None):
    """Refit the first n recorded draws' models with the defaults: their
    unlabeled error must be the replay's of ``AFTER`` with the cut check at
    ``ratio`` (None: none, the defaults; 1.15 for the library of commit
    41b5ec4 on branch h11g, where the cut check was implemented)."""
    loaded = {}
    bad = k = 0
    for r in [r for r in rows if r["set"] != "demo"][:n]:
        if r["set"] not in loaded:
            loaded[r["set"]] = _suite.load(r["set"], max_rows=600)
        d = loaded[r["set"]]
        y_semi = _suite.label_draw(d.y, r["scheme"], r["seed"])
        unl = y_semi == -1
        for m, cls in MODELS.items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                est = cls().fit(d.X, y_semi)
            err = 100.0 * float(np.mean(est.transduction_[unl] != d.y[unl]))
            want, what = with_cut(choice.AFTER, cuts, ratio)(r, m)
            k += 1
            if abs(err - want) > 1e-9:
                bad += 1
                print("MISMATCH", r["set"], r["scheme"], r["seed"], m, err, want, what)
    print(f"{k - bad} of {k} refitted fits match the replay")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--part", default="tune", choices=["tune", "report"])
    ap.add_argument("--cases", default="main", choices=["main", "classic", "both"])
    ap.add_argument("--only", nargs="+", default=None)
    ap.add_argument("--seeds", type=int, nargs="+", default=list(_suite.SEEDS))
    ap.add_argument("--max-rows", type=int, default=600)
    ap.add_argument("--jsonl", default=None)
    ap.add_argument("--demo", action="store_true")
    ap.add_argument("--replay", nargs="+", default=None,
                    help="bench_tv_choice.py recordings (with --cuts)")
    ap.add_argument("--cuts", nargs="+", default=None, help="this bench's recordings")
    ap.add_argument("--verify", type=int, default=0, metavar="N",
                    help="with --replay: refit the first N recorded draws with the "
                         "defaults and compare with the replay")
    ap.add_argument("--ratio", type=float, default=None,
                    help="with --verify: the cut check's ratio in the library refitted "
                         "(default: none, the defaults)")
    args = ap.parse_args()
    if args.replay:
        rows = [json.loads(line) for f in args.replay for line in open(f) if line.strip()]
        cuts = {}
        for f in args.cuts or []:
            for line in open(f):
                if line.strip():
                    r = json.loads(line)
                    cuts[(r["set"], r["scheme"], r["seed"])] = r
        if args.verify:
            return verify(rows, cuts, args.verify, args.ratio)
        return replay(rows, cuts)

    def emit(row):
        print(row["set"], row["scheme"], row["seed"], " ".join(
            f"{m} {row[m]['own']:.3f}/{row[m]['cand'][0]:.3f}" for m in MODELS), flush=True)
        if args.jsonl:
            with open(args.jsonl, "a") as fh:
                fh.write(json.dumps(row) + "\n")
    print(f"# load average before: {os.getloadavg()}", flush=True)
    w0 = time.time()
    if args.demo:
        from semisvm.cli import _demo_splits
        for i, (X, y, lab, _, _) in enumerate(_demo_splits(20, 0, 3)):
            y_semi = np.full(y.shape[0], -1, dtype=np.int64)
            y_semi[lab] = y[lab]
            row = {"set": "demo", "scheme": "20", "seed": i}
            row.update(record(X, y_semi, y))
            emit(row)
    else:
        groups = []
        if args.cases in ("main", "both"):
            groups.append((False, list(_suite.SCHEMES)))
        if args.cases in ("classic", "both"):
            groups.append((True, list(_suite.CLASSIC_SCHEMES)))
        for classic, schemes in groups:
            for d, scheme, seed, y_semi in _suite.cells(
                    args.part, schemes=schemes, seeds=args.seeds,
                    max_rows=args.max_rows, only=args.only, classic=classic):
                row = {"set": d.name, "scheme": scheme, "seed": seed}
                row.update(record(d.X, y_semi, d.y))
                emit(row)
    print(f"# load average after: {os.getloadavg()}; wall {time.time() - w0:.0f} s")


if __name__ == "__main__":
    main()
