"""A blend of the TV / Cheeger fit and the SVC where the check is undecided.

The ``safe="auto"`` check of TVRLS, TVSVM, CheegerRLS and CheegerSVM picks
one model (the fit, LapRLS through the guard, or the SVC) from 10-50
held-out labels. Where those rows cannot separate the fit from the SVC (a
tie or a lead of a row or two), this bench replays a hedge instead: the
labels of ``w F_fit / s_fit + (1 - w) F_svc / s_svc``, the two decision
functions each divided by its scale on the unlabeled rows, ``w`` set by the
held-out evidence. It replays recordings of ``bench_tv_choice.py --scores``
(the decision values of each fit and each candidate SVC on the scored rows)
exactly; choose on the tune part only::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 nice -n 10 python \\
        bench/bench_tv_choice.py --part tune --cases main --scores --jsonl tune_main.jsonl
    python bench/bench_tv_blend.py --replay tune_main.jsonl tune_classic.jsonl demo.jsonl

``--rule NAME`` replays one rule only (the report part: once, for the rule
chosen); ``--detail NAME`` lists that rule's worse cells; ``--oracle``
prints the ceiling of any blend inside a band of the lead: each draw's best
weight of 0, 0.1, ..., 1 chosen with the true labels. ``--fill`` adds the
draws of an older recording (without decision values) that the new ones
lack, for the cells where no check runs.

Measured on the tune part and not taken (bench/RESULTS.md): no blend rule
lowered the worse cells to the target; the library implementation (a
``BLEND`` band and ``BLEND_UNCHECKED`` weight in ``semisvm/_fallback.py``,
``apply_blend`` after the Laplacian guard, the SVC's expansion in
``blend_`` added to the decision function) is commit ed71131 of branch h11s.
"""
import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_tv_choice as btc  # noqa: E402


def _scale(F, norm):
    F = np.asarray(F, dtype=np.float64)
    if norm == "rms":
        s = float(np.sqrt(np.mean(F * F)))
    elif norm == "mad":
        s = float(np.mean(np.abs(F)))
    else:
        raise ValueError(norm)
    return s if s > 0 else 1.0


def weight(tv, sup, how):
    """The fit's weight from the held-out rows right (boolean arrays)."""
    b = int(np.sum(tv & ~sup))        # only the fit right
    c = int(np.sum(sup & ~tv))        # only the SVC right
    if how == "half":
        return 0.5
    if how == "paired":               # Laplace: P(the fit wins a disagreement)
        return (b + 1.0) / (b + c + 2.0)
    if how.startswith("sharp"):       # a steeper curve in the paired z
        k = float(how[5:])
        return float(1.0 / (1.0 + np.exp(-k * (b - c) / np.sqrt(b + c + 1.0))))
    if how == "acc":
        return (tv.sum() + 1.0) / (tv.sum() + sup.sum() + 2.0)
    raise ValueError(how)


def blend_labels(r, m, w, norm, best=None):
    """The blend's labels of the scored rows (class indices) with candidate
    ``best`` (None: the one the check chose)."""
    mr = r["models"][m]
    if best is None:
        _, best = _chosen(r)
    cand = r["cand"][best]
    Fs, Fc = np.asarray(mr["F"], float), np.asarray(cand["F"], float)
    if norm == "tanh":
        # each score squashed at its scale: a confident wrong model counts
        # no more than a confident right one
        ss = _scale(mr.get("F_unl", mr["F"]), "rms")
        sc = _scale(cand.get("F_unl", cand["F"]), "rms")
        G = w * np.tanh(Fs / ss) + (1.0 - w) * np.tanh(Fc / sc)
        return (G > 0).astype(int) if G.ndim == 1 else np.argmax(G, axis=1)
    ss = _scale(mr.get("F_unl", mr["F"]), norm)
    sc = _scale(cand.get("F_unl", cand["F"]), norm)
    G = w * Fs / ss + (1.0 - w) * Fc / sc
    return (G > 0).astype(int) if G.ndim == 1 else np.argmax(G, axis=1)


