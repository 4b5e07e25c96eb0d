"""The semisvm command line: train / predict / demo, errors and progress."""
import io
import logging
import os
import stat
import subprocess
import sys
import tempfile
import threading
import time
from importlib.metadata import entry_points
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import dump_svmlight_file, load_digits, load_svmlight_file

import semisvm
from semisvm import LinearSVM, _registry
from semisvm.cli import CLIError, Progress, _for_estimator, main, relabel, targets


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Digits 0-4 (-1) vs 5-9 (+1) as svmlight files; ~20% of TRAIN labeled."""
    d = tmp_path_factory.mktemp("data")
    X, digit = load_digits(return_X_y=True)
    X = X[:400] / 16.0
    y = np.where(digit[:400] >= 5, 1.0, -1.0)
    y_train = y[:300].copy()
    y_train[np.random.default_rng(0).random(300) > 0.2] = 0
    dump_svmlight_file(X[:300], y_train, str(d / "train.svm"), zero_based=False)
    dump_svmlight_file(X[300:], y[300:], str(d / "test.svm"), zero_based=False)
    return d / "train.svm", d / "test.svm"


def _available_cases():
    cases = []
    for alg in _registry.ALGORITHMS:
        marks = []
        try:
            _registry.get_class(alg)
        except _registry.NotAvailableError as exc:
            marks.append(pytest.mark.skip(reason=str(exc)))
        cases.append(pytest.param(alg, id=alg.name, marks=marks))
    return cases


def _round_trip(alg, train, test, tmp_path, run):
    """train -> predict with ``run(argv)``; compare with the Python API's fit."""
    model, out = tmp_path / "m.model", tmp_path / "pred.txt"
    cls = _registry.get_class(alg)
    extra = ["--prior", "0.5"] if "prior" in cls().get_params() else []
    status, _ = run(["train", "-a", alg.name, "-q", *extra, str(train), str(model)])
    assert status == 0
    status, err = run(["predict", str(test), str(model), str(out)])
    assert status == 0
    assert "accuracy" in err
    written = np.loadtxt(out, ndmin=1)

    X, y = load_svmlight_file(str(train), zero_based=False)
    X_test, _ = load_svmlight_file(str(test), zero_based=False,
                                   n_features=X.shape[1])
    X, X_test = _for_estimator(X, cls), _for_estimator(X_test, cls)
    rows, y_fit, labels, _ = targets(alg.kind, y)
    api = cls(**({"prior": 0.5} if extra else {})).fit(
        X if rows is None else X[rows], y_fit)
    if labels is not None:
        relabel(api, labels)
    if hasattr(api, "decision_function") and np.ndim(api.decision_function(X_test)) == 1:
        expected = api.decision_function(X_test)
    else:
        expected = api.predict(X_test)
    np.testing.assert_array_equal(written, expected)
    loaded_pred = semisvm.load(model).predict(X_test)
    np.testing.assert_array_equal(loaded_pred, api.predict(X_test))
    assert set(np.unique(loaded_pred)) <= {-1.0, 1.0}  # the labels of TRAIN


# ---------------------------------------------------------------- round trip

