"""The recording benches' replays model the library's rule: the check's
decision at C = 10 and the fallback's model at C = ``ADOPT_C`` where that is
right on more held-out rows (``bench/bench_tv_choice.py``, ``NOW``;
``bench/bench_laplacian_choice.py``, ``NOW``; ``bench/bench_laplacian_counterpart_c.py``,
``library_adopt``), reading the library's constants; a draw recorded with
the library replays to the library's own fit."""
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

ROOT = Path(__file__).resolve().parents[1]
if not (ROOT / "bench" / "bench_tv_choice.py").is_file():   # an installed wheel's test run
    pytest.skip("bench/ is not beside the tests (not a source checkout)",
                allow_module_level=True)
sys.path.insert(0, str(ROOT / "bench"))
import bench_laplacian_choice as blc  # noqa: E402
import bench_laplacian_counterpart_c as blcc  # noqa: E402
import bench_tv_choice as btc  # noqa: E402

import semisvm._fallback as fb  # noqa: E402
from semisvm import TVRLS, CheegerRLS, LapRLS  # noqa: E402


def _nested(n=240, d=5, seed=28, k=10):
    # concentric Gaussian clouds (tests/test_graph_defaults.py's generator,
    # draw 28): the check of LapRLS and TVRLS falls back, to the RBF SVC at
    # 3 x "scale", and takes it at C = 1 (right on 18 held-out rows of 20
    # against 17; draw 0 did so before the check's folds came to follow the
    # classes' first labeled rows)
    rng = np.random.RandomState(seed)
    y = np.arange(n) % 2
    X = rng.randn(n, d) * np.where(y == 1, 3.0, 1.0)[:, None]
    y_semi = np.full(n, -1)
    draw = np.random.default_rng(seed)
    for c in (0, 1):
        y_semi[draw.choice(np.flatnonzero(y == c), k, replace=False)] = c
    return X, y_semi, y


def _err(est, y_semi, y):
    unl = y_semi == -1
    return 100.0 * float(np.mean(est.transduction_[unl] != y[unl]))


def _fit(cls, X, y_semi):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return cls().fit(X, y_semi)


def test_the_replays_read_the_librarys_constants(monkeypatch):
    assert btc.NOW == dict(btc.TIE, guard=fb.GUARD_AGREEMENT,
                           guard_few=fb.GUARD_AGREEMENT_UNCHECKED,
                           tie_miss=fb.TIE_MISS["tv"], lead_sup=fb.MIN_LEAD["tv"],
                           adopt_c=fb.ADOPT_C["tv"], cut=True)
    assert blc.NOW == dict(blc.CHOSEN, lead=fb.MIN_LEAD["laplacian"],
                           lead1_miss=fb.LEAD1_MISS["laplacian"],
                           tie_miss=fb.TIE_MISS["laplacian"],
                           adopt_c=fb.ADOPT_C["laplacian"])
    assert btc.ADOPT_CS == tuple(sorted({c for c in fb.ADOPT_C.values() if c is not None}))
    assert blcc.library_adopt("tv") == (1, fb.ADOPT_C["tv"])
    monkeypatch.setitem(fb.ADOPT_C, "laplacian", None)
    assert blcc.library_adopt("laplacian") == (None, None)


def _row(oks10, oks1, errs10=(10.0, 20.0), errs1=(11.0, 21.0)):
    return {"cand": [{"ok": o, "err": e} for o, e in zip(oks10, errs10)],
            "cand_c": {"10": [{"ok": o, "err": e} for o, e in zip(oks10, errs10)],
                       "1": [{"ok": o, "err": e} for o, e in zip(oks1, errs1)]}}


def test_adopted_takes_c1_only_where_right_on_more_held_out_rows():
    # the chosen candidate is the second (3 right); its C = 1 form right on
    # 4 (taken), 3 (a tie keeps C = 10) or 2 (kept)
    c10 = ([1, 0, 0, 0], [1, 1, 1, 0])
    for c1_second, want in (([1, 1, 1, 1], 21.0), ([0, 1, 1, 1], 20.0),
                            ([0, 0, 1, 1], 20.0)):
        r = _row(c10, ([1, 1, 1, 1], c1_second))   # (the first's C = 1 form: not read)
        assert btc.adopted(r, 20.0, 1.0) == want
    r = _row(c10, ([1, 1, 1, 1], [1, 1, 1, 1]))
    assert btc.adopted(r, 20.0, None) == 20.0            # ADOPT_C None
    del r["cand_c"]
    assert btc.adopted(r, 20.0, 1.0) == 20.0             # not recorded: C = 10