def _chosen(r):
    oks = [np.array(c["ok"], bool) for c in r["cand"]]
    best = int(np.argmax([o.sum() for o in oks]))
    return oks[best], best


def choose(r, m, rule):
    """(error, what) of model m on draw r: TIE (the defaults) outside the
    rule's band, the blend inside it."""
    if rule.get("kind") != "blend":
        return btc.choose(r, m, rule)
    mr = r["models"][m]
    base = btc.choose(r, m, btc.TIE)
    if mr["ok"] is None:
        # no check (fewer than 4 labels in a class): no held-out evidence;
        # with "unchecked_w", a blend with the first candidate where the
        # guard kept the fit
        w0 = rule.get("unchecked_w")
        if w0 is None or base[1] != "own":
            return base
        if "F" not in mr:
            raise ValueError(f"{r['set']}/{r['scheme']}/{r['seed']}: no --scores")
        lab = blend_labels(r, m, w0, rule.get("norm", "rms"), best=0)
        return 100.0 * float(np.mean(lab != np.asarray(r["y"]))), "blend"
    tv = np.array(mr["ok"], bool)
    sup, _ = _chosen(r)
    lead = btc._lead(tv, sup)           # the SVC's lead
    b = int(np.sum(tv & ~sup))
    c = int(np.sum(sup & ~tv))
    if "z" in rule:
        inside = abs(lead) <= rule["z"] * np.sqrt(b + c) and (
            lead >= rule.get("lo", -np.inf) and lead <= rule.get("hi", np.inf))
    else:
        inside = rule["lo"] <= lead <= rule["hi"]
    if rule.get("miss") is not None:
        # only where the fit missed more than this share of its held-out rows
        inside = inside and 1.0 - tv.mean() > rule["miss"]
    if not inside:
        return base
    if "F" not in mr:
        raise ValueError(f"{r['set']}/{r['scheme']}/{r['seed']}: recorded without --scores")
    if rule.get("guard_kept_only") and base[1] == "svc":
        pass                             # the pick fell back: the guard never ran
    elif rule.get("guard_first", True) and mr["agree"] < btc.TIE["guard"]:
        # the guard first, as where the fit is kept: LapRLS after its check
        return r["lap"]["err"], "lap(guard)"
    if rule.get("only_kept") and base[1] != "own":
        return base
    w = weight(tv, sup, rule.get("w", "half"))
    lab = blend_labels(r, m, w, rule.get("norm", "rms"))
    return 100.0 * float(np.mean(lab != np.asarray(r["y"]))), "blend"


def oracle(rows, bands=((-2, 2), (-5, 5), (-10 ** 6, 10 ** 6))):
    """Worse / better cells when every draw whose lead lies in a band takes
    the blend weight (0, 0.1, ..., 1) best for its true labels (the
    defaults' pick elsewhere): what no rule on the held-out counts can beat."""
    rows = [r for r in rows if r["set"] != "demo"]
    grid = np.linspace(0.0, 1.0, 11)

    def best(r, m, lo, hi):
        base = btc.choose(r, m, btc.TIE)[0]
        mr = r["models"][m]
        if mr["ok"] is None:
            return base
        tv = np.array(mr["ok"], bool)
        sup, _ = _chosen(r)
        if not lo <= btc._lead(tv, sup) <= hi:
            return base
        y = np.asarray(r["y"])
        return min(100.0 * float(np.mean(blend_labels(r, m, w, "rms") != y)) for w in grid)

    for m in sorted({m for r in rows for m in r["models"]}):
        out = []
        for lo, hi in ((1, 0),) + tuple(bands):
            cells = {}
            for r in rows:
                cells.setdefault((r["set"], r["scheme"]), []).append(
                    (best(r, m, lo, hi), r["svc_err"]))
            d = np.array([np.mean([e for e, _ in v]) - np.mean([s_ for _, s_ in v])
                          for v in cells.values()])
            band = "TIE" if lo > hi else f"[{lo}, {hi}]"
            out.append(f"{band} {int(np.sum(d > 2))}/{int(np.sum(d < -2))}")
        print(m, "; ".join(out))


