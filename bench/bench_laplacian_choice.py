"""When should LapSVM / LapRLS fall back to the SVC? Record their checks on a part of the suite, replay rules.

The ``safe="auto"`` check of LapSVM and LapRLS (:func:`semisvm._fallback.auto_fallback`,
family ``"laplacian"``) hides each of two label folds in turn, scores the
held-out labels of the re-solved fit and of each counterpart candidate
(:func:`semisvm._fallback.supervised_candidates`), and falls back to the
candidate right on most held-out rows when its paired lead (rows only it gets
right minus rows only the fit gets right) is at least ``MIN_LEAD["laplacian"]``
(2; the TV family's is 1), with no tie rule (``TIE_MISS["laplacian"]`` None;
the TV family falls back on a tie where the fit missed more than a quarter
of its held-out rows). This bench records, for every draw of a part of
``bench/_suite.py`` (600 rows, seeds 0-2, the main and the classic cases) and
each of LapSVM / LapRLS with its defaults: the fit's held-out rows right
(``ok``), its error on the unlabeled rows before (``err_semi``) and after
(``err``) its check, the check's mode, whether it fell back and to which
counterpart; each candidate's held-out rows right and unlabeled error
trained on all the labels; and ``SVC()``'s error (the suite's reference).
``--replay`` evaluates the family's rule for other leads and tie rules
exactly (every input of the rule is recorded; draws without a label check
keep the recorded outcome: the rule does not run there)::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 nice -n 10 python \\
        bench/bench_laplacian_choice.py --part tune --jsonl lap_choice_tune.jsonl
    python bench/bench_laplacian_choice.py --replay lap_choice_tune.jsonl [--detail]
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 nice -n 10 python \\
        bench/bench_laplacian_choice.py --replay lap_choice_tune.jsonl --tv-side

The replay's first rule is the one before ``LEAD1_MISS`` (lead 2, no tie
rule); ``chosen`` is the defaults since (a one-row lead where the fit missed
more than a quarter of its held-out rows); ``NOW`` is the library's rule
today (``chosen``, and a fallback's SVC at C = ``ADOPT_C["laplacian"]``
where that kernel / width is right on more held-out rows: the candidates at
that C are recorded, ``cand_c``; the candidates are scored on the rows as
the check sees them, ``feature_scaling="auto"`` applied). Each recorded
fit is checked against the replay of the three: one of them (the
library's when recording) must match every draw.
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
from bench_tv_choice import (  # noqa: E402
    adopted,
    candidate_outcome,
    check_x,
    record_candidates,
)

from semisvm import LapRLS, LapSVM, _fallback  # noqa: E402
from semisvm._fallback import ADOPT_C, supervised_candidates, two_folds  # noqa: E402

MODELS = {"LapSVM": LapSVM, "LapRLS": LapRLS}


def _fit(cls, X, y_semi, **kw):
    est = cls(**kw)
    t0 = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est.fit(X, y_semi)
    return est, time.process_time() - t0


def record(X, y_semi, y, models, weights=()):
    """One draw's record (errors on the unlabeled rows, in %). ``weights``:
    extra ``(name, params)`` fits with ``safe=False`` (their own error)."""
    lab = y_semi != -1
    idx = np.flatnonzero(lab)
    unl = np.flatnonzero(~lab)
    classes = np.unique(y_semi[lab])
    fold, mode = two_folds(y_semi, lab)
    ye = y[unl]

    def err(pred):
        return 100.0 * float(np.mean(np.asarray(pred) != ye))

    out = {"mode": mode, "cand": [], "cand_x": "check",
           "svc_err": err(SVC().fit(X[idx], y_semi[idx]).predict(X[unl]))}
    # the candidates see the rows as the check does (feature_scaling="auto")
    Xc, _ = check_x(X)
    for name, sup in supervised_candidates("rbf", idx.size):
        ok, pred = candidate_outcome(sup, Xc, y_semi, idx, fold, mode, classes, Xc[unl])
        out["cand"].append({"name": name, "ok": ok, "err": err(pred)})
    # and at the C of the fallback's model (ADOPT_C)
    out["cand_c"] = record_candidates(Xc, y_semi, Xc[unl], ye)
    out["models"] = {}
    for m in models:
        est, cpu = _fit(MODELS[m], X, y_semi)
        semi = getattr(est, "_semi_transduction", None)
        own = est.transduction_ if semi is None else semi
        sc = getattr(est, "safe_scores_", None)
        ok = (sc[0].astype(int).tolist()
              if sc is not None and est.safe_check_ == "two folds" else None)
        rec = {"ok": ok, "err_semi": err(own[unl]), "err": err(est.transduction_[unl]),
               "fell_back": bool(est.fell_back_), "check": est.safe_check_,
               "counterpart": est.safe_counterpart_,
               "cut": getattr(est, "graph_cut_", None), "cpu": cpu}
        for wname, params in weights:
            w, _ = _fit(MODELS[m], X, y_semi, safe=False, **params)
            rec["w:" + wname] = err(w.transduction_[unl])
        out["models"][m] = rec
    return out


# -- replay ---------------------------------------------------------------
def choose(r, m, rule):
    """(error, what was taken) of model m on draw r under ``rule``:
    ``lead`` (the candidate's paired lead needed), ``tie_miss`` (None, or a
    tie falls back where the fit missed more than this share of its held-out
    rows), ``weights`` (a recorded ``w:`` fit's error instead of the fit's),
    ``adopt_c`` (a fallback takes the chosen kernel / width at that C where
    it is right on more held-out rows and the recording holds it:
    ``bench_tv_choice.adopted``)."""
    mr = r["models"][m]
    if mr["ok"] is None:               # no label check: the recorded outcome
        return mr["err"], ("svc" if mr["fell_back"] else "own")
    own_err = mr["err_semi"] if rule.get("weights") is None else mr["w:" + rule["weights"]]
    semi = np.array(mr["ok"], bool)
    oks = [np.array(c["ok"], bool) for c in r["cand"]]
    best = 0 if rule.get("first") else int(np.argmax([o.sum() for o in oks]))
    sup = oks[best]
    lead = int(np.sum(sup & ~semi)) - int(np.sum(semi & ~sup))
    gain = semi.sum() - sup.sum()
    miss = 1.0 - semi.mean()
    tie = (rule.get("tie_miss") is not None and lead == 0
           and miss > rule["tie_miss"])
    need = rule["lead"]
    if rule.get("lead1_miss") is not None and miss > rule["lead1_miss"]:
        need = 1       # a fit that missed many held-out rows: a one-row lead
    if tie or (gain < 0 and lead >= need):
        e = r["cand"][best]["err"]
        if not rule.get("first"):
            e = adopted(r, e, rule.get("adopt_c"))
        return e, "svc"
    return own_err, "own"


DEFAULTS = {"lead": 2}      # the rule before LEAD1_MISS
RULES = {"before: lead 2, no tie rule": DEFAULTS,
         "lead 1 (the TV family's)": {"lead": 1},
         "lead 3": {"lead": 3},
         "lead 2 + tie, miss > 0.25 (the TV family's tie rule)": dict(DEFAULTS, tie_miss=0.25),
         "lead 1 + tie, miss > 0.25 (the TV family's rule)": {"lead": 1, "tie_miss": 0.25}}
for _q in (0.1, 0.15, 0.2, 0.3, 0.35):
    RULES[f"lead 2 + tie, miss > {_q}"] = dict(DEFAULTS, tie_miss=_q)
for _q in (0.2, 0.3):
    RULES[f"lead 1 + tie, miss > {_q}"] = {"lead": 1, "tie_miss": _q}
for _q in (0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5):
    RULES[f"lead 2, lead 1 where the fit missed > {_q}"] = dict(DEFAULTS, lead1_miss=_q)
for _q in (0.3, 0.4, 0.5):
    RULES[f"lead 2, lead 1 and ties where the fit missed > {_q}"] = dict(
        DEFAULTS, lead1_miss=_q, tie_miss=_q)
# chosen on the tune part (before the report part was recorded): the TV
# family's one-row lead where the fit missed more than the TV family's tie
# share (0.25) of its held-out rows
CHOSEN = dict(DEFAULTS, lead1_miss=0.25)
RULES["chosen: lead 2, lead 1 where the fit missed > 0.25"] = CHOSEN
# the library's rule today: CHOSEN, and a fallback's SVC at C = ADOPT_C
# where that is right on more held-out rows (the library's constant; where
# the recording holds the candidates at that C)
NOW = dict(CHOSEN, lead=_fallback.MIN_LEAD["laplacian"],
           lead1_miss=_fallback.LEAD1_MISS["laplacian"],
           tie_miss=_fallback.TIE_MISS["laplacian"], adopt_c=ADOPT_C["laplacian"])
RULES["now: the library's rule (chosen; the fallback's SVC at C = ADOPT_C where right "
      "on more held-out rows; where recorded)"] = NOW
RULES["the first candidate only (the RBF SVC at gamma = scale), lead 2"] = dict(
    DEFAULTS, first=True)
RULES["the first candidate only, lead 1"] = {"lead": 1, "first": True}


def replay(rows, rules=RULES, detail=False):
    models = sorted({m for r in rows for m in r["models"]})
    keys = sorted({(r["set"], r["scheme"]) for r in rows})
    print(f"{len(keys)} cells, {len(rows)} draws")
    bad = {"before": 0, "chosen": 0, "now": 0}
    for r in rows:
        for m in models:
            if m in r["models"] and r["models"][m]["ok"] is not None:
                for what, rule in (("before", DEFAULTS), ("chosen", CHOSEN), ("now", NOW)):
                    e, _ = choose(r, m, rule)
                    bad[what] += abs(e - r["models"][m]["err"]) > 1e-9
    missing = sum(1 for r in rows if "cand_c" not in r)
    print("fits where the replay differs from the recorded fit: of the rule before "
          f"(lead 2) {bad['before']}, of the chosen rule {bad['chosen']}, of the "
          f"library's rule now (chosen + the fallback's C = ADOPT_C model) {bad['now']} "
          "(0 for the rule the library ran when recording)"
          + (f"; {missing} draws recorded without the candidates at C = ADOPT_C (the "
             "C = 1 model not replayed there)" if missing else ""))
    print("| rule | " + " | ".join(models) + " |")
    print("|---|" + "---|" * len(models))
    for name, rule in rules.items():
        out = []
        for m in models:
            cells, took = {}, {}
            for r in rows:
                if m not in r["models"]:
                    continue
                if rule.get("weights") and ("w:" + rule["weights"]) not in r["models"][m]:
                    continue
                e, what = choose(r, m, rule)
                took[what] = took.get(what, 0) + 1
                cells.setdefault((r["set"], r["scheme"]), []).append((e, r["svc_err"]))
            d = {k: np.mean([e for e, _ in v]) - np.mean([s for _, s in v])
                 for k, v in cells.items()}
            dv = np.array(list(d.values()))
            mean = np.mean([np.mean([e for e, _ in v]) for v in cells.values()])
            out.append(f"{int(np.sum(dv > 2))}/{int(np.sum(dv < -2))}, {mean:.2f} %, "
                       f"svc {took.get('svc', 0)} of {sum(took.values())}")
            if detail:
                print(f"  {m} worse: " + ", ".join(
                    f"{k[0]}/{k[1]} {x:+.1f}" for k, x in d.items() if x > 2))
        print(f"| {name} | " + " | ".join(out) + " |")
    print("(worse/better cells than SVC() on the labels by > 2 points, mean error over "
          "cells, draws that took the SVC)")


def draws(rows, m):
    """Per draw of a worse cell of the defaults: what the check did."""
    cells = {}
    for r in rows:
        cells.setdefault((r["set"], r["scheme"]), []).append(r)
    for k, rs in sorted(cells.items()):
        d = np.mean([r["models"][m]["err"] for r in rs]) - np.mean([r["svc_err"] for r in rs])
        if d <= 2:
            continue
        print(f"{m} {k[0]}/{k[1]}: {d:+.1f} points above SVC()")
        for r in rs:
            mr = r["models"][m]
            line = (f"  seed {r['seed']}: SVC() {r['svc_err']:.1f}, fit {mr['err_semi']:.1f}"
                    f" -> {mr['err']:.1f} ({'fell back' if mr['fell_back'] else 'kept'}, "
                    f"{mr['check']}")
            if mr["ok"] is not None:
                semi = np.array(mr["ok"], bool)
                oks = [np.array(c["ok"], bool) for c in r["cand"]]
                best = int(np.argmax([o.sum() for o in oks]))
                sup = oks[best]
                line += (f"; held-out right fit {semi.sum()}/{semi.size}, "
                         f"{r['cand'][best]['name']} {sup.sum()} (err "
                         f"{r['cand'][best]['err']:.1f}), only fit "
                         f"{int(np.sum(semi & ~sup))}, only SVC {int(np.sum(sup & ~semi))}")
            elif mr.get("cut"):
                line += f"; cut {mr['cut']}"
            print(line + ")")


def tv_side(rows):
    """The rule's reach into TVRLS / TVSVM / CheegerRLS / CheegerSVM: their
    Laplacian guard takes LapRLS after LapRLS's own check, so where LapRLS's
    or LapSVM's replayed decision changes (``DEFAULTS`` against ``CHOSEN``)
    their fits may too. Refits the four and LapRLS on every draw of those
    cells with ``LEAD1_MISS["laplacian"]`` None and ``CHOSEN``'s share, and
    prints each cell's points above ``SVC()`` before -> after (the other
    cells cannot change)."""
    from semisvm import TVRLS, TVSVM, CheegerRLS, CheegerSVM
    from semisvm import _fallback as fb
    models = {"TVRLS": TVRLS, "TVSVM": TVSVM, "CheegerRLS": CheegerRLS,
              "CheegerSVM": CheegerSVM, "LapRLS": LapRLS}
    cells = sorted({(r["set"], r["scheme"]) for r in rows for m in ("LapRLS", "LapSVM")
                    if abs(choose(r, m, DEFAULTS)[0] - choose(r, m, CHOSEN)[0]) > 1e-9})
    print("cells where LapRLS / LapSVM change:", cells, flush=True)
    keep = fb.LEAD1_MISS["laplacian"]
    res = {}
    try:
        for r in rows:
            if (r["set"], r["scheme"]) not in cells:
                continue
            d = _suite.load(r["set"], max_rows=r.get("max_rows", 600))
            y_semi = _suite.label_draw(d.y, r["scheme"], r["seed"])
            unl = y_semi == -1
            for m, cls in models.items():
                errs = []
                for share in (None, CHOSEN["lead1_miss"]):
                    fb.LEAD1_MISS["laplacian"] = share
                    est, _ = _fit(cls, d.X, y_semi)
                    errs.append(100.0 * float(np.mean(est.transduction_[unl] != d.y[unl])))
                res.setdefault(((r["set"], r["scheme"]), m), []).append(
                    (errs[0] - r["svc_err"], errs[1] - r["svc_err"]))
    finally:
        fb.LEAD1_MISS["laplacian"] = keep
    for (k, m), v in sorted(res.items()):
        a, b = np.mean(v, axis=0)
        flag = "" if (a > 2) == (b > 2) and (a < -2) == (b < -2) else "  (cell status changes)"
        print(f"{k[0]}/{k[1]} {m}: {a:+.1f} -> {b:+.1f} points above SVC(){flag}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--part", default="tune", choices=list(_suite.PARTS))
    ap.add_argument("--models", nargs="+", default=list(MODELS))
    ap.add_argument("--only", nargs="+", default=None)
    ap.add_argument("--seeds", type=int, nargs="+", default=list(_suite.SEEDS))
    ap.add_argument("--max-rows", type=int, default=600)
    ap.add_argument("--weights", action="store_true",
                    help="also fit each model with gamma_I x 0.1 and x 10, gamma_A x 10 "
                         "(safe=False; replayed as rules of their own)")
    ap.add_argument("--jsonl", default=None)
    ap.add_argument("--replay", nargs="+", default=None)
    ap.add_argument("--tv-side", action="store_true",
                    help="with --replay: refit the TV / Cheeger models (and LapRLS) on "
                         "the cells where the chosen rule changes LapRLS / LapSVM")
    ap.add_argument("--detail", action="store_true",
                    help="with --replay: list each rule's worse cells and the "
                         "defaults' worse draws")
    args = ap.parse_args()
    if args.replay:
        rows = [json.loads(line) for f in args.replay for line in open(f) if line.strip()]
        rules = dict(RULES)
        if any(k.startswith("w:") for r in rows for mr in r["models"].values() for k in mr):
            for w in ("gI0.1", "gI10", "gA10"):
                rules[f"defaults, weights {w} (where recorded)"] = dict(DEFAULTS, weights=w)
        if args.tv_side:
            return tv_side(rows)
        replay(rows, rules, detail=args.detail)
        if args.detail:
            for m in sorted({m for r in rows for m in r["models"]}):
                draws(rows, m)
        return
    weights = ()
    if args.weights:
        weights = [("gI0.1", {"gamma_I": 0.1}), ("gI10", {"gamma_I": 10.0}),
                   ("gA10", {"gamma_A": 1e-3})]
    print(f"# load average before: {os.getloadavg()}", flush=True)
    w0 = time.time()
    for classic, schemes in ((False, _suite.SCHEMES), (True, _suite.CLASSIC_SCHEMES)):
        for d, scheme, seed, y_semi in _suite.cells(args.part, schemes=schemes,
                                                     seeds=args.seeds,
                                                     max_rows=args.max_rows,
                                                     only=args.only, classic=classic):
            row = {"set": d.name, "scheme": scheme, "seed": seed, "part": args.part,
                   "max_rows": args.max_rows}
            row.update(record(d.X, y_semi, d.y, args.models, weights))
            print(d.name, scheme, seed, f"SVC {row['svc_err']:.1f}", " ".join(
                f"{m} {r['err_semi']:.1f}->{r['err']:.1f}"
                for m, r in row["models"].items()), flush=True)
            _suite.append_jsonl(args.jsonl, row)
    print(f"# load average after: {os.getloadavg()}; wall {time.time() - w0:.0f} s")


if __name__ == "__main__":
    main()
