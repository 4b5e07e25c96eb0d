#!/usr/bin/env python
"""TSVM / DASVM on small dense problems: time per fit and per MFN call.

The fixed cost per MFN call (Python outer loops, argument checks, array
allocation) dominates fits of a few hundred rows; this script times the
estimators' fits on the stored splits of g50c (550 x 50) and uspst (2007 x
256, digits 0-4 vs 5-9) from ``../shared/data`` (skipped with a message
when absent), as ``bench/bench_linear_tsvm.py`` does, and reports per fit: CPU
time, MFN calls, MFN iterations, CGLS iterations and CPU time per MFN call.

``--save F`` stores each fit's coef, intercept, objective, transduction_
and counts in ``F`` (npz); ``--compare F`` checks the current fits against
such a file (the iterates must not change when only overhead is removed):
it prints the largest relative difference of coef and objective and the
number of differing labels.

Measured (2026-11-23, 2 shared cores, load average 3.8-7; CPU ms per fit,
mean of the 10 stored splits, best of 3 fits each; the former code built
from commit 2d5b060 into its own venv and run in the same minutes; every
coef, objective, label, p and history bitwise equal between the two)::

    data   model   before   after   speed-up   MFN calls  MFN iter  CG iter
    g50c   TSVM     37-56    9-13    4.2x         40.1      69.3       0
    g50c   DASVM   203-318   43-63   5.1x        154.9     255.0       0
    uspst  TSVM     88-100   51-64   1.6x         60.8      96.1     332.6
    uspst  DASVM   220-255  112-147  1.8x        124.3     208.4     579.8

DA's iterations (2026-11-23, the DA speed work: over-relaxed p-steps, one Newton
step per w-step, kl_tol 1e-5, T0 = lam_u; ``--models DAref DASVM --data
g50c uspst pcmac --repeat 3``, load 1.6-1.8; DAref = the former settings)::

    data   model   CPU ms/fit   MFN calls  MFN iter  CG iter
    g50c   DAref    38-46        154.9      255.0       0
    g50c   DASVM    13.5-15.7     69.0       72.2       0
    uspst  DAref   110-120       124.3      208.4     579.8
    uspst  DASVM    62-69         74.7       78.1     357.2
    pcmac  DAref    89-109        86.3      105.9     229.2
    pcmac  DASVM    56-70         55.6       57.4     161.1

Where the time went, before: the direct Newton step's normal matrix
X_J' A X_J (g50c: 81 % of a DA fit, one row at a time through an index
array), the CGLS setup pass (uspst), Python and the argument checks per
MFN step, the p-step's 13 transcendental calls per row. After (perf, g50c
DA): the normal matrix's 4-row AVX2 update 35 %, its row preparation 6 %,
the rest of the compiled MFN loop ~15 %, the p-step ~8 %, Python ~15 %;
uspst (float32, CGLS): per-row BLAS sdot/saxpy ~30 %, which the bitwise
promise pins.

Usage (from the repository root; a build without cython-checks)::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python bench/bench_linear_tsvm_small.py
    python bench/bench_linear_tsvm_small.py --splits 3 --repeat 5 --save /tmp/before.npz
    python bench/bench_linear_tsvm_small.py --compare /tmp/before.npz
    python bench/bench_linear_tsvm_small.py --profile DASVM --data g50c
"""
import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from semisvm import DASVM, TSVM  # noqa: E402

DATA = Path(os.environ.get("SEMISVM_SHARED_DATA",
                           Path(__file__).resolve().parents[2] / "shared" / "data"))
# r=None: the papers' balance (the labeled positive fraction), not r="auto"
MODELS = {"TSVM": lambda: TSVM(r=None), "TSVM1": lambda: TSVM(S=1, r=None),
          "DASVM": lambda: DASVM(r=None),
          # the reference settings (DASVM's defaults before 2026-11-23:
          # the same iterates as that code, bit for bit)
          "DAref": lambda: DASVM(r=None, relax=1.0, newton_steps=None, kl_tol=1e-6,
                                 T0=10.0)}


def load(name):
    path = DATA / f"{name}.npz"
    if not path.exists():
        return None
    z = dict(np.load(path, allow_pickle=False))
    if "X" not in z:
        # CSR stored by parts (pcmac)
        import scipy.sparse as sp
        z["X"] = sp.csr_matrix((z["X_data"], z["X_indices"], z["X_indptr"]),
                               shape=tuple(z["X_shape"]))
    y = z["y"]
    y = (y >= 5).astype(int) if name == "uspst" else (y == np.max(y)).astype(int)
    return z["X"], y, z["idx_lab"], z["idx_unl"]


