"""The Cheeger pair's check folds at 20k-200k rows: replayed outer-iteration budgets.

A CheegerRLS / CheegerSVM fit (``safe="auto"``, more than two classes) solves
two label folds again and reads only their held-out rows' labels. This
script fits with the folds' budget off (``_tv_check.CHEEGER_FOLD_BUDGET_MIN_ROWS``
raised to ``FOLD_BUDGET_MIN_ROWS``: the folds run to their stop rule, as
before the budget), records every solve's labels at each outer iteration,
and replays a fold stopped after ``b`` outer iterations (the iterates before
a stop are the same, so a budgeted fold's held-out labels are those of its
``b``-th iteration), then decides as :func:`semisvm._fallback.auto_fallback`
does. The replay of the recorded stop must give the fit's own
``safe_scores_`` (asserted). ``--confirm`` also fits with the defaults and
checks the replay of ``CHEEGER_FOLD_MAX_ITER`` against it.

Problems: ``make_classification(n, 50, n_informative=20, n_redundant=2,
n_classes=c, n_clusters_per_class=1, class_sep=sep, random_state=seed)``, 10
labels per class drawn with ``default_rng(seed)`` (n=100000, c=10, sep=2.0,
seed=0: the problem of bench_graph_tv_scale.py --part large).

    nice python bench/bench_cheeger_fold_budget.py --problem 100000 10 2.0 0
    nice python bench/bench_cheeger_fold_budget.py --problem 30000 10 1.0 3 --models CheegerSVM
"""
import argparse
import time
import warnings

import numpy as np


def _problem(n, c, sep, seed):
    from sklearn.datasets import make_classification
    X, yt = make_classification(n, 50, n_informative=20, n_redundant=2, n_classes=c,
                                n_clusters_per_class=1, class_sep=sep, random_state=seed)
    rng = np.random.default_rng(seed)
    y = np.full(n, -1)
    for k in range(c):
        y[rng.choice(np.flatnonzero(yt == k), 10, replace=False)] = k
    return X, y, yt


def _decide(ok_semi, ok_sup, margin=0.0):
    """(right semi, right SVC, gain, fell back) as auto_fallback decides
    (two folds, the TV / Cheeger family's rule, an RBF estimator)."""
    from semisvm import _fallback as fb
    n = ok_semi.size
    rs, rsup = int(ok_semi.sum()), int(ok_sup.sum())
    only_semi = int(np.sum(ok_semi & ~ok_sup))
    only_sup = int(np.sum(ok_sup & ~ok_semi))
    gain = (rs - rsup) / n
    lead = only_sup - only_semi
    tm = fb.TIE_MISS["tv"]
    tie = tm is not None and lead == 0 and gain <= -margin and 1 - rs / n > tm
    need = fb.MIN_LEAD["tv"]
    l1 = fb.LEAD1_MISS["tv"]
    if l1 is not None and 1 - rs / n > l1:
        need = min(need, 1)
    z = fb.Z_FALLBACK["tv"][0]
    fell = bool(tie or (gain < -margin and lead >= need
                        and lead > z * np.sqrt(only_sup + only_semi)))
    return rs, rsup, gain, fell


def _record(Est, X, y):
    """A default fit with the folds' budget below FOLD_BUDGET_MIN_ROWS off:
    (estimator, per solve the list of labels at each outer iteration)."""
    import semisvm._tv_check as tv_check
    import semisvm._tv_solvers as tv_solvers
    import semisvm.graph_tv as gt
    segs = []
    stop0, solve0 = tv_solvers._stable_stop, gt.graph_cheeger
    low0 = tv_check.CHEEGER_FOLD_BUDGET_MIN_ROWS

    def stop(state, labels, *a, **k):
        segs[-1].append(labels.copy())
        return stop0(state, labels, *a, **k)

    def solve(*a, **k):
        segs.append([])
        return solve0(*a, **k)
    tv_solvers._stable_stop, gt.graph_cheeger = stop, solve
    tv_check.CHEEGER_FOLD_BUDGET_MIN_ROWS = tv_check.FOLD_BUDGET_MIN_ROWS
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = Est().fit(X, y)
    finally:
        tv_solvers._stable_stop, gt.graph_cheeger = stop0, solve0
        tv_check.CHEEGER_FOLD_BUDGET_MIN_ROWS = low0
    return est, segs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--problem", nargs=4, type=float, default=[100000, 10, 2.0, 0],
                    metavar=("N", "CLASSES", "SEP", "SEED"))
    ap.add_argument("--models", nargs="*", default=["CheegerRLS", "CheegerSVM"])
    ap.add_argument("--budgets", nargs="*", type=int, default=[4, 5, 6])
    ap.add_argument("--confirm", action="store_true",
                    help="also fit with the defaults and compare with the replay")
    args = ap.parse_args()
    n, c, sep, seed = int(args.problem[0]), int(args.problem[1]), args.problem[2], int(args.problem[3])
    X, y, yt = _problem(n, c, sep, seed)
    import semisvm
    import semisvm._tv_check as tv_check
    from semisvm._fallback import two_folds
    labeled = y != -1
    fold, _ = two_folds(y, labeled)
    idx = np.flatnonzero(labeled)
    held = [idx[fold == k] for k in (0, 1)]
    unl = ~labeled
    for name in args.models:
        c0 = time.process_time()
        est, segs = _record(getattr(semisvm, name), X, y)
        cpu = time.process_time() - c0
        assert len(segs) == 3, "expected the fit and two fold solves"
        ok_sup = np.asarray(est.safe_scores_[1])

        def replay(ts):
            ok = np.zeros(idx.size, dtype=bool)
            for k in (0, 1):
                lab = segs[1 + k][ts[k] - 1]
                ok[fold == k] = lab[held[k]] == y[held[k]]
            return ok[fold >= 0]
        T = [len(segs[1 + k]) for k in (0, 1)]
        assert np.array_equal(replay(T), est.safe_scores_[0]), "replay != the fit's check"
        err = 100 * float(np.mean(est.transduction_[unl] != yt[unl]))
        print(f"n={n} c={c} sep={sep} seed={seed} {name}: fit {est.n_iter_} iterations, "
              f"{err:.2f} %, {cpu:.1f} CPU s (folds unbudgeted)")
        for k in (0, 1):
            right = [int(np.sum(lab[held[k]] == y[held[k]])) for lab in segs[1 + k]]
            print(f"  fold {k}: held-out right per recorded outer iteration (of {held[k].size}): {right}")
        for label, ts in [("stop rule", T)] + [(f"budget {b}", [min(t, b) for t in T])
                                               for b in args.budgets]:
            rs, rsup, gain, fell = _decide(replay(ts), ok_sup)
            print(f"  {label:10s} folds {ts[0]:2d} + {ts[1]:2d}: right {rs} / SVC {rsup} "
                  f"gain {gain:+.2f} {'falls back' if fell else 'kept'}")
        if args.confirm:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                d = getattr(semisvm, name)().fit(X, y)
            b = (est._fold_max_iter(n, np.ones(1, dtype=bool)) if n > tv_check.SCALE_MIN_ROWS
                 and c > 2 else None)
            ts = T if b is None else [min(t, b) for t in T]
            same = (np.array_equal(replay(ts), d.safe_scores_[0])
                    and np.array_equal(d.result_.decision, est.result_.decision))
            print(f"  defaults (budget {b}): the replay's reading and the fit's bits {'' if same else 'NOT '}"
                  f"matched; gain {d.unlabeled_gain_:+.2f}, fell back {d.fell_back_}")


if __name__ == "__main__":
    main()
