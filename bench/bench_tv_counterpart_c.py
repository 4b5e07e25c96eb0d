"""The C of the TV / Cheeger check's counterpart SVCs, replayed exactly.

``bench/bench_tv_choice.py`` records, per draw of a part of ``bench/_suite.py``,
the held-out rows each of the check's counterpart candidates gets right
(``cand``: ``SVC(C=10)`` at three RBF widths, then the linear ``SVC(C=10)``)
and its error on the unlabeled rows. This bench adds the same candidates at
other values of C to such a recording (``--augment``: SVC fits only, on the
labeled rows; the recorded C = 10 candidates are recomputed and must match)
and replays the defaults' rule (``bench_tv_choice.TIE``) with the candidate
list of each variant (``--replay``): one C for all, or the C chosen per fit
by the check's own held-out rows among a few (the candidate right on most,
ties to the earlier in the list), or the fallback decided at C = 10 (as the
defaults do) and its SVC refitted at C = 1 where that is right on more
held-out rows (:func:`chosen`; measured and not taken: the library
implementation, ``REFIT_C`` in ``semisvm/_fallback.py``, is commit b8cbadd
on branch h11h; the library's ``ADOPT_C`` since is that rule for both
families). ``--verify N`` refits every N-th draw with the library's
defaults against the replay of the library's rule today
(``bench_tv_choice.NOW``: the fallback's C = ``ADOPT_C["tv"]`` model
included; ``--verify-refit``: against :func:`chosen`, the TV side of the
same rule)::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 nice -n 10 python \\
        bench/bench_tv_counterpart_c.py --augment tune_main_a.jsonl ... --out DIR
    python bench/bench_tv_counterpart_c.py --replay DIR/tune_*.jsonl DIR/demo.jsonl
    python bench/bench_tv_counterpart_c.py --replay DIR/tune_*.jsonl --verify 6

The Laplacian family's check (LapRLS, also the guard's) keeps C = 10 in
every variant: its recorded errors are replayed as they stand; ``--lap-refit``
replays LapRLS's own check from the recording (it must match) with its
fallback refitted at C = 1 where that leads, for LapRLS and through the
guard for the TV / Cheeger fits.
"""
import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.svm import SVC

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _suite  # noqa: E402
import bench_tv_choice as btc  # noqa: E402

from semisvm._fallback import (  # noqa: E402
    RBF_WIDTHS,
    RBFWidth,
    _width_name,
    two_folds,
)
from semisvm._feature_scale import apply_scale  # noqa: E402

# (the library's ADOPT_C values among them: bench_tv_choice.ADOPT_CS)
CS = tuple(sorted({1.0, 10.0, 100.0} | set(btc.ADOPT_CS)))


def candidates(C):
    out = [(f"rbf SVC (C={C:g}, gamma={_width_name(f)})", RBFWidth(f, C=C))
           for f in RBF_WIDTHS]
    out.append((f"linear SVC (C={C:g})", SVC(kernel="linear", C=C)))
    return out


check_x = btc.check_x      # the rows as the check sees them (feature_scaling="auto")


def cand_rows(X, y_semi, Xe, ye, C):
    """The candidates at C: held-out rows right and error on ``Xe`` (rows of
    ``X``: pass the rows as the check sees them, :func:`check_x`)."""
    lab = y_semi != -1
    idx = np.flatnonzero(lab)
    classes = np.unique(y_semi[lab])
    fold, mode = two_folds(y_semi, lab)
    out = []
    for name, sup in candidates(C):
        ok, pred = btc.candidate_outcome(sup, X, y_semi, idx, fold, mode, classes, Xe)
        out.append({"name": name, "ok": ok,
                    "err": 100.0 * float(np.mean(pred != ye))})
    return out


