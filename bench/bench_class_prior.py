"""A class-prior estimate from the unlabeled rows for the six graph / kernel
estimators, applied post hoc to their decisions (an offline prototype).

Fits LapSVM, LapRLS, TVRLS, TVSVM, CheegerRLS, CheegerSVM with their defaults
and ``SVC()`` on the labeled rows, on the cells of ``bench/_suite.py`` as
``bench/bench_graph_tv_suite.py`` does, and keeps per fit what a class-prior
rule reads: the final model's scores on the unlabeled rows (the fallback /
guard model's ``decision_function``, else the transductive scores), and the
``safe="auto"`` check's two label folds (held-out labels of the semi-supervised
solve and of the first candidate SVC, their labels of the unlabeled rows;
``est._check_folds``, kept where ``semisvm._fallback.RECORD_FOLDS`` is set,
as this script does). ``--analyze`` replays candidate rules on such a
recording and prints, per model, the cells worse / better than ``SVC()`` by
> 2 points (the suite's measure) and the mean error::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 nice -n 10 \\
        python bench/bench_class_prior.py --part tune --cases both \\
        --max-rows 600 --out /tmp/prior_tune.pkl
    python bench/bench_class_prior.py --analyze /tmp/prior_tune.pkl

The two-class rules leave more classes alone; the ``multi ...`` rules
(``apply_multi``: a multi-class BBSE from the same folds, the labels moved by
per-class offsets on the final model's scores) leave two classes alone.

The ``weak ...`` rules replace the fallback's model, where the check's first
candidate hardly separates the classes on its held-out rows (``held_gap``),
by ``SVC()``'s labels of the same draw (recorded beside): the library's
``semisvm._fallback.WEAK_GAP`` (off; ``--weak-gap`` records with it on).

The ``adopt w ...`` / ``svc w ...`` rules score, on a fallback with label
folds, C = 1 against C = 10 (``ADOPT_C``) or the model taken against
``SVC()`` on the held-out rows weighted to the check's estimate of the
unlabeled class mix (``semisvm._fallback.adopt_weights``; the library's
``ADOPT_W_SHRINK``); the recording keeps the rights and labels they
need (``_check_folds["adopt"]``; ``SVC()``'s labels are the library's model's,
``unl_svc1``: one SVC per class against the rest for more than two classes).
``--adopt-w-shrink S`` records with the library's rule set to S (< 0: off);
``--analyze OFF.pkl --rules RULE --against ON.pkl`` counts, per model, the
fits whose replayed labels equal those of the library recorded with it.

The library itself applies the half-way rule (``semisvm._fallback.PRIOR_Z``):
landed at z 1 ("sup z1 gap0.2 half", judged on the suite's novel part), then
raised to z 2 ("sup z2 gap0.2 half") after it misfired on small balanced sets
(``bench/bench_class_prior_misfire.py``): a recording made with it replays
rules on top of it. ``--no-prior-shift``
records the fits without it (``PRIOR_Z = None``), the base the rules above
were measured on.
"""
import argparse
import os
import pickle
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _suite  # noqa: E402

import semisvm._fallback as fb  # noqa: E402
from semisvm import TVRLS, TVSVM, CheegerRLS, CheegerSVM, LapRLS, LapSVM  # noqa: E402

MODELS = {"LapSVM": LapSVM, "LapRLS": LapRLS, "TVRLS": TVRLS, "TVSVM": TVSVM,
          "CheegerRLS": CheegerRLS, "CheegerSVM": CheegerSVM}


def _scores(name, est, X, unl):
    """The final model's scores on the unlabeled rows (binary: > 0 -> class 1)."""
    if (getattr(est, "fell_back_", False) or getattr(est, "laplacian_fallback_", False)
            or name.startswith("Lap")):
        return np.asarray(est.decision_function(X[unl]), dtype=np.float64)
    return np.asarray(est.result_.decision, dtype=np.float64)[unl]


