"""The label-free cut check of the six graph estimators: record the draws without a label check, replay rules.

Where the ``safe="auto"`` label-fold check cannot run (fewer than 4 labels
in a class: the classic cases with 1 and 3 labels per class, and
proportional draws with a rare class), LapSVM, LapRLS, TVRLS, TVSVM,
CheegerRLS and CheegerSVM compare the Cheeger ratio of their labels on
their own graph with that of the labels of the RBF SVC (``C=10``,
``gamma="scale"``) trained on the labels, and fall back to that SVC when
the fit's ratio is above ``CUT_FLOOR`` and the SVC's below ``CUT_RATIO`` x
the fit's (:func:`semisvm._fallback.cut_fallback`). This bench fits, for
every such draw of a part of ``bench/_suite.py`` (600 rows, seeds 0-2), each
model twice: with the cut check measuring but never firing (``before``:
``CUT_RATIO = 0``; the fit then is the defaults' without the cut check,
and ``graph_cut_`` holds both ratios) and with the defaults (``after``), and
records the errors on the unlabeled rows, the ratios, and the errors of
``SVC()`` (the suite's reference) and of the cut check's SVC::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 nice -n 10 python \\
        bench/bench_graph_cut.py --part tune --jsonl cut_tune.jsonl
    python bench/bench_graph_cut.py --replay cut_tune.jsonl [--grid]

The replay prints, per model, the worse / better cells than ``SVC()`` by
more than 2 points among the cells of those draws (the other cells of the
part are not changed by the cut check: it runs only where the label folds
cannot) before and after; ``--grid`` replays other floors and ratios from
the recorded ratios (exact for LapSVM / LapRLS; for the TV / Cheeger
models it reads the labels the estimator held after the Laplacian guard,
as without the cut check: where the guard took LapRLS over and LapRLS's
own cut check would fall back, the library takes that SVC, which the grid
does not follow; the defaults' row is the refitted ``after``).
"""
import argparse
import json
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.svm import SVC

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _suite  # noqa: E402

import semisvm  # noqa: E402
import semisvm._fallback as fb  # noqa: E402
from semisvm._fallback import (  # noqa: E402
    _decide,
    _labels,
    fit_counterpart,
    supervised_candidates,
    two_folds,
)

MODELS = ("LapSVM", "LapRLS", "TVRLS", "TVSVM", "CheegerRLS", "CheegerSVM")


def _fit(name, X, y_semi, unl, y):
    t0 = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = getattr(semisvm, name)().fit(X, y_semi)
    cut = est.graph_cut_
    return {"err": 100.0 * float(np.mean(est.transduction_[unl] != y[unl])),
            "fell_back": bool(est.fell_back_), "check": est.safe_check_,
            "cut": None if cut is None else list(cut),
            "cpu": time.process_time() - t0}


def record(X, y_semi, y, models=MODELS):
    lab = y_semi != -1
    unl = ~lab
    idx = np.flatnonzero(lab)
    classes = np.unique(y_semi[lab])
    _, sup = supervised_candidates("rbf", idx.size)[0]
    basis, coef, b, g = fit_counterpart(sup, X[idx], y_semi[idx], classes)
    pred = _labels(_decide(X[unl], X[idx] if basis is None else basis, coef, b, g),
                   classes)
    out = {"svc_err": 100.0 * float(np.mean(
               SVC().fit(X[idx], y_semi[idx]).predict(X[unl]) != y[unl])),
           "cut_svc_err": 100.0 * float(np.mean(pred != y[unl]))}
    floor, ratio = fb.CUT_FLOOR, fb.CUT_RATIO
    for m in models:
        try:
            # measuring only: both ratios computed, no fallback
            fb.CUT_FLOOR, fb.CUT_RATIO = 0.0, 0.0
            before = _fit(m, X, y_semi, unl, y)
        finally:
            fb.CUT_FLOOR, fb.CUT_RATIO = floor, ratio
        out[m] = {"before": before, "after": _fit(m, X, y_semi, unl, y)}
    return out


def _cells(rows, m, pick):
    cells = {}
    for r in rows:
        cells.setdefault((r["set"], r["scheme"]), []).append((pick(r, m), r["svc_err"]))
    d = {k: np.mean([e for e, _ in v]) - np.mean([s for _, s in v])
         for k, v in cells.items()}
    mean = np.mean([np.mean([e for e, _ in v]) for v in cells.values()])
    return d, mean


