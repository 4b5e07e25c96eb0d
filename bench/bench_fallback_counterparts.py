"""Which supervised counterpart, and which rule, should the default fallback use?

For every cell of a part of ``bench/_suite.py`` this records, per label draw,

* each graph / kernel estimator fitted with its defaults (``safe="auto"``):
  its error on the unlabeled rows before the check (``err_semi``), after it
  (``err``), whether it fell back, and which of its held-out labeled rows the
  check's two held-out solves got right (``ok_semi``, the labeled rows in
  index order; only when the check ran with two folds);
* for a grid of candidate SVCs (RBF with C in {1, 10, 100} and gamma
  "scale" x {1/3, 1, 3}; linear with C in {1, 10}): which of the same
  held-out rows each gets right when trained on the other fold (the check's
  own folds, :func:`semisvm._fallback.two_folds`), and its error on the
  unlabeled rows when trained on all the labels (what a fallback to it
  would give).

``--replay`` then evaluates fallback rules offline, exactly (the held-out
solves are deterministic and independent of the counterpart): a rule is a
set of candidates (the counterpart is the one right on most held-out rows,
ties to the earlier), and a z (fall back when the counterpart leads by more
than ``z sqrt(b + c)`` paired wins, as ``Z_FALLBACK``). Choose on the tune
part only::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 nice -n 10 python \\
        bench/bench_fallback_counterparts.py --part tune --cases main --jsonl tune_cp_main.jsonl
    python bench/bench_fallback_counterparts.py --replay tune_cp_main.jsonl tune_cp_classic.jsonl
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
from semisvm._fallback import _decide, _labels, fit_supervised, two_folds  # noqa: E402

MODELS = {"LapSVM": LapSVM, "LapRLS": LapRLS, "TVRLS": TVRLS, "TVSVM": TVSVM,
          "CheegerRLS": CheegerRLS, "CheegerSVM": CheegerSVM}


def candidates(X):
    """name -> SVC of the grid (gamma "scale" computed on the rows given)."""
    out = {}
    for C in (1, 10, 100):
        for f, tag in ((1.0, ""), (1 / 3, "/3"), (3.0, "x3")):
            out[f"rbf C{C} g{tag or 's'}"] = (C, f)
    for C in (1, 10):
        out[f"lin C{C}"] = (C, None)
    return out


def _svc(spec, X):
    C, f = spec
    if f is None:
        return SVC(kernel="linear", C=C)
    var = X.multiply(X).mean() - X.mean() ** 2 if hasattr(X, "multiply") else X.var()
    g = 1.0 / (X.shape[1] * var) if var > 0 else 1.0
    return SVC(C=C, gamma=f * g)


def _predict(sup, Xtr, ytr, Xte, classes):
    coef, b, gamma = fit_supervised(sup, Xtr, ytr, classes)
    return _labels(_decide(Xte, Xtr, coef, b, gamma), classes)


def record(X, y_semi, y):
    lab = y_semi != -1
    idx = np.flatnonzero(lab)
    unl = np.flatnonzero(~lab)
    classes = np.unique(y_semi[lab])
    fold, mode = two_folds(y_semi, lab)
    out = {"mode": mode, "cand": {}}
    for name, spec in candidates(X).items():
        ok = None
        if mode == "two folds":
            ok = np.zeros(idx.size, dtype=bool)
            for k in (0, 1):
                tr, he = idx[fold != k], idx[fold == k]
                sup = _svc(spec, X[tr])
                ok[fold == k] = _predict(sup, X[tr], y_semi[tr], X[he], classes) == y_semi[he]
            ok = ok.astype(int).tolist()
        sup = _svc(spec, X[idx])
        err = 100.0 * float(np.mean(_predict(sup, X[idx], y_semi[idx], X[unl], classes)
                                    != y[unl]))
        out["cand"][name] = {"ok": ok, "err": err}
    return out


def fit_model(name, X, y_semi, y):
    unl = y_semi == -1
    est = MODELS[name]()
    t0 = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est.fit(X, y_semi)
    cpu = time.process_time() - t0
    semi = getattr(est, "_semi_transduction", None)
    if semi is None:
        semi = est.transduction_
    sc = getattr(est, "safe_scores_", None)
    ok = (sc[0].astype(int).tolist() if sc is not None and est.safe_check_ == "two folds"
          else None)
    return {"err": 100.0 * float(np.mean(est.transduction_[unl] != y[unl])),
            "err_semi": 100.0 * float(np.mean(semi[unl] != y[unl])),
            "fell_back": bool(est.fell_back_), "ok_semi": ok, "cpu": cpu,
            "counterpart": est.safe_counterpart_}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    _suite.add_recording_arguments(ap, MODELS)
    args = ap.parse_args()
    if args.replay:
        rows = [json.loads(line) for f in args.replay for line in open(f) if line.strip()]
        replay(rows)
        return before_after(rows)
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
            row.update(record(d.X, y_semi, d.y))
            row["models"] = {m: fit_model(m, d.X, y_semi, d.y) for m in args.models}
            print(d.name, scheme, seed, " ".join(
                f"{m} {r['err_semi']:.1f}->{r['err']:.1f}" for m, r in row["models"].items()),
                flush=True)
            if args.jsonl:
                with open(args.jsonl, "a") as fh:
                    fh.write(json.dumps(row) + "\n")
    print(f"# load average after: {os.getloadavg()}; wall {time.time() - w0:.0f} s")


RULES = {
    "now: {rbf C1, lin C1}": ["rbf C1 gs", "lin C1"],
    "rbf C1 only": ["rbf C1 gs"],
    "rbf C10 only": ["rbf C10 gs"],
    "{rbf C10, lin C1}": ["rbf C10 gs", "lin C1"],
    "{rbf C10, lin C10}": ["rbf C10 gs", "lin C10"],
    "{rbf C10, rbf C1, lin C1}": ["rbf C10 gs", "rbf C1 gs", "lin C1"],
    "{rbf C1/C10/C100, lin}": ["rbf C10 gs", "rbf C1 gs", "rbf C100 gs", "lin C1"],
    "rbf C10 3 widths + lin": ["rbf C10 gs", "rbf C10 g/3", "rbf C10 gx3", "lin C1"],
    "rbf C10 3 widths + lin C10": ["rbf C10 gs", "rbf C10 g/3", "rbf C10 gx3", "lin C10"],
    "rbf C10 s,x3 + lin": ["rbf C10 gs", "rbf C10 gx3", "lin C1"],
    "rbf C10 s,/3 + lin": ["rbf C10 gs", "rbf C10 g/3", "lin C1"],
    "rbf C1,C10 x 3 widths + lin": ["rbf C10 gs", "rbf C10 g/3", "rbf C10 gx3",
                                    "rbf C1 gs", "rbf C1 g/3", "rbf C1 gx3", "lin C1"],
    "all 11": None,
}


# the defaults before and after this bench's choice, per family:
# (candidates, z, least lead)
BEFORE = {"lap": (["rbf C1 gs", "lin C1"], 1.0, 1), "tv": (["rbf C1 gs", "lin C1"], 0.0, 1)}
AFTER = {"lap": (RULES["rbf C10 3 widths + lin C10"], 0.0, 2),
         "tv": (RULES["rbf C10 3 widths + lin C10"], 0.0, 1)}


def _replay_one(rows, m, cand, z, lead_min, ref="rbf C1 gs"):
    """{(set, scheme): [(error, reference error)]} and the fallback count."""
    cells = {}
    nfb = 0
    for r in rows:
        mr = r["models"][m]
        err = mr["err_semi"]
        if mr["ok_semi"] is not None and r["cand"][cand[0]]["ok"] is not None:
            semi = np.array(mr["ok_semi"], bool)
            oks = [np.array(r["cand"][c]["ok"], bool) for c in cand]
            best = int(np.argmax([o.sum() for o in oks]))
            sup = oks[best]
            b = int(np.sum(semi & ~sup))
            c = int(np.sum(sup & ~semi))
            if sup.sum() > semi.sum() and c - b >= lead_min and c - b > z * np.sqrt(b + c):
                err = r["cand"][cand[best]]["err"]
                nfb += 1
        cells.setdefault((r["set"], r["scheme"]), []).append((err, r["cand"][ref]["err"]))
    return cells, nfb


def before_after(rows):
    """The defaults before / after, per model: worse / better cells than
    SVC() on the labels, mean error, fallbacks."""
    models = sorted({m for r in rows for m in r["models"]})
    ncell = len({(r["set"], r["scheme"]) for r in rows})
    print(f"{ncell} cells, {len(rows)} draws")
    print("| rule | " + " | ".join(models) + " |")
    print("|---|" + "---|" * len(models))
    for label, conf in (("before", BEFORE), ("after", AFTER)):
        out = []
        for m in models:
            cand, z, lead = conf["lap" if m.startswith("Lap") else "tv"]
            cells, nfb = _replay_one(rows, m, cand, z, lead)
            d = np.array([np.mean([e for e, _ in v]) - np.mean([s for _, s in v])
                          for v in cells.values()])
            mean = np.mean([np.mean([e for e, _ in v]) for v in cells.values()])
            out.append(f"{int(np.sum(d > 2))}/{int(np.sum(d < -2))}, {mean:.2f} %, "
                       f"{nfb} fb")
        print(f"| {label} | " + " | ".join(out) + " |")
    ref = np.mean([np.mean([r["cand"]["rbf C1 gs"]["err"] for r in rows
                            if (r["set"], r["scheme"]) == c])
                   for c in {(r["set"], r["scheme"]) for r in rows}])
    print(f"(worse/better cells than SVC() on the labels by > 2 points, mean error "
          f"over cells (SVC() {ref:.2f} %), fits that fell back of {len(rows)})")


def replay(rows, z_values=(0.0, 0.5, 1.0), leads=(1, 2), detail=None):
    models = sorted({m for r in rows for m in r["models"]})
    names = list(rows[0]["cand"])
    print(f"{len({(r['set'], r['scheme']) for r in rows})} cells, {len(rows)} draws")
    print("candidates alone (mean unlabeled error over draws):",
          ", ".join(f"{n} {np.mean([r['cand'][n]['err'] for r in rows]):.2f}" for n in names))
    ref = "rbf C1 gs"       # the suite's reference: SVC() on the labels
    for rule, cand in RULES.items():
        cand = cand or names
        for z, lead_min in [(z, m) for z in z_values for m in leads]:
            out = []
            for m in models:
                cells, nfb = _replay_one(rows, m, cand, z, lead_min, ref=ref)
                d = np.array([np.mean([e for e, _ in v]) - np.mean([s for _, s in v])
                              for v in cells.values()])
                if detail == (rule, z, lead_min):
                    print(m, "worse:", [k for k, x in zip(cells, d) if x > 2])
                mean = np.mean([np.mean([e for e, _ in v]) for v in cells.values()])
                out.append(f"{int(np.sum(d > 2)):2d}/{int(np.sum(d < -2)):2d} {mean:5.2f} ({nfb:3d})")
            print(f"{rule:26s} z={z:<3g} lead>={lead_min} " + " ".join(f"{m[:10]:>10s} {o}" for m, o in zip(models, out)))
    print("(worse/better than SVC() by > 2 points, mean error %, fits that fell back; "
          "lead: only-SVC-right minus only-semi-right held-out rows)")


if __name__ == "__main__":
    main()