def record(args):
    groups = []
    if args.cases in ("main", "both"):
        groups.append((False, list(_suite.SCHEMES)))
    if args.cases in ("classic", "both"):
        groups.append((True, list(_suite.CLASSIC_SCHEMES)))
    out = []
    load0 = os.getloadavg()
    t0 = time.time()
    cells = [c for classic, schemes in groups
             for c in _suite.cells(args.part, schemes=schemes, seeds=args.seeds,
                                   max_rows=args.max_rows, only=args.only,
                                   classic=classic)]
    # the check keeps its folds' labels (diagnostics, off by default)
    fb.RECORD_FOLDS = True
    if args.no_prior_shift:
        fb.PRIOR_Z = None
    if args.weak_gap is not None:
        fb.WEAK_GAP = None if args.weak_gap < 0 else args.weak_gap
    if args.adopt_w_shrink is not None:
        fb.ADOPT_W_SHRINK = None if args.adopt_w_shrink < 0 else args.adopt_w_shrink
    print(f"# WEAK_GAP {fb.WEAK_GAP}, ADOPT_W_SHRINK {fb.ADOPT_W_SHRINK}, "
          f"PRIOR_Z {fb.PRIOR_Z}", flush=True)
    for d, scheme, seed, y_semi in cells:
        X, y = d.X, d.y
        unl = y_semi == -1
        lab = ~unl
        svc = SVC().fit(X[lab], y_semi[lab])
        base = dict(set=d.name, scheme=scheme, seed=seed, n_classes=int(d.n_classes),
                    y_unl=y[unl], y_lab=y_semi[lab])
        out.append(dict(base, model="SVC", pred=svc.predict(X[unl]),
                        score=svc.decision_function(X[unl])))
        for name in args.models:
            est = MODELS[name]()
            c0 = time.process_time()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                est.fit(X, y_semi)
            cpu = time.process_time() - c0
            pred = np.asarray(est.transduction_)[unl]
            # (binary: one column, > 0 -> class 1; more classes: one column
            # per class, the label the largest)
            score = _scores(name, est, X, unl)
            out.append(dict(base, model=name, pred=pred, score=score, cpu=cpu,
                            fell_back=bool(getattr(est, "fell_back_", False)),
                            guard=bool(getattr(est, "laplacian_fallback_", False)),
                            counterpart=getattr(est, "safe_counterpart_", None),
                            shifted=bool((getattr(est, "class_prior_", None) or {})
                                         .get("shifted", False)),
                            check=getattr(est, "safe_check_", None),
                            folds=getattr(est, "_check_folds", None)))
            err = 100.0 * np.mean(pred != y[unl])
            print(f"{d.name:14s} {scheme:4s} {seed} {name:11s} err {err:6.2f} "
                  f"cpu {cpu:6.2f}", flush=True)
    load1 = os.getloadavg()
    print(f"# load {load0[0]:.2f} -> {load1[0]:.2f}; wall {time.time() - t0:.0f} s")
    with open(args.out, "wb") as fh:
        pickle.dump(out, fh)


# ---------------------------------------------------------------- the rules

def bbse(folds, which="sup", spread=False):
    """Black-box shift estimate of the positive fraction of the unlabeled rows
    from the check's two folds: each fold's classifier (``which``: the first
    candidate SVC or the semi-supervised solve) gives a true / false positive
    rate on its held-out labels and a positive fraction on the unlabeled rows;
    pooled over the folds. Returns ``(p, se, tpr - fpr)`` or None. ``spread``:
    the se also counts the two folds' own estimates' spread (each fold's
    classifier is another draw of a classifier trained on half the labels:
    ``se^2 + (p_0 - p_1)^2 / 4``; None where a fold's own gap is <= 0)."""
    if folds is None:
        return None
    yh = np.concatenate(folds["y_held"])
    ph = np.concatenate([folds[f"{which}_held"][k] for k in (0, 1)])
    qu = np.concatenate([np.asarray(u) for u in folds[f"{which}_u"]])
    classes = np.unique(yh)
    if classes.size != 2:
        return None
    c1 = classes[1]
    pos, neg = yh == c1, yh != c1
    n1, n0 = int(pos.sum()), int(neg.sum())
    if n1 == 0 or n0 == 0:
        return None
    tpr = float(np.mean(ph[pos] == c1))
    fpr = float(np.mean(ph[neg] == c1))
    q = float(np.mean(qu == c1))
    gap = tpr - fpr
    if gap <= 0:
        return None
    p = (q - fpr) / gap
    # delta method on the two rates (q's own noise is small beside them)
    va = (tpr * (1 - tpr) + 1.0 / n1) / n1
    vb = (fpr * (1 - fpr) + 1.0 / n0) / n0
    pc = min(max(p, 0.0), 1.0)
    se = np.sqrt(pc ** 2 * va + (1 - pc) ** 2 * vb) / gap
    if spread:
        pk = []
        for k in (0, 1):
            yk = np.asarray(folds["y_held"][k])
            hk = np.asarray(folds[f"{which}_held"][k])
            if not (np.any(yk == c1) and np.any(yk != c1)):
                return None
            t_k = float(np.mean(hk[yk == c1] == c1))
            f_k = float(np.mean(hk[yk != c1] == c1))
            if t_k - f_k <= 0:
                return None
            pk.append((float(np.mean(np.asarray(folds[f"{which}_u"][k]) == c1)) - f_k)
                      / (t_k - f_k))
        se = np.sqrt(se ** 2 + (pk[0] - pk[1]) ** 2 / 4.0)
    return p, float(se), gap


