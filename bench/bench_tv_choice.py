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
  its error on the unlabeled rows trained on all labels (``err``), computed
  on the rows as the check sees them (:func:`check_x`: ``feature_scaling="auto"``
  applied; ``cand_x``: "check"); and the same candidates at each C of the
  library's ``ADOPT_C`` (``cand_c``, keyed by C: the fallback's model at
  C = 1 where that is right on more held-out rows);
* ``LapRLS()`` (its defaults, ``safe="auto"``): its held-out rows
  (``ok``), its error before (``err_semi``) and after its own check;
* each TV / Cheeger model with its defaults and the guard off: its
  held-out rows, its error before its check (``err_semi``), and the share of
  the unlabeled rows on which it agrees with LapRLS's own fit;
* ``SVC()`` on the labels (the suite's reference);

and ``--replay`` evaluates choice rules exactly (every input of a rule is
recorded; ``NOW`` is the library's rule today: ``TIE`` and the fallback's
SVC at C = ``ADOPT_C["tv"]`` where that is right on more held-out rows,
replayed where the recording holds those candidates). Choose on the tune
part only::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 nice -n 10 python \\
        bench/bench_tv_choice.py --part tune --cases main --jsonl tune_choice_main.jsonl
    python bench/bench_tv_choice.py --replay tune_choice_main.jsonl tune_choice_classic.jsonl

``--variants`` replays the variants tried after the LapRLS rival instead of
``RULES``; ``--demo`` records the ``semisvm demo`` draws (errors on the test
rows, LinearSVM's too), which a replay shows in a column of their own (a
target, not a part to tune on: the demo is drawn from the report part's
digits set); ``--replay FILES --verify N`` refits the first N recorded draws
with the defaults and checks them against the replay of ``NOW`` (the
library's rule: a recording made with today's library replays with 0
differences; one made before ``ADOPT_C``, or without the C = 1 candidates,
against ``TIE``: ``--verify-rule TIE``).
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

from semisvm import (  # noqa: E402
    TVRLS,
    TVSVM,
    CheegerRLS,
    CheegerSVM,
    LapRLS,
    LinearSVM,
    _fallback,
    _registry,
)
from semisvm._fallback import (  # noqa: E402
    ADOPT_C,
    _decide,
    _labels,
    counterpart_at_c,
    counterpart_name_at_c,
    fit_counterpart,
    graph_cut_ratio,
    supervised_candidates,
    two_folds,
)
from semisvm._feature_scale import apply_scale, feature_scale  # noqa: E402

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


def candidate_outcome(sup, X, y_semi, idx, fold, mode, classes, Xe, decision=False):
    """One counterpart candidate as the check sees it: its held-out rows
    right (0/1 per labeled row in the two folds' order, None where the folds
    do not run) and its labels of ``Xe`` fitted on all the labels (with
    ``decision``: also its decision values there)."""
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
    F = _decide(Xe, X[idx] if basis is None else basis, coef, b, g)
    pred = _labels(F, classes)
    if decision:
        return ok, pred, F
    return ok, pred


def check_x(X):
    """The rows the estimators' check sees: X with ``feature_scaling="auto"``
    applied (each column divided by its std where the columns' spreads are
    far apart, e.g. the suite's breast_cancer_raw and moons_r), and the
    columns' scale (None: not scaled)."""
    s = feature_scale(X, "auto")
    return (X, None) if s is None else (apply_scale(X, s), s)


# the C values of the fallback's model the library may adopt (ADOPT_C), and
# the decision's: the candidates recorded at each (``cand_c``)
ADOPT_CS = tuple(sorted({float(c) for c in ADOPT_C.values() if c is not None}))


def c_key(C):
    """``cand_c``'s key of the candidates at ``C``."""
    return f"{C:g}"


def record_candidates(X, y_semi, Xe, ye, Cs=ADOPT_CS):
    """The check's candidates (``supervised_candidates("rbf")``, C = 10) and
    the same kernels / widths at each C of ``Cs`` (``counterpart_at_c``, as
    the library's fallback fits them), as the check sees them: pass ``X``
    and ``Xe`` (the rows scored, e.g. the unlabeled ones) through
    :func:`check_x` first. Returns ``{C key: [{"name", "ok", "err"}]}``, the
    C = 10 list under "10"."""
    from semisvm._fallback import COUNTERPART_C
    lab = y_semi != -1
    idx = np.flatnonzero(lab)
    classes = np.unique(y_semi[lab])
    fold, mode = two_folds(y_semi, lab)
    out = {}
    for C in (COUNTERPART_C,) + tuple(c for c in Cs if c != COUNTERPART_C):
        got = []
        for name, sup in supervised_candidates("rbf", idx.size):
            if C != COUNTERPART_C:
                name, sup = counterpart_name_at_c(name, C), counterpart_at_c(sup, C)
            ok, pred = candidate_outcome(sup, X, y_semi, idx, fold, mode, classes, Xe)
            got.append({"name": name, "ok": ok,
                        "err": 100.0 * float(np.mean(np.asarray(pred) != ye))})
        out[c_key(C)] = got
    return out


class _CutInputs:
    """While the recording fits a TV / Cheeger model with the guard off,
    stands in for its cut check (``semisvm._tv_check.cut_fallback``) and
    records what the cut check would read with the guard on, where no label
    check ran (``unlabeled_gain_`` None): the Cheeger ratios on the fit's
    graph of its own labels (``cut_own``), of the guard's LapRLS's
    (``_fit_laplacian``: no cut check of its own; ``cut_lap``, and those
    labels, ``lap_guard``) and of the first candidate SVC's (``cut_svc``);
    then runs the cut check as it is."""

    def __init__(self):
        self.got = {}

    def __enter__(self):
        import semisvm._tv_check as tvc
        self._mod, self._real = tvc, tvc.cut_fallback

        def wrapped(est, X, y, W, adopt, *, kernel):
            y = np.asarray(y)
            lab = y != -1
            if (W is not None and getattr(est, "unlabeled_gain_", None) is None
                    and not est.fell_back_ and isinstance(kernel, str) and kernel == "rbf"
                    and not lab.all()):
                idx, unl = np.flatnonzero(lab), np.flatnonzero(~lab)
                own = np.asarray(est.transduction_)
                got = {"cut_own": graph_cut_ratio(W, own)}
                lap = est._fit_laplacian(X, y)
                if lap is not None:
                    got["lap_guard"] = np.asarray(lap.transduction_)
                    got["cut_lap"] = graph_cut_ratio(W, got["lap_guard"])
                sup = supervised_candidates(kernel, idx.size)[0][1]
                basis, coef, b, g = fit_counterpart(sup, X[idx], y[idx], est.classes_)
                svc = own.copy()
                svc[idx] = y[idx]
                svc[unl] = _labels(_decide(X[unl], X[idx] if basis is None else basis,
                                           coef, b, g), est.classes_)
                got["cut_svc"] = graph_cut_ratio(W, svc)
                self.got = got
            return self._real(est, X, y, W, adopt, kernel=kernel)

        tvc.cut_fallback = wrapped
        return self

    def __exit__(self, *exc):
        self._mod.cut_fallback = self._real


def _f(F):
    """Decision values for a record (binary: one column as a list)."""
    F = np.asarray(F, dtype=np.float64)
    return (F[:, 0] if F.ndim == 2 and F.shape[1] == 1 else F).tolist()


def record(X, y_semi, y, models, X_test=None, y_test=None, scores=False):
    """One draw's record. With ``X_test`` (the ``semisvm demo`` draws) every
    error is the test rows' (``predict``), else the unlabeled rows'. With
    ``scores`` also the decision values a blend needs: the true labels of
    the scored rows (``y``), each candidate's decision there fitted on all
    the labels (``F``; on the demo draws also on the unlabeled training rows,
    ``F_unl``) and each model's own fit's (its ``result_.decision`` on the
    unlabeled rows; on the demo draws ``F`` on the test rows and ``F_unl``)."""
    lab = y_semi != -1
    idx = np.flatnonzero(lab)
    unl = np.flatnonzero(~lab)
    classes = np.unique(y_semi[lab])
    fold, mode = two_folds(y_semi, lab)
    out = {"mode": mode, "cand": [], "cand_x": "check"}
    # the candidates see the rows as the check does (feature_scaling="auto")
    Xc, scale = check_x(X)
    if X_test is None:
        Xe, ye = X[unl], y[unl]
        Xce = Xc[unl]
    else:
        Xe, ye = X_test, y_test
        Xce = Xe if scale is None else apply_scale(Xe, scale)
        # the demo's baseline row: LinearSVM with the demo's parameters
        lin = next(a for a in _registry.ALGORITHMS if a.name == "linear")
        out["linear_err"] = 100.0 * float(np.mean(
            LinearSVM(**lin.demo_params).fit(X[idx], y_semi[idx]).predict(Xe) != ye))

    def err(pred):
        return 100.0 * float(np.mean(np.asarray(pred) != ye))

    def own_err(est, cls, **kw):
        # the semi-supervised fit's own error (before any fallback)
        if X_test is None:
            return err(_own(est)[unl])
        plain, _ = _fit(cls, X, y_semi, safe=False, **kw)
        return err(plain.predict(Xe))

    out["svc_err"] = err(SVC().fit(X[idx], y_semi[idx]).predict(Xe))
    if scores:
        out["y"] = np.searchsorted(classes, ye).tolist()
    for name, sup in supervised_candidates("rbf", idx.size):
        ok, pred, F = candidate_outcome(sup, Xc, y_semi, idx, fold, mode, classes, Xce,
                                        decision=True)
        out["cand"].append({"name": name, "ok": ok, "err": err(pred)})
        if scores:
            out["cand"][-1]["F"] = _f(F)
            if X_test is not None:
                out["cand"][-1]["F_unl"] = _f(candidate_outcome(
                    sup, Xc, y_semi, idx, fold, "none", classes, Xc[unl], decision=True)[2])
    # the same kernels / widths at the C of the fallback's model (ADOPT_C)
    out["cand_c"] = record_candidates(Xc, y_semi, Xce, ye)
    out["cand_c"][c_key(10.0)] = [{k: c[k] for k in ("name", "ok", "err")}
                                  for c in out["cand"]]
    kw = {} if X_test is None else {"random_state": 0}
    lap, cpu = _fit(LapRLS, X, y_semi, **kw)
    lt = _own(lap)[unl]
    out["lap"] = {"ok": _ok(lap), "err_semi": own_err(lap, LapRLS, **kw),
                  "err": err(lap.transduction_[unl] if X_test is None
                             else lap.predict(Xe)),
                  "fell_back": bool(lap.fell_back_), "cpu": cpu}
    guard = _fallback.GUARD_AGREEMENT
    _fallback.GUARD_AGREEMENT = None
    try:
        out["models"] = {}
        for m in models:
            with _CutInputs() as cut:
                est, cpu = _fit(MODELS[m], X, y_semi, **kw)
            t = _own(est)[unl]
            out["models"][m] = {
                "ok": _ok(est), "err_semi": own_err(est, MODELS[m], **kw),
                "agree": float(np.mean(t == lt)), "fell_back": bool(est.fell_back_),
                "check": est.safe_check_, "cpu": cpu}
            if cut.got and X_test is None:
                # the cut check's inputs with the guard on (no label check)
                out["models"][m].update(
                    {k: cut.got[k] for k in ("cut_own", "cut_lap", "cut_svc") if k in cut.got})
                if "lap_guard" in cut.got:
                    out["models"][m]["err_lap_guard"] = err(cut.got["lap_guard"][unl])
            if scores:
                F_unl = np.asarray(est.result_.decision)[unl]
                if X_test is None:
                    out["models"][m]["F"] = _f(F_unl)
                else:
                    out["models"][m]["F_unl"] = _f(F_unl)
                    plain, _ = _fit(MODELS[m], X, y_semi, safe=False, **kw)
                    out["models"][m]["F"] = _f(plain.decision_function(Xe))
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


def adopted(r, err, C):
    """A fallback's error ``err`` (to the C = 10 candidate right on most
    held-out rows, ties to the earlier) replaced by the error of the same
    kernel / width at ``C`` where that is right on more held-out rows (the
    library's ``ADOPT_C`` rule, :func:`semisvm._fallback.auto_fallback`);
    ``err`` where ``C`` is None or the recording lacks those candidates
    (``cand_c``). Reads the C = 10 candidates from ``r["cand"]``."""
    alt = None if C is None else r.get("cand_c", {}).get(c_key(C))
    if alt is None:
        return err
    c10 = [int(np.sum(c["ok"])) for c in r["cand"]]
    j = int(np.argmax(c10))
    if int(np.sum(alt[j]["ok"])) > c10[j]:
        return alt[j]["err"]
    return err


def _cut(r, mr, guard_t):
    """(error, what) of a fit without a label check under the guard and the
    library's cut check after it (``CUT_FLOOR``, ``CUT_RATIO``, read from
    the library), from the inputs :class:`_CutInputs` recorded: the guard
    takes its LapRLS (no cut check of its own) where the agreement is below
    ``guard_t``; the cut check then reads the Cheeger ratio of the labels
    that stand against the first candidate SVC's, and falls back to that
    SVC (``cand[0]``, on all labels)."""
    took = guard_t is not None and mr["agree"] < guard_t and "cut_lap" in mr
    err, what = ((mr["err_lap_guard"], "lap(guard)") if took else (mr["err_semi"], "own"))
    c_fit = mr["cut_lap"] if took else mr["cut_own"]
    if (_fallback.CUT_FLOOR is not None and c_fit > _fallback.CUT_FLOOR
            and mr["cut_svc"] < _fallback.CUT_RATIO * c_fit):
        return r["cand"][0]["err"], "svc"
    return err, what


def choose(r, m, rule):
    """(error, what was taken) of model m on draw r under ``rule``
    (``adopt_c``: a fallback to the SVC takes the chosen kernel / width at
    that C where it is right on more held-out rows, :func:`adopted`; kind
    "now" only; ``cut``: where no label check ran, the guard and the cut
    check after it as the library runs them, :func:`_cut`, where the
    recording holds their inputs)."""
    mr = r["models"][m]
    lap = r["lap"]
    guard_t = rule.get("guard", 0.9)
    if mr["ok"] is None and "guard_few" in rule:
        guard_t = rule["guard_few"]     # the guard alone (no check)
    lap_err = lap["err_semi"] if rule.get("lap_own", True) else lap["err"]

    def guarded(err):
        if guard_t is not None and mr["agree"] < guard_t:
            if rule.get("guard_skip_fb") and lap["fell_back"]:
                return err, "own"        # no LapRLS fit to take (it fell back)
            return lap_err, "lap(guard)"
        return err, "own"

    if mr["ok"] is None:                     # no check: the guard alone
        if rule.get("cut") and "cut_own" in mr:
            return _cut(r, mr, guard_t)
        return guarded(mr["err_semi"])
    tv = np.array(mr["ok"], bool)
    sup, sup_err = _counterpart(r)
    kind = rule["kind"]
    if kind == "now":
        need = rule.get("lead_sup", 1)
        if need <= 0 and rule.get("tie_perfect_keeps") and tv.all():
            need = 1       # a tie with every held-out row right keeps the fit
        if (need <= 0 and rule.get("tie_agree") is not None
                and mr["agree"] >= rule["tie_agree"]):
            need = 1       # a tie keeps a fit that agrees with LapRLS
        if _lead(tv, sup) >= need:
            return adopted(r, sup_err, rule.get("adopt_c")), "svc"
        if (rule.get("tie_miss") is not None and _lead(tv, sup) == 0
                and 1.0 - tv.mean() > rule["tie_miss"]):
            # a tie where the fit missed many held-out rows
            return adopted(r, sup_err, rule.get("adopt_c")), "svc"
        return guarded(mr["err_semi"])
    # three-way: TV, LapRLS, SVC on the same held-out rows
    la = np.array(lap["ok"], bool) if lap["ok"] is not None else None
    lead_lap = rule.get("lead_lap", 1)
    lead_sup = rule.get("lead_sup", 1)
    cur, cur_ok, cur_err = "own", tv, mr["err_semi"]
    if kind in ("three", "three_g"):
        # LapRLS replaces the fit on a paired lead of lead_lap rows; with
        # lap_over_sup it must also lead the SVC by that many rows
        admitted = (la is not None and la.sum() > tv.sum()
                    and _lead(tv, la) >= lead_lap
                    and (rule.get("lap_over_sup") is None
                         or _lead(sup, la) >= rule["lap_over_sup"])
                    and (rule.get("admit_agree") is None
                         or mr["agree"] < rule["admit_agree"]))
        if admitted:
            cur, cur_ok, cur_err = "lap", la, lap_err
        # the SVC's lead needed over whichever stands: lead_sup, or
        # lead_sup_tv over the fit where LapRLS was not admitted (0: ties
        # fall back too)
        need = lead_sup
        if not admitted and rule.get("lead_sup_tv") is not None:
            need = rule["lead_sup_tv"]
        if admitted and rule.get("lead_sup_lap") is not None:
            need = rule["lead_sup_lap"]
        if _lead(cur_ok, sup) >= need:
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


# the defaults before (main 854d6fc: the check, then the guard at 0.9 taking
# LapRLS's own fit), the LapRLS rival measured and not merged (RIVAL), and
# after this bench's second choice (made on the tune part, before the report
# part was recorded): the check as before, the guard at 0.95 where the check
# ran and 0.9 where it could not, taking LapRLS as it stands after its own
# check
BEFORE = {"kind": "now", "guard": 0.9}
RIVAL = {"kind": "three_g", "lead_lap": 1, "lead_sup": 2, "guard": 0.9, "lap_own": False}
AFTER = {"kind": "now", "guard": 0.95, "guard_few": 0.9, "lap_own": False}

# the defaults now (chosen on the tune part after AFTER, before the report
# part was replayed for it): AFTER + a tie with the SVC falls back where
# the fit missed more than a quarter of its held-out rows
# (semisvm._fallback.TIE_MISS)
TIE = dict(AFTER, tie_miss=0.25)
# the library's rule today: TIE, and a fallback's SVC at C = ADOPT_C["tv"]
# where that is right on more held-out rows (the library's constant, not a
# copy; where the recording holds the candidates at that C: ``cand_c``);
# where no label check ran, the guard and the library's cut check after it
# (where the recording holds the cut's inputs)
NOW = dict(TIE, guard=_fallback.GUARD_AGREEMENT, guard_few=_fallback.GUARD_AGREEMENT_UNCHECKED,
           tie_miss=_fallback.TIE_MISS["tv"], lead_sup=_fallback.MIN_LEAD["tv"],
           adopt_c=ADOPT_C["tv"], cut=True)

RULES = {
    "before: check, then guard 0.9": BEFORE,
    "rival: LapRLS rival (lead 1, SVC lead 2), guard 0.9": RIVAL,
    "after: check, guard 0.95 (0.9 without the check) taking LapRLS after its check":
        AFTER,
    "tie: after + a tie falls back where the fit missed > 0.25 of its held-out "
    "rows (the defaults)": TIE,
    # declared with the choice, for the demo only (not the defaults)
    "(B) after + a tie falls back when the fit agrees with LapRLS on < 0.9": dict(
        AFTER, lead_sup=0, tie_agree=0.9),
    "now: the library's rule (tie; the fallback's SVC at C = ADOPT_C where right on "
    "more held-out rows; the cut check where no label check ran; where recorded)": NOW,
}


def replay(rows, rules=RULES, detail=None, choose=choose):
    """Worse / better cells than SVC() per rule; rows of the ``semisvm
    demo`` draws (``--demo``, set "demo") are shown apart: each model's mean
    test error beside LinearSVM's (the demo's baseline). ``choose``: the
    function that replays a rule, ``(r, m, rule) -> (error, what)``."""
    demo = [r for r in rows if r["set"] == "demo"]
    rows = [r for r in rows if r["set"] != "demo"]
    models = sorted({m for r in rows + demo for m in r["models"]})
    keys = sorted({(r["set"], r["scheme"]) for r in rows})
    print(f"{len(keys)} cells, {len(rows)} draws" +
          (f"; demo: {len(demo)} draws, LinearSVM "
           f"{np.mean([r['linear_err'] for r in demo]):.1f} %" if demo else ""))

    def cellmean(f):
        return np.mean([np.mean([f(r) for r in rows if (r["set"], r["scheme"]) == k])
                        for k in keys])
    if rows:
        print(f"SVC() mean {cellmean(lambda r: r['svc_err']):.2f} %, LapRLS() mean "
              f"{cellmean(lambda r: r['lap']['err']):.2f} %")
    cols = (models if rows else []) + (["demo " + " / ".join(models)] if demo else [])
    print("| rule | " + " | ".join(cols) + " |")
    print("|---|" + "---|" * len(cols))
    for name, rule in rules.items():
        out = []
        for m in models:
            if not rows:
                continue
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
                       f"svc {took.get('svc', 0)} lap {n_alt - took.get('svc', 0)}"
                       + (f" blend {took['blend']}" if "blend" in took else ""))
        if demo:
            out.append(" / ".join(
                f"{np.mean([choose(r, m, rule)[0] for r in demo]):.1f}" for m in models))
        print(f"| {name} | " + " | ".join(out) + " |")
    print("(worse/better cells than SVC() on the labels by > 2 points, mean error over "
          "cells, fits that took the SVC / LapRLS; demo: mean test error %)")