@pytest.mark.slow
def test_console_script_round_trip_equals_python_api(files, tmp_path):
    """The real process boundary, once: ``python -m semisvm`` (two processes)."""
    def run(argv):
        # cwd=tmp_path: `-m` puts the working directory first on sys.path, and a
        # source checkout's semisvm/ (without compiled extensions) must not
        # shadow the installed package
        r = subprocess.run([sys.executable, "-m", "semisvm", *argv],
                           capture_output=True, text=True, timeout=300,
                           check=False, cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        return r.returncode, r.stderr
    _round_trip(_registry.by_name("linear"), *files, tmp_path, run)


@pytest.mark.parametrize("alg", _available_cases())
# the round trip checks the plumbing; a fit that stops at max_iter on this
# small synthetic file (CheegerSVM) still has to round-trip
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_cli_round_trip_every_algorithm(alg, files, tmp_path, capsys):
    """Every available algorithm through main(), as the console script runs it."""
    def run(argv):
        status = main(argv)
        return status, capsys.readouterr().err
    _round_trip(alg, *files, tmp_path, run)


def test_train_predict_in_process(files, tmp_path, capsys):
    train, test = files
    model, out = tmp_path / "m.model", tmp_path / "pred.txt"
    assert main(["train", "--lam", "0.01", str(train), str(model)]) == 0
    err = capsys.readouterr().err
    n_unlab = int(np.sum(load_svmlight_file(str(train))[1] == 0))
    assert f"skipped {n_unlab} unlabeled rows (label 0)" in err
    assert main(["predict", "--labels", str(test), str(model), str(out)]) == 0
    err = capsys.readouterr().err
    pred = out.read_text().split()
    assert set(pred) <= {"1", "-1"} and len(pred) == 100
    X, y = load_svmlight_file(str(train), zero_based=False)
    api = LinearSVM(lam=0.01).fit(X[y != 0], y[y != 0])
    X_test, y_test = load_svmlight_file(str(test), zero_based=False,
                                        n_features=X.shape[1])
    acc = np.mean(api.predict(X_test) == y_test)
    assert f"accuracy {100 * acc:.2f}% " in err
    assert semisvm.load(model).lam == 0.01


def test_train_generic_param_and_zero_based(tmp_path, capsys):
    data = tmp_path / "z.svm"
    data.write_text("1 0:1 1:0.5\n-1 0:-1 2:0.5\n1 0:0.8\n-1 0:-0.9 1:0.1\n0 1:1\n")
    model = tmp_path / "m"
    assert main(["train", str(data), str(model)]) == 2
    assert "use --zero-based" in capsys.readouterr().err
    assert not model.exists()
    assert main(["train", "--zero-based", "--param", "max_iter=7", "-q",
                 str(data), str(model)]) == 0
    assert semisvm.load(model).max_iter == 7
    assert semisvm.load(model).n_features_in_ == 3
    assert semisvm.io.read_metadata(model)["info"]["cli"]["zero_based"] is True
    out = tmp_path / "out"  # predict reads TEST with the model's index base
    assert main(["predict", "-q", str(data), str(model), str(out)]) == 0
    assert len(out.read_text().split()) == 5


def test_train_predict_float32(files, tmp_path, capsys):
    train, test = files
    model, out = tmp_path / "m", tmp_path / "out"
    assert main(["train", "-q", "--dtype", "float32", str(train), str(model)]) == 0
    assert semisvm.load(model).coef_.dtype == np.float32
    assert main(["predict", "-q", str(test), str(model), str(out)]) == 0
    X, y = load_svmlight_file(str(train), zero_based=False, dtype=np.float32)
    X_test, _ = load_svmlight_file(str(test), zero_based=False, dtype=np.float32,
                                   n_features=X.shape[1])
    api = LinearSVM().fit(X[y != 0], y[y != 0])
    np.testing.assert_array_equal(np.loadtxt(out),
                                  api.decision_function(X_test).astype(float))


# ---------------------------------------------------------------- label handling

def test_targets_per_kind():
    y = np.array([1.0, 0.0, -1.0, 0.0, 1.0])
    rows, y_fit, labels, notes = targets(_registry.SUPERVISED, y)
    np.testing.assert_array_equal(y_fit, [1, -1, 1])
    assert "skipped 2 unlabeled rows" in notes[0]
    rows, y_fit, labels, _ = targets(_registry.SEMI, y)
    assert rows is None
    np.testing.assert_array_equal(y_fit, [1, -1, 0, -1, 1])  # -1 = unlabeled
    np.testing.assert_array_equal(labels, [-1.0, 1.0])
    rows, y_fit, _, notes = targets(_registry.PU, y)
    np.testing.assert_array_equal(y_fit, [1, -1, -1, -1, 1])
    assert "1 rows labeled -1 are treated as unlabeled" in notes[0]
    with pytest.raises(CLIError, match="labels 1 .* found 2"):
        targets(_registry.PU, np.array([1.0, 2.0, 0.0]))
    with pytest.raises(CLIError, match="no labeled rows"):
        targets(_registry.SEMI, np.zeros(3))


def test_relabel_maps_indices_back_to_file_labels():
    class Fake:
        classes_ = np.array([0, 1])
        transduction_ = np.array([1, 0, 0])
    m = Fake()
    relabel(m, np.array([-1.0, 1.0]))
    np.testing.assert_array_equal(m.classes_, [-1.0, 1.0])
    np.testing.assert_array_equal(m.transduction_, [1.0, -1.0, -1.0])


# ---------------------------------------------------------------- errors

def _check_error(capsys, status, *needles):
    assert status == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert "error:" in err
    for needle in needles:
        assert str(needle) in err, err


@pytest.mark.parametrize("content, needle", [
    (None, "no such file"),
    ("garbage line\n", "not a valid svmlight/libsvm file"),
    ("", "no data rows"),
    ("1 1:nan\n-1 1:1\n", "NaN or infinite"),
    ("0 1:1\n0 2:1\n", "no labeled rows"),
    ("1 1:1\n1 2:1\n", "cannot be fitted"),
])
def test_train_bad_input(content, needle, tmp_path, capsys):
    data, model = tmp_path / "train.svm", tmp_path / "m.model"
    if content is not None:
        data.write_text(content)
    _check_error(capsys, main(["train", str(data), str(model)]), data, needle)
    assert not model.exists()
    assert sorted(os.listdir(tmp_path)) == ([] if content is None else ["train.svm"])


def test_train_bad_options(files, tmp_path, capsys):
    train, _ = files
    model = tmp_path / "m"
    _check_error(capsys, main(["train", "--lam-u", "1", str(train), str(model)]),
                 "--lam-u (weight lambda_u of the unlabeled loss) does not apply "
                 "to -a linear")
    _check_error(capsys, main(["train", "--param", "bogus=1", str(train), str(model)]),
                 "--param bogus does not apply")
    _check_error(capsys, main(["train", "--lam", "-1", str(train), str(model)]),
                 train, "lam must be", "(option --lam)")
    _check_error(capsys, main(["train", str(train), str(tmp_path / "no" / "m")]),
                 "MODEL file", "cannot write")
    assert os.listdir(tmp_path) == []


def _option_value(opt):
    """A value to give ``opt`` on the command line ([] for a flag)."""
    kw = opt.argparse_kw
    if kw.get("action") == "store_const":
        return []
    if "choices" in kw:
        return [kw["choices"][0]]
    return ["rbf" if kw.get("type") is str else "3" if kw.get("type") is int
            else "0.5"]


@pytest.mark.parametrize("alg", _available_cases())
def test_every_option_against_every_algorithm(alg):
    # one meaning per option: it sets the parameter(s) of that meaning, or is
    # refused with one line naming the option (and, where one exists, the
    # option that has the meaning the user probably wants)
    from semisvm.cli import _ALL, ESTIMATOR_OPTIONS, _build_parser, _estimator_params

    assert alg.name in _ALL  # a new algorithm must be placed in the option table
    cls = _registry.get_class(alg)
    accepted = cls().get_params(deep=False)
    parser = _build_parser()
    for opt in ESTIMATOR_OPTIONS:
        argv = ["train", "-a", alg.name, opt.flag, *_option_value(opt), "T", "M"]
        args = parser.parse_args(argv)
        if alg.name in opt.params:
            params, sources = _estimator_params(args, alg, cls)
            assert set(params) == set(opt.params[alg.name]), opt.flag
            assert set(params) <= set(accepted), (opt.flag, params)
            assert set(sources.values()) == {opt.flag}
            value = vars(args)[opt.dest]
            assert all(v == value for v in params.values())
            cls(**params)
            for name in params:   # documented: --help says which parameter
                assert name in opt.help_text()
        else:
            with pytest.raises(CLIError) as info:
                _estimator_params(args, alg, cls)
            msg = str(info.value)
            assert msg.startswith(f"{opt.flag} (") and "\n" not in msg
            assert f"does not apply to -a {alg.name}" in msg
            hint = opt.instead.get(alg.name)
            if hint is not None:
                assert hint in msg
                named = [o for o in ESTIMATOR_OPTIONS
                         if any(f in hint.split() or f + "," in hint for f in o.flags)]
                # the option a refusal points to applies to this algorithm
                assert all(alg.name in o.params for o in named), (opt.flag, hint)


@pytest.mark.parametrize("argv, expected", [
    (["-a", "tvrls", "--gamma", "0.5"], {"kernel_gamma": 0.5}),
    (["-a", "cheegerrls", "--gamma", "0.5"], {"kernel_gamma": 0.5}),
    (["-a", "lapsvm", "--gamma", "0.5"], {"gamma": 0.5}),
    (["-a", "pu", "--gamma", "0.5", "--prior", "auto"], {"gamma": 0.5, "prior": "auto"}),
    (["-a", "tvrls", "--tv-weight", "2"], {"gamma": 2.0}),
    (["-a", "tvsvm", "--penalty", "3"], {"r1": 3.0, "r2": 3.0, "r": 3.0}),
    (["-a", "cheegersvm", "--penalty", "3"], {"r": 3.0}),
    (["-a", "tsvm", "-r", "0.3", "--safe"], {"r": 0.3, "safe": True}),
    (["-a", "laprls", "--n-jobs", "2"], {"n_jobs": 2}),
    (["-a", "tvrls", "-r", "0.5"], "--penalty"),
    (["-a", "cheegerrls", "-r", "0.5"], "--param balance=FRACTION"),
    (["-a", "pu", "-r", "0.5"], "--prior"),
    (["-a", "lapsvm", "--lam", "1"], "--gamma-A"),
    (["-a", "tvrls", "--gamma-I", "1"], "--tv-weight"),
    (["-a", "tsvm", "--gamma", "1"], "no kernel"),
    (["-a", "tvrls", "--tv-weight", "1", "--param", "gamma=2"], "both set"),
])
def test_option_meanings(argv, expected):
    from semisvm.cli import _build_parser, _estimator_params

    args = _build_parser().parse_args(["train", *argv, "T", "M"])
    alg = _registry.by_name(args.algorithm)
    cls = _registry.get_class(alg)
    if isinstance(expected, dict):
        assert _estimator_params(args, alg, cls)[0] == expected
    else:
        with pytest.raises(CLIError, match=expected.replace("=", ".")):
            _estimator_params(args, alg, cls)


def test_tv_kernel_width_option_end_to_end(files, tmp_path, capsys):
    # --gamma is the kernel width for TVRLS too, never its TV weight
    train, _ = files
    model = tmp_path / "m"
    assert main(["train", "-q", "-a", "tvrls", "--gamma", "0.5", "--max-iter", "5",
                 str(train), str(model)]) == 0
    fitted = semisvm.load(model)
    assert fitted.kernel_gamma == 0.5 and fitted.gamma is None
    capsys.readouterr()
    _check_error(capsys, main(["train", "-a", "tvrls", "-r", "0.5", str(train),
                               str(model)]), "-r (fraction", "--penalty")


def test_train_unavailable_algorithm(files, tmp_path, capsys, monkeypatch):
    # every shipped estimator exists: register one whose module does not
    ghost = _registry.Algorithm("ghost", "semisvm.no_such_module", "GhostSVM",
                                _registry.SEMI, "an estimator this build lacks")
    monkeypatch.setattr(_registry, "ALGORITHMS", (*_registry.ALGORITHMS, ghost))
    missing = [a for a in _registry.ALGORITHMS if a not in
               [alg for alg, _ in _registry.available()]]
    assert missing == [ghost]
    train, _ = files
    status = main(["train", "-a", missing[0].name, str(train), str(tmp_path / "m")])
    _check_error(capsys, status, "not available", missing[0].cls)
    assert os.listdir(tmp_path) == []


@pytest.fixture
def trained(files, tmp_path_factory):
    model = tmp_path_factory.mktemp("model") / "m.model"
    assert main(["train", "-q", str(files[0]), str(model)]) == 0
    return model


@pytest.mark.parametrize("case", ["missing", "truncated", "foreign", "directory"])
def test_predict_bad_model(case, files, trained, tmp_path, capsys):
    model, out = tmp_path / "m.model", tmp_path / "out.txt"
    if case == "truncated":
        model.write_bytes(trained.read_bytes()[:-100])
    elif case == "foreign":
        model.write_bytes(files[0].read_bytes())
    elif case == "directory":
        model.mkdir()
    out.write_text("previous\n")
    needle = {"missing": "no such file", "truncated": "not a semisvm model file",
              "foreign": "not a semisvm model file",
              "directory": "is a directory"}[case]
    status = main(["predict", str(files[1]), str(model), str(out)])
    _check_error(capsys, status, f"MODEL file {model}", needle)
    assert out.read_text() == "previous\n"  # the old output is untouched
    assert sorted(os.listdir(tmp_path)) == sorted(
        ["out.txt"] + ([] if case == "missing" else ["m.model"]))


def test_predict_feature_mismatch(trained, tmp_path, capsys):
    test, out = tmp_path / "t.svm", tmp_path / "out.txt"
    test.write_text("1 1:1 65:1\n")
    status = main(["predict", str(test), str(trained), str(out)])
    _check_error(capsys, status, test, "65 features", "trained on 64")
    assert not out.exists()


def test_predict_bad_test_file(trained, tmp_path, capsys):
    test, out = tmp_path / "t.svm", tmp_path / "out.txt"
    status = main(["predict", str(test), str(trained), str(out)])
    _check_error(capsys, status, f"TEST file {test}", "no such file")
    test.write_text("1 1:x\n")
    status = main(["predict", str(test), str(trained), str(out)])
    _check_error(capsys, status, f"TEST file {test}", "not a valid svmlight")
    assert not out.exists()


# ---------------------------------------------------------------- demo, progress

@pytest.mark.slow
def test_demo_prints_table(capsys):
    # (no wall-clock bound: speed lives in bench/, this machine is shared)
    assert main(["demo"]) == 0
    lines = capsys.readouterr().out.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("algorithm "))
    assert lines[at].split()[:2] == ["algorithm", "estimator"]
    assert "supervised baseline" in " ".join(lines[:at])  # says what the rows are
    rows = {}
    for line in lines[at + 2:]:
        if not line.strip():
            break
        rows[line.split()[0]] = line
    available = [alg for alg, _ in _registry.available()]
    for alg in available:
        assert alg.name in rows and "%" in rows[alg.name], rows
    base = float(rows["linear"].split("%")[0].split()[-1])
    assert "baseline" in rows["linear"] and "WORSE" not in rows["linear"]
    kinds = {alg.name: alg.kind for alg, _ in _registry.available()}
    for name, line in rows.items():  # WORSE marks exactly the rows that lose
        if name == "linear" or "%" not in line:
            continue
        error = float(line.split("%")[0].split()[-1])
        if kinds.get(name) == _registry.PU:
            # positive labels only: another task, not ranked against the baseline
            assert "other task" in line and "WORSE" not in line, line
            continue
        delta = float(line.split("%")[1].split()[0])
        assert delta == pytest.approx(error - base, abs=0.11)
        if error != base:
            assert ("WORSE" in line) == (error > base), line
    n_worse = sum("WORSE" in line for line in rows.values())
    assert f"{n_worse} of the algorithms lose" in " ".join(lines)
    if _registry.PU in kinds.values():
        assert "pu solves another task" in " ".join(lines)
    err = base
    assert 0 <= err < 50  # better than chance on a balanced problem


