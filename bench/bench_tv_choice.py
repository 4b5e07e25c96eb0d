"""Which of its own fit, LapRLS's and the SVC's should a TV / Cheeger fit keep?

The ``safe="auto"`` check of TVRLS, TVSVM, CheegerRLS and CheegerSVM hides
each of two label folds in turn and scores the held-out rows' labels; the
Laplacian guard then compares the fit with LapRLS on the unlabeled rows.
LapRLS's own check scores its held-out rows on the **same folds**
(:func:`semisvm._fallback.two_folds` depends on the labels only), so the
three models (the TV fit, LapRLS, the chosen SVC) can be compared on one set
of held-out labels. This bench records, for every cell of a part of
``bench/_suite.py`` and per label draw,

* the check's counterpart candidates (:func:`semisvm._fallback.supervised_candidates`):
  which held-out rows each gets right trained on the other fold (``ok``) and
  its error on the unlabeled rows trained on all labels (``err``);
* ``LapRLS()`` (its defaults, ``safe="auto"``): its held-out rows
  (``ok``), its error before (``err_semi``) and after its own check;
* each TV / Cheeger model with its defaults and the guard off: its
  held-out rows, its error before its check (``err_semi``), and the share of
  the unlabeled rows on which it agrees with LapRLS's own fit;
* ``SVC()`` on the labels (the suite's reference);

and ``--replay`` evaluates choice rules exactly (every input of a rule is
recorded). Choose on the tune part only::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 nice -n 10 python \\
        bench/bench_tv_choice.py --part tune --cases main --jsonl tune_choice_main.jsonl
    python bench/bench_tv_choice.py --replay tune_choice_main.jsonl tune_choice_classic.jsonl
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
from semisvm._fallback import (  # noqa: E402
    _decide,
    _labels,
    fit_counterpart,
    supervised_candidates,
    two_folds,
)

MODELS = {"TVRLS": TVRLS, "TVSVM": TVSVM, "CheegerRLS": CheegerRLS,
          "CheegerSVM": CheegerSVM}


def _fit(cls, X, y_semi, **kw):
    est = cls(**kw)
    t0 = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est.fit(X, y_semi)
    return est, time.process_time() - t0


def _ok(est):
    sc = getattr(est, "safe_scores_", None)
    if sc is None or est.safe_check_ != "two folds":
        return None
    return sc[0].astype(int).tolist()


def _own(est):
    semi = getattr(est, "_semi_transduction", None)
    return est.transduction_ if semi is None else semi


def record(X, y_semi, y, models):
    lab = y_semi != -1
    idx = np.flatnonzero(lab)
    unl = np.flatnonzero(~lab)
    classes = np.unique(y_semi[lab])
    fold, mode = two_folds(y_semi, lab)
    out = {"mode": mode, "cand": []}
    out["svc_err"] = 100.0 * float(np.mean(SVC().fit(X[idx], y_semi[idx]).predict(X[unl])
                                           != y[unl]))
    for name, sup in supervised_candidates("rbf", idx.size):
        ok = None
        if mode == "two folds":
            ok = np.zeros(idx.size, dtype=bool)
            for k in (0, 1):
                tr, he = idx[fold != k], idx[fold == k]
                basis, coef, b, g = fit_counterpart(sup, X[tr], y_semi[tr], classes)
                pred = _labels(_decide(X[he], X[tr] if basis is None else basis,
                                       coef, b, g), classes)
                ok[fold == k] = pred == y_semi[he]
            ok = ok[fold >= 0].astype(int).tolist()
        basis, coef, b, g = fit_counterpart(sup, X[idx], y_semi[idx], classes)
        pred = _labels(_decide(X[unl], X[idx] if basis is None else basis, coef, b, g),
                       classes)
        out["cand"].append({"name": name, "ok": ok,
                            "err": 100.0 * float(np.mean(pred != y[unl]))})
    lap, cpu = _fit(LapRLS, X, y_semi)
    lt = _own(lap)[unl]
    out["lap"] = {"ok": _ok(lap), "err_semi": 100.0 * float(np.mean(lt != y[unl])),
                  "err": 100.0 * float(np.mean(lap.transduction_[unl] != y[unl])),
                  "fell_back": bool(lap.fell_back_), "cpu": cpu}
    guard = _fallback.GUARD_AGREEMENT
    _fallback.GUARD_AGREEMENT = None
    try:
        out["models"] = {}
        for m in models:
            est, cpu = _fit(MODELS[m], X, y_semi)
            t = _own(est)[unl]
            out["models"][m] = {
                "ok": _ok(est), "err_semi": 100.0 * float(np.mean(t != y[unl])),
                "agree": float(np.mean(t == lt)), "fell_back": bool(est.fell_back_),
                "check": est.safe_check_, "cpu": cpu}
    finally:
        _fallback.GUARD_AGREEMENT = guard
    return out


# -- replay ---------------------------------------------------------------
def _counterpart(r):
    """(held-out ok array, unlabeled error) of the check's chosen SVC."""
    oks = [np.array(c["ok"], bool) for c in r["cand"]]
    best = int(np.argmax([o.sum() for o in oks]))
    return oks[best], r["cand"][best]["err"]


