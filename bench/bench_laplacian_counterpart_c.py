"""The C of the Laplacian family's counterpart SVCs, replayed exactly (and through the TV / Cheeger guard).

LapSVM's and LapRLS's ``safe="auto"`` check (family ``"laplacian"``) chooses
its counterpart among ``SVC(C=10)`` at three RBF widths and the linear
``SVC(C=10)``; the TV / Cheeger estimators' Laplacian guard takes LapRLS's
model as it stands after that check. This bench adds the same four
candidates at C = 1 to a ``bench/bench_laplacian_choice.py`` recording
(``--augment``: SVC fits only; the recomputed C = 10 candidates must equal the
recorded ones; a ``bench/bench_tv_choice.py`` recording is augmented by
``bench/bench_tv_counterpart_c.py --augment``) and replays, on the draws with a
label check:

* the check's candidates at C = 1 from ``k`` labels in the smallest class,
  for two-class problems only, everywhere, or C chosen by the folds among
  both (ties to 10 or to 1), with the family's rule
  (``bench_laplacian_choice.CHOSEN``); for LapSVM / LapRLS from the
  Laplacian recording, for the TV / Cheeger models through the guard (their
  own check ``bench_tv_choice.TIE``, at C = 10 or 1 on two classes) from the
  TV recording;
* the fallback decided at C = 10 (as the defaults) and the C = 1 SVC of the
  chosen kernel / width adopted: always, or where it is right on at least
  ``margin`` more held-out rows than the C = 10 one (two classes only).

Draws without a label check keep their recorded outcome (the rules do not
run there); ``--cut`` takes the TV / Cheeger models' defaults on those draws
from a ``bench/bench_graph_cut.py`` recording (the ``TIE`` replay does not
follow the cut check) for main's own figures (``--main``)::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 nice -n 10 python \\
        bench/bench_laplacian_choice.py --part tune --jsonl lap_tune.jsonl
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 nice -n 10 python \\
        bench/bench_tv_choice.py --part tune --cases both --jsonl tv_tune.jsonl
    python bench/bench_laplacian_counterpart_c.py --augment lap_tune.jsonl --out aug
    python bench/bench_tv_counterpart_c.py --augment tv_tune.jsonl --out aug
    python bench/bench_laplacian_counterpart_c.py --lap aug/lap_tune.jsonl \\
        --tv aug/tv_tune.jsonl [--detail]
    python bench/bench_laplacian_counterpart_c.py --main --lap lap_report.jsonl \\
        --tv tv_report.jsonl --cut cut_report.jsonl

``--adopt`` replays, for all six models, the fallback decided at C = 10 with
the C = 1 SVC of the chosen width adopted by the Laplacian check, the TV /
Cheeger check or both (``ADOPT_VARIANTS``; ties to C = 1, or where C = 1 is
right on more held-out rows: the library's ``ADOPT_C`` since), the TV /
Cheeger draws without a label check taken from a ``bench/bench_graph_cut.py``
recording (``--cut``) or a ``bench/bench_graph_tv_suite.py`` one (``--suite``:
also checks the replayed defaults against it, draw by draw)::

    python bench/bench_laplacian_counterpart_c.py --adopt --lap aug/lap_tune.jsonl \\
        --tv aug/tv_tune.jsonl aug/tv_demo.jsonl --cut cut_tune.jsonl [--detail]
    python bench/bench_laplacian_counterpart_c.py --adopt --lap aug/lap_fresh.jsonl \\
        --tv aug/tv_fresh.jsonl --suite suite_fresh.jsonl

The replays first check the recordings against the library's rule at the
time (printed: the rule with C = 10 only, before ``ADOPT_C``, and the
library's rule now, the fallback's model at C = ``ADOPT_C[family]`` where
right on more held-out rows; one of them must match every draw).

Worse / better cells than ``SVC()`` on the labels by more than 2 points,
mean error over the cells (and with ``--tv`` holding ``--demo`` draws, the
mean test error of the ``semisvm demo`` draws: a target, not a part).
"""
import argparse
import functools
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _suite  # noqa: E402
import bench_laplacian_choice as blc  # noqa: E402
import bench_tv_choice as btc  # noqa: E402
import bench_tv_counterpart_c as btcc  # noqa: E402

