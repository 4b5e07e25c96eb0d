"""``safe=True`` of the TV / Cheeger four with the two-class supervised counterpart solved by the
splitting loop (A, ``_tv_check.SAFE_COUNTERPART_DIRECT = False``) or directly on the labeled rows (B,
the default), beside ``safe=False`` and the default ``safe="auto"``, side by side in one process.

Problems: ``bench_manifold_reuse.problem(5000, d, k)`` (the 5,000-row shapes of
``bench_manifold_safe.py --small``), ``d:k`` pairs given. Per model: a warm-up fit, then False, auto,
A, B, False, auto, A, B; CPU seconds (the machine may be shared), the mean of the two runs of each;
ratios to the mean ``safe=False`` / ``"auto"`` fit; the fold count, gain, fallback and transductive
error of A and B; the load average before and after each model.

Run::

    nice -n 10 python bench/bench_tv_safe_counterpart.py TVRLS,TVSVM,CheegerRLS,CheegerSVM 60:10,10:2
"""
import json
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_manifold_reuse import problem  # noqa: E402

import semisvm  # noqa: E402
import semisvm._tv_check as TC  # noqa: E402


def cpu(f):
    c = time.process_time()
    out = f()
    return out, time.process_time() - c


def main(models, problems):
    warnings.simplefilter("ignore")
    for pk in problems.split(","):
        d, k = map(int, pk.split(":"))
        X, y, yt = problem(5000, d, k)
        unl = y == -1
        for m in models.split(","):
            Est = getattr(semisvm, m)
            Est().fit(X, y)
            res = {"m": m, "prob": f"5000x{d} {k}cls", "load0": round(os.getloadavg()[0], 2)}
            for rnd in (1, 2):
                _, res[f"False{rnd}"] = cpu(lambda: Est(safe=False).fit(X, y))
                _, res[f"auto{rnd}"] = cpu(lambda: Est().fit(X, y))
                for lab, direct in (("A", False), ("B", True)):
                    TC.SAFE_COUNTERPART_DIRECT = direct
                    est, c = cpu(lambda: Est(safe=True).fit(X, y))
                    res[f"{lab}{rnd}"] = c
                    res[f"{lab}_folds"] = int(est.safe_scores_[0].size)
                    res[f"{lab}_gain"] = round(est.unlabeled_gain_, 3)
                    res[f"{lab}_fb"] = bool(est.fell_back_)
                    res[f"{lab}_err"] = round(
                        100 * float(np.mean(est.transduction_[unl] != yt[unl])), 3)
            TC.SAFE_COUNTERPART_DIRECT = True
            res["load1"] = round(os.getloadavg()[0], 2)
            F = (res["False1"] + res["False2"]) / 2
            A = (res["auto1"] + res["auto2"]) / 2
            for lab in "AB":
                T = (res[f"{lab}1"] + res[f"{lab}2"]) / 2
                res[f"{lab}/False"] = round(T / F, 2)
                res[f"{lab}/auto"] = round(T / A, 2)
            print(json.dumps({k: (round(v, 2) if isinstance(v, float) else v)
                              for k, v in res.items()}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "TVRLS,TVSVM,CheegerRLS,CheegerSVM",
         sys.argv[2] if len(sys.argv) > 2 else "60:10,10:2")