def _lead(a, b):
    """Rows only b gets right minus rows only a gets right."""
    return int(np.sum(b & ~a)) - int(np.sum(a & ~b))


def choose(r, m, rule):
    """(error, what was taken) of model m on draw r under ``rule``."""
    mr = r["models"][m]
    lap = r["lap"]
    guard_t = rule.get("guard", 0.9)
    lap_err = lap["err_semi"] if rule.get("lap_own", True) else lap["err"]

    def guarded(err):
        if guard_t is not None and mr["agree"] < guard_t:
            if rule.get("guard_skip_fb") and lap["fell_back"]:
                return err, "own"        # no LapRLS fit to take (it fell back)
            return lap_err, "lap(guard)"
        return err, "own"

    if mr["ok"] is None:                     # no check: the guard alone
        return guarded(mr["err_semi"])
    tv = np.array(mr["ok"], bool)
    sup, sup_err = _counterpart(r)
    kind = rule["kind"]
    if kind == "now":
        if sup.sum() > tv.sum() and _lead(tv, sup) >= rule.get("lead_sup", 1):
            return sup_err, "svc"
        return guarded(mr["err_semi"])
    # three-way: TV, LapRLS, SVC on the same held-out rows
    la = np.array(lap["ok"], bool) if lap["ok"] is not None else None
    lead_lap = rule.get("lead_lap", 1)
    lead_sup = rule.get("lead_sup", 1)
    cur, cur_ok, cur_err = "own", tv, mr["err_semi"]
    if kind in ("three", "three_g"):
        if la is not None and la.sum() > tv.sum() and _lead(tv, la) >= lead_lap:
            cur, cur_ok, cur_err = "lap", la, lap_err
        if sup.sum() > cur_ok.sum() and _lead(cur_ok, sup) >= lead_sup:
            return sup_err, "svc"
        if cur == "own" and kind == "three_g":
            return guarded(cur_err)
        return cur_err, cur
    if kind == "svc_first":
        # the check as now against the SVC, then (instead of the SVC) LapRLS
        # when it is at least as good as the SVC on the held-out rows
        if sup.sum() > tv.sum() and _lead(tv, sup) >= 1:
            if la is not None and la.sum() >= sup.sum() and la.sum() > tv.sum():
                return lap_err, "lap"
            return sup_err, "svc"
        return guarded(mr["err_semi"])
    raise ValueError(kind)


# the defaults before and after this bench's choice (made on the tune part)
BEFORE = {"kind": "now", "guard": 0.9}
AFTER = {"kind": "three_g", "lead_lap": 1, "lead_sup": 2, "guard": 0.9, "lap_own": False}

RULES = {
    "before: check, then guard 0.9": BEFORE,
    "after: LapRLS rival (lead 1, SVC lead 2), guard 0.9": AFTER,
    "now (check, then guard 0.9)": {"kind": "now"},
    "now, no guard": {"kind": "now", "guard": None},
    "three-way, lead 1/1, no guard": {"kind": "three", "guard": None},
    "three-way, lead 1/1, guard 0.9": {"kind": "three_g"},
    "three-way, lead 2/1, guard 0.9": {"kind": "three_g", "lead_lap": 2},
    "three-way, lead 1/2, guard 0.9": {"kind": "three_g", "lead_sup": 2},
    "three-way, lead 1/1, guard 0.85": {"kind": "three_g", "guard": 0.85},
    "three-way, lead 1/1, guard 0.95": {"kind": "three_g", "guard": 0.95},
    "svc first, then LapRLS if >= SVC, guard 0.9": {"kind": "svc_first"},
    "three-way, lead 1/2, guard 0.9 (not after LapRLS fell back)": {
        "kind": "three_g", "lead_sup": 2, "guard_skip_fb": True},
    "three-way, lead 1/2, guard 0.9 (LapRLS after its check)": {
        "kind": "three_g", "lead_sup": 2, "lap_own": False},
    "three-way, lead 2/2, guard 0.9": {"kind": "three_g", "lead_lap": 2, "lead_sup": 2},
    "three-way, lead 1/3, guard 0.9": {"kind": "three_g", "lead_sup": 3},
    "three-way, lead 1/2, no guard": {"kind": "three", "lead_sup": 2, "guard": None},
    "now, lead 2": {"kind": "now", "lead_sup": 2},
}


