"""Record the six graph / kernel defaults' label checks on a part of the suite; replay other rules.

The ``safe="auto"`` check (:func:`semisvm._fallback.auto_fallback`) of
LapSVM, LapRLS, TVRLS, TVSVM, CheegerRLS and CheegerSVM scores two held-out
label folds (the same folds for all six: they depend on the labels only)
and falls back to the counterpart candidate right on most held-out rows
when the family's rule says so (``Z_FALLBACK``, ``MIN_LEAD``,
``LEAD1_MISS``, ``TIE_MISS``). This bench records, per draw of
``bench/_suite.py`` (600 rows, seeds 0-2):

* ``SVC()``'s error on the unlabeled rows (the suite's reference);
* each counterpart candidate's held-out rows right (trained on the other
  fold) and its unlabeled error trained on all labels (as the fallback is);
* per model with its defaults: its error, whether it fell back, its held-out
  rows right, the check's mode, whether the Laplacian guard took LapRLS's
  fit; and its error had the label check kept the fit (``err_keep``: the
  fit itself where it kept it, else a refit with ``safe_margin=1``, which
  no label check can fail, so the guard and the cut check run as they
  would).

``--replay`` evaluates rules that decide from the held-out rows alone,
exactly: a fall back gives the chosen candidate's error, a keep gives
``err_keep``, except a TV / Cheeger fit whose guard took LapRLS, which gets
LapRLS's error under the same rule. Draws without a label check (fewer than
4 labels in a class) keep their recorded error. The replay of the defaults'
rule is checked against every recorded fit. Choose on the tune part only::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 nice -n 10 python \\
        bench/bench_fallback_replay.py --part tune --cases both --jsonl tune.jsonl
    python bench/bench_fallback_replay.py --replay tune.jsonl [--detail RULE]

With an ``--augment``-ed recording (the candidates at C = 1 added) the
replay models the library's ``ADOPT_C`` and can replay ``--svc-lead``: the
fallback's model ``SVC()`` itself (the first candidate at C = 1) unless the
chosen one is right on that many more held-out rows (measured, not taken:
bench/RESULTS.md)."""
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
from bench_tv_choice import candidate_outcome  # noqa: E402

from semisvm import (  # noqa: E402
    TVRLS,
    TVSVM,
    CheegerRLS,
    CheegerSVM,
    LapRLS,
    LapSVM,
    _fallback,
)
from semisvm._fallback import supervised_candidates, two_folds  # noqa: E402
from semisvm._feature_scale import apply_scale, fit_feature_scale  # noqa: E402

MODELS = {"LapSVM": LapSVM, "LapRLS": LapRLS, "TVRLS": TVRLS, "TVSVM": TVSVM,
          "CheegerRLS": CheegerRLS, "CheegerSVM": CheegerSVM}
FAMILY = {"LapSVM": "laplacian", "LapRLS": "laplacian"}