def adjust(score, classes_present, p, lo=0.02, cur=None):
    """Labels (0 / 1) with round(p n) rows above the threshold on ``score``
    (p clipped to [lo, 1 - lo], or with ``cur``, the fraction before, to
    [min(cur, lo), max(cur, 1 - lo)]: the clip never moves the fraction away
    from both the fit's and the estimate's, as the library's)."""
    n = score.shape[0]
    if cur is None:
        p = min(max(p, lo), 1 - lo)
    else:
        p = min(max(p, min(cur, lo)), max(cur, 1 - lo))
    k = int(round(p * n))
    order = np.argsort(-score, kind="stable")
    out = np.zeros(n, dtype=np.intp)
    out[order[:k]] = 1
    return out


RULES = {}


def _rule(name, which="sup", z=2.0, min_gap=0.2, shift="full", models=None, min_held=0,
          spread=False, only_fb=False):
    RULES[name] = dict(which=which, z=z, min_gap=min_gap, shift=shift, models=models,
                       min_held=min_held, spread=spread, only_fb=only_fb)


_rule("none", z=np.inf)
for _w in ("sup", "semi", "agree"):
    for _z in (1.0, 2.0, 3.0):
        for _g in (0.2, 0.4):
            _rule(f"{_w} z{_z:g} gap{_g:g}", which=_w, z=_z, min_gap=_g)
            _rule(f"{_w} z{_z:g} gap{_g:g} half", which=_w, z=_z, min_gap=_g,
                  shift="half")
            _rule(f"{_w} z{_z:g} gap{_g:g} toward", which=_w, z=_z, min_gap=_g,
                  shift="toward")
# the library's rule with a floor on the held-out rows of each class (pooled
# over the check's two folds: the labels of the smaller labeled class)
for _m in (6, 8, 10, 11, 12, 15, 16, 20, 21, 25):
    _rule(f"sup z1 gap0.2 half held{_m}", z=1.0, min_gap=0.2, shift="half",
          min_held=_m)
for _z in (1.5, 2.0, 2.5):
    for _m in (0, 11, 16, 20):
        _rule(f"sup z{_z:g} gap0.2 half held{_m}", z=_z, min_gap=0.2, shift="half",
              min_held=_m)
        _rule(f"sup z{_z:g} gap0.2 half spread held{_m}", z=_z, min_gap=0.2,
              shift="half", min_held=_m, spread=True)
_rule("sup z1 gap0.2 half spread held16", z=1.0, min_gap=0.2, shift="half",
      min_held=16, spread=True)
# ... or the folds' spread in the se
_rule("sup z1 gap0.2 half spread", z=1.0, min_gap=0.2, shift="half", spread=True)
# on the fallback's / guard's two-class model only: the full shift, or a
# lower z / gap (on top of the library's half-way shift at z 2, gap 0.2)
for _z in (1.0, 2.0):
    for _g in (0.1, 0.2):
        _rule(f"sup z{_z:g} gap{_g:g} fb", z=_z, min_gap=_g, only_fb=True)
        _rule(f"sup z{_z:g} gap{_g:g} half fb", z=_z, min_gap=_g, shift="half",
              only_fb=True)


# ---------------------------------------------------------------- more classes