def fits(names, models, splits):
    """Yield (data, model, split, X, y) for every fit to run."""
    for name in names:
        got = load(name)
        if got is None:
            print(f"{name}: skipped ({DATA / (name + '.npz')} absent)")
            continue
        X, yall, idx_lab, _ = got
        for k, il in enumerate(idx_lab[:splits]):
            y = np.full(X.shape[0], -1)
            y[il] = yall[il]
            for m in models:
                yield name, m, k, X, y


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", nargs="+", default=["g50c", "uspst"])
    ap.add_argument("--models", nargs="+", default=["TSVM", "DASVM"],
                    choices=sorted(MODELS))
    ap.add_argument("--splits", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=3,
                    help="fits per split; the least CPU time is kept")
    ap.add_argument("--save")
    ap.add_argument("--compare")
    ap.add_argument("--profile", choices=sorted(MODELS),
                    help="cProfile one fit of this model on the first data/split")
    args = ap.parse_args()
    try:
        print("load average %.2f %.2f %.2f" % os.getloadavg())
    except OSError:
        pass

    if args.profile:
        import cProfile
        import pstats

        name, m, k, X, y = next(fits(args.data[:1], [args.profile], 1))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            MODELS[m]().fit(X, y)   # warm up (imports, first-call costs)
            pr = cProfile.Profile()
            pr.enable()
            for _ in range(args.repeat):
                MODELS[m]().fit(X, y)
            pr.disable()
        pstats.Stats(pr).sort_stats(os.environ.get("SORT", "tottime")).print_stats(25)
        return

    rec = {}
    agg = {}
    for name, m, k, X, y in fits(args.data, args.models, args.splits):
        best = np.inf
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for _ in range(args.repeat):
                c = time.process_time()
                est = MODELS[m]().fit(X, y)
                best = min(best, time.process_time() - c)
        res = est.result_
        key = f"{name}/{m}/{k}"
        rec[key + "/coef"] = np.asarray(est.coef_, dtype=np.float64).ravel()
        rec[key + "/intercept"] = np.atleast_1d(np.asarray(est.intercept_, dtype=np.float64))
        rec[key + "/objective"] = np.array([res.objective])
        rec[key + "/transduction"] = np.asarray(est.transduction_)
        rec[key + "/counts"] = np.array([res.n_mfn, res.n_iter, res.n_cg_iter])
        for h in ("history", "kl_history", "entropy_history",
                  "switch_history", "p"):
            if hasattr(res, h):
                rec[f"{key}/{h}"] = np.asarray(getattr(res, h), dtype=np.float64)
        a = agg.setdefault((name, m), [])
        a.append((best, res.n_mfn, res.n_iter, res.n_cg_iter))
    print(f"{'data':<7}{'model':<7}{'fits':>5}{'CPU s/fit':>11}{'MFN':>7}"
          f"{'MFN it':>8}{'CG it':>8}{'ms/MFN':>8}")
    for (name, m), a in agg.items():
        a = np.array(a, dtype=np.float64)
        t, nm, ni, nc = a.mean(axis=0)
        print(f"{name:<7}{m:<7}{len(a):>5}{t:>11.4f}{nm:>7.1f}{ni:>8.1f}"
              f"{nc:>8.1f}{1e3 * t / nm:>8.3f}")
    if args.save:
        np.savez(args.save, **rec)
        print(f"saved {len(rec)} arrays to {args.save}")
    if args.compare:
        ref = dict(np.load(args.compare))
        worst_w = worst_f = 0.0
        n_lab = n_cnt = 0
        for key in rec:
            if key not in ref:
                continue
            a, b = rec[key], ref[key]
            if key.endswith("/transduction"):
                n_lab += int(np.sum(a != b))
            elif key.endswith("/counts"):
                n_cnt += int(np.any(a != b))
            elif a.shape != b.shape:
                n_cnt += 1
            elif key.endswith(("/objective", "/history", "/kl_history",
                               "/entropy_history", "/switch_history", "/p")):
                worst_f = max(worst_f, float(abs(a - b).max() / max(abs(b).max(), 1e-300)))
            else:
                worst_w = max(worst_w, float(abs(a - b).max() / max(abs(b).max(), 1e-300)))
        print(f"compare with {args.compare}: max rel diff coef/intercept {worst_w:.3g}, "
              f"objective {worst_f:.3g}; differing labels {n_lab}; fits with "
              f"different counts {n_cnt}")


if __name__ == "__main__":
    main()