def _fit(cls, X, y_semi, **kw):
    est = cls(**kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est.fit(X, y_semi)
    return est


def record(X, y_semi, y, models):
    lab = y_semi != -1
    idx = np.flatnonzero(lab)
    unl = np.flatnonzero(~lab)
    classes = np.unique(y_semi[lab])
    fold, mode = two_folds(y_semi, lab)

    def err(pred):
        return 100.0 * float(np.mean(np.asarray(pred) != y[unl]))

    out = {"mode": mode, "svc_err": err(SVC().fit(X[idx], y_semi[idx]).predict(X[unl])),
           "cand": [], "models": {}}
    # the candidates see X as the estimators' checks do (feature_scaling)
    Xc = apply_scale(X, fit_feature_scale(X, "auto"))
    for name, sup in supervised_candidates("rbf", idx.size):
        ok, pred = candidate_outcome(sup, Xc, y_semi, idx, fold, mode, classes, Xc[unl])
        out["cand"].append({"name": name, "ok": ok, "err": err(pred)})
    for m in models:
        est = _fit(MODELS[m], X, y_semi)
        r = {"err": err(est.transduction_[unl]), "fell_back": bool(est.fell_back_),
             "check": est.safe_check_,
             "guard": bool(getattr(est, "laplacian_fallback_", False)),
             "ok": None, "stats": None}
        checked = est.safe_check_ == "two folds" and est.unlabeled_gain_ is not None
        if checked:
            r["ok"] = est.safe_scores_[0].astype(int).tolist()
            st = getattr(est, "_check_stats", None) or {}
            r["stats"] = {k: st[k] for k in ("semi_stab", "sup_stab", "semi_full",
                                             "sup_full") if k in st}
        r["err_keep"], r["guard_keep"] = r["err"], r["guard"]
        if checked and est.fell_back_:
            keep = _fit(MODELS[m], X, y_semi, safe_margin=1.0)
            r["err_keep"] = err(keep.transduction_[unl])
            r["guard_keep"] = bool(getattr(keep, "laplacian_fallback_", False))
        out["models"][m] = r
    return out


def augment(rows, max_rows=600):
    """Recompute each recorded draw's candidates (``cand``, C = 10) on X as
    the checks see it (``feature_scaling="auto"``) and add the four at C = 1
    (``cand1``: RBF at the three widths, then linear)."""
    from semisvm._fallback import RBF_WIDTHS, RBFWidth
    loaded = {}
    for r in rows:
        if r["set"] not in loaded:
            d = _suite.load(r["set"], max_rows=max_rows)
            d.X = apply_scale(d.X, fit_feature_scale(d.X, "auto"))
            loaded[r["set"]] = d
        d = loaded[r["set"]]
        y_semi = _suite.label_draw(d.y, r["scheme"], r["seed"])
        lab = y_semi != -1
        idx, unl = np.flatnonzero(lab), np.flatnonzero(~lab)
        classes = np.unique(y_semi[lab])
        fold, mode = two_folds(y_semi, lab)
        sups = [RBFWidth(f, C=1.0) for f in RBF_WIDTHS] + [SVC(kernel="linear", C=1.0)]
        r["n_classes"] = int(classes.size)
        r["cand"] = []
        for name, sup in supervised_candidates("rbf", idx.size):
            ok, pred = candidate_outcome(sup, d.X, y_semi, idx, fold, mode, classes,
                                         d.X[unl])
            r["cand"].append({"name": name, "ok": ok,
                              "err": 100.0 * float(np.mean(pred != d.y[unl]))})
        r["cand1"] = []
        for sup in sups:
            ok, pred = candidate_outcome(sup, d.X, y_semi, idx, fold, mode, classes,
                                         d.X[unl])
            r["cand1"].append({"ok": ok, "err": 100.0 * float(np.mean(pred != d.y[unl]))})
    return rows


# -- replay ---------------------------------------------------------------
def defaults(family):
    """The library's rule for ``family`` (its module constants now)."""
    return {"z": _fallback.Z_FALLBACK[family][0], "lead": _fallback.MIN_LEAD[family],
            "lead1_miss": _fallback.LEAD1_MISS[family],
            "tie_miss": _fallback.TIE_MISS[family], "adopt_c": _fallback.ADOPT_C[family]}


def decide(ok_semi, oks, rule):
    """(fall back?, best candidate) under ``rule`` (auto_fallback's logic at
    safe_margin = 0, with optional extra knobs)."""
    s = np.asarray(ok_semi, bool)
    oks = [np.asarray(o, bool) for o in oks]
    best = int(np.argmax([o.sum() for o in oks]))
    c = oks[best]
    n = s.size
    only_semi = int(np.sum(s & ~c))
    only_sup = int(np.sum(c & ~s))
    lead = only_sup - only_semi
    miss = 1.0 - s.sum() / n
    tie = rule["tie_miss"] is not None and lead == 0 and miss > rule["tie_miss"]
    need = rule["lead"]
    if rule["lead1_miss"] is not None and miss > rule["lead1_miss"]:
        need = min(need, 1)
    if rule.get("lead_small") is not None and n <= rule["small_n"]:
        need = min(need, rule["lead_small"])
    if rule.get("tie_small") is not None and n <= rule["small_n"] and lead == 0 \
            and miss > rule["tie_small"]:
        tie = True
    fall = tie or (lead > 0 and lead >= need and lead > rule["z"] * np.sqrt(only_sup
                                                                          + only_semi))
    return fall, best


def replay_err(r, m, rule_of):
    """Model m's error on draw r under ``rule_of(family)``."""
    mr = r["models"][m]
    fam = FAMILY.get(m, "tv")
    if mr["ok"] is None:
        return mr["err"], "nocheck"
    rule = rule_of(fam)
    key = rule.get("cands", "cand")
    if rule.get("c1_binary") and r.get("n_classes", 2) > 2:
        key = "cand"
    if key == "c10+svc":
        # SVC() (the first candidate at C = 1) a fifth candidate of the decision
        cands = r["cand"] + r["cand1"][:1]
        key = "cand"
    elif key == "c10+c1":
        cands = r["cand"] + r["cand1"]
    elif key == "c1+c10":
        cands = r["cand1"] + r["cand"]
    else:
        cands = r[key]
    if rule.get("only_first_below") is not None and len(mr["ok"]) <= rule["only_first_below"]:
        cands = cands[:1]   # no choice among candidates: the first one decides
    fall, best = decide(mr["ok"], [c["ok"] for c in cands], rule)
    if fall:
        if rule.get("first_below") is not None and len(mr["ok"]) <= rule["first_below"]:
            best = 0      # too few held-out rows to choose among the candidates
        chosen = cands[best]
        adopt_c = rule.get("adopt_c")
        if adopt_c is not None and key == "cand" and "cand1" in r \
                and best < len(r["cand"]):
            # the library's ADOPT_C: the chosen kernel / width at C = 1 where
            # right on more held-out rows (ties keep C = 10)
            alt = r["cand1"][best]
            if sum(alt["ok"]) > sum(chosen["ok"]):
                chosen = alt
        svc_lead = rule.get("svc_lead")
        if svc_lead is not None and "cand1" in r:
            # SVC() itself (the first candidate, gamma = "scale", at C = 1)
            # unless the chosen model is right on svc_lead more held-out rows
            s1 = r["cand1"][0]
            ok_c, ok_s = np.asarray(chosen["ok"], bool), np.asarray(s1["ok"], bool)
            lead = int(np.sum(ok_c & ~ok_s)) - int(np.sum(ok_s & ~ok_c))
            z = rule.get("svc_z", 0.0)
            if not (lead >= svc_lead and lead > z * np.sqrt(np.sum(ok_c != ok_s))):
                chosen = s1
        return chosen["err"], "svc"
    if mr["guard_keep"]:
        lap_err, _ = replay_err(r, "LapRLS", rule_of)
        return lap_err, "lap"
    return mr["err_keep"], "own"


def verify(rows):
    bad = n = 0
    for r in rows:
        for m, mr in r["models"].items():
            if mr["ok"] is None:
                continue
            n += 1
            e, what = replay_err(r, m, defaults)
            if abs(e - mr["err"]) > 1e-9 or (what == "svc") != mr["fell_back"]:
                bad += 1
                print("MISMATCH", r["set"], r["scheme"], r["seed"], m, mr["err"], e, what,
                      mr["fell_back"], mr["guard"])
    print(f"replay of the defaults: {n - bad} of {n} checked fits match the recording")


def table(rows, rule_of, models, detail=False, sets=None):
    keys = sorted({(r["set"], r["scheme"]) for r in rows if sets is None or r["set"] in sets})
    out = {}
    for m in models:
        cells = {}
        nsvc = 0
        for r in rows:
            k = (r["set"], r["scheme"])
            if k not in keys:
                continue
            e, what = replay_err(r, m, rule_of)
            nsvc += what == "svc"
            cells.setdefault(k, []).append((e, r["svc_err"]))
        d = {k: np.mean([e for e, _ in v]) - np.mean([s for _, s in v])
             for k, v in cells.items()}
        mean = np.mean([np.mean([e for e, _ in v]) for v in cells.values()])
        worse = sorted(k for k, x in d.items() if x > 2)
        better = sorted(k for k, x in d.items() if x < -2)
        out[m] = (len(worse), len(better), len(d), mean, nsvc, worse, better)
    return out


RULES = {
    "defaults": defaults,
}


def _variants():
    rules = {"defaults": defaults}

    def with_(**kw):
        return lambda fam: dict(defaults(fam), **kw.get(fam, kw.get("all", {})))
    rules["lap: lead 1 everywhere"] = with_(laplacian={"lead": 1})
    rules["lap: tie falls back where miss > .25"] = with_(laplacian={"tie_miss": 0.25})
    for q in (0.0, 0.1, 0.2):
        rules[f"tv: tie falls back where miss > {q}"] = with_(tv={"tie_miss": q})
        rules[f"both: tie falls back where miss > {q}"] = with_(
            laplacian={"tie_miss": q}, tv={"tie_miss": q})
    for nsm in (10, 12, 16, 20):
        rules[f"lap: lead 1 with <= {nsm} scored rows"] = with_(
            laplacian={"lead_small": 1, "small_n": nsm})
        rules[f"both: a tie falls back with <= {nsm} scored rows"] = with_(
            all={"tie_small": 0.0, "small_n": nsm})
        rules[f"both: a tie (miss > .1) falls back with <= {nsm} scored rows, "
              f"lap lead 1 there"] = with_(
            laplacian={"tie_small": 0.1, "small_n": nsm, "lead_small": 1},
            tv={"tie_small": 0.1, "small_n": nsm})
    for fam in ("laplacian", "tv", "all"):
        rules[f"{fam}: candidates at C = 1"] = with_(**{fam: {"cands": "cand1"}})
        rules[f"{fam}: candidates at C = 1, two classes"] = with_(
            **{fam: {"cands": "cand1", "c1_binary": True}})
        rules[f"{fam}: candidates C = 10 then C = 1"] = with_(**{fam: {"cands": "c10+c1"}})
        rules[f"{fam}: candidates C = 1 then C = 10"] = with_(**{fam: {"cands": "c1+c10"}})
        for nf in (10, 14, 16, 18, 20, 24, 30, 40, 50, 10**9):
            rules[f"{fam}: the first candidate with <= {nf} scored rows"] = with_(
                **{fam: {"first_below": nf}})
            rules[f"{fam}: the first candidate alone (check and fallback) with <= {nf} "
                  "scored rows"] = with_(**{fam: {"only_first_below": nf}})
            rules[f"{fam}: C = 1, the first candidate with <= {nf} scored rows"] = with_(
                **{fam: {"first_below": nf, "cands": "cand1"}})
    for fam in ("laplacian", "tv", "all"):
        rules[f"{fam}: SVC() a fifth candidate of the decision"] = with_(
            **{fam: {"cands": "c10+svc"}})
        for lead in (1, 2, 3):
            rules[f"{fam}: SVC() a fifth candidate, SVC() on a fallback unless the chosen "
                  f"leads by >= {lead}"] = with_(
                **{fam: {"cands": "c10+svc", "svc_lead": lead}})
    # SVC_LEAD: the fallback's model is SVC() (the first candidate at C = 1)
    # unless the chosen one is right on at least L more held-out rows
    for fam in ("laplacian", "tv", "all"):
        for lead in (1, 2, 3, 4, 6, 10**6):
            for z in (0.0, 1.0):
                if z and lead == 10**6:
                    continue
                what = "always" if lead == 10**6 else f"unless the chosen leads by >= {lead}"
                rules[f"{fam}: SVC() on a fallback {what}" + (f", z {z:g}" if z else "")] = \
                    with_(**{fam: {"svc_lead": lead, "svc_z": z}})
    return rules


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    _suite.add_recording_arguments(ap, MODELS)
    ap.add_argument("--variants", action="store_true", help="replay the variants too")
    ap.add_argument("--augment", default=None, metavar="OUT",
                    help="with --replay: write the draws with the C = 1 candidates "
                         "added (cand1) to OUT")
    ap.add_argument("--detail", default=None, help="a rule's name: list its worse cells")
    ap.add_argument("--svc-lead", default=None, metavar="JSON",
                    help="with --replay: also replay the fallback's model SVC() "
                         "unless the chosen one leads it by JSON {family: rows} "
                         "held-out rows, e.g. '{\"laplacian\": 7, \"tv\": 2}' (a "
                         "family left out: never); needs an --augment-ed recording")
    args = ap.parse_args()
    if args.replay:
        rows = [json.loads(line) for f in args.replay for line in open(f) if line.strip()]
        if args.only:
            rows = [r for r in rows if r["set"] in args.only]
        if args.augment:
            augment(rows, max_rows=args.max_rows)
            with open(args.augment, "w") as fh:
                for r in rows:
                    fh.write(json.dumps(r) + "\n")
            return
        verify(rows)
        models = [m for m in MODELS if m in rows[0]["models"]]
        rules = dict(_variants() if args.variants else RULES)
        if args.svc_lead:
            leads = json.loads(args.svc_lead)
            rules[f"SVC() unless the chosen leads by {leads}"] = lambda fam: dict(defaults(fam),
                                                          svc_lead=leads.get(fam))
        print(f"{len({(r['set'], r['scheme']) for r in rows})} cells, {len(rows)} draws; "
              "worse / better cells than SVC() by > 2 points, mean error, fall backs")
        print("| rule | " + " | ".join(models) + " |")
        print("|---|" + "---|" * len(models))
        for name, rule_of in rules.items():
            t = table(rows, rule_of, models)
            print(f"| {name} | " + " | ".join(
                f"{w}/{b}, {mean:.2f} %, {ns}" for w, b, _, mean, ns, _, _ in
                (t[m] for m in models)) + " |")
            if args.detail is not None and args.detail in name:
                for m in models:
                    print(f"    {m} worse: {t[m][5]}")
        return
    groups = []
    if args.cases in ("main", "both"):
        groups.append((False, list(_suite.SCHEMES)))
    if args.cases in ("classic", "both"):
        groups.append((True, list(_suite.CLASSIC_SCHEMES)))
    print(f"# load average before: {os.getloadavg()}", flush=True)
    w0, c0 = time.time(), time.process_time()
    for classic, schemes in groups:
        for d, scheme, seed, y_semi in _suite.cells(args.part, schemes=schemes,
                                                     seeds=args.seeds,
                                                     max_rows=args.max_rows,
                                                     only=args.only, classic=classic):
            row = {"set": d.name, "scheme": scheme, "seed": seed, "part": args.part}
            row.update(record(d.X, y_semi, d.y, args.models))
            print(d.name, scheme, seed, f"SVC {row['svc_err']:.1f}", " ".join(
                f"{m} {r['err']:.1f}{'*' if r['fell_back'] else ''}"
                f"{'g' if r['guard'] else ''}" for m, r in row["models"].items()),
                flush=True)
            _suite.append_jsonl(args.jsonl, row)
    print(f"# load average after: {os.getloadavg()}; wall {time.time() - w0:.0f} s, "
          f"CPU {time.process_time() - c0:.0f} s")


if __name__ == "__main__":
    main()