def variants():
    """The variants tried after the LapRLS rival (chosen on the tune part)."""
    rules = {"before (check, then guard 0.9)": BEFORE, "rival (lead 1, SVC lead 2)": RIVAL,
             "after (check, guard 0.95 / 0.9 without the check, LapRLS after its check)":
                 AFTER,
             "guard taking LapRLS after its check, 0.9": dict(BEFORE, lap_own=False)}
    for g in (0.925, 0.97, 1.01):
        rules[f"LapRLS after its check, guard {g} (0.9 without the check)"] = dict(
            AFTER, guard=g)
    rules["LapRLS after its check, guard 0.95 everywhere"] = dict(BEFORE, guard=0.95,
                                                                   lap_own=False)
    rules["(B) after + a tie falls back when the fit agrees with LapRLS on < 0.9"] = dict(
        AFTER, lead_sup=0, tie_agree=0.9)
    base = dict(kind="three_g", guard=0.9, lap_own=False)
    for k in (0, 1, 2):
        for ls in (1, 2):
            rules[f"(a) LapRLS must lead the SVC by {k}, SVC lead {ls} over LapRLS, "
                  f"1 over the fit"] = dict(base, lap_over_sup=k, lead_sup_lap=ls,
                                            lead_sup_tv=1)
    for ll in (2, 3, 4, 5):
        for ls in (1, 2):
            rules[f"(b) LapRLS lead {ll}, SVC lead {ls} over LapRLS, 1 over the fit"] = dict(
                base, lead_lap=ll, lead_sup_lap=ls, lead_sup_tv=1)
            rules[f"(b) LapRLS lead {ll}, SVC lead {ls} over either"] = dict(
                base, lead_lap=ll, lead_sup=ls)
    for ll in (1, 2, 3):
        rules[f"(c) LapRLS lead {ll}, SVC on a tie with LapRLS, 1 over the fit"] = dict(
            base, lead_lap=ll, lead_sup_lap=0, lead_sup_tv=1)
        rules[f"(c) LapRLS lead {ll}, SVC on a tie with either"] = dict(
            base, lead_lap=ll, lead_sup=0)
        rules[f"(c) LapRLS lead {ll}, SVC lead 2 over LapRLS, tie over the fit"] = dict(
            base, lead_lap=ll, lead_sup_lap=2, lead_sup_tv=0)
    rules["(c) before, SVC on a tie with the fit"] = dict(BEFORE, lead_sup=0)
    for q in (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3):
        rules[f"after + a tie falls back where the fit missed > {q} of its "
              f"held-out rows"] = dict(AFTER, tie_miss=q)
    for g in (0.85, 0.95):
        rules[f"before, guard {g}"] = dict(BEFORE, guard=g)
    return rules