def bbse_multi(folds, which="sup"):
    """The multi-class black-box shift estimate of the unlabeled rows' class
    fractions from the check's two folds (pooled): ``C[i, j]`` the fraction
    of the held-out rows of class j that the fold classifier labels i, ``q``
    its fractions of labels of the unlabeled rows, ``p = C^-1 q`` (Lipton
    et al. 2018). Returns ``(classes, p, se)`` (p unclipped; se by the delta
    method on C's columns, each a multinomial of n_j held-out rows:
    ``Cov(C p) = sum_j p_j^2 (diag c_j - c_j c_j^T + I / n_j) / n_j``,
    ``Cov(p) = C^-1 Cov(C p) C^-T``, with p clipped to [0, 1] inside; q's own
    noise left out, as in the two-class rule), or None where a class is not
    held out or C is singular."""
    if folds is None:
        return None
    yh = np.concatenate(folds["y_held"])
    ph = np.concatenate([folds[f"{which}_held"][k] for k in (0, 1)])
    qu = np.concatenate([np.asarray(u) for u in folds[f"{which}_u"]])
    classes = np.unique(yh)
    K = classes.size
    if K < 2:
        return None
    C = np.zeros((K, K))
    n = np.zeros(K)
    for j, c in enumerate(classes):
        m = yh == c
        n[j] = m.sum()
        C[:, j] = [np.mean(ph[m] == ci) for ci in classes]
    q = np.array([np.mean(qu == ci) for ci in classes])
    if np.linalg.cond(C) > 1e6:
        return None
    Ci = np.linalg.inv(C)
    p = Ci @ q
    pc = np.clip(p, 0.0, 1.0)
    V = np.zeros((K, K))
    for j in range(K):
        cj = C[:, j]
        V += pc[j] ** 2 * (np.diag(cj) - np.outer(cj, cj) + np.eye(K) / n[j]) / n[j]
    cov = Ci @ V @ Ci.T
    return classes, p, np.sqrt(np.maximum(np.diag(cov), 0.0))


# the per-class offsets reaching target counts: the library's own search (a
# search, not the rule under test: the rule's estimate, z and target are
# replayed here independently, bbse_multi / apply_multi)
offsets_for_counts = fb.offsets_for_counts


def apply_multi(r, rule):
    """The multi-class rule: BBSE of the unlabeled rows' class fractions from
    the check's first candidate (``bbse_multi``); it fires where some class's
    estimate lies more than ``z`` se from the reference (``ref``: "lab" the
    labeled rows' fractions, "fit" the fit's own fractions of the unlabeled
    rows); the target then half way from the fit's fractions to the clipped,
    renormalized estimate (each class kept at least min(fit's, ``lo``)),
    the labels ``argmax(score + b)`` with per-class offsets ``b`` reaching
    the target counts (largest remainders)."""
    pred = r["pred"]
    S = r["score"]
    if S is None or np.ndim(S) != 2 or rule["z"] == np.inf:
        return pred, None
    if rule.get("only_fb") and not (r.get("fell_back") or r.get("guard")):
        return pred, None
    ylab = r["y_lab"]
    classes = np.unique(ylab)
    K = classes.size
    if S.shape[1] != K:
        return pred, None
    got = bbse_multi(r.get("folds"), rule["which"])
    if got is None or got[0].size != K or not np.array_equal(got[0], classes):
        return pred, None
    _, p, se = got
    if rule.get("min_held", 0):
        yh = np.concatenate(r["folds"]["y_held"])
        if min(np.sum(yh == c) for c in classes) < rule["min_held"]:
            return pred, None
    pi_lab = np.array([np.mean(ylab == c) for c in classes])
    cur = np.array([np.mean(pred == c) for c in classes])
    ref = pi_lab if rule["ref"] == "lab" else cur
    dev = np.abs(p - ref) / np.maximum(se, 1e-12)
    if not np.any(dev > rule["z"]):
        return pred, None
    pc = np.clip(p, 0.0, None)
    pc = pc / pc.sum() if pc.sum() > 0 else cur
    t = 0.5 * (pc + cur) if rule["shift"] == "half" else pc
    t = np.maximum(t, np.minimum(cur, rule.get("lo", 0.02)))
    t = t / t.sum()
    n = pred.shape[0]
    raw = t * n
    counts = np.floor(raw).astype(int)
    rest = n - counts.sum()
    counts[np.argsort(-(raw - counts), kind="stable")[:rest]] += 1
    b = offsets_for_counts(np.asarray(S, dtype=np.float64), counts)
    lab = classes[np.argmax(S + b, axis=1)]
    return lab, p