def augment(files, outdir):
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    demo = None
    loaded = {}
    n_scaled = 0
    print(f"# load average before: {os.getloadavg()}", flush=True)
    w0, c0 = time.time(), time.process_time()
    for f in files:
        rows = [json.loads(line) for line in open(f) if line.strip()]
        with open(outdir / Path(f).name, "w") as fh:
            for r in rows:
                if r["set"] == "demo":
                    if demo is None:
                        from semisvm.cli import _demo_splits
                        demo = _demo_splits(20, 0, 3)
                    X, y, lab, Xe, ye = demo[r["seed"]]
                    y_semi = np.full(y.shape[0], -1, dtype=np.int64)
                    y_semi[lab] = y[lab]
                else:
                    key = (r["set"], r.get("max_rows", 600))
                    if key not in loaded:
                        loaded[key] = _suite.load(r["set"], max_rows=key[1])
                    d = loaded[key]
                    X, y = d.X, d.y
                    y_semi = _suite.label_draw(y, r["scheme"], r["seed"])
                    unl = y_semi == -1
                    Xe, ye = X[unl], y[unl]
                X, scale = check_x(X)
                scaled = scale is not None
                if scaled:
                    Xe = X[unl] if r["set"] != "demo" else apply_scale(Xe, scale)
                    n_scaled += 1
                # a recording whose candidates saw the check's rows (cand_x):
                # every draw compared, nothing swapped
                seen = r.get("cand_x") == "check"
                r["cand_c"] = {}
                for C in CS:
                    got = cand_rows(X, y_semi, Xe, ye, C)
                    if C == 10.0 and scaled and not seen:
                        # the recording's candidates saw the unscaled rows,
                        # the library's check the scaled ones: take these
                        r["cand_raw"], r["cand"] = r["cand"], got
                    if C == 10.0 and (seen or not scaled):
                        # (scaled draws are not compared: the recording's
                        # candidates saw other rows; the replay of the
                        # defaults against the suite's recording backs them)
                        same = all(a["ok"] == b["ok"] and abs(a["err"] - b["err"]) < 1e-9
                                   for a, b in zip(got, r["cand"]))
                        if not same:
                            raise SystemExit(f"C=10 candidates differ from the "
                                             f"recording: {r['set']} {r['scheme']} "
                                             f"{r['seed']}")
                    r["cand_c"][f"{C:g}"] = got
                fh.write(json.dumps(r) + "\n")
        print(f, len(rows), "draws", flush=True)
    print(f"# load average after: {os.getloadavg()}; wall {time.time() - w0:.0f} s, "
          f"CPU {time.process_time() - c0:.0f} s; {n_scaled} draws on scaled rows "
          f"(feature_scaling='auto')")


def variant_rows(rows, order):
    """The rows with ``cand`` the candidates at the C values of ``order``
    (the C = 10 list first when 10 leads; ties to the earlier)."""
    out = []
    for r in rows:
        r2 = dict(r)
        r2["cand"] = [c for C in order for c in r["cand_c"][f"{C:g}"]]
        out.append(r2)
    return out


VARIANTS = {
    "C = 10 (the defaults)": (10.0,),
    "C = 1": (1.0,),
    "C = 100": (100.0,),
    "C in {10, 1}, ties to 10": (10.0, 1.0),
    "C in {1, 10}, ties to 1": (1.0, 10.0),
    "C in {10, 1, 100}, ties to 10 then 1": (10.0, 1.0, 100.0),
}


def chosen(r, m, mode="same", margin=1):
    """(error, what was taken) of model m on draw r: the fallback decided as
    now (``bench_tv_choice.TIE`` on the C = 10 candidates); a fit that falls
    back then takes, instead of the chosen C = 10 SVC, the C = 1 SVC when it
    is right on at least ``margin`` more held-out rows: ``mode`` "same" (the
    chosen kernel / width at C = 1: the rule chosen on the tune part) or
    "any" (the best C = 1 candidate); ``margin`` None: no refit (the
    defaults' rule)."""
    r = dict(r, cand=r["cand_c"]["10"])
    e, what = btc.choose(r, m, btc.TIE)
    if what == "svc" and margin is not None:
        c10 = [np.array(c["ok"], bool).sum() for c in r["cand_c"]["10"]]
        c1 = [np.array(c["ok"], bool).sum() for c in r["cand_c"]["1"]]
        j = int(np.argmax(c10))
        k = j if mode == "same" else int(np.argmax(c1))
        if c1[k] >= c10[j] + margin:
            return r["cand_c"]["1"][k]["err"], "svc C=1"
    return e, what


def _cells(rows, errs):
    """(each cell's error less SVC()'s, the mean error over the cells, the
    demo draws' errors) of the errors ``errs`` of ``rows``."""
    cells, de = {}, []
    for r, e in zip(rows, errs):
        if r["set"] == "demo":
            de.append(e)
            continue
        cells.setdefault((r["set"], r["scheme"]), []).append((e, r["svc_err"]))
    d = np.array([np.mean([e for e, _ in v]) - np.mean([s for _, s in v])
                  for v in cells.values()])
    mean = np.mean([np.mean([e for e, _ in v]) for v in cells.values()])
    return dict(zip(cells, d)), mean, de


def refit_choice(rows, mode, margin=1, detail=False):
    """Worse / better cells than SVC() and mean error under :func:`chosen`."""
    res = {}
    for m in sorted({m for r in rows for m in r["models"]}):
        picks = [chosen(r, m, mode, margin) for r in rows]
        n1 = sum(what == "svc C=1" for _, what in picks)
        gaps, mean, de = _cells(rows, [e for e, _ in picks])
        d = np.array(list(gaps.values()))
        res[m] = (f"{int(np.sum(d > 2))}/{int(np.sum(d < -2))}, {mean:.2f} %, "
                  f"{n1} fits at C = 1" + (f", demo {np.mean(de):.1f}" if de else ""))
        if detail:
            print(m, "worse:", [(k, round(float(x), 1)) for k, x in gaps.items()
                                if x > 2])
    return res


