"""Replay decision rules under ``PLAIN_FALLBACK`` on ``bench_graph_tv_suite.py`` recordings (no fits).

``bench/bench_graph_tv_suite.py --jsonl`` records per fit the default
check's held-out counts ``[right_semi, right_sup, only_semi, only_sup]`` (the
chosen candidate at C = 10), its mode and whether it fell back, beside
``SVC()``'s error on the same input. With ``semisvm._fallback.PLAIN_FALLBACK``
the fallback's model is ``SVC()`` itself, so a rule that decides from the
counts alone replays without a fit: a fall back gives ``SVC()``'s recorded
error (exact for two classes; the library's ``SVC()`` is one-vs-rest, the
recorded one one-vs-one, so multi-class fits are approximate), a keep the
recorded error (``err_semi`` where the recording fell back: for a TV /
Cheeger fit approximate, its Laplacian guard would then run). The held-out
size is the labeled count (two folds score every labeled row), recomputed
from ``bench/_suite.py``. The rule of the recording (main's constants) is
checked against every recorded two-fold decision first.

``--guard`` also reads a TV / Cheeger fit whose error equals the LapRLS
row's as "the Laplacian guard took LapRLS" and applies the rule to that row
(a heuristic: the guard's LapRLS is not the suite's LapRLS row in general).

    python bench/replay_miss_fallback.py --part tenth /tmp/e10.jsonl [--guard]

Prints per model (LapSVM, LapRLS, TVRLS, TVSVM, CheegerRLS, CheegerSVM) the
cells worse / better than ``SVC()`` by more than 2 points and the mean
error, for the base (``PLAIN_FALLBACK``, the decision unchanged) and for
``MISS_FALLBACK`` ``(q, z)`` per ``--rule`` (bench/RESULTS.md, "A fallback
where the fit missed many held-out labels ...").
"""
import argparse
import collections
import json
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _suite  # noqa: E402

MODELS = ["LapSVM", "LapRLS", "TVRLS", "TVSVM", "CheegerRLS", "CheegerSVM"]
FAMILY = {m: ("laplacian" if m.startswith("Lap") else "tv") for m in MODELS}
# main's rule (semisvm._fallback: MIN_LEAD, LEAD1_MISS, TIE_MISS; z = 0, margin 0)
MIN_LEAD = {"laplacian": 2, "tv": 1}
LEAD1_MISS = {"laplacian": 0.25, "tv": None}
TIE_MISS = {"laplacian": None, "tv": 0.25}


def labeled_counts(part, max_rows):
    out = {}
    for classic, schemes in ((False, _suite.SCHEMES), (True, _suite.CLASSIC_SCHEMES)):
        for d, scheme, seed, ys in _suite.cells(part, schemes=schemes, max_rows=max_rows,
                                                classic=classic):
            out[(d.name, scheme, seed)] = (int(np.sum(ys >= 0)), int(d.y.max()) + 1)
    return out


def main_rule(f):
    rs, _, b, c = f["check"]
    fam = FAMILY[f["model"]]
    miss = 1.0 - rs / f["n_lab"]
    lead = c - b
    need = MIN_LEAD[fam]
    if LEAD1_MISS[fam] is not None and miss > LEAD1_MISS[fam]:
        need = 1
    tie = TIE_MISS[fam] is not None and lead == 0 and miss > TIE_MISS[fam]
    return bool(tie or (lead > 0 and lead >= need))


def miss_rule(q, z):
    def rule(f):
        rs, _, b, c = f["check"]
        return main_rule(f) or (1.0 - rs / f["n_lab"] > q and b - c <= z * math.sqrt(b + c))
    return rule


def load(files, part, max_rows):
    meta = labeled_counts(part, max_rows)
    rows = [json.loads(line) for fn in files for line in open(fn) if line.strip()]
    svc = {(r["set"], r["scheme"], r["seed"]): r["err"] for r in rows if r["model"] == "SVC"}
    fits = []
    for r in rows:
        if r["model"] not in MODELS:
            continue
        key = (r["set"], r["scheme"], r["seed"])
        f = dict(r, svc=svc[key])
        f["n_lab"], f["K"] = meta[key]
        fits.append(f)
    by = {(f["model"], f["set"], f["scheme"], f["seed"]): f for f in fits}
    for f in fits:
        f["lap"] = by.get(("LapRLS", f["set"], f["scheme"], f["seed"]))
    bad = [f for f in fits if f["check_mode"] == "two folds" and main_rule(f) != f["fell_back"]]
    print(f"# main's rule from the counts: {len(bad)} of "
          f"{sum(f['check_mode'] == 'two folds' for f in fits)} two-fold decisions differ")
    return fits


def err_under(f, rule, guard):
    if f["check_mode"] != "two folds":
        return f["svc"] if f["fell_back"] else f["err"]
    if rule(f):
        return f["svc"]
    if f["fell_back"]:
        return f["err_semi"]
    lap = f["lap"]
    if (guard and FAMILY[f["model"]] == "tv" and lap is not None
            and lap["check_mode"] == "two folds" and abs(lap["err"] - f["err"]) < 1e-9):
        if rule(lap):
            return f["svc"]
        if lap["fell_back"]:
            return lap["err_semi"]
    return f["err"]


def table(fits, rule, guard):
    cells = collections.defaultdict(list)
    for f in fits:
        cells[(f["model"], f["set"], f["scheme"])].append((err_under(f, rule, guard), f["svc"]))
    out = {}
    for m in MODELS:
        vals = [v for (mm, _, _), v in cells.items() if mm == m]
        e = [np.mean([x[0] for x in v]) for v in vals]
        s = [np.mean([x[1] for x in v]) for v in vals]
        out[m] = (sum(a > b + 2 for a, b in zip(e, s)), sum(a < b - 2 for a, b in zip(e, s)),
                  float(np.mean([x[0] for v in vals for x in v])))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--part", required=True, choices=list(_suite.PARTS))
    ap.add_argument("--max-rows", type=int, default=600)
    ap.add_argument("--rule", nargs=2, type=float, action="append", metavar=("Q", "Z"),
                    help="MISS_FALLBACK (q, z) for both families (default 0.25 1.0)")
    ap.add_argument("--guard", action="store_true")
    args = ap.parse_args()
    fits = load(args.files, args.part, args.max_rows)
    rules = [("base (PLAIN_FALLBACK)", main_rule)] + [
        (f"MISS_FALLBACK ({q:g}, {z:g})", miss_rule(q, z)) for q, z in (args.rule or [(0.25, 1.0)])]
    print("| rule | " + " | ".join(MODELS) + " |")
    print("|---|" + "---|" * len(MODELS))
    for name, rule in rules:
        t = table(fits, rule, args.guard)
        print(f"| {name} | " + " | ".join(f"{t[m][0]}/{t[m][1]}, {t[m][2]:.2f}" for m in MODELS)
              + " |")


if __name__ == "__main__":
    main()