def _mrule(name, z=2.0, ref="lab", shift="half", which="sup", min_held=0, only_fb=False):
    RULES[name] = dict(multi=True, z=z, ref=ref, shift=shift, which=which,
                       min_held=min_held, only_fb=only_fb)


for _z in (1.0, 1.5, 2.0, 2.5, 3.0, 4.0):
    for _ref in ("lab", "fit"):
        _mrule(f"multi z{_z:g} {_ref} half", z=_z, ref=_ref)
        _mrule(f"multi z{_z:g} {_ref} full", z=_z, ref=_ref, shift="full")
    for _m in (6, 10, 16):
        _mrule(f"multi z{_z:g} lab half held{_m}", z=_z, min_held=_m)
    # only where the fit's final model is the fallback's / guard's
    # (supervised) model
    for _ref in ("lab", "fit"):
        _mrule(f"multi z{_z:g} {_ref} half fb", z=_z, ref=_ref, only_fb=True)


# ---------------------------------------------------- the fallback's weak model

def held_gap(folds, which="sup"):
    """The check's first candidate's separation on its held-out rows, pooled
    over the two folds: ``(b - 1/K) / (1 - 1/K)`` with ``b`` its balanced
    accuracy (mean recall over the K held-out classes); with two classes
    ``tpr - fpr``. None without folds or with fewer than two held-out
    classes."""
    if folds is None:
        return None
    yh = np.concatenate(folds["y_held"])
    ph = np.concatenate([folds[f"{which}_held"][k] for k in (0, 1)])
    classes = np.unique(yh)
    K = classes.size
    if K < 2:
        return None
    b = float(np.mean([np.mean(ph[yh == c] == c) for c in classes]))
    return (b - 1.0 / K) / (1.0 - 1.0 / K)


def _frule(name, gap_max, two_only=False, lib=False, cut=False):
    RULES[name] = dict(weak=True, gap_max=gap_max, two_only=two_only, lib=lib, cut=cut)


# where the final model is the fallback's / guard's and the check's first
# candidate hardly tells the classes apart on its held-out rows (held_gap <
# gap_max), the model becomes SVC() (C = 1, gamma "scale") on the labeled
# rows: replayed exactly from the recording's SVC() labels of the cell
for _g in (0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 2.0):
    _frule(f"weak fb svc1 gap{_g:g}", _g)
    _frule(f"weak fb svc1 gap{_g:g} two", _g, two_only=True)
    # as the library would apply it (in the check's fallback): on a fit that
    # fell back, and on a Laplacian guard's fit whose LapRLS fell back (the
    # cell's LapRLS record), not on a guard that took LapRLS's own model
    _frule(f"weak lib gap{_g:g}", _g, lib=True)
    # ... and the cut check's fallback (no label folds: its model refitted
    # at C = 1 after the decision at C = 10)
    _frule(f"weak lib gap{_g:g} cut", _g, lib=True, cut=True)
_frule("cut only", -1.0, lib=True, cut=True)


def apply_weak(r, rule):
    pred = r["pred"]
    if rule["lib"]:
        if not (r.get("fell_back") or (r.get("guard") and r.get("lap_fell_back"))):
            return pred, None
    elif not (r.get("fell_back") or r.get("guard")):
        return pred, None
    if rule["two_only"] and r["n_classes"] != 2:
        return pred, None
    if r.get("folds") is None:
        # no label folds: a fallback is the cut check's
        if rule["cut"] and r.get("fell_back"):
            return r["svc_pred"], -1.0
        return pred, None
    g = held_gap(r.get("folds"))
    if g is None or g >= rule["gap_max"] - 1e-9:
        return pred, None
    return r["svc_pred"], g


# ------------------------- the fallback's C on the reweighted held-out rows

def _wrule(name, shrink, z=0.0, ge=False):
    RULES[name] = dict(adopt_w=True, shrink=shrink, z=z, ge=ge)