def _rule(floor, ratio):
    def pick(r, m):
        b = r[m]["before"]
        c = b["cut"]
        if c is not None and c[1] is not None and c[0] > floor and c[1] < ratio * c[0]:
            return r["cut_svc_err"]
        return b["err"]
    return pick


def replay(rows, grid=False):
    keys = sorted({(r["set"], r["scheme"]) for r in rows})
    print(f"{len(rows)} draws without a label check, {len(keys)} cells: "
          + ", ".join(f"{s}/{k}" for s, k in keys))
    rules = {"before (no cut check)": lambda r, m: r[m]["before"]["err"],
             f"after (the defaults: floor {fb.CUT_FLOOR}, ratio {fb.CUT_RATIO}; "
             "refitted)": lambda r, m: r[m]["after"]["err"]}
    if grid:
        for floor in (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3):
            for ratio in (0.9, 1.0, 1.1, 1.2, 1.3):
                rules[f"floor {floor}, ratio {ratio} (replayed)"] = _rule(floor, ratio)
    print("| rule | " + " | ".join(MODELS) + " |")
    print("|---|" + "---|" * len(MODELS))
    for name, pick in rules.items():
        out = []
        for m in MODELS:
            d, mean = _cells(rows, m, pick)
            n_fb = sum(pick(r, m) == r["cut_svc_err"] and pick(r, m) != r[m]["before"]["err"]
                       for r in rows)
            out.append(f"{sum(x > 2 for x in d.values())}/{sum(x < -2 for x in d.values())},"
                       f" {mean:.2f} %" + (f", {n_fb} fell back" if "before" not in name
                                           else ""))
        print(f"| {name} | " + " | ".join(out) + " |")
    print("(worse / better cells than SVC() on the labels by > 2 points among these "
          "cells, mean error over them)")
    for m in MODELS:
        d0, _ = _cells(rows, m, rules["before (no cut check)"])
        d1, _ = _cells(rows, m, lambda r, m: r[m]["after"]["err"])
        print(m, "worse before:", [f"{s}/{k} {x:+.1f}" for (s, k), x in d0.items() if x > 2],
              "after:", [f"{s}/{k} {x:+.1f}" for (s, k), x in d1.items() if x > 2])
    fired = [(r["set"], r["scheme"], r["seed"], m) for r in rows for m in MODELS
             if r[m]["after"]["fell_back"] and not r[m]["before"]["fell_back"]]
    print(f"{len(fired)} fits fell back by the cut check")
    cpu_b = sum(r[m]["before"]["cpu"] for r in rows for m in MODELS)
    print(f"fit CPU over all recorded fits: {cpu_b:.1f} s (measuring, both ratios) / "
          f"{sum(r[m]['after']['cpu'] for r in rows for m in MODELS):.1f} s (defaults)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--part", default="tune", choices=list(_suite.PARTS))
    ap.add_argument("--seeds", type=int, nargs="+", default=list(_suite.SEEDS))
    ap.add_argument("--max-rows", type=int, default=600)
    ap.add_argument("--jsonl", default=None)
    ap.add_argument("--replay", nargs="+", default=None)
    ap.add_argument("--grid", action="store_true")
    args = ap.parse_args()
    if args.replay:
        rows = [json.loads(line) for f in args.replay for line in open(f) if line.strip()]
        return replay(rows, grid=args.grid)
    print(f"# load average before: {os.getloadavg()}", flush=True)
    w0 = time.time()
    for classic, schemes in ((False, list(_suite.SCHEMES)),
                             (True, list(_suite.CLASSIC_SCHEMES))):
        for d, scheme, seed, y_semi in _suite.cells(
                args.part, schemes=schemes, seeds=args.seeds,
                max_rows=args.max_rows, classic=classic):
            lab = y_semi != -1
            fold, mode = two_folds(y_semi, lab)
            if fold is not None and mode == "two folds":
                continue        # the label folds run: no cut check
            row = {"set": d.name, "scheme": scheme, "seed": seed, "mode": mode}
            row.update(record(d.X, y_semi, d.y))
            print(row["set"], scheme, seed, f"SVC() {row['svc_err']:.1f}", " ".join(
                f"{m} {row[m]['before']['err']:.1f}->{row[m]['after']['err']:.1f}"
                for m in MODELS), flush=True)
            _suite.append_jsonl(args.jsonl, row)
    print(f"# load average after: {os.getloadavg()}; wall {time.time() - w0:.0f} s")


if __name__ == "__main__":
    main()