def replay(rows, rules=RULES, detail=None):
    models = sorted({m for r in rows for m in r["models"]})
    keys = sorted({(r["set"], r["scheme"]) for r in rows})
    print(f"{len(keys)} cells, {len(rows)} draws")

    def cellmean(f):
        return np.mean([np.mean([f(r) for r in rows if (r["set"], r["scheme"]) == k])
                        for k in keys])
    print(f"SVC() mean {cellmean(lambda r: r['svc_err']):.2f} %, LapRLS() mean "
          f"{cellmean(lambda r: r['lap']['err']):.2f} %")
    print("| rule | " + " | ".join(models) + " |")
    print("|---|" + "---|" * len(models))
    for name, rule in rules.items():
        out = []
        for m in models:
            cells, took = {}, {}
            for r in rows:
                e, what = choose(r, m, rule)
                took[what] = took.get(what, 0) + 1
                cells.setdefault((r["set"], r["scheme"]), []).append((e, r["svc_err"]))
            d = np.array([np.mean([e for e, _ in v]) - np.mean([s for _, s in v])
                          for v in cells.values()])
            if detail is not None and name == detail:
                print(m, "worse:", [(k, round(float(x), 1)) for k, x in zip(cells, d)
                                    if x > 2])
            mean = np.mean([np.mean([e for e, _ in v]) for v in cells.values()])
            n_alt = took.get("svc", 0) + sum(v for k, v in took.items()
                                             if k.startswith("lap"))
            out.append(f"{int(np.sum(d > 2))}/{int(np.sum(d < -2))}, {mean:.2f} %, "
                       f"svc {took.get('svc', 0)} lap {n_alt - took.get('svc', 0)}")
        print(f"| {name} | " + " | ".join(out) + " |")
    print("(worse/better cells than SVC() on the labels by > 2 points, mean error over "
          "cells, fits that took the SVC / LapRLS)")


def verify(rows):
    """Refit each recorded draw's models with the defaults: their unlabeled
    error must be the replay's of AFTER (the rule is the defaults')."""
    loaded = {}
    bad = n = 0
    for r in rows:
        if r["set"] not in loaded:
            loaded[r["set"]] = _suite.load(r["set"], max_rows=600)
        d = loaded[r["set"]]
        y_semi = _suite.label_draw(d.y, r["scheme"], r["seed"])
        unl = y_semi == -1
        for m in r["models"]:
            est, _ = _fit(MODELS[m], d.X, y_semi)
            err = 100.0 * float(np.mean(est.transduction_[unl] != d.y[unl]))
            want, what = choose(r, m, AFTER)
            n += 1
            if abs(err - want) > 1e-9:
                bad += 1
                print("MISMATCH", r["set"], r["scheme"], r["seed"], m, err, want, what)
    print(f"{n - bad} of {n} refitted fits match the replay of AFTER")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--part", default="tune", choices=["tune", "report"])
    ap.add_argument("--cases", default="main", choices=["main", "classic", "both"])
    ap.add_argument("--models", nargs="+", default=list(MODELS))
    ap.add_argument("--only", nargs="+", default=None)
    ap.add_argument("--seeds", type=int, nargs="+", default=list(_suite.SEEDS))
    ap.add_argument("--max-rows", type=int, default=600)
    ap.add_argument("--jsonl", default=None)
    ap.add_argument("--replay", nargs="+", default=None)
    ap.add_argument("--detail", default=None, help="a rule's name: list its worse cells")
    ap.add_argument("--grid", action="store_true",
                    help="replay a grid of three-way rules instead of RULES")
    ap.add_argument("--verify", type=int, default=0, metavar="N",
                    help="with --replay: refit the first N recorded draws' models "
                         "with the defaults and compare with the replay of AFTER")
    args = ap.parse_args()
    if args.replay and args.verify:
        rows = [json.loads(line) for f in args.replay for line in open(f) if line.strip()]
        return verify(rows[:args.verify])
    if args.replay:
        rows = [json.loads(line) for f in args.replay for line in open(f) if line.strip()]
        rules = RULES
        if args.grid:
            rules = {"now (check, then guard 0.9)": {"kind": "now"}}
            for ll in (1, 2):
                for ls in (1, 2):
                    for g in (0.9, 0.95):
                        for gm, extra in (("LapRLS own", {}),
                                          ("LapRLS after its check", {"lap_own": False}),
                                          ("none if LapRLS fell back", {"guard_skip_fb": True})):
                            rules[f"lead {ll}/{ls}, guard {g} ({gm})"] = dict(
                                kind="three_g", lead_lap=ll, lead_sup=ls, guard=g, **extra)
        return replay(rows, rules, detail=args.detail)
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
            row.update(record(d.X, y_semi, d.y, args.models))
            print(d.name, scheme, seed, f"SVC {row['svc_err']:.1f} LapRLS "
                  f"{row['lap']['err_semi']:.1f}", " ".join(
                      f"{m} {r['err_semi']:.1f} ({r['agree']:.2f})"
                      for m, r in row["models"].items()), flush=True)
            if args.jsonl:
                with open(args.jsonl, "a") as fh:
                    fh.write(json.dumps(row) + "\n")
    print(f"# load average after: {os.getloadavg()}; wall {time.time() - w0:.0f} s")


if __name__ == "__main__":
    main()