def test_progress_draws_on_a_terminal_and_clears():
    class TTY(io.StringIO):
        def isatty(self):
            return True
    stream = TTY()
    with Progress("training X", stream=stream, delay=0.0, interval=0.01):
        logging.getLogger("semisvm").info("iter %d: objective %g", 3, 1.5)
        time.sleep(0.1)
    text = stream.getvalue()
    assert "training X" in text and "iter 3: objective 1.5" in text
    assert text.split("\r")[-2].strip() == ""  # the line is blanked at the end


def test_progress_silent_when_not_a_terminal_or_quiet():
    stream = io.StringIO()
    with Progress("x", stream=stream, delay=0.0, interval=0.01):
        time.sleep(0.05)
    with Progress("x", stream=stream, enabled=False, delay=0.0):
        time.sleep(0.05)
    assert stream.getvalue() == ""


def test_console_script_entry_point(files, tmp_path, capsys):
    # the signal-handling wrapper of semisvm.__main__ around cli.main
    (ep,) = [ep for ep in entry_points(group="console_scripts")
             if ep.name == "semisvm"]
    assert ep.value == "semisvm.__main__:main"
    from semisvm.__main__ import main as entry
    assert ep.load() is entry
    model = tmp_path / "m.model"
    assert entry(["train", "-q", str(files[0]), str(model)]) == 0
    assert entry(["predict", "-q", str(files[1]), str(model), "-"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 100


# ------------------------------------------------------------- output files

def _lines(path):
    return Path(path).read_text().splitlines()


def test_output_to_character_device_is_written_not_replaced(trained, files, tmp_path,
                                                           capsys):
    # a character device in a temporary directory (root: a real null device,
    # otherwise a symlink to /dev/null stands in for one)
    dev = tmp_path / "null"
    try:
        os.mknod(dev, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except (PermissionError, OSError):
        dev.symlink_to("/dev/null")
    assert main(["predict", "-q", str(files[1]), str(trained), str(dev)]) == 0
    assert stat.S_ISCHR(os.stat(dev).st_mode)
    assert sorted(os.listdir(tmp_path)) == ["null"]   # no temporary file left


def test_output_to_fifo_and_stdout(trained, files, tmp_path, capsys):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(Path(fifo).read_text()))
    reader.start()
    assert main(["predict", "-q", str(files[1]), str(trained), str(fifo)]) == 0
    reader.join(10)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert len(got[0].splitlines()) == 100
    assert main(["predict", "-q", str(files[1]), str(trained), "-"]) == 0
    assert capsys.readouterr().out == got[0]
    assert sorted(os.listdir(tmp_path)) == ["pipe"]


@pytest.mark.parametrize("which", ["test", "model", "hardlink", "symlink", "train"])
def test_output_equal_to_an_input_is_refused(which, trained, files, tmp_path, capsys):
    test = tmp_path / "test.svm"
    test.write_bytes(files[1].read_bytes())
    model = tmp_path / "m.model"
    model.write_bytes(trained.read_bytes())
    before = {p: p.read_bytes() for p in (test, model)}
    if which == "train":
        status = main(["train", str(test), str(test)])
        _check_error(capsys, status, "MODEL file", "same file as the TRAIN file")
    else:
        out = {"test": test, "model": model, "hardlink": tmp_path / "hard",
               "symlink": tmp_path / "sym"}[which]
        if which == "hardlink":
            os.link(test, out)
        elif which == "symlink":
            out.symlink_to(model)
        status = main(["predict", str(test), str(model), str(out)])
        role = "TEST" if which in ("test", "hardlink") else "MODEL"
        _check_error(capsys, status, "OUTPUT file", f"same file as the {role} file")
    assert {p: p.read_bytes() for p in before} == before


def test_output_permissions_as_cp(trained, files, tmp_path, capsys):
    out = tmp_path / "out.txt"
    out.write_text("old\n")
    os.chmod(out, 0o640)
    assert main(["predict", "-q", str(files[1]), str(trained), str(out)]) == 0
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o640      # kept
    assert len(_lines(out)) == 100
    os.chmod(out, 0o444)                                     # read-only: refused
    kept = out.read_bytes()
    status = main(["predict", "-q", str(files[1]), str(trained), str(out)])
    _check_error(capsys, status, "OUTPUT file", "read-only")
    assert out.read_bytes() == kept
    # a symlink to a regular file: the target is replaced, the link stays
    target, link = tmp_path / "target.txt", tmp_path / "link.txt"
    target.write_text("old\n")
    link.symlink_to(target)
    assert main(["predict", "-q", str(files[1]), str(trained), str(link)]) == 0
    assert link.is_symlink() and len(_lines(target)) == 100
    # a new file: the umask's permissions
    new = tmp_path / "new.txt"
    old_mask = os.umask(0o027)
    try:
        assert main(["predict", "-q", str(files[1]), str(trained), str(new)]) == 0
    finally:
        os.umask(old_mask)
    assert stat.S_IMODE(os.stat(new).st_mode) == 0o640


# ------------------------------------------------------------------ signals

_SIGNAL_SCRIPT = r"""
import os, signal, sys, time
mode, argv = sys.argv[1], sys.argv[2:]
if mode == "import":
    # the signal arrives while the start-up imports are running
    def hook(event, args):
        if event == "import" and args[0] == "scipy.sparse":
            os.kill(os.getpid(), signal.SIGINT)
    sys.addaudithook(hook)
else:
    import numpy.lib.format as fmt
    write = fmt.write_array
    calls = []
    def slow_write(*a, **k):
        calls.append(1)
        if len(calls) == 2:   # in the middle of the archive
            os.kill(os.getpid(), getattr(signal, mode))
            time.sleep(5)
        return write(*a, **k)
    fmt.write_array = slow_write
from semisvm.__main__ import main
sys.exit(main(argv))
"""


def _run_signal(mode, argv):
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    # cwd: `-c` puts the working directory first on sys.path, and a source
    # checkout's semisvm/ (no compiled extensions) must not shadow the install
    return subprocess.run([sys.executable, "-c", _SIGNAL_SCRIPT, mode, *argv],
                          capture_output=True, text=True, timeout=300, env=env,
                          cwd=tempfile.gettempdir())


@pytest.mark.slow
@pytest.mark.parametrize("sig, status, word", [("SIGTERM", 143, "terminated"),
                                               ("SIGINT", 130, "interrupted")])
def test_signal_during_save_cleans_up(sig, status, word, files, trained, tmp_path):
    model = tmp_path / "m.model"
    model.write_bytes(trained.read_bytes())
    proc = _run_signal(sig, ["train", "-q", str(files[0]), str(model)])
    assert proc.returncode == status, proc.stderr
    assert proc.stderr.strip() == f"semisvm train: {word}"
    assert os.listdir(tmp_path) == ["m.model"]               # no temporary file
    assert model.read_bytes() == trained.read_bytes()        # previous model kept


@pytest.mark.slow
def test_sigint_during_start_up_imports_no_traceback(files, tmp_path):
    proc = _run_signal("import", ["train", "-q", str(files[0]),
                                  str(tmp_path / "m.model")])
    assert proc.returncode == 130, proc.stderr
    assert proc.stderr.strip() == "semisvm train: interrupted"
    assert os.listdir(tmp_path) == []


@pytest.mark.slow
def test_sigkill_leftover_removed_by_next_save(files, tmp_path):
    model = tmp_path / "m.model"
    proc = _run_signal("SIGKILL", ["train", "-q", str(files[0]), str(model)])
    assert proc.returncode == -9
    (left,) = os.listdir(tmp_path)
    # identifiable: the target's name, the tag and the dead writer's pid
    assert left.startswith(".m.model.semisvm-tmp-") and left.endswith(".tmp")
    pid = int(left[len(".m.model.semisvm-tmp-"):].split("-")[0])
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    assert main(["train", "-q", str(files[0]), str(model)]) == 0
    assert os.listdir(tmp_path) == ["m.model"]


# --------------------------------------------------- one-line errors, exit 2

@pytest.mark.parametrize("ext", ["gz", "bz2"])
def test_truncated_compressed_train_file(ext, files, tmp_path, capsys):
    import bz2
    import gzip
    data = files[0].read_bytes()
    packed = gzip.compress(data) if ext == "gz" else bz2.compress(data)
    path = tmp_path / f"train.svm.{ext}"
    path.write_bytes(packed[: len(packed) // 2])
    status = main(["train", str(path), str(tmp_path / "m.model")])
    _check_error(capsys, status, path, "truncated")
    assert sorted(os.listdir(tmp_path)) == [path.name]


def test_train_file_changed_while_read(files, tmp_path, capsys, monkeypatch):
    import sklearn.datasets
    path = tmp_path / "train.svm"
    path.write_bytes(files[0].read_bytes())
    real = sklearn.datasets.load_svmlight_file

    def truncating(f, **kw):
        out = real(f, **kw)
        with open(path, "r+b") as fh:        # another process truncates it
            fh.truncate(100)
        return out

    monkeypatch.setattr(sklearn.datasets, "load_svmlight_file", truncating)
    status = main(["train", str(path), str(tmp_path / "m.model")])
    _check_error(capsys, status, path, "changed (truncated or rewritten) while")


_RLIMIT_CLI = r"""
import resource, sys
import semisvm.cli, sklearn.datasets, scipy.sparse, numpy
with open("/proc/self/status") as f:
    vm = next(int(l.split()[1]) * 1024 for l in f if l.startswith("VmSize:"))
resource.setrlimit(resource.RLIMIT_AS, (vm + int(sys.argv[1]) * 2**20,
                                        resource.RLIM_INFINITY))
from semisvm.__main__ import main
sys.exit(main(sys.argv[2:]))
"""


def _run_limited(megabytes, argv):
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    return subprocess.run([sys.executable, "-c", _RLIMIT_CLI, str(megabytes), *argv],
                          capture_output=True, text=True, timeout=600, env=env,
                          cwd=tempfile.gettempdir())


@pytest.mark.slow
def test_feature_index_2_31_refused_with_memory_needed(tmp_path):
    path = tmp_path / "train.svm"
    path.write_text("1 1:1 2147483647:1\n-1 2:1\n1 3:1\n-1 1:2\n")
    proc = _run_limited(300, ["train", str(path), str(tmp_path / "m.model")])
    assert proc.returncode == 2, proc.stderr
    err = proc.stderr.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert str(path) in err
    assert "not enough memory: needs 208.0 GiB" in err
    assert "2147483647 features" in err
    assert os.listdir(tmp_path) == ["train.svm"]


@pytest.mark.slow
def test_gzip_bomb_refused_in_one_line(tmp_path):
    import gzip
    path = tmp_path / "bomb.svm.gz"
    with gzip.open(path, "wb", compresslevel=9) as f:
        block = b"1 1:1 2:1 3:1\n" * 100_000
        for _ in range(40):           # 4M rows, 56 MB of text from ~110 kB
            f.write(block)
    assert path.stat().st_size < 300_000
    proc = _run_limited(120, ["train", str(path), str(tmp_path / "m.model")])
    assert proc.returncode == 2, proc.stderr
    err = proc.stderr.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert str(path) in err and "not enough memory" in err
    assert os.listdir(tmp_path) == ["bomb.svm.gz"]


def test_non_finite_fit_is_not_saved(files, tmp_path, capsys, monkeypatch):
    def nan_fit(self, X, y, **kw):
        self.coef_ = np.full(X.shape[1], np.nan)
        self.intercept_ = 0.0
        self.classes_ = np.array([-1.0, 1.0])
        self.n_features_in_ = X.shape[1]
        return self
    monkeypatch.setattr(LinearSVM, "fit", nan_fit)
    status = main(["train", str(files[0]), str(tmp_path / "m.model")])
    _check_error(capsys, status, files[0], "non-finite values in coef_")
    assert os.listdir(tmp_path) == []


def test_demo_save_writes_the_readme_files(tmp_path, capsys):
    out = tmp_path / "ex"
    assert main(["demo", "--save", str(out)]) == 0
    assert "wrote" in capsys.readouterr().out
    X, y = load_svmlight_file(str(out / "train.svm"), zero_based=False)
    X_test, y_test = load_svmlight_file(str(out / "test.svm"), zero_based=False,
                                        n_features=X.shape[1])
    assert X.shape[1] == 64 and X.shape[0] + X_test.shape[0] == 1077
    assert set(np.unique(y)) == {-1.0, 0.0, 1.0} and np.sum(y != 0) == 20
    assert set(np.unique(y_test)) == {-1.0, 1.0}
    assert main(["train", "-a", "tsvm", "-q", str(out / "train.svm"),
                 str(out / "m")]) == 0
    assert main(["predict", str(out / "test.svm"), str(out / "m"),
                 str(out / "p.txt")]) == 0
    acc = float(capsys.readouterr().err.split("accuracy ")[1].split("%")[0])
    assert acc > 85.0
    assert main(["demo", "--save", str(out / "train.svm" / "x")]) == 2
    assert "--save directory" in capsys.readouterr().err


def test_linear_multiclass_train_predict(tmp_path, capsys):
    X, digit = load_digits(return_X_y=True)
    X, y = X[:500] / 16.0, digit[:500] + 1.0        # labels 1..10 (0 = unlabeled)
    y_file = y.copy()
    y_file[::4] = 0
    dump_svmlight_file(X, y_file, str(tmp_path / "tr.svm"), zero_based=False)
    model, pred = tmp_path / "m", tmp_path / "p.txt"
    assert main(["train", "-a", "linear", "--lam", "0.01", "-q",
                 str(tmp_path / "tr.svm"), str(model)]) == 0
    assert main(["predict", str(tmp_path / "tr.svm"), str(model), str(pred)]) == 0
    api = LinearSVM(lam=0.01).fit(X[y_file != 0], y[y_file != 0])
    loaded = semisvm.load(model)
    assert loaded.coef_.shape == (10, 64)
    np.testing.assert_array_equal(loaded.coef_, api.coef_)
    # more than two classes: one label per row (decision values are (n, 10))
    np.testing.assert_array_equal(np.loadtxt(pred), api.predict(X))


def test_version_answers_without_the_numerical_stack(capsys, tmp_path):
    # the parser's --version line and the fast one are the same line
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    want = capsys.readouterr().out
    assert want == f"semisvm {semisvm.__version__}\n"
    code = ("import sys; from semisvm.__main__ import main; rc = main(['--version']); "
            "print(rc, sorted(m for m in ('numpy', 'scipy', 'sklearn') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout == want + "0 []\n"