from semisvm._fallback import ADOPT_C  # noqa: E402

TV_MODELS = ("CheegerRLS", "CheegerSVM", "TVRLS", "TVSVM")


def library_adopt(family):
    """(margin, C) of the library's fallback model for ``family``
    (``ADOPT_C``: the chosen kernel / width at C where it is right on more
    held-out rows, on any number of classes), or (None, None)."""
    C = ADOPT_C[family]
    return (None, None) if C is None else (1, float(C))


def _load(path):
    return [json.loads(line) for line in open(path) if line.strip()]


def augment(files, outdir):
    """The four candidates at C = 1 (and 10, checked) of each recorded draw
    of a bench_laplacian_choice recording, and the smallest class's count."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    loaded = {}
    n_scaled = 0
    for f in files:
        rows = _load(f)
        with open(outdir / Path(f).name, "w") as fh:
            for r in rows:
                key = (r["set"], r.get("max_rows", 600))
                if key not in loaded:
                    loaded[key] = _suite.load(r["set"], max_rows=key[1])
                d = loaded[key]
                y_semi = _suite.label_draw(d.y, r["scheme"], r["seed"])
                unl = y_semi == -1
                # the rows as the check sees them (feature_scaling="auto")
                X, scale = btcc.check_x(d.X)
                scaled = scale is not None
                # a recording whose candidates saw the check's rows (cand_x):
                # every draw compared, nothing swapped
                seen = r.get("cand_x") == "check"
                r["cand_c"] = {}
                for C in sorted({1.0, 10.0} | set(btc.ADOPT_CS)):
                    got = btcc.cand_rows(X, y_semi, X[unl], d.y[unl], C)
                    if C == 10.0 and scaled and not seen:
                        # the recording's candidates saw the unscaled rows
                        r["cand_raw"], r["cand"] = r["cand"], got
                        n_scaled += 1
                    # (scaled draws are not compared: the recording's
                    # candidates saw other rows; the replay of the defaults
                    # against the suite's recording backs them)
                    if C == 10.0 and (seen or not scaled) and not all(
                            a["ok"] == b["ok"] and abs(a["err"] - b["err"]) < 1e-9
                            for a, b in zip(got, r["cand"])):
                        raise SystemExit(f"C=10 candidates differ from the recording: "
                                         f"{r['set']} {r['scheme']} {r['seed']}")
                    r["cand_c"][f"{C:g}"] = got
                fh.write(json.dumps(r) + "\n")
        print(f, len(rows), "draws", flush=True)
    print(n_scaled, "draws on scaled rows (feature_scaling='auto')")


def _n_classes(rows):
    out = {s: int(np.unique(_labels_of(s, m)).size)
           for s, m in {(r["set"], r.get("max_rows", 600)) for r in rows
                        if r["set"] != "demo"}}
    out["demo"] = 2         # digits 2, 3, 5 against 6, 8, 9 (semisvm.cli._demo_splits)
    return out


@functools.lru_cache(maxsize=None)
def _labels_of(name, max_rows=600):
    return _suite.load(name, max_rows=max_rows).y


def _min_class(r):
    if r["set"] == "demo":
        return 10           # 20 labels, 10 per class
    y_semi = _suite.label_draw(_labels_of(r["set"], r.get("max_rows", 600)),
                               r["scheme"], r["seed"])
    return int(np.unique(y_semi[y_semi != -1], return_counts=True)[1].min())


def lap_error(rec, r, cands, adopt=None, two=True, C=1.0):
    """Laplacian model record ``rec`` on draw ``r``: its error under the
    family's rule with the candidates ``cands``; ``adopt`` (a margin, or
    None): on a fallback, the C = ``C`` SVC of the chosen candidate's kernel
    / width where it is right on at least ``adopt`` more held-out rows (only
    where ``two``: the labels hold two classes)."""
    if rec["ok"] is None:
        return rec["err"]
    e, what = blc.choose({"cand": cands, "models": {"m": rec}}, "m", blc.CHOSEN)
    if what == "svc" and adopt is not None and two:
        c10 = [sum(c["ok"]) for c in r["cand_c"]["10"]]
        j = int(np.argmax(c10))
        alt = r["cand_c"][btc.c_key(C)]
        if sum(alt[j]["ok"]) >= c10[j] + adopt:
            return alt[j]["err"]
    return e


def _cells(rows, errs):
    cells, demo = {}, []
    for r, e in zip(rows, errs):
        if r["set"] == "demo":
            demo.append(e)
        else:
            cells.setdefault((r["set"], r["scheme"]), []).append((e, r["svc_err"]))
    gap = {k: np.mean([e for e, _ in v]) - np.mean([s for _, s in v]) for k, v in cells.items()}
    mean = np.mean([np.mean([e for e, _ in v]) for v in cells.values()])
    return gap, mean, demo


def _fmt(rows, errs, detail):
    gap, mean, demo = _cells(rows, errs)
    d = np.array(list(gap.values()))
    s = f"{int(np.sum(d > 2))}/{int(np.sum(d < -2))}, {mean:.2f} %"
    if demo:
        s += f", demo {np.mean(demo):.1f}"
    if detail:
        s += " [" + ", ".join(f"{a}/{b} {x:+.1f}" for (a, b), x in sorted(gap.items())
                              if x > 2) + "]"
    return s


def variants(ncls, min_class):
    """name -> (the Laplacian candidates of a draw, the TV check's, adopt margin)."""
    two = lambda r: ncls[r["set"]] == 2                    # noqa: E731
    c10 = lambda r: r["cand_c"]["10"]                     # noqa: E731
    c1 = lambda r: r["cand_c"]["1"]                       # noqa: E731
    out = {"defaults (C = 10)": (c10, c10, None)}
    for k in (4, 6, 8, 10, 12, 15, 20, 25):
        out[f"Laplacian C = 1 from {k} labels in the smallest class"] = (
            lambda r, k=k: c1(r) if min_class(r) >= k else c10(r), c10, None)
    out["Laplacian C in {10, 1}, ties to 10"] = (lambda r: c10(r) + c1(r), c10, None)
    out["Laplacian C in {1, 10}, ties to 1"] = (lambda r: c1(r) + c10(r), c10, None)
    out["Laplacian C = 1 on two classes (TV check C = 10)"] = (
        lambda r: c1(r) if two(r) else c10(r), c10, None)
    out["Laplacian C = 1 everywhere (TV check C = 10)"] = (c1, c10, None)
    out["both families C = 1 on two classes"] = (
        lambda r: c1(r) if two(r) else c10(r), lambda r: c1(r) if two(r) else c10(r), None)
    out["TV check C = 1 on two classes (Laplacian C = 10)"] = (
        c10, lambda r: c1(r) if two(r) else c10(r), None)
    for name, margin in (("always", -10 ** 6), ("where right on >= the C = 10 one's rows", 0),
                         ("where right on more", 1)):
        out[f"Laplacian fallback decided at C = 10, adopts C = 1 {name}"] = (
            c10, c10, margin)
    return out


def replay(lap_rows, tv_rows, detail=False):
    ncls = _n_classes((lap_rows or []) + (tv_rows or []))
    counts = {}

    def min_class(r):
        key = (r["set"], r["scheme"], r["seed"])
        if key not in counts:
            counts[key] = _min_class(r)
        return counts[key]

    margin, C = library_adopt("laplacian")
    rules = (("the rule with C = 10 only (before ADOPT_C)", None, 1.0),
             ("the library's rule now (ADOPT_C)", margin, C))
    if tv_rows:
        for what, a, c in rules:
            bad = sum(abs(lap_error(r["lap"], r, r["cand_c"]["10"], a, True, c)
                          - r["lap"]["err"]) > 1e-9 for r in tv_rows)
            print(f"LapRLS's check replayed from the TV recording, {what}: "
                  f"{len(tv_rows) - bad} of {len(tv_rows)} draws match it")
    if lap_rows:
        for what, a, c in rules:
            bad = sum(abs(lap_error(r["models"][m], r, r["cand_c"]["10"], a, True, c)
                          - r["models"][m]["err"]) > 1e-9
                      for r in lap_rows for m in r["models"])
            print(f"LapSVM / LapRLS replayed, {what}: {bad} fits differ from the recording")
    print("(one of the two, the library's when recording, must match every draw)")
    models = (["LapRLS", "LapSVM"] if lap_rows else []) + (list(TV_MODELS) if tv_rows else [])
    print("| rule | " + " | ".join(models) + " |")
    print("|---|" + "---|" * len(models))
    for name, (lapc, tvc, adopt) in variants(ncls, min_class).items():
        out = []
        if lap_rows:
            for m in ("LapRLS", "LapSVM"):
                out.append(_fmt(lap_rows, [
                    lap_error(r["models"][m], r, lapc(r), adopt, ncls[r["set"]] == 2)
                    for r in lap_rows], detail))
        if tv_rows:
            lap_err = [lap_error(r["lap"], r, lapc(r), adopt, ncls[r["set"]] == 2)
                       for r in tv_rows]
            for m in TV_MODELS:
                out.append(_fmt(tv_rows, [
                    btc.choose(dict(r, cand=tvc(r), lap=dict(r["lap"], err=e)), m, btc.TIE)[0]
                    for r, e in zip(tv_rows, lap_err)], detail))
        print(f"| {name} | " + " | ".join(out) + " |")


def adopt_c1(r, e, adopt, two, C=1.0):
    """A fallback's error ``e`` replaced by the C = ``C`` SVC's of the chosen
    candidate's kernel / width (the chosen one: the C = 10 candidate right on
    most held-out rows, ties to the earlier) where that is right on at least
    ``adopt`` more held-out rows (0: ties to C = 1); only where ``two`` (the
    labels hold two classes) is true."""
    if adopt is None or not two:
        return e
    c10 = [sum(c["ok"]) for c in r["cand_c"]["10"]]
    j = int(np.argmax(c10))
    alt = r["cand_c"][btc.c_key(C)]
    if sum(alt[j]["ok"]) >= c10[j] + adopt:
        return alt[j]["err"]
    return e


def tv_error(r, m, lap_err, adopt=None, two=True, C=1.0):
    """TV / Cheeger model ``m`` on draw ``r``: the defaults' rule
    (``bench_tv_choice.TIE``, C = 10 candidates) with the guard's LapRLS at
    ``lap_err``; a fallback of its own check takes the C = 1 SVC as in
    :func:`adopt_c1`. None for a draw without a label check (the guard
    alone: the caller takes it from a recording that follows the cut check)."""
    r2 = dict(r, cand=r["cand_c"]["10"], lap=dict(r["lap"], err=lap_err))
    e, what = btc.choose(r2, m, btc.TIE)
    if r["models"][m]["ok"] is None:
        return None
    return adopt_c1(r, e, adopt, two, C) if what == "svc" else e


# the fallback decided at C = 10; then the C = 1 SVC of the chosen width
# where it is right on at least as many held-out rows (margin 0: ties to
# C = 1) or on more (margin 1): for the Laplacian check (LapSVM, LapRLS and
# the TV / Cheeger guard's LapRLS), the TV / Cheeger check, or both; on
# two-class labels or on any. (lap margin, TV margin, two classes only).
# Chosen on the tune part and declared before the report and fresh parts:
# both checks, margin 1, any classes (the library's ADOPT_C since)
ADOPT_VARIANTS = {
    "defaults (C = 10)": (None, None, True),
    "Laplacian check adopts C = 1 (ties to 1), two classes": (0, None, True),
    "TV / Cheeger check adopts C = 1 (ties to 1), two classes": (None, 0, True),
    "both checks adopt C = 1 (ties to 1), two classes": (0, 0, True),
    "Laplacian check adopts C = 1 (ties to 1), any classes": (0, None, False),
    "TV / Cheeger check adopts C = 1 (ties to 1), any classes": (None, 0, False),
    "both checks adopt C = 1 (ties to 1), any classes": (0, 0, False),
    "both checks adopt C = 1 where right on more, two classes": (1, 1, True),
    "Laplacian check adopts C = 1 where right on more, two classes": (1, None, True),
    "TV / Cheeger check adopts C = 1 where right on more, two classes": (None, 1, True),
    "both checks adopt C = 1 where right on more, any classes": (1, 1, False),
}


def _suite_errs(path):
    """(set, scheme, seed) -> {model: error} of a bench_graph_tv_suite.py
    recording (the library's defaults, the cut check included)."""
    out = {}
    for r in _load(path):
        if r.get("tag", "") == "":
            out.setdefault((r["set"], r["scheme"], r["seed"]), {})[r["model"]] = r["err"]
    return out


def adopt_replay(lap_rows, tv_rows, suite=None, cut_rows=None, detail=False):
    """Worse / better cells than ``SVC()`` and mean error of the six under
    ``ADOPT_VARIANTS``. Draws without a label check keep the defaults (no
    rule runs there): LapSVM / LapRLS as recorded, the TV / Cheeger four
    from ``suite`` (a bench_graph_tv_suite recording) or ``cut_rows`` (a
    bench_graph_cut recording); with ``suite`` the replayed defaults are
    checked draw by draw against it. A variant passes (the choice on the
    tune part) where no model's worse cells rise and no model's mean error
    rises by more than 0.05 point against the defaults."""
    ncls = _n_classes(lap_rows + tv_rows)
    cut = {(r["set"], r["scheme"], r["seed"]): r for r in (cut_rows or [])}
    key = lambda r: (r["set"], r["scheme"], r["seed"])     # noqa: E731
    tv_main = [r for r in tv_rows if r["set"] != "demo"]
    demo = [r for r in tv_rows if r["set"] == "demo"]

    def unchecked(r, m):
        k = key(r)
        if suite is not None:
            return suite[k][m]
        if k in cut:
            return cut[k][m]["after"]["err"]
        raise SystemExit(f"{k}: no label check and no recording of the defaults there")

    def errs(lap_adopt, tv_adopt, two_only, lap_c=1.0, tv_c=1.0):
        out = {}
        for m in ("LapRLS", "LapSVM"):
            out[m] = [lap_error(r["models"][m], r, r["cand_c"]["10"], lap_adopt,
                                ncls[r["set"]] == 2 or not two_only, lap_c) for r in lap_rows]
        for m in TV_MODELS:
            col = []
            for r in tv_main + demo:
                two = ncls[r["set"]] == 2 or not two_only
                e = tv_error(r, m, lap_error(r["lap"], r, r["cand_c"]["10"], lap_adopt, two,
                                             lap_c), tv_adopt, two, tv_c)
                col.append(unchecked(r, m) if e is None else e)
            out[m] = col
        return out

    models = ["LapSVM", "LapRLS"] + list(TV_MODELS)
    rows_of = {m: (lap_rows if m in ("LapRLS", "LapSVM") else tv_main + demo) for m in models}
    base = errs(None, None, True)
    if suite is not None:
        (la, lc), (ta, tc) = library_adopt("laplacian"), library_adopt("tv")
        now = errs(la, ta, False, lc or 1.0, tc or 1.0)
        for what, ev in (("the rule with C = 10 only (before ADOPT_C)", base),
                         ("the library's rule now (ADOPT_C)", now)):
            bad = n = 0
            for m in models:
                for r, e in zip(rows_of[m], ev[m]):
                    if r["set"] == "demo":
                        continue
                    n += 1
                    if abs(e - suite[key(r)][m]) > 1e-9:
                        bad += 1
                        if bad <= 10:
                            print(f"replayed ({what}) differs:", key(r), m, e,
                                  suite[key(r)][m])
            print(f"replayed defaults, {what}, against the suite recording: {n - bad} of "
                  f"{n} fits match")
        print("(one of the two, the library's when recording, must match every fit)")
    stats = {}
    print("| variant | " + " | ".join(models) + " | passes |")
    print("|---|" + "---|" * (len(models) + 1))
    for name, (la, ta, two_only) in ADOPT_VARIANTS.items():
        ev = errs(la, ta, two_only)
        cells = []
        ok = True
        for m in models:
            gap, mean, de = _cells(rows_of[m], ev[m])
            d = np.array(list(gap.values()))
            st = (int(np.sum(d > 2)), int(np.sum(d < -2)), mean, gap,
                  np.mean(de) if de else None)
            stats[(name, m)] = st
            b = stats[("defaults (C = 10)", m)]
            ok &= st[0] <= b[0] and st[2] <= b[2] + 0.05
            cells.append(f"{st[0]}/{st[1]}, {st[2]:.2f} %" +
                         (f", demo {st[4]:.1f}" if st[4] is not None else ""))
        print(f"| {name} | " + " | ".join(cells) + f" | {'yes' if ok else 'no'} |")
    print("(worse / better cells than SVC() on the labels by > 2 points, mean error over "
          "the cells; demo: the semisvm demo draws' mean test error, LinearSVM "
          + (f"{np.mean([r['linear_err'] for r in demo]):.1f} %)" if demo else "-)"))
    if detail:
        for name in list(ADOPT_VARIANTS)[1:]:
            for m in models:
                g0 = stats[("defaults (C = 10)", m)][3]
                g1 = stats[(name, m)][3]
                ch = [f"{k[0]}/{k[1]} {g0[k]:+.1f} -> {g1[k]:+.1f}" for k in sorted(g0)
                      if (g0[k] > 2) != (g1[k] > 2) or (g0[k] < -2) != (g1[k] < -2)]
                if ch:
                    print(f"{name} | {m}: " + ", ".join(ch))
        print("worse cells of the defaults:")
        for m in models:
            g0 = stats[("defaults (C = 10)", m)][3]
            print(f"  {m}: " + ", ".join(f"{k[0]}/{k[1]} {x:+.1f}" for k, x in sorted(g0.items())
                                        if x > 2))


def main_figures(lap_rows, tv_rows, cut_rows):
    """The six models' cells with the defaults: LapSVM / LapRLS as recorded,
    TV / Cheeger by ``TIE`` where the label check ran and as refitted by
    bench_graph_cut.py (the cut check) where it did not."""
    cut = {(r["set"], r["scheme"], r["seed"]): r for r in cut_rows}
    for m in ("LapRLS", "LapSVM"):
        print(m, _fmt(lap_rows, [r["models"][m]["err"] for r in lap_rows], True))
    for m in TV_MODELS:
        errs = []
        for r in tv_rows:
            key = (r["set"], r["scheme"], r["seed"])
            if key in cut:
                if r["models"][m]["ok"] is not None:
                    raise SystemExit(f"{key}: a label check ran on a draw of the cut recording")
                errs.append(cut[key][m]["after"]["err"])
            else:
                errs.append(btc.choose(r, m, btc.TIE)[0])
        print(m, _fmt([r for r in tv_rows], errs, True))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--augment", nargs="+", default=None,
                    help="bench_laplacian_choice recordings to augment")
    ap.add_argument("--out", default=None)
    ap.add_argument("--lap", default=None, help="an augmented bench_laplacian_choice recording")
    ap.add_argument("--tv", nargs="+", default=None,
                    help="augmented bench_tv_choice recordings (bench_tv_counterpart_c)")
    ap.add_argument("--cut", default=None, help="a bench_graph_cut recording (with --main)")
    ap.add_argument("--main", action="store_true",
                    help="the defaults' figures for the six (no C = 1 candidates needed)")
    ap.add_argument("--detail", action="store_true", help="list the worse cells")
    ap.add_argument("--adopt", action="store_true",
                    help="the C = 10 decision with the C = 1 SVC of the chosen width "
                         "adopted (ADOPT_VARIANTS), for the six (needs --cut or --suite)")
    ap.add_argument("--suite", default=None,
                    help="a bench_graph_tv_suite.py recording of the defaults (with "
                         "--adopt: the draws without a label check, and a check of the "
                         "replayed defaults)")
    args = ap.parse_args()
    if args.augment:
        return augment(args.augment, args.out)
    lap_rows = _load(args.lap) if args.lap else None
    tv_rows = [r for f in (args.tv or []) for r in _load(f)] or None
    if args.adopt:
        if not (lap_rows and tv_rows and (args.cut or args.suite)):
            raise SystemExit("--adopt needs --lap, --tv and --cut or --suite")
        return adopt_replay(lap_rows, tv_rows,
                            suite=_suite_errs(args.suite) if args.suite else None,
                            cut_rows=_load(args.cut) if args.cut else None,
                            detail=args.detail)
    if args.main:
        if not (lap_rows and tv_rows and args.cut):
            raise SystemExit("--main needs --lap, --tv and --cut")
        return main_figures(lap_rows, tv_rows, _load(args.cut))
    return replay(lap_rows, tv_rows, detail=args.detail)


if __name__ == "__main__":
    main()
