"""safe=True of the TV / Cheeger four on a part of bench/_suite.py: record per fit the check's
fold scores (both repeats: the first-repeat stop off), gain, fallback, the returned error, the
semi-supervised fit's and the counterpart's errors (to replay rules: compare_tv_safe_checks.py), CPU.
Two-class cells only where the environment variable TWO_CLASS=1 is set (the cells the two-class
counterpart's solve reaches).

TV_FOLD_BUDGET=<int or none> sets ``_tv_check.SAFE_TV_FOLD_MAX_ITER_TWO`` (the two-class TV model
folds' budget) and FOLD_BUDGET_MIN_ROWS=<int> its switch ``SAFE_FOLD_BUDGET_MIN_ROWS`` (the tune part's
sets have at most 600 rows: shrink it to reach them). SCORES_ONLY=1 skips the counterpart's refit
of a kept fit (its ``err_sup``): for a run whose counterpart is that of a base run (compare reads the
base's). GRAM_DOWNDATE=0/1 sets ``_tv_check.SAFE_GRAM_DOWNDATE``; N_COMPONENTS=<int> fits on that many
Nystroem features (the tune part's sets are below the "auto" switch to them); SEEDS=0,1 only those
label draws; ONLY=krvskp,poker01 only those sets. MULTI_CLASS=1: the cells of more than two classes only;
COUNTERPART_DIRECT_MULTI=0/1 sets ``_tv_check.SAFE_COUNTERPART_DIRECT_MULTI`` (the multi-class counterpart
solved directly).

Run::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 TWO_CLASS=1 nice -n 10 \
        python bench/record_tv_safe_checks.py tune TVRLS,CheegerSVM out.jsonl [max_rows]
"""
import json
import os
import sys
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _suite
import numpy as np

import semisvm
import semisvm._tv_check as TC  # noqa: E402

warnings.simplefilter("ignore")

TC.SAFE_FIRST_REPEAT_MIN_GAIN = None
if "TV_FOLD_BUDGET" in os.environ:
    v = os.environ["TV_FOLD_BUDGET"]
    TC.SAFE_TV_FOLD_MAX_ITER_TWO = None if v == "none" else int(v)
if "FOLD_BUDGET_MIN_ROWS" in os.environ:
    TC.SAFE_FOLD_BUDGET_MIN_ROWS = int(os.environ["FOLD_BUDGET_MIN_ROWS"])
scores_only = os.environ.get("SCORES_ONLY") == "1"
if "COUNTERPART_DIRECT_MULTI" in os.environ:
    TC.SAFE_COUNTERPART_DIRECT_MULTI = os.environ["COUNTERPART_DIRECT_MULTI"] == "1"
if "GRAM_DOWNDATE" in os.environ:
    TC.SAFE_GRAM_DOWNDATE = os.environ["GRAM_DOWNDATE"] == "1"
# N_COMPONENTS=<int>: the fits on that many Nystroem features (the tune part's
# sets are below the "auto" switch to them)
params = ({"n_components": int(os.environ["N_COMPONENTS"])}
          if "N_COMPONENTS" in os.environ else {})
_orig = TC.TVCheckMixin._adopt_supervised


def _adopt(self, X, y):
    self._bench_semi_labels = np.asarray(self.transduction_).copy()
    return _orig(self, X, y)


TC.TVCheckMixin._adopt_supervised = _adopt
part, models, out = sys.argv[1], sys.argv[2].split(","), sys.argv[3]
max_rows = int(sys.argv[4]) if len(sys.argv) > 4 else 600
print("# load", os.getloadavg(), flush=True)
done = set()
if os.path.exists(out):
    for l in open(out):
        r = json.loads(l)
        done.add((r["set"], r["scheme"], r["seed"], r["model"]))
groups = [(False, list(_suite.SCHEMES)), (True, list(_suite.CLASSIC_SCHEMES))]
for classic, schemes in groups:
    for d, scheme, seed, ys in _suite.cells(part, schemes=schemes, max_rows=max_rows, classic=classic):
        if os.environ.get("TWO_CLASS") == "1" and np.unique(d.y).size != 2:
            continue
        if os.environ.get("MULTI_CLASS") == "1" and np.unique(d.y).size <= 2:
            continue
        if "SEEDS" in os.environ and str(seed) not in os.environ["SEEDS"].split(","):
            continue
        if "ONLY" in os.environ and d.name not in os.environ["ONLY"].split(","):
            continue
        unl = ys == -1
        for m in models:
            if (d.name, scheme, seed, m) in done:
                continue
            Est = getattr(semisvm, m)
            t = time.process_time()
            est = Est(safe=True, **params).fit(d.X, ys)
            cpu = time.process_time() - t
            err = 100 * float(np.mean(est.transduction_[unl] != d.y[unl]))
            r = dict(set=d.name, scheme=scheme, seed=seed, model=m, cpu=cpu, err=err,
                     fb=bool(est.fell_back_), gain=est.unlabeled_gain_)
            if est.unlabeled_gain_ is not None:
                s, b = est.safe_scores_
                r["s"] = np.asarray(s).tolist()
                r["b"] = np.asarray(b).tolist()
                if est.fell_back_:
                    r["err_sup"] = err
                    semi = est._bench_semi_labels
                    r["err_semi"] = 100 * float(np.mean(semi[unl] != d.y[unl]))
                elif scores_only:
                    r["err_semi"] = err
                else:
                    r["err_semi"] = err
                    sup = est._supervised_counterpart()
                    for a in ("_safety_setup", "_safety_counterpart"):
                        sup.__dict__.pop(a, None)
                    sup.fit(d.X, ys)
                    r["err_sup"] = 100 * float(np.mean(np.asarray(sup.transduction_)[unl] != d.y[unl]))
            with open(out, "a") as fh:
                fh.write(json.dumps(r) + "\n")
            print(d.name, scheme, seed, m, f"{cpu:.2f}", r.get("gain"), r["fb"], flush=True)
print("# load", os.getloadavg(), flush=True)
