"""Should a TV / Cheeger fit that disagrees with LapRLS give way to it?

The normalised (balanced-cut) TV and Cheeger iterations are not convex: from
their start they may settle on a cheaper cut of the graph than the class
boundary (two moons, 3 labels per class: a 78/22 split), and with fewer than 4
labels in a class the label-fold check (:mod:`semisvm._fallback`) cannot run.
LapRLS on the same rows is convex (one solution, no start) and, on two moons,
right where the TV fits go astray. This bench records, for every cell of a
part of ``bench/_suite.py`` and per label draw,

* each of TVRLS, TVSVM, CheegerRLS and CheegerSVM fitted with its defaults:
  its error on the unlabeled rows, whether the check fell back, what it did
  (``safe_check_``), and the share of the unlabeled rows on which its labels
  agree with those of ``LapRLS(safe=False)`` fitted on the same data;
* LapRLS's own error there, and the error of ``SVC()`` on the labels (the
  suite's reference);

and ``--replay`` evaluates the rule "when the fit agrees with LapRLS on less
than a share ``t`` of the unlabeled rows (and the check did not fall back),
take LapRLS's fit over" exactly, for a grid of ``t``, with the rule limited to
fits whose check did not run (few labels), applied after the check to all
that did not fall back, or applied first (``apply`` below). Choose on the
tune part only::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 nice -n 10 python \\
        bench/bench_laplacian_guard.py --part tune --cases main --first --jsonl tune_lg.jsonl
    python bench/bench_laplacian_guard.py --replay tune_lg.jsonl
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

from semisvm import TVRLS, TVSVM, CheegerRLS, CheegerSVM, LapRLS, _fallback  # noqa: E402

MODELS = {"TVRLS": TVRLS, "TVSVM": TVSVM, "CheegerRLS": CheegerRLS,
          "CheegerSVM": CheegerSVM}


def _fit(cls, X, y_semi, **kw):
    est = cls(**kw)
    t0 = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est.fit(X, y_semi)
    return est, time.process_time() - t0


def record(X, y_semi, y, models, first=False):
    # the fits before the guard (None: no guard; its LapRLS is the one
    # fitted below, the same defaults, so the replay is exact); first: also
    # LapRLS with its own check, for the rule "first"
    _fallback.GUARD_AGREEMENT = None
    unl = y_semi == -1
    lab = ~unl
    out = {}
    sup = SVC().fit(X[lab], y_semi[lab]).predict(X[unl])
    out["svc_err"] = 100.0 * float(np.mean(sup != y[unl]))
    lap, cpu = _fit(LapRLS, X, y_semi, safe=False)
    lt = lap.transduction_[unl]
    out["lap_err"] = 100.0 * float(np.mean(lt != y[unl]))
    out["lap_cpu"] = cpu
    if first:
        lap_auto, cpu = _fit(LapRLS, X, y_semi)
        out["lap_auto_err"] = 100.0 * float(np.mean(lap_auto.transduction_[unl]
                                                    != y[unl]))
        out["lap_auto_cpu"] = cpu
    out["min_labels"] = int(np.bincount(y_semi[lab]).min())
    out["models"] = {}
    for m in models:
        est, cpu = _fit(MODELS[m], X, y_semi)
        t = est.transduction_[unl]
        semi = getattr(est, "_semi_transduction", None)
        semi = t if semi is None else semi[unl]
        out["models"][m] = {
            "err": 100.0 * float(np.mean(t != y[unl])),
            "err_semi": 100.0 * float(np.mean(semi != y[unl])),
            "agree": float(np.mean(t == lt)),
            "agree_semi": float(np.mean(semi == lt)),
            "fell_back": bool(est.fell_back_),
            "check": est.safe_check_, "cpu": cpu}
    return out


# (scope, t): scope "few": only fits whose check did not run (fewer than 4
# labels in a class), the LapRLS fit taken over as is; "all": every fit whose
# check did not fall back to the SVC, compared after the check; "first":
# every fit, compared before the TV check (its own labels), the estimator
# then taking LapRLS's default fit (with LapRLS's own check) over instead of
# running its own check
def apply(r, m, scope, t):
    mr = r["models"][m]
    ran = mr["check"] == "two folds"
    if t is None:
        return mr["err"], False
    if scope == "first":
        if "lap_auto_err" not in r:
            return mr["err"], False
        if mr.get("agree_semi", mr["agree"]) < t:
            return r["lap_auto_err"], True
        return mr["err"], False
    if mr["fell_back"] or (scope == "few" and ran):
        return mr["err"], False
    if mr["agree"] < t:
        return r["lap_err"], True
    return mr["err"], False


def table(rows, rules):
    models = sorted({m for r in rows for m in r["models"]})
    keys = sorted({(r["set"], r["scheme"]) for r in rows})
    print(f"{len(keys)} cells, {len(rows)} draws")
    ref = np.mean([np.mean([r["svc_err"] for r in rows if (r["set"], r["scheme"]) == k])
                   for k in keys])
    lap = np.mean([np.mean([r["lap_err"] for r in rows if (r["set"], r["scheme"]) == k])
                   for k in keys])
    print(f"SVC() mean {ref:.2f} %, LapRLS(safe=False) mean {lap:.2f} %")
    print("| rule | " + " | ".join(models) + " |")
    print("|---|" + "---|" * len(models))
    for scope, t in rules:
        out = []
        for m in models:
            cells, nfire = {}, 0
            for r in rows:
                e, fired = apply(r, m, scope, t)
                nfire += fired
                cells.setdefault((r["set"], r["scheme"]), []).append((e, r["svc_err"]))
            d = np.array([np.mean([e for e, _ in v]) - np.mean([s for _, s in v])
                          for v in cells.values()])
            mean = np.mean([np.mean([e for e, _ in v]) for v in cells.values()])
            out.append(f"{int(np.sum(d > 2))}/{int(np.sum(d < -2))}, {mean:.2f} %, "
                       f"{nfire} fired")
        name = "now (no guard)" if t is None else f"{scope}, agree < {t:g}"
        print(f"| {name} | " + " | ".join(out) + " |")
    print("(worse/better cells than SVC() on the labels by > 2 points, mean error "
          "over cells, fits the guard replaced)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    _suite.add_recording_arguments(ap, MODELS)
    ap.add_argument("--first", action="store_true",
                    help="also record LapRLS with its own check (rule 'first')")
    ap.add_argument("--t", type=float, nargs="+",
                    default=[0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95])
    args = ap.parse_args()
    if args.replay:
        rows = [json.loads(line) for f in args.replay for line in open(f) if line.strip()]
        scopes = ("few", "all") + (("first",) if all("lap_auto_err" in r for r in rows)
                                   else ())
        rules = [("few", None)] + [(s, t) for s in scopes for t in args.t]
        return table(rows, rules)
    groups = []
    if args.cases in ("main", "both"):
        groups.append((False, list(_suite.SCHEMES)))
    if args.cases in ("classic", "both"):
        groups.append((True, list(_suite.CLASSIC_SCHEMES)))
    print(f"# load average before: {os.getloadavg()}", flush=True)
    w0 = time.time()
    for classic, schemes in groups:
        for d, scheme, seed, y_semi in _suite.cells(args.part, schemes=schemes,
                                                     seeds=args.seeds,
                                                     max_rows=args.max_rows,
                                                     only=args.only, classic=classic):
            row = {"set": d.name, "scheme": scheme, "seed": seed, "part": args.part}
            row.update(record(d.X, y_semi, d.y, args.models, args.first))
            print(d.name, scheme, seed, f"SVC {row['svc_err']:.1f} LapRLS "
                  f"{row['lap_err']:.1f}", " ".join(
                      f"{m} {r['err']:.1f} ({r['agree']:.2f})"
                      for m, r in row["models"].items()), flush=True)
            _suite.append_jsonl(args.jsonl, row)
    print(f"# load average after: {os.getloadavg()}; wall {time.time() - w0:.0f} s")


if __name__ == "__main__":
    main()