# on a fallback with label folds (the ADOPT_C scoring recorded: both Cs'
# held-out rights and their models' labels of the unlabeled rows), C = 1
# against C = 10 scored on the held-out rows weighted by the check's BBSE
# estimate of the unlabeled class mix over the labeled one
# (semisvm._fallback.adopt_weights); a changed choice takes the other C's
# recorded labels (without the library's class-prior shift after it)
for _s in (0.25, 0.5, 0.75, 1.0):
    for _z in (0.0, 1.0, 2.0):
        _wrule(f"adopt w s{_s:g} z{_z:g}", _s, _z)
        # weighted ties to C = 1
        _wrule(f"adopt w s{_s:g} z{_z:g} ge", _s, _z, ge=True)


# ... or the fallback's model (at the C it took) against SVC() (the first
# candidate at C = 1) on the same reweighted held-out rows: SVC()'s labels
# where it is right on more weighted rows ("unw": the unweighted count)
for _s in (0.5, 1.0):
    for _z in (0.0, 1.0, 2.0):
        RULES[f"svc w s{_s:g} z{_z:g}"] = dict(adopt_w=True, shrink=_s, z=_z, ge=False,
                                              svc=True)
RULES["svc unw"] = dict(adopt_w=True, shrink=1.0, z=-1.0, ge=False, svc=True, unw=True)


def _svc1_labels(r):
    """The labels of the unlabeled rows of the library's ``SVC()`` (the first
    candidate at C = 1 on the labeled rows; more than two classes: one per
    class against the rest, as every fallback model of the library), where
    the recording keeps them (``unl_svc1``); else scikit-learn's ``SVC()``'s
    of the cell (one-vs-one: older recordings)."""
    a = (r.get("folds") or {}).get("adopt") or {}
    got = a.get("unl_svc1")
    return r["svc_pred"] if got is None else got


def apply_adopt_w(r, rule):
    pred = r["pred"]
    if rule.get("svc") and not r.get("fell_back") and r.get("guard"):
        # a Laplacian guard's fit whose LapRLS fell back takes that LapRLS's
        # model: the rule as it fires on the cell's LapRLS record
        lap = r.get("lap_rec")
        if lap is not None and lap.get("fell_back"):
            lab, p = apply_adopt_w(lap, rule)
            if p is not None:
                return _svc1_labels(lap), p
        return pred, None
    folds = r.get("folds")
    if not r.get("fell_back") or folds is None or folds.get("adopt") is None:
        return pred, None
    a = folds["adopt"]
    classes = np.unique(r["y_lab"])
    yh = np.concatenate(folds["y_held"])
    ph = np.concatenate([folds["sup_held"][k] for k in (0, 1)])
    pu = np.concatenate(folds["sup_u"])
    if classes.size == 2:
        est = fb.bbse_estimate(yh, ph, pu, classes[1])
    else:
        est = fb.bbse_multi_estimate(yh, ph, pu, classes)
    if rule.get("unw"):
        w = np.ones(a["y"].size)
    else:
        w = fb.adopt_weights(a["y"], classes, est, shrink=rule["shrink"], z=rule["z"])
    if w is None:
        return pred, None
    if rule.get("svc"):
        ok = a["ok_c1"] if a["took_c1"] else a["ok_c10"]
        if float(np.sum(w[a["ok_svc1"]])) > float(np.sum(w[ok])) + 1e-9:
            return _svc1_labels(r), 1.0
        return pred, None
    w1, w10 = float(np.sum(w[a["ok_c1"]])), float(np.sum(w[a["ok_c10"]]))
    take = w1 > w10 - 1e-9 if rule["ge"] else w1 > w10 + 1e-9
    if take == a["took_c1"]:
        return pred, None
    return (a["unl_c1"] if take else a["unl_c10"]), 1.0


