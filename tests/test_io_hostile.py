"""Model files and outputs under hostile input: one crafted file per rule.

* the whole archive has one budget (declared sizes, compression ratio,
  member count, memory), checked before any member is inflated, and the
  metadata is parsed once per command;
* every array's shape is checked against the estimator's own invariants
  (``coef_`` against ``classes_`` and ``n_features_in_``, ``intercept_``,
  kernel expansions against the fitted rows);
* user metadata (``info=``) round-trips, and ``semisvm predict`` takes such
  a file;
* devices and closed streams as outputs: written, or one line and exit 2;
* temporary names fit beside any legal final name.
"""
import json
import os
import subprocess
import sys
import tempfile
import zipfile

import numpy as np
import pytest
from sklearn.datasets import dump_svmlight_file

import semisvm
from semisvm import io as sio
from semisvm.cli import main


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(-1, 1, (30, 5)), rng.normal(1, 1, (30, 5))]
    y = np.r_[np.zeros(30, int), np.ones(30, int)]
    return X, y


@pytest.fixture(scope="module")
def files(data, tmp_path_factory):
    X, y = data
    d = tmp_path_factory.mktemp("svm")
    dump_svmlight_file(X, np.where(y == 1, 1.0, -1.0), str(d / "train.svm"),
                       zero_based=False)
    return d / "train.svm"


def _fitted(name, X, y, K=2):
    cls = getattr(semisvm, name)
    if K == 3:
        y = np.r_[y, np.full(10, 2)]
        X = np.r_[X, np.random.default_rng(1).normal(4, 1, (10, X.shape[1]))]
    if name == "LinearSVM":
        return cls().fit(X, y)
    if name == "PUSVM":
        return cls(prior=0.5).fit(X, np.where(y == 1, 1, -1) * (np.arange(len(y)) % 2))
    yssl = np.where(np.arange(len(y)) % 4 == 0, y, -1)
    return cls().fit(X, yssl)


def _check_error(capsys, status, *needles):
    assert status == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert "error:" in err and "internal error" not in err, err
    for needle in needles:
        assert str(needle) in err, err


# ---- one budget for the whole archive --------------------------------------

def _write_members(path, members, compression=zipfile.ZIP_DEFLATED):
    with zipfile.ZipFile(path, "w", compression) as zf:
        for name, payload in members.items():
            zf.writestr(name, payload)


def _members(path):
    with zipfile.ZipFile(path) as zf:
        return {n: zf.read(n) for n in zf.namelist()}


def test_many_small_compressed_members_refused_before_inflating(data, tmp_path,
                                                                monkeypatch):
    # each member alone is within the per-member rule (ratio 100 + 1 MiB);
    # together they inflate to 20 MB from a file of about 30 kB
    X, y = data
    path = tmp_path / "m.model"
    semisvm.save(_fitted("LinearSVM", X, y), path)
    members = _members(path)
    for i in range(20):
        members[f"arrays/x{i}.npy"] = bytes(2**20)
    _write_members(path, members)
    assert path.stat().st_size < 2**20
    read = []
    monkeypatch.setattr(np.lib.format, "read_array",
                        lambda *a, **k: read.append(1))
    monkeypatch.setattr(json, "loads", lambda *a, **k: read.append(1))
    for fn in (semisvm.load, sio.read_metadata):
        with pytest.raises(ValueError, match=r"inflate from \d+ to \d+ bytes in all"):
            fn(path)
    assert not read          # refused before anything was inflated or parsed


def test_compressed_metadata_bomb_refused(data, tmp_path):
    X, y = data
    path = tmp_path / "m.model"
    semisvm.save(_fitted("LinearSVM", X, y), path)
    members = _members(path)
    meta = json.loads(members[sio.METADATA_MEMBER])
    meta["info"] = {"pad": [[]] * (2 * 2**20)}     # 8 MB of "[], " in JSON
    members[sio.METADATA_MEMBER] = json.dumps(meta).encode()
    _write_members(path, members)
    assert path.stat().st_size < 200 * 2**10
    with pytest.raises(ValueError, match="in all|metadata member too large"):
        sio.read_metadata(path)