def rules():
    out = {"TIE (the defaults)": btc.TIE}
    for lo, hi in ((0, 0), (-1, 0), (0, 1), (-1, 1), (-2, 1), (-2, 2), (-3, 1),
                   (-3, 3), (-4, 2), (-5, 2)):
        for w in ("half", "paired", "acc"):
            out[f"blend lead in [{lo}, {hi}], w {w}"] = dict(kind="blend", lo=lo, hi=hi, w=w)
    for z in (0.5, 1.0, 1.5):
        for w in ("half", "paired"):
            out[f"blend |lead| <= {z} sqrt(b + c), w {w}"] = dict(kind="blend", z=z, w=w)
    for lo, hi in ((0, 1), (-1, 1), (-2, 1), (-1, 2), (-2, 2), (-3, 3), (-2, 4)):
        for w in ("half", "paired"):
            out[f"blend lead in [{lo}, {hi}], w {w}, the guard only where the pick kept "
                f"the fit"] = dict(kind="blend", lo=lo, hi=hi, w=w, guard_kept_only=True)
    for w0 in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8):
        out[f"no check: blend w {w0} with the first SVC where the guard kept the fit"] = dict(
            kind="blend", lo=1, hi=0, unchecked_w=w0)
        out[f"no check: blend w {w0}; lead in [-2, 2] w paired, the guard where kept"] = dict(
            kind="blend", lo=-2, hi=2, w="paired", guard_kept_only=True, unchecked_w=w0)
        out[f"no check: blend w {w0}; lead in [-1, 0] w paired"] = dict(
            kind="blend", lo=-1, hi=0, w="paired", unchecked_w=w0)
    for lo, hi in ((-1, 1), (-2, 2), (-3, 3)):
        for w in ("sharp1", "sharp2", "sharp4"):
            for norm in ("rms", "tanh"):
                out[f"blend lead in [{lo}, {hi}], w {w}, {norm}, the guard where kept"] = dict(
                    kind="blend", lo=lo, hi=hi, w=w, norm=norm, guard_kept_only=True)
        out[f"blend lead in [{lo}, {hi}], w paired, tanh"] = dict(
            kind="blend", lo=lo, hi=hi, w="paired", norm="tanh")
    for lo, hi in ((-1, 1), (-2, 1), (-2, 2)):
        out[f"blend lead in [{lo}, {hi}], w paired, mad"] = dict(
            kind="blend", lo=lo, hi=hi, w="paired", norm="mad")
        out[f"blend lead in [{lo}, {hi}], w paired, guard skipped"] = dict(
            kind="blend", lo=lo, hi=hi, w="paired", guard_first=False)
        out[f"blend lead in [{lo}, {hi}], w paired, fit missed > 0.1"] = dict(
            kind="blend", lo=lo, hi=hi, w="paired", miss=0.1)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--replay", nargs="+", required=True)
    ap.add_argument("--fill", nargs="+", default=None,
                    help="older recordings whose draws the new ones lack (no check ran)")
    ap.add_argument("--oracle", action="store_true",
                    help="the ceiling: each draw's best blend weight for its true labels")
    ap.add_argument("--rule", default=None, help="replay this rule only (and TIE)")
    ap.add_argument("--detail", default=None, help="a rule's name: list its worse cells")
    args = ap.parse_args()
    rows = [json.loads(line) for f in args.replay for line in open(f) if line.strip()]
    if args.fill:
        # the draws of an older recording (without decision values) that the
        # new one lacks: those no blend can touch (the check did not run)
        have = {(r["set"], r["scheme"], r["seed"]) for r in rows}
        old = [json.loads(line) for f in args.fill for line in open(f) if line.strip()]
        rows += [r for r in old if (r["set"], r["scheme"], r["seed"]) not in have]
    if args.oracle:
        return oracle(rows)
    rs = rules()
    if args.rule:
        rs = {k: v for k, v in rs.items() if k in ("TIE (the defaults)", args.rule)}
        if len(rs) != 2:
            raise SystemExit(f"no rule {args.rule!r}")
    btc.replay(rows, rs, detail=args.detail, choose=choose)


if __name__ == "__main__":
    main()