def apply_rule(r, rule):
    """The rule's labels of the unlabeled rows for fit record ``r``."""
    pred = r["pred"]
    if rule.get("adopt_w"):
        return apply_adopt_w(r, rule)
    if rule.get("weak"):
        return apply_weak(r, rule)
    if rule.get("multi"):
        # the multi-class rules leave two-class fits as they are
        if r["n_classes"] == 2:
            return pred, None
        return apply_multi(r, rule)
    if r["n_classes"] != 2 or r["score"] is None or rule["z"] == np.inf:
        return pred, None
    if rule.get("only_fb") and not (r.get("fell_back") or r.get("guard")):
        return pred, None
    ylab = r["y_lab"]
    classes = np.unique(ylab)
    if rule.get("min_held", 0) and r.get("folds") is not None:
        yh = np.concatenate(r["folds"]["y_held"])
        if min(np.sum(yh == c) for c in classes) < rule["min_held"]:
            return pred, None
    pi_lab = float(np.mean(ylab == classes[1]))
    cur = float(np.mean(pred == classes[1]))
    ests = []
    for which in (("sup", "semi") if rule["which"] == "agree" else (rule["which"],)):
        est = bbse(r.get("folds"), which, spread=rule.get("spread", False))
        if est is None:
            return pred, None
        p, se, gap = est
        if gap < rule["min_gap"] or abs(p - pi_lab) <= rule["z"] * se:
            return pred, None
        ests.append(est)
    if len(ests) == 2:
        if np.sign(ests[0][0] - pi_lab) != np.sign(ests[1][0] - pi_lab):
            return pred, None
        p = 0.5 * (ests[0][0] + ests[1][0])
        se = max(ests[0][1], ests[1][1])
    pc = min(max(p, 0.0), 1.0)
    if rule["shift"] == "half":
        pc = 0.5 * (pc + cur)
    elif rule["shift"] == "toward":
        # move the predicted fraction to the near edge of the estimate's band
        lo_, hi_ = pc - rule["z"] * se, pc + rule["z"] * se
        if lo_ <= cur <= hi_:
            return pred, p
        pc = lo_ if cur < lo_ else hi_
    lab01 = adjust(r["score"], classes, pc, cur=cur)
    return classes[lab01], p


def analyze(args):
    rows = []
    for f in args.analyze:
        with open(f, "rb") as fh:
            rows += pickle.load(fh)
    models = [m for m in MODELS if any(r["model"] == m for r in rows)]
    cells = sorted({(r["set"], r["scheme"]) for r in rows})
    svc = {}
    svc_pred = {(r["set"], r["scheme"], r["seed"]): r["pred"] for r in rows
                if r["model"] == "SVC"}
    lap_fb = {(r["set"], r["scheme"], r["seed"]): r.get("fell_back", False) for r in rows
              if r["model"] == "LapRLS"}
    lap_rec = {(r["set"], r["scheme"], r["seed"]): r for r in rows if r["model"] == "LapRLS"}
    for r in rows:
        r["lap_rec"] = lap_rec.get((r["set"], r["scheme"], r["seed"]))
        r["svc_pred"] = svc_pred[(r["set"], r["scheme"], r["seed"])]
        r["lap_fell_back"] = lap_fb.get((r["set"], r["scheme"], r["seed"]), False)
    for c in cells:
        e = [100 * np.mean(r["pred"] != r["y_unl"]) for r in rows
             if r["model"] == "SVC" and (r["set"], r["scheme"]) == c]
        svc[c] = np.mean(e)
    # sign consistency of the scores with the labels
    bad = [r for r in rows if r["model"] != "SVC" and r["score"] is not None
           and r["n_classes"] == 2
           and np.any((r["score"] > 0) != (r["pred"] == np.unique(r["y_lab"])[1]))]
    print(f"# fits whose scores' sign disagrees with their labels: {len(bad)}")
    multi = [r for r in rows if r["model"] != "SVC" and r["n_classes"] > 2
             and r["score"] is not None and np.ndim(r["score"]) == 2]
    agree = [np.mean(np.unique(r["y_lab"])[np.argmax(r["score"], axis=1)] == r["pred"])
             for r in multi]
    if multi:
        print(f"# multi-class fits: {len(multi)}; whose scores' argmax is their label "
              f"on every row: {sum(a == 1.0 for a in agree)}, on >= 95 %: "
              f"{sum(a >= 0.95 for a in agree)}")
    names = args.rules or list(RULES)
    table = {}
    for rn in names:
        rule = RULES[rn]
        line = []
        for m in models:
            mean, fired = {}, 0
            for c in cells:
                e = []
                for r in rows:
                    if r["model"] != m or (r["set"], r["scheme"]) != c:
                        continue
                    lab, p = apply_rule(r, rule)
                    fired += int(p is not None and lab is not r["pred"])
                    e.append(100 * np.mean(lab != r["y_unl"]))
                mean[c] = np.mean(e)
            d = np.array([mean[c] - svc[c] for c in cells])
            line.append((int(np.sum(d > 2)), int(np.sum(d < -2)),
                         float(np.mean(list(mean.values()))), fired, mean))
        table[rn] = line
    base = table.get("none")
    print(f"{'rule':28s} " + " ".join(f"{m:>22s}" for m in models) + "  pass")
    for rn in names:
        ok = "" if base is None else _passes(base, table[rn])
        print(f"{rn:28s} " + " ".join(
            f"{w:2d}/{b:2d} {e:6.2f} f{f:3d}" + " " * 5 for w, b, e, f, _ in table[rn])
              + f"  {ok}")
    if args.detail and base is not None:
        for rn in args.detail:
            print(f"\n# cells that change against SVC() by rule {rn!r}")
            for j, m in enumerate(models):
                for c in cells:
                    a, b = base[j][4][c] - svc[c], table[rn][j][4][c] - svc[c]
                    if (a > 2) != (b > 2) or (a < -2) != (b < -2) or abs(a - b) > 1:
                        print(f"{m:11s} {c[0]:16s} {c[1]:4s} {a:+6.1f} -> {b:+6.1f}")
    if args.against:
        against(args, rows)