def verify(rows, want=None, what="NOW"):
    """Refit each recorded draw's models with the defaults: their unlabeled
    error must be the replay's of ``want(r, m)`` (``(error, what)``; default:
    :func:`choose` with NOW, the library's rule today)."""
    want = want or (lambda r, m: choose(r, m, NOW))
    loaded = {}
    bad, n = {True: 0, False: 0}, {True: 0, False: 0}
    missing = sum(1 for r in rows if r["set"] != "demo"
                  and c_key(ADOPT_C["tv"] or 10.0) not in r.get("cand_c", {}))
    if missing:
        print(f"# {missing} draws recorded without the candidates at C = ADOPT_C: "
              "the fallback's C = 1 model is not replayed there")
    for r in rows:
        if r["set"] == "demo":
            continue
        key = (r["set"], r.get("max_rows", 600))
        if key not in loaded:
            loaded[key] = _suite.load(r["set"], max_rows=key[1])
        d = loaded[key]
        y_semi = _suite.label_draw(d.y, r["scheme"], r["seed"])
        unl = y_semi == -1
        for m in r["models"]:
            est, _ = _fit(MODELS[m], d.X, y_semi)
            err = 100.0 * float(np.mean(est.transduction_[unl] != d.y[unl]))
            expect, why = want(r, m)
            # (fits without a label check: the guard and, where the
            # recording holds its inputs, the cut check after it)
            checked = r["models"][m]["ok"] is not None
            n[checked] += 1
            if abs(err - expect) > 1e-9:
                bad[checked] += 1
                print("MISMATCH", r["set"], r["scheme"], r["seed"], m, err, expect, why,
                      "" if checked else f"(no label check: {est.safe_check_})")
    print(f"{n[True] - bad[True]} of {n[True]} refitted fits with a label check match "
          f"the replay of {what}; without one (the guard and the cut check): "
          f"{n[False] - bad[False]} of {n[False]}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--part", default="tune", choices=list(_suite.PARTS))
    ap.add_argument("--cases", default="main", choices=["main", "classic", "both"])
    ap.add_argument("--models", nargs="+", default=list(MODELS))
    ap.add_argument("--only", nargs="+", default=None)
    ap.add_argument("--seeds", type=int, nargs="+", default=list(_suite.SEEDS))
    ap.add_argument("--schemes", nargs="+", default=None,
                    help="only these label schemes (e.g. 10 of the classic cases)")
    ap.add_argument("--max-rows", type=int, default=600)
    ap.add_argument("--jsonl", default=None)
    ap.add_argument("--replay", nargs="+", default=None)
    ap.add_argument("--detail", default=None, help="a rule's name: list its worse cells")
    ap.add_argument("--grid", action="store_true",
                    help="replay a grid of three-way rules instead of RULES")
    ap.add_argument("--variants", action="store_true",
                    help="replay the variants tried after the LapRLS rival instead of RULES")
    ap.add_argument("--demo", action="store_true",
                    help="record the `semisvm demo` draws (digits, 20 labels, 3 draws: "
                         "test errors, LinearSVM's too) instead of a part of the suite")
    ap.add_argument("--scores", action="store_true",
                    help="also record the decision values a blend of the fit and "
                         "the SVC needs (bench/bench_tv_blend.py)")
    ap.add_argument("--verify", type=int, default=0, metavar="N",
                    help="with --replay: refit the first N recorded draws' models "
                         "with the defaults and compare with the replay of NOW (the "
                         "library's rule)")
    ap.add_argument("--verify-rule", default="NOW", choices=["NOW", "TIE"],
                    help="with --verify: the rule replayed (TIE: a recording made "
                         "before ADOPT_C)")
    args = ap.parse_args()
    if args.replay and args.verify:
        rows = [json.loads(line) for f in args.replay for line in open(f) if line.strip()]
        rule = NOW if args.verify_rule == "NOW" else TIE
        return verify(rows[:args.verify], want=lambda r, m: choose(r, m, rule),
                      what=args.verify_rule)
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
        if args.variants:
            rules = variants()
        return replay(rows, rules, detail=args.detail)
    if args.demo:
        from semisvm.cli import _demo_splits
        print(f"# load average before: {os.getloadavg()}", flush=True)
        for i, (X, y, lab, Xt, yt) in enumerate(_demo_splits(20, 0, 3)):
            y_semi = np.full(y.shape[0], -1, dtype=np.int64)
            y_semi[lab] = y[lab]
            row = {"set": "demo", "scheme": "20", "seed": i, "part": "demo"}
            row.update(record(X, y_semi, y, args.models, X_test=Xt, y_test=yt,
                              scores=args.scores))
            print("demo", i, f"LinearSVM {row['linear_err']:.1f} LapRLS "
                  f"{row['lap']['err_semi']:.1f}", " ".join(
                      f"{m} {r['err_semi']:.1f} ({r['agree']:.2f})"
                      for m, r in row["models"].items()), flush=True)
            _suite.append_jsonl(args.jsonl, row)
        return None
    groups = []
    if args.cases in ("main", "both"):
        groups.append((False, list(_suite.SCHEMES)))
    if args.cases in ("classic", "both"):
        groups.append((True, list(_suite.CLASSIC_SCHEMES)))
    print(f"# load average before: {os.getloadavg()}", flush=True)
    w0 = time.time()
    for classic, schemes in groups:
        if args.schemes:
            schemes = [s_ for s_ in schemes if s_ in args.schemes]
        for d, scheme, seed, y_semi in _suite.cells(args.part, schemes=schemes,
                                                     seeds=args.seeds,
                                                     max_rows=args.max_rows,
                                                     only=args.only, classic=classic):
            row = {"set": d.name, "scheme": scheme, "seed": seed, "part": args.part,
                   "max_rows": args.max_rows}
            row.update(record(d.X, y_semi, d.y, args.models, scores=args.scores))
            print(d.name, scheme, seed, f"SVC {row['svc_err']:.1f} LapRLS "
                  f"{row['lap']['err_semi']:.1f}", " ".join(
                      f"{m} {r['err_semi']:.1f} ({r['agree']:.2f})"
                      for m, r in row["models"].items()), flush=True)
            _suite.append_jsonl(args.jsonl, row)
    print(f"# load average after: {os.getloadavg()}; wall {time.time() - w0:.0f} s")


if __name__ == "__main__":
    main()