def verify(rows, refit=False):
    """Refit each recorded draw's models with the library's defaults: their
    unlabeled error must be the replay's of the library's rule
    (``bench_tv_choice.NOW``; ``refit``: of :func:`chosen` with the C = 1
    refit, the library version that was measured and reverted then, the TV
    side of ``ADOPT_C`` since)."""
    if refit:
        btc.verify(rows, want=lambda r, m: chosen(r, m, margin=1), what="the refit rule")
    else:
        btc.verify(rows)


def lap_check(r, refit=False):
    """(error, fell back) of LapRLS after its own check, replayed from the
    recording (the Laplacian family's rule: the best C = 10 candidate leads
    by >= ``MIN_LEAD["laplacian"]`` = 2 held-out rows and is right on more);
    ``refit``: a fallback's SVC refitted at C = 1 where that is right on more
    held-out rows (the same kernel / width)."""
    lap = r["lap"]
    if lap["ok"] is None:
        return lap["err"], False
    la = np.array(lap["ok"], bool)
    c10 = [np.array(c["ok"], bool) for c in r["cand_c"]["10"]]
    j = int(np.argmax([o.sum() for o in c10]))
    sup = c10[j]
    lead = int(np.sum(sup & ~la)) - int(np.sum(la & ~sup))
    if not (la.sum() < sup.sum() and lead >= 2):
        return lap["err_semi"], False
    e = r["cand_c"]["10"][j]["err"]
    if refit and np.array(r["cand_c"]["1"][j]["ok"], bool).sum() > sup.sum():
        e = r["cand_c"]["1"][j]["err"]
    return e, True


def lap_refit(rows):
    """LapRLS itself, and the TV / Cheeger fits through the guard (which
    takes LapRLS after its check), with and without the C = 1 refit in
    LapRLS's check; the replay of LapRLS's check must match the recording."""
    bad = sum(1 for r in rows if abs(lap_check(r)[0] - r["lap"]["err"]) > 1e-9
              or lap_check(r)[1] != r["lap"]["fell_back"])
    print(f"LapRLS's check replayed: {len(rows) - bad} of {len(rows)} draws match the "
          f"recording")

    def cells_of(f):
        gaps, mean, de = _cells(rows, [f(r) for r in rows])
        d = np.array(list(gaps.values()))
        return (f"{int(np.sum(d > 2))}/{int(np.sum(d < -2))}, {mean:.2f} %"
                + (f", demo {np.mean(de):.1f}" if de else ""))

    models = sorted({m for r in rows for m in r["models"]})
    for refit in (False, True):
        out = [f"LapRLS {cells_of(lambda r: lap_check(r, refit)[0])}"]
        for m in models:
            def tv(r, m=m):
                r2 = dict(r, cand=r["cand_c"]["10"])
                r2["lap"] = dict(r["lap"], err=lap_check(r, refit)[0])
                return btc.choose(r2, m, btc.TIE)[0]
            out.append(f"{m} {cells_of(tv)}")
        print("LapRLS's fallback refitted at C = 1 where it leads:" if refit
              else "LapRLS's check as now (C = 10):", " | ".join(out))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--augment", nargs="+", default=None)
    ap.add_argument("--out", default=None)
    ap.add_argument("--replay", nargs="+", default=None)
    ap.add_argument("--variants", nargs="+", default=None,
                    help="replay only these variants (names of VARIANTS)")
    ap.add_argument("--detail", action="store_true", help="list the worse cells")
    ap.add_argument("--verify", type=int, default=0, metavar="N",
                    help="with --replay: refit every N-th recorded draw's models "
                         "with the defaults and compare with the replay")
    ap.add_argument("--lap-refit", action="store_true",
                    help="with --replay: LapRLS's check (and the guard) with its "
                         "fallback refitted at C = 1 where that leads")
    ap.add_argument("--verify-refit", action="store_true",
                    help="with --verify: against the refit rule (commit b8cbadd's library)")
    args = ap.parse_args()
    if args.augment:
        return augment(args.augment, args.out)
    rows = [json.loads(line) for f in args.replay for line in open(f) if line.strip()]
    if args.lap_refit:
        return lap_refit(rows)
    if args.verify:
        return verify(rows[::args.verify], refit=args.verify_refit)
    for mode in ("same", "any"):
        for margin in (1, 2):
            print(f"## fallback decided at C = 10; then C = 1 ({mode}) where it leads "
                  f"by >= {margin}" + (" (chosen on the tune part)"
                                       if (mode, margin) == ("same", 1) else "") + ":",
                  refit_choice(rows, mode, margin, detail=args.detail))
    for name, order in VARIANTS.items():
        if args.variants and name not in args.variants:
            continue
        print(f"## {name}")
        btc.replay(variant_rows(rows, order), {"tie rule (the defaults' rule)": btc.TIE},
                   detail="tie rule (the defaults' rule)" if args.detail else None)
    return None


if __name__ == "__main__":
    main()