def test_metadata_parse_checks_memory(data, tmp_path, monkeypatch):
    X, y = data
    path = tmp_path / "m.model"
    semisvm.save(_fitted("LinearSVM", X, y), path)
    size = zipfile.ZipFile(path).getinfo(sio.METADATA_MEMBER).file_size
    from semisvm import _validation
    # enough for the archive's bytes, not for the parsed metadata
    monkeypatch.setattr(_validation, "memory_budget",
                        lambda: (float(path.stat().st_size + size), "test"))
    with pytest.raises(ValueError, match="not enough memory: .* parsing the "
                                         f"{size}-byte metadata member"):
        semisvm.load(path)


def test_member_count_is_bounded(data, tmp_path, monkeypatch):
    X, y = data
    path = tmp_path / "m.model"
    semisvm.save(_fitted("LinearSVM", X, y), path)
    n = len(_members(path))
    monkeypatch.setattr(sio, "_MAX_MEMBERS", n)
    semisvm.load(path)
    monkeypatch.setattr(sio, "_MAX_MEMBERS", n - 1)
    with pytest.raises(ValueError, match=f"{n} archive members"):
        semisvm.load(path)


def test_predict_parses_the_metadata_once(data, files, tmp_path, monkeypatch):
    model, out = tmp_path / "m.model", tmp_path / "out.txt"
    assert main(["train", "-q", str(files), str(model)]) == 0
    calls = []
    real = sio._open_archive
    monkeypatch.setattr(sio, "_open_archive",
                        lambda p: calls.append(p) or real(p))
    assert main(["predict", "-q", str(files), str(model), str(out)]) == 0
    assert len(calls) == 1


# ---- shapes against the estimator's invariants ----------------------------

def _crafted(model, path, **attrs):
    """Save ``model`` with some fitted attributes replaced (save checks no
    shapes: the file is as a hostile writer would make it)."""
    for k, v in attrs.items():
        vars(model)[k] = v
    semisvm.save(model, path)
    return path


@pytest.mark.parametrize("name", ["LinearSVM", "TSVM", "DASVM"])
def test_binary_coef_stored_as_a_row_is_refused(name, data, tmp_path):
    X, y = data
    m = _fitted(name, X, y)
    path = _crafted(m, tmp_path / "m.model", coef_=m.coef_[None, :])
    with pytest.raises(ValueError, match=r"coef_ has shape \(1, 5\) but "
                                         f"{name} with 2 classes and 5 features "
                                         r"has \(5,\)"):
        semisvm.load(path)


def test_intercept_of_many_values_is_refused(data, tmp_path):
    X, y = data
    m = _fitted("LinearSVM", X, y)
    path = _crafted(m, tmp_path / "m.model", intercept_=np.zeros(50))
    with pytest.raises(ValueError, match=r"intercept_ has shape \(50,\)"):
        semisvm.load(path)


def test_multiclass_coef_rows_must_match_classes(data, tmp_path):
    X, y = data
    m = _fitted("LinearSVM", X, y, K=3)
    path = _crafted(m, tmp_path / "m.model", coef_=m.coef_[:2])
    with pytest.raises(ValueError, match=r"coef_ has shape \(2, 5\) .* 3 classes"):
        semisvm.load(path)
    m = _fitted("LinearSVM", X, y, K=3)
    path = _crafted(m, tmp_path / "m2.model", coef_=m.coef_[:, :4])
    with pytest.raises(ValueError, match=r"coef_ has shape \(3, 4\)"):
        semisvm.load(path)