@pytest.mark.parametrize("scaled", [False, True])
def test_a_recorded_draw_replays_to_the_librarys_fit(scaled, monkeypatch):
    # LapRLS / TVRLS fall back and take the C = 1 SVC here: the replay of
    # the library's rule (NOW) gives the library's error, the rule without
    # the C = 1 model does not. Scaled: one column 1e4 times the others
    # (feature_scaling="auto" applies; the candidates are recorded on the
    # rows as the check sees them). The reweighted SVC() comparison after
    # ADOPT_C (ADOPT_W_SHRINK; replayed by bench/bench_class_prior.py, not
    # by this bench) off, and PLAIN_FALLBACK (the fallback's model SVC()
    # whichever candidate decided; these benches replay the rule without it)
    # off.
    monkeypatch.setattr(fb, "ADOPT_W_SHRINK", None)
    monkeypatch.setattr(fb, "PLAIN_FALLBACK", False)
    X, y_semi, y = _nested()
    if scaled:
        X = X * np.r_[1e4, np.ones(X.shape[1] - 1)]
        assert btc.check_x(X)[1] is not None
    lap = blc.record(X, y_semi, y, ["LapRLS"])
    own = _fit(LapRLS, X, y_semi)
    assert own.fell_back_ and "C=1," in own.safe_counterpart_
    assert lap["models"]["LapRLS"]["err"] == _err(own, y_semi, y)
    assert blc.choose(lap, "LapRLS", blc.NOW)[0] == _err(own, y_semi, y)
    assert blc.choose(lap, "LapRLS", blc.CHOSEN)[0] != _err(own, y_semi, y)
    tv = btc.record(X, y_semi, y, ["TVRLS"])
    fit = _fit(TVRLS, X, y_semi)
    assert fit.fell_back_ and "C=1," in fit.safe_counterpart_
    assert btc.choose(tv, "TVRLS", btc.NOW)[0] == _err(fit, y_semi, y)
    assert btc.choose(tv, "TVRLS", btc.TIE)[0] != _err(fit, y_semi, y)
    # bench_laplacian_counterpart_c's check of the recordings: the library's
    # rule matches (no augment needed: the candidates at C = 1 are recorded)
    margin, C = blcc.library_adopt("laplacian")
    for rec, r in ((lap["models"]["LapRLS"], lap), (tv["lap"], tv)):
        assert blcc.lap_error(rec, r, r["cand_c"]["10"], margin, True, C) == rec["err"]
        assert blcc.lap_error(rec, r, r["cand_c"]["10"]) != rec["err"]
    tv_margin, tv_C = blcc.library_adopt("tv")
    assert blcc.tv_error(tv, "TVRLS", tv["lap"]["err"], tv_margin, True, tv_C) == \
        _err(fit, y_semi, y)


def test_a_draw_without_a_label_check_replays_the_guard_and_the_cut_check():
    # one label per class: no label check; the guard (LapRLS where the
    # agreement is below GUARD_AGREEMENT_UNCHECKED) and the cut check after
    # it, replayed from the inputs recorded with the guard off, give the
    # library's fit: the cut check falling back on the fit's own labels
    # (TVRLS) and on the guard's LapRLS labels (CheegerRLS, seed 0), and
    # keeping the guard's LapRLS (CheegerRLS, seed 1)
    took = set()
    n_tie_differs = 0
    for seed in (0, 1):
        X, y_semi, y = _nested(seed=seed, k=1)
        r = btc.record(X, y_semi, y, ["TVRLS", "CheegerRLS"])
        for m, cls in (("TVRLS", TVRLS), ("CheegerRLS", CheegerRLS)):
            fit = _fit(cls, X, y_semi)
            mr = r["models"][m]
            assert mr["ok"] is None and fit.unlabeled_gain_ is None
            assert {"cut_own", "cut_lap", "cut_svc", "err_lap_guard"} <= set(mr)
            err, what = btc.choose(r, m, btc.NOW)
            assert err == _err(fit, y_semi, y), (seed, m)
            took.add((m, what, fit.fell_back_, fit.laplacian_fallback_))
            n_tie_differs += btc.choose(r, m, btc.TIE)[0] != err
    assert took == {("TVRLS", "svc", True, False), ("CheegerRLS", "svc", True, False),
                    ("CheegerRLS", "lap(guard)", False, True)}
    assert n_tie_differs >= 2              # the rule without the cut check misses them
