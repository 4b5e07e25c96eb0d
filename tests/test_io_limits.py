"""Model files: the size bounds of array and metadata members.

A ``.npy`` member must hold its array's bytes plus at most a header's worth
(``_NPY_HEADER_MAX``); a member padded with junk or larger than its metadata
says is refused before it is read, as is an oversized metadata member.
"""
import io
import json
import zipfile

import numpy as np
import pytest

import semisvm
from semisvm import LinearSVM
from semisvm import io as sio


@pytest.fixture(scope="module")
def model_file(tmp_path_factory):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 5))
    y = np.where(X[:, 0] > 0, 1, -1)
    path = tmp_path_factory.mktemp("m") / "m.model"
    semisvm.save(LinearSVM(lam=1e-2).fit(X, y), path)
    return path


def _members(path):
    with zipfile.ZipFile(path) as zf:
        return {n: zf.read(n) for n in zf.namelist()}


def _write(path, members):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)


def _largest_array(members):
    name = max((n for n in members if n.endswith(".npy")), key=lambda n: len(members[n]))
    arr = np.load(io.BytesIO(members[name]), allow_pickle=False)
    return name, arr


def test_member_padded_with_junk_is_refused(model_file, tmp_path):
    members = _members(model_file)
    name, _ = _largest_array(members)
    members[name] += b"\0" * 2**20                      # 1 MiB of junk
    path = tmp_path / "padded.model"
    _write(path, members)
    with pytest.raises(ValueError, match=rf"member {name} has \d+ bytes, expected"):
        semisvm.load(path)


def test_member_size_bound_is_exact(model_file, tmp_path):
    # the data's bytes plus _NPY_HEADER_MAX is still accepted (trailing bytes
    # are never read), one byte more is refused
    members = _members(model_file)
    name, arr = _largest_array(members)
    limit = arr.nbytes + sio._NPY_HEADER_MAX
    members[name] += b"\0" * (limit - len(members[name]))
    path = tmp_path / "at_limit.model"
    _write(path, members)
    semisvm.load(path)
    members[name] += b"\0"
    _write(path, members)
    with pytest.raises(ValueError, match=f"has {limit + 1} bytes"):
        semisvm.load(path)


def test_member_shorter_than_its_data_is_refused(model_file, tmp_path):
    members = _members(model_file)
    name, arr = _largest_array(members)
    members[name] = members[name][:arr.nbytes - 1]     # under the data's size
    path = tmp_path / "short.model"
    _write(path, members)
    with pytest.raises(ValueError, match=rf"member {name} has {arr.nbytes - 1} bytes"):
        semisvm.load(path)


def test_member_larger_than_its_metadata_shape_is_refused(model_file, tmp_path):
    # a well-formed .npy of a larger array in place of the stored one
    members = _members(model_file)
    name, arr = _largest_array(members)
    buf = io.BytesIO()
    np.save(buf, np.zeros(arr.size * 10 + 2**16, arr.dtype))
    members[name] = buf.getvalue()
    path = tmp_path / "oversized.model"
    _write(path, members)
    with pytest.raises(ValueError, match="bytes, expected"):
        semisvm.load(path)


def test_oversized_metadata_member_is_refused(model_file, tmp_path, monkeypatch):
    members = _members(model_file)
    meta = json.loads(members[sio.METADATA_MEMBER])
    text = json.dumps(meta).encode()
    monkeypatch.setattr(sio, "_MAX_METADATA_BYTES", len(text))
    members[sio.METADATA_MEMBER] = text
    path = tmp_path / "meta.model"
    _write(path, members)
    semisvm.load(path)                                  # exactly at the bound
    sio.read_metadata(path)
    members[sio.METADATA_MEMBER] = text + b" "          # one byte over
    _write(path, members)
    for fn in (semisvm.load, sio.read_metadata):
        with pytest.raises(ValueError, match="metadata member too large"):
            fn(path)