@pytest.mark.parametrize("name, attr, make", [
    ("LapSVM", "dual_coef_", lambda m: np.zeros((2, m.dual_coef_.shape[1]))),
    ("LapSVM", "X_fit_", lambda m: m.X_fit_[:, :4]),
    ("LapRLS", "intercept_", lambda m: np.zeros(3)),
    ("TVRLS", "alpha_", lambda m: np.zeros((m.alpha_.shape[0], 2))),
    ("TVRLS", "X_fit_", lambda m: m.X_fit_[:-1]),
    ("CheegerSVM", "intercept_", lambda m: np.zeros(2)),
    ("PUSVM", "dual_coef_", lambda m: m.dual_coef_[:-1]),
    ("PUSVM", "support_vectors_", lambda m: m.support_vectors_[:, :2]),
])
def test_kernel_expansion_shapes_are_checked(name, attr, make, data, tmp_path):
    X, y = data
    m = _fitted(name, X, y)
    path = _crafted(m, tmp_path / "m.model", **{attr: make(m)})
    with pytest.raises(ValueError, match=f"model.{attr} has shape"):
        semisvm.load(path)


@pytest.mark.slow
def test_every_estimator_passes_its_own_invariants(data, tmp_path):
    X, y = data
    for name in ("LinearSVM", "TSVM", "DASVM", "LapSVM", "LapRLS", "PUSVM",
                 "TVRLS", "TVSVM", "CheegerRLS", "CheegerSVM"):
        for K in (2, 3):
            if name == "PUSVM" and K == 3:
                continue
            m = _fitted(name, X, y, K)
            semisvm.save(m, tmp_path / "m.model")
            back = semisvm.load(tmp_path / "m.model")
            assert np.array_equal(back.predict(X), m.predict(X))


# ---- user metadata ---------------------------------------------------------

def test_info_round_trips_and_predict_takes_it(data, files, tmp_path, capsys):
    X, y = data
    m = _fitted("LinearSVM", X, y)
    info = {"cli": "note", "nested": {"a": [1, 2.5, None, True, "x"]}}
    path = tmp_path / "m.model"
    semisvm.save(m, path, info=info)
    assert sio.read_metadata(path)["info"] == info
    out = tmp_path / "out.txt"
    assert main(["predict", "-q", str(files), str(path), str(out)]) == 0
    assert len(out.read_text().splitlines()) == 60


@pytest.mark.parametrize("info, match", [
    ({"t": (1, 2)}, "read back unchanged"),
    ({1: "a"}, "read back unchanged"),
    ({"x": float("nan")}, "JSON-serialisable"),
    ({"x": object()}, "JSON-serialisable"),
    (["not", "a", "dict"], "must be a dict"),
])
def test_info_that_would_not_round_trip_is_refused(info, match, data, tmp_path):
    X, y = data
    path = tmp_path / "m.model"
    with pytest.raises(TypeError, match=match):
        semisvm.save(_fitted("LinearSVM", X, y), path, info=info)
    assert not path.exists()


# ---- outputs: devices, closed streams, long names -------------------------

def test_save_to_dev_null_and_cli_outputs_to_devices(data, files, tmp_path, capsys):
    X, y = data
    semisvm.save(_fitted("LinearSVM", X, y), "/dev/null")
    assert main(["train", "-q", str(files), "/dev/null"]) == 0
    model = tmp_path / "m.model"
    assert main(["train", "-q", str(files), str(model)]) == 0
    assert main(["predict", "-q", str(files), str(model), "/dev/null"]) == 0
    if os.path.exists("/dev/full"):
        _check_error(capsys, main(["train", "-q", str(files), "/dev/full"]),
                     "/dev/full", "cannot write it")
        _check_error(capsys, main(["predict", "-q", str(files), str(model),
                                   "/dev/full"]), "/dev/full", "cannot write it")


def test_model_written_to_a_pipe_loads(data, tmp_path):
    # the archive assembled in a spool, then copied: readable from a pipe
    X, y = data
    m = _fitted("LinearSVM", X, y)
    r, w = os.pipe()
    out = []
    import threading

    def reader():
        with os.fdopen(r, "rb") as f:
            out.append(f.read())
    t = threading.Thread(target=reader)
    t.start()
    semisvm.save(m, f"/dev/fd/{w}")
    os.close(w)
    t.join()
    path = tmp_path / "m.model"
    path.write_bytes(out[0])
    assert np.array_equal(semisvm.load(path).coef_, m.coef_)