def against(args, rows):
    """The replay of rule ``args.rules[0]`` on ``rows`` (a recording of the
    library without it) against ``args.against`` (the library with it on),
    fit by fit: the unlabeled rows' labels equal, and where not, the share
    of rows that agree."""
    rule = RULES[args.rules[0]]
    with open(args.against, "rb") as fh:
        lib = {(r["set"], r["scheme"], r["seed"], r["model"]): r for r in pickle.load(fh)}
    print(f"\n# the replay of {args.rules[0]!r} against the library's recording "
          f"{args.against}")
    for m in [m for m in MODELS if any(r["model"] == m for r in rows)]:
        n = same = fired = 0
        diff = []
        for r in rows:
            if r["model"] != m:
                continue
            other = lib.get((r["set"], r["scheme"], r["seed"], m))
            if other is None:
                continue
            lab, p = apply_rule(r, rule)
            fired += int(p is not None and lab is not r["pred"])
            n += 1
            if np.array_equal(lab, other["pred"]):
                same += 1
            else:
                diff.append(f"{r['set']}/{r['scheme']}/{r['seed']} "
                            f"{100 * np.mean(lab == other['pred']):.1f} %")
        print(f"{m:11s} {same}/{n} fits' labels equal (replay fired on {fired})"
              + ("; differ: " + ", ".join(diff) if diff else ""))


def _passes(base, new):
    """Worse cells rise for no model and drop for one; better fall by <= 1."""
    rise = any(n[0] > b[0] for b, n in zip(base, new))
    drop = any(n[0] < b[0] for b, n in zip(base, new))
    better = all(n[1] >= b[1] - 1 for b, n in zip(base, new))
    return "PASS" if (not rise and drop and better) else "no"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    _suite.add_recording_arguments(ap, MODELS, cases="both",
                                   max_rows=_suite.MAX_ROWS, recording=False)
    ap.add_argument("--out", default=None)
    ap.add_argument("--analyze", nargs="+", default=None)
    ap.add_argument("--rules", nargs="+", default=None)
    ap.add_argument("--detail", nargs="+", default=None)
    ap.add_argument("--no-prior-shift", action="store_true",
                    help="record without the library's class-prior shift (PRIOR_Z = None)")
    ap.add_argument("--adopt-w-shrink", type=float, default=None,
                    help="record with semisvm._fallback.ADOPT_W_SHRINK set to this (< 0: "
                         "None, the reweighted SVC() comparison off)")
    ap.add_argument("--against", default=None,
                    help="with --analyze and one --rules name: a recording of the library "
                         "with that rule on; counts, per model, the fits whose replayed "
                         "labels equal the library's")
    ap.add_argument("--weak-gap", type=float, default=None,
                    help="record with semisvm._fallback.WEAK_GAP set to this (< 0: None, "
                         "the fallback's weak model off)")
    args = ap.parse_args()
    if args.analyze:
        analyze(args)
    else:
        record(args)


if __name__ == "__main__":
    main()