@pytest.mark.slow
@pytest.mark.parametrize("command", ["train", "predict"])
def test_closed_standard_output_is_one_line_exit_2(command, files, tmp_path):
    model = tmp_path / "m.model"
    assert main(["train", "-q", str(files), str(model)]) == 0
    argv = (["train", "-q", str(files), "-"] if command == "train"
            else ["predict", "-q", str(files), str(model), "-"])
    # cwd: `-m` puts the working directory first on sys.path
    r = subprocess.run(["sh", "-c", 'exec >&-; exec "$0" -m semisvm "$@"',
                        sys.executable, *argv], capture_output=False,
                       stderr=subprocess.PIPE, text=True, cwd=tempfile.gettempdir(),
                       check=False)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "standard output is closed" in lines[0], r.stderr
    assert "internal error" not in r.stderr


def test_longest_legal_name_saves(data, tmp_path):
    X, y = data
    m = _fitted("LinearSVM", X, y)
    for n in (224, 255):
        path = tmp_path / ("a" * (n - 6) + ".model")
        assert len(path.name) == n
        semisvm.save(m, path)
        semisvm.save(m, path)            # replacing it, too
        assert np.array_equal(semisvm.load(path).coef_, m.coef_)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["a" * 218 + ".model", "a" * 249 + ".model"])
    # a multi-byte name: the temporary name is cut to 64 bytes of it
    assert len(os.fsencode(sio._tmp_prefix("\u00e9" * 120))) <= 1 + 64 + 13


# ---- inputs that never end --------------------------------------------------

@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_endless_binary_input_is_refused(device, tmp_path, capsys):
    model = tmp_path / "m.model"
    _check_error(capsys, main(["train", "-q", device, str(model)]), device,
                 "binary data")
    assert not model.exists()


def test_endless_text_input_stops_at_the_size_limit(files, tmp_path, capsys,
                                                    monkeypatch):
    import threading

    from semisvm import cli
    text = files.read_bytes()
    monkeypatch.setattr(cli, "stream_limit", lambda: 3 * len(text))
    model = tmp_path / "m.model"
    for copies, ok in ((3, True), (4, False)):
        r, w = os.pipe()

        def writer():
            with os.fdopen(w, "wb") as f:
                try:
                    for _ in range(copies):
                        f.write(text)
                except BrokenPipeError:
                    pass
        t = threading.Thread(target=writer)
        t.start()
        try:
            status = main(["train", "-q", f"/dev/fd/{r}", str(model)])
        finally:
            t.join()
            os.close(r)
        if ok:
            assert status == 0 and model.exists()
        else:
            _check_error(capsys, status, f"more than {3 * len(text)} bytes",
                         "regular file")


@pytest.mark.parametrize("side", ["below", "above"])
def test_archive_ratio_budget_both_sides(data, tmp_path, monkeypatch, side):
    # the whole-archive compression-ratio switch: a model saved by semisvm,
    # its members re-stored compressed, loads while its ratio is within
    # _MAX_RATIO and is refused once the budget is set just under its ratio
    X, y = data
    path = tmp_path / "m.model"
    model = _fitted("LinearSVM", X, y)
    semisvm.save(model, path)
    _write_members(path, _members(path))
    with zipfile.ZipFile(path) as zf:
        infos = zf.infolist()
    ratio = (sum(i.file_size for i in infos)
             / sum(i.compress_size for i in infos))
    assert ratio > 1.5                      # compression did something
    monkeypatch.setattr(sio, "_RATIO_SLACK", 0)
    monkeypatch.setattr(sio, "_MAX_RATIO",
                        ratio * (1.01 if side == "below" else 0.99))
    if side == "below":
        np.testing.assert_array_equal(semisvm.load(path).predict(X),
                                      model.predict(X))
    else:
        with pytest.raises(ValueError, match=r"inflate from \d+ to \d+ bytes in all"):
            semisvm.load(path)
