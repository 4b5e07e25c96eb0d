"""Model files: :func:`save` and :func:`load`, a safe format without pickle.

Format (versions 1 and 2)
-------------------------
Version 2 is version 1 written for a model whose fallback is scikit-learn's
one-vs-one ``SVC()`` (its pairwise expansions in the private ``_ovo`` state,
which a version-1 reader would ignore and so predict otherwise); every other
model is written as version 1, which older semisvm versions read. Both are
read.

A model file is one ZIP archive (it is also a valid ``.npz``: ``numpy.load``
opens it) holding

* ``semisvm.json`` -- UTF-8 JSON metadata::

      {"format": "semisvm-model", "format_version": 1,
       "library_version": "0.1.0", "numpy_version": ..., "sklearn_version": ...,
       "estimator": {"kind": "estimator", "module": "semisvm.linear",
                     "class": "LinearSVM", "params": {...}, "state": {...}},
       "skipped": [...], "info": {...}}

* ``arrays/<k>.npy`` -- one NumPy ``.npy`` member per stored array, read back
  with ``allow_pickle=False``.

``params`` is ``get_params(deep=False)``; ``state`` holds every other instance
attribute of the fitted estimator (``coef_``, ``classes_``, ``result_``, ...).
Each value is a JSON node tagged by ``"kind"``:

==============  ==============================================================
``json``        ``None``, ``bool``, ``int`` or ``str`` in ``"value"``
``float``       a Python float; ``"value"`` is a number, or ``"nan"``/``"inf"``/
                ``"-inf"``
``ndarray``     ``"member"``, ``"shape"``, ``"dtype"`` (bool, integer, float,
                complex, fixed-width str/bytes only; ``"object": true`` marks an
                object array of str stored as str)
``scalar``      a NumPy scalar, stored as a 0-d ``ndarray`` member
``sparse``      a SciPy sparse matrix/array as CSR: ``"container"``,
                ``"shape"`` and ``ndarray`` nodes ``data``, ``indices``, ``indptr``
``list``,       ``"items"``: a list of nodes (``dict`` items are ``[key, value]``
``tuple``,      pairs, keys being ``json``/``float`` nodes)
``dict``
``result``      a result dataclass of :mod:`semisvm._results`: ``"class"`` and
                ``"fields"`` (name -> node)
``estimator``   a nested semisvm estimator (same layout as the top level)
==============  ==============================================================

Rules: a result dataclass with a field that none of these kinds can hold, and
a private attribute (name starting with ``_``, e.g. a kernel cache) that none
can hold, are *skipped*: the attribute is not stored and its name is listed in
``"skipped"`` (results are diagnostics and caches are rebuilt; neither is needed
to predict). A result whose class or fields no longer match is dropped on load.
Any other attribute or parameter that cannot be stored (a callable, a
``RandomState`` ...) makes :func:`save` raise ``TypeError`` naming it.

Writing is atomic (:func:`atomic_open`): the archive is written to a temporary
file ``.NAME.semisvm-tmp-PID-XXXX.tmp`` (NAME cut to its first 64 bytes, so
that any legal target name leaves room) in the target's directory, flushed and
``fsync``-ed, then renamed over the target with ``os.replace``; on any failure
(or an interrupt) the temporary file is removed and an existing model at
``path`` is left untouched, and a temporary file left by a killed save is
removed by the next save to the same path. A target that is not a regular
file (``-``, ``/dev/stdout``, a device, a FIFO) is written directly (the
archive assembled in a seekable spool first, as ``/dev/null`` and pipes cannot
seek); a read-only target is refused (``PermissionError``) as ``cp`` would, and
a closed standard output raises ``OSError`` (``EBADF``).

Loading first checks the whole archive's budget before anything is inflated:
at most ``_MAX_MEMBERS`` members, declared stored sizes within the file,
declared sizes adding up to at most ``_MAX_RATIO`` times the stored bytes (plus
1 MiB) and to the memory left, and memory for the parsed metadata (at most 8
MiB of JSON). Then the archive's CRCs, the format name and version, that the
estimator class is one of semisvm's (:data:`semisvm._registry.ALGORITHMS`), that
every parameter is one the class takes, that every array has the shape and dtype
the metadata declares, that those shapes are the estimator's own (``coef_`` and
``intercept_`` against ``classes_`` and ``n_features_in_``, kernel expansions
against the fitted rows), and finally that the model predicts on three rows
with outputs of the right shape; anything else raises ``ValueError`` naming
the file.
"""
from __future__ import annotations

import dataclasses
import errno
import json
import math
import os
import shutil
import stat
import sys
import tempfile
import warnings
import zipfile
import zlib
from contextlib import contextmanager

import numpy as np
import scipy.sparse as sp

from semisvm import _registry
from semisvm._validation import check_memory, is_dask

__all__ = ["FORMAT_VERSION", "load", "read_metadata", "save"]

FORMAT = "semisvm-model"
# the newest version written and read: 2 marks a model whose fallback is a
# one-vs-one SVC (its ``_ovo`` expansions, which a version-1 reader would
# ignore and predict otherwise); every other model is written as version 1
FORMAT_VERSION = 2
_READ_VERSIONS = (1, 2)
METADATA_MEMBER = "semisvm.json"
_MAX_METADATA_BYTES = 8 * 2**20
# parsed JSON costs up to about this many bytes of Python objects per byte of
# text (``[[],[],...]``: a 56-byte list per 3 bytes): checked before parsing
_JSON_EXPANSION = 32
_NPY_HEADER_MAX = 2**16 + 64
_MAX_RATIO = 100  # save stores members uncompressed (ratio 1)
_RATIO_SLACK = 2**20  # bytes a whole archive may inflate beyond _MAX_RATIO x
_MAX_MEMBERS = 2**16
_TMP_NAME_CHARS = 64  # characters of the target's name kept in a temporary name
_ARRAY_KINDS = "biufcUS"
_RESULTS_MODULE = "semisvm._results"


def _holds_key(node, key):
    """Whether the encoded tree ``node`` (dicts and lists) has ``key`` in some
    dict."""
    stack = [node]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            if key in v:
                return True
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return False


class _Unstorable(TypeError):
    """A value that no node kind can hold."""


# ----------------------------------------------------------------------------------
# atomic writes
# ----------------------------------------------------------------------------------

def _default_mode():
    """Permission bits a new file gets under the process umask (0o644 if unknown)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return 0o666 & ~int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o644


_TMP_TAG = ".semisvm-tmp-"
_STREAM_PATHS = ("-", "/dev/stdout", "/dev/stderr")


def _tmp_prefix(path):
    """Temporary files of a save to ``path``: ``.NAME.semisvm-tmp-PID-XXXX.tmp``,
    NAME cut to its first 64 bytes so that the temporary name stays
    within the file-name limit (255 bytes) whatever the target's length."""
    name = os.path.basename(path)[:_TMP_NAME_CHARS]
    while len(os.fsencode(name)) > _TMP_NAME_CHARS:  # multi-byte characters
        name = name[:-1]
    return "." + name + _TMP_TAG


def _pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True  # another user's process (or a nonsense pid): leave it
    return True


def remove_stale_temporaries(path):
    """Remove temporary files left next to ``path`` by a killed save.

    A save writes ``.NAME.semisvm-tmp-PID-XXXX.tmp`` beside ``NAME``; if its
    process dies without cleaning up (SIGKILL, power loss) the file stays.
    Such a file whose PID is no longer running is removed. Returns the list of
    removed paths. Errors are ignored (best effort).
    """
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    prefix = _tmp_prefix(path)
    removed = []
    try:
        names = os.listdir(directory)
    except OSError:
        return removed
    for name in names:
        if not (name.startswith(prefix) and name.endswith(".tmp")):
            continue
        pid_text = name[len(prefix):].split("-", 1)[0]
        if not pid_text.isdigit():
            continue
        pid = int(pid_text)
        if pid == os.getpid() or _pid_alive(pid):
            continue
        full = os.path.join(directory, name)
        try:
            if stat.S_ISREG(os.lstat(full).st_mode):
                os.unlink(full)
                removed.append(full)
        except OSError:
            pass
    return removed


def same_file(a, b):
    """True if the paths ``a`` and ``b`` name one existing file (device + inode)."""
    try:
        sa, sb = os.stat(a), os.stat(b)
    except (OSError, ValueError):
        return False
    return (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino)


def is_stream_target(path):
    """``-``, ``/dev/stdout``/``/dev/stderr``, ``/dev/fd/N``, or an existing
    path that is not a regular file (a device such as ``/dev/null``, a FIFO, a
    socket): written directly, never replaced."""
    path = os.fspath(path)
    if path in _STREAM_PATHS or path.startswith(("/dev/fd/", "/proc/self/fd/")):
        return True
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except FileNotFoundError:
        return False
    except OSError:
        return False


@contextmanager
def atomic_open(path, mode="wb"):
    """Open ``path`` for writing so that a failure never leaves a partial file.

    Rules (the command line's OUTPUT and MODEL follow them):

    * A regular file, or a new path: the data go to a temporary file
      ``.NAME.semisvm-tmp-PID-XXXX.tmp`` in the target's directory, flushed and
      fsync-ed, then renamed over the target with ``os.replace``. If the block
      raises (including ``KeyboardInterrupt`` and SIGTERM turned into an
      exception) the temporary file is removed and the target is untouched.
      A symbolic link is followed: its target is replaced, the link stays.
    * An existing target keeps its permission bits (and owner, when the
      process may set it). A target the process may not write
      (``os.access(W_OK)``) raises ``PermissionError`` as ``cp`` would, and so
      does one with no write bit at all (``chmod a-w``) even for root, which
      ``cp`` would let overwrite it: it is not replaced.
    * Not a regular file -- ``-`` (standard output), ``/dev/stdout``,
      ``/dev/fd/N``, a device such as ``/dev/null``, a FIFO: written directly
      (no temporary file, nothing renamed; a FIFO blocks until read).
    * Temporary files left by a killed earlier save to the same path (their
      process is gone) are removed first (:func:`remove_stale_temporaries`).
    """
    path = os.fspath(path)
    if is_stream_target(path):
        if path == "-":  # standard output, left open
            if sys.stdout is None:  # its descriptor was closed at start-up
                raise OSError(errno.EBADF, "standard output is closed", path)
            out = sys.stdout.buffer if "b" in mode else sys.stdout
            yield out
            out.flush()
            return
        with open(path, mode) as f:
            yield f
            f.flush()
        return
    real = os.path.realpath(path)  # replace a symlink's target, keep the link
    directory = os.path.dirname(real)
    try:
        st = os.stat(real)
    except FileNotFoundError:
        st = None
    if st is not None and (not os.access(real, os.W_OK)
                           or not st.st_mode & 0o222):
        raise PermissionError(errno.EACCES, "read-only file, not replaced",
                              path)
    perm = st.st_mode & 0o7777 if st is not None else _default_mode()
    remove_stale_temporaries(real)
    fd, tmp = tempfile.mkstemp(dir=directory,
                               prefix=_tmp_prefix(real) + f"{os.getpid()}-",
                               suffix=".tmp")
    try:
        with os.fdopen(fd, mode) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, perm)
        if st is not None and (st.st_uid, st.st_gid) != (os.getuid(), os.getgid()):
            try:
                os.chown(tmp, st.st_uid, st.st_gid)
            except OSError:
                pass  # not permitted: the new file is the writer's, as with cp -f
        os.replace(tmp, real)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    try:  # make the rename itself durable (best effort; not on every platform)
        dfd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)


# ----------------------------------------------------------------------------------
# encoding
# ----------------------------------------------------------------------------------

def _holds_dask(value):
    """A dask array, or a result/container holding one (a model fitted on dask)."""
    if is_dask(value):
        return True
    if isinstance(value, (list, tuple)):
        return any(_holds_dask(v) for v in value)
    if isinstance(value, dict):
        return any(_holds_dask(v) for v in value.values())
    if _is_result(value):
        return any(_holds_dask(getattr(value, f.name))
                   for f in dataclasses.fields(value))
    return False


def _is_result(value):
    return (dataclasses.is_dataclass(value) and not isinstance(value, type)
            and type(value).__module__ == _RESULTS_MODULE)


def _is_estimator(value):
    try:
        _registry.by_class(type(value).__name__)
    except KeyError:
        return False
    return type(value).__module__ == _registry.by_class(type(value).__name__).module


class _Encoder:
    def __init__(self):
        self.arrays = {}  # member name -> array to write
        self._seen = {}   # id(array) -> (array, node): a shared array is stored once

    def _array_node(self, arr, where):
        arr = np.asarray(arr)
        if arr.ndim and id(arr) in self._seen:
            return dict(self._seen[id(arr)][1])
        original = arr
        node = {"kind": "ndarray"}
        if arr.dtype == object:
            if not all(isinstance(v, str) for v in arr.flat):
                raise _Unstorable(f"{where}: an object array holding non-str values")
            arr = arr.astype(str) if arr.size else arr.astype("<U1")
            node["object"] = True
        if arr.dtype.kind not in _ARRAY_KINDS or arr.dtype.fields is not None:
            raise _Unstorable(f"{where}: an array of dtype {arr.dtype}")
        member = f"arrays/{len(self.arrays)}.npy"
        self.arrays[member] = arr
        node.update(member=member, shape=list(arr.shape), dtype=arr.dtype.str)
        if arr.ndim:
            self._seen[id(original)] = (original, node)
        return dict(node)

    def encode(self, value, where):
        if isinstance(value, np.generic):  # before float: np.float64 is a float
            node = self._array_node(np.asarray(value), where)
            node["kind"] = "scalar"
            return node
        if value is None or isinstance(value, (bool, str)):
            return {"kind": "json", "value": value}
        if isinstance(value, int) and not isinstance(value, bool):
            return {"kind": "json", "value": int(value)}
        if isinstance(value, float):
            v = float(value)
            return {"kind": "float", "value": v if math.isfinite(v) else repr(v)}
        if isinstance(value, np.ndarray):
            return self._array_node(value, where)
        if sp.issparse(value):
            X = value.tocsr()
            return {"kind": "sparse",
                    "container": "csr_array" if isinstance(value, sp.sparray)
                    else "csr_matrix",
                    "shape": [int(s) for s in X.shape],
                    "data": self._array_node(X.data, where + ".data"),
                    "indices": self._array_node(X.indices, where + ".indices"),
                    "indptr": self._array_node(X.indptr, where + ".indptr")}
        if isinstance(value, (list, tuple)):
            return {"kind": "tuple" if isinstance(value, tuple) else "list",
                    "items": [self.encode(v, f"{where}[{i}]")
                              for i, v in enumerate(value)]}
        if isinstance(value, dict):
            items = []
            for k, v in value.items():
                knode = self.encode(k, f"{where} key")
                if knode["kind"] not in ("json", "float"):
                    raise _Unstorable(f"{where}: a dict key of type {type(k).__name__}")
                items.append([knode, self.encode(v, f"{where}[{k!r}]")])
            return {"kind": "dict", "items": items}
        if _is_result(value):
            return {"kind": "result", "class": type(value).__name__,
                    "fields": {f.name: self.encode(getattr(value, f.name),
                                                   f"{where}.{f.name}")
                               for f in dataclasses.fields(value)}}
        if _is_estimator(value):
            return self.encode_estimator(value, where)[0]
        raise _Unstorable(f"{where}: a value of type {type(value).__name__}")

    def encode_estimator(self, est, where="model"):
        """Node of a semisvm estimator and the list of skipped attribute names."""
        params = est.get_params(deep=False)
        pnodes = {}
        # training-time helpers (e.g. a shared kNN graph object): not part of
        # the model, stored as None
        transient = getattr(type(est), "_transient_params", ())
        for name, value in params.items():
            if name in transient:
                value = None
            try:
                pnodes[name] = self.encode(value, f"parameter {name}")
            except _Unstorable as exc:
                raise TypeError(
                    f"cannot save {type(est).__name__}: {exc}; model files hold "
                    "numbers, strings, arrays and containers of those (no pickle)"
                ) from None
        state, skipped = {}, []
        for name, value in vars(est).items():
            if name in params:
                continue
            if _holds_dask(value):  # fitted on dask: stored as in memory
                from semisvm._distributed import materialize
                value = materialize(value)
            n_arrays = len(self.arrays)
            try:
                state[name] = self.encode(value, f"{where}.{name}")
            except _Unstorable as exc:
                if _is_result(value) or name.startswith("_"):
                    for member in list(self.arrays)[n_arrays:]:
                        del self.arrays[member]
                    self._seen = {k: v for k, v in self._seen.items()
                                  if v[1]["member"] in self.arrays}
                    skipped.append(f"{where}.{name}")
                    continue
                raise TypeError(
                    f"cannot save {type(est).__name__}: attribute {exc}; model "
                    "files hold numbers, strings, arrays and containers of those "
                    "(no pickle)") from None
        node = {"kind": "estimator", "module": type(est).__module__,
                "class": type(est).__name__, "params": pnodes, "state": state}
        return node, skipped


def _check_fitted(model):
    from sklearn.exceptions import NotFittedError
    from sklearn.utils.validation import check_is_fitted
    try:
        check_is_fitted(model)
    except NotFittedError:
        raise ValueError(f"cannot save an unfitted {type(model).__name__}; "
                         "call fit first") from None


def _check_info(info):
    """``info`` as stored: a dict that JSON gives back unchanged (str keys;
    lists, not tuples; finite floats), so that it round-trips exactly."""
    if info is None:
        return {}
    if not isinstance(info, dict):
        raise TypeError(f"info must be a dict, got {type(info).__name__}")
    try:
        same = json.loads(json.dumps(info, allow_nan=False)) == info
    except (TypeError, ValueError, RecursionError) as exc:
        raise TypeError(f"info must be JSON-serialisable: {exc}") from None
    if not same:
        raise TypeError("info must read back unchanged from JSON: str keys, "
                        "lists rather than tuples, no NaN or inf")
    return info


def save(model, path, *, info=None):
    """Write a fitted semisvm estimator to ``path`` (atomically, no pickle).

    Parameters
    ----------
    model : semisvm estimator
        A fitted estimator whose class is one of semisvm's.
    path : str or os.PathLike
        Target file; a regular file is replaced atomically (permissions kept,
        read-only refused), a device/FIFO/``-`` written directly; see
        :func:`atomic_open`.
    info : dict, optional
        Extra metadata stored under ``"info"`` and read back unchanged by
        :func:`read_metadata`: JSON values (str keys, lists, finite numbers);
        ``TypeError`` otherwise. The command line keeps its settings under
        ``info["cli"]``.

    Raises
    ------
    TypeError
        ``model`` is not a semisvm estimator, or holds a parameter/attribute
        that the format cannot store (the message names it), or ``info`` does
        not round-trip through JSON.
    ValueError
        ``model`` is not fitted.

    See Also
    --------
    load : Read the file back.
    read_metadata : Read only its JSON metadata.

    Examples
    --------
    >>> import os, tempfile
    >>> from sklearn.datasets import load_iris
    >>> import semisvm
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = semisvm.LinearSVM(lam=0.01).fit(X, y)
    >>> path = os.path.join(tempfile.mkdtemp(), "iris.model")
    >>> semisvm.save(clf, path)
    >>> bool((semisvm.load(path).coef_ == clf.coef_).all())
    True
    """
    if not _is_estimator(model):
        allowed = ", ".join(a.cls for a in _registry.ALGORITHMS)
        raise TypeError(f"model must be a semisvm estimator ({allowed}), "
                        f"got {type(model).__module__}.{type(model).__name__}")
    _check_fitted(model)
    import sklearn

    from semisvm import __version__
    enc = _Encoder()
    node, skipped = enc.encode_estimator(model)
    info = _check_info(info)
    version = FORMAT_VERSION if _holds_key(node, "_ovo") else 1
    meta = {"format": FORMAT, "format_version": version,
            "library_version": __version__, "numpy_version": np.__version__,
            "sklearn_version": sklearn.__version__,
            "estimator": node, "skipped": skipped, "info": info}
    try:
        text = json.dumps(meta, indent=1, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"info must be JSON-serialisable: {exc}") from None
    if is_stream_target(path):
        # a device (/dev/null: tell() is always 0), a FIFO or standard output:
        # the archive is assembled in a seekable spool, then copied
        with tempfile.SpooledTemporaryFile(max_size=2**26) as spool:
            _write_archive(spool, text, enc.arrays)
            spool.seek(0)
            with atomic_open(path, "wb") as f:
                shutil.copyfileobj(spool, f, 2**20)
        return
    with atomic_open(path, "wb") as f:
        _write_archive(f, text, enc.arrays)


def _write_archive(f, text, arrays):
    with zipfile.ZipFile(f, "w", compression=zipfile.ZIP_STORED,
                         allowZip64=True) as zf:
        zf.writestr(METADATA_MEMBER, text.encode("utf-8"))
        for member, arr in arrays.items():
            with zf.open(member, "w", force_zip64=True) as mf:
                np.lib.format.write_array(mf, arr, allow_pickle=False)


# ----------------------------------------------------------------------------------
# decoding
# ----------------------------------------------------------------------------------

class _Invalid(ValueError):
    """Raised inside the decoder; re-raised with the file name by load."""


def _expect(cond, msg):
    if not cond:
        raise _Invalid(msg)


class _Decoder:
    def __init__(self, zf):
        self.zf = zf
        self.used = {}  # member -> array already read (shared arrays stay shared)

    def _read_array(self, node, where):
        _expect(isinstance(node, dict) and isinstance(node.get("member"), str),
                f"{where}: no array member")
        member = node["member"]
        shape, dtype = node.get("shape"), node.get("dtype")
        _expect(isinstance(shape, list)
                and all(isinstance(s, int) and not isinstance(s, bool) and s >= 0
                        for s in shape), f"{where}: invalid shape {shape!r}")
        try:
            dt = np.dtype(dtype) if isinstance(dtype, str) else None
        except TypeError:
            dt = None
        _expect(dt is not None and dt.kind in _ARRAY_KINDS and dt.fields is None,
                f"{where}: dtype {dtype!r} is not allowed")
        if member in self.used:
            arr = self.used[member]
        else:
            try:
                info = self.zf.getinfo(member)
            except KeyError:
                raise _Invalid(f"{where}: member {member} is missing") from None
            nbytes = math.prod(shape) * dt.itemsize
            _expect(nbytes <= info.file_size <= nbytes + _NPY_HEADER_MAX,
                    f"{where}: member {member} has {info.file_size} bytes, expected "
                    f"{nbytes} bytes of data for shape {tuple(shape)} {dt}")
            # a member inflating far beyond its stored size was not written
            # by save (which stores uncompressed): refused before inflating
            _expect(info.compress_type == zipfile.ZIP_STORED
                    or info.file_size <= _MAX_RATIO * info.compress_size + 2**20,
                    f"{where}: member {member} inflates from {info.compress_size} to "
                    f"{info.file_size} bytes (not written by semisvm.save)")
            check_memory(info.file_size, f"{where}: member {member} of shape "
                                         f"{tuple(shape)} {dt}")
            with self.zf.open(member) as f:
                arr = np.lib.format.read_array(f, allow_pickle=False)
            self.used[member] = arr
        _expect(arr.shape == tuple(shape) and arr.dtype == dt,
                f"{where}: array is {arr.shape} {arr.dtype}, metadata says "
                f"{tuple(shape)} {dt}")
        if node.get("object"):
            _expect(arr.dtype.kind == "U", f"{where}: object flag on a non-str array")
            arr = arr.astype(object)
        return arr

    def decode(self, node, where):
        _expect(isinstance(node, dict) and isinstance(node.get("kind"), str),
                f"{where}: invalid node")
        kind = node["kind"]
        if kind == "json":
            v = node.get("value")
            _expect(v is None or isinstance(v, (bool, int, str)),
                    f"{where}: invalid json value")
            return v
        if kind == "float":
            v = node.get("value")
            if isinstance(v, str):
                _expect(v in ("nan", "inf", "-inf"), f"{where}: invalid float {v!r}")
                return float(v)
            _expect(isinstance(v, (int, float)) and not isinstance(v, bool),
                    f"{where}: invalid float")
            return float(v)
        if kind == "ndarray":
            return self._read_array(node, where)
        if kind == "scalar":
            arr = self._read_array(node, where)
            _expect(arr.ndim == 0, f"{where}: scalar with shape {arr.shape}")
            return arr[()]
        if kind == "sparse":
            shape = node.get("shape")
            _expect(isinstance(shape, list) and len(shape) == 2
                    and all(isinstance(s, int) and s >= 0 for s in shape),
                    f"{where}: invalid sparse shape")
            data = self._read_array(node.get("data") or {}, where + ".data")
            indices = self._read_array(node.get("indices") or {}, where + ".indices")
            indptr = self._read_array(node.get("indptr") or {}, where + ".indptr")
            _expect(data.ndim == indices.ndim == indptr.ndim == 1
                    and indices.dtype.kind == indptr.dtype.kind == "i"
                    and data.shape == indices.shape
                    and indptr.shape == (shape[0] + 1,),
                    f"{where}: inconsistent CSR arrays")
            _expect(indptr[0] == 0 and indptr[-1] == data.shape[0]
                    and np.all(np.diff(indptr) >= 0)
                    and (indices.size == 0
                         or (indices.min() >= 0 and indices.max() < shape[1])),
                    f"{where}: invalid CSR structure")
            container = {"csr_array": sp.csr_array,
                         "csr_matrix": sp.csr_matrix}.get(node.get("container"))
            _expect(container is not None, f"{where}: unknown sparse container")
            return container((data, indices, indptr), shape=tuple(shape))
        if kind in ("list", "tuple"):
            items = node.get("items")
            _expect(isinstance(items, list), f"{where}: invalid items")
            out = [self.decode(v, f"{where}[{i}]") for i, v in enumerate(items)]
            return tuple(out) if kind == "tuple" else out
        if kind == "dict":
            items = node.get("items")
            _expect(isinstance(items, list)
                    and all(isinstance(p, list) and len(p) == 2 for p in items),
                    f"{where}: invalid dict items")
            out = {}
            for knode, vnode in items:
                _expect(isinstance(knode, dict)
                        and knode.get("kind") in ("json", "float"),
                        f"{where}: invalid dict key")
                out[self.decode(knode, where + " key")] = self.decode(vnode, where)
            return out
        if kind == "result":
            return self._decode_result(node, where)
        if kind == "estimator":
            return self.decode_estimator(node, where)
        raise _Invalid(f"{where}: unknown node kind {kind!r}")

    def _decode_result(self, node, where):
        from semisvm import _results
        fields = node.get("fields")
        _expect(isinstance(fields, dict), f"{where}: invalid result fields")
        values = {name: self.decode(v, f"{where}.{name}") for name, v in fields.items()}
        cls = getattr(_results, str(node.get("class")), None)
        if (isinstance(cls, type) and dataclasses.is_dataclass(cls)
                and {f.name for f in dataclasses.fields(cls)} == set(values)):
            return cls(**values)
        return _SKIP  # result class changed since the file was written

    def decode_estimator(self, node, where="model"):
        _expect(isinstance(node, dict) and node.get("kind") == "estimator",
                f"{where}: not an estimator node")
        name, module = node.get("class"), node.get("module")
        try:
            alg = _registry.by_class(name)
        except (KeyError, TypeError):
            raise _Invalid(f"estimator class {module}.{name} is not a semisvm "
                           "estimator") from None
        _expect(module == alg.module,
                f"estimator class {module}.{name} is not a semisvm estimator")
        try:
            cls = _registry.get_class(alg)
        except _registry.NotAvailableError as exc:
            raise _Invalid(str(exc)) from None
        params, state = node.get("params"), node.get("state")
        _expect(isinstance(params, dict) and isinstance(state, dict),
                f"{where}: params/state missing")
        accepted = cls().get_params(deep=False)
        unknown = sorted(set(params) - set(accepted))
        _expect(not unknown, f"{name} takes no parameter(s) {', '.join(unknown)}")
        est = cls(**{k: self.decode(v, f"parameter {k}") for k, v in params.items()})
        for attr, v in state.items():
            _expect(isinstance(attr, str) and attr.isidentifier()
                    and attr not in accepted and not attr.startswith("__"),
                    f"{where}: invalid attribute name {attr!r}")
            # fitted attributes are named ``name_`` (public) or ``_name``
            # (private caches), and none may shadow what the class defines
            # (a method such as predict, a property)
            _expect((attr.endswith("_") or attr.startswith("_"))
                    and not hasattr(cls, attr),
                    f"{where}: {attr!r} is not a fitted attribute of {name}")
            value = self.decode(v, f"{where}.{attr}")
            if value is not _SKIP:
                _check_state_value(value, f"{where}.{attr}")
                vars(est)[attr] = value  # the instance dict, as save read it
        _check_classes(getattr(est, "classes_", None), f"{where}.classes_")
        return est


_SKIP = object()


def _check_state_value(value, where):
    """Fitted numbers are finite, as fit leaves them (results may hold NaN)."""
    if isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _check_state_value(v, f"{where}[{i}]")
    elif isinstance(value, dict):
        for k, v in value.items():
            _check_state_value(v, f"{where}[{k!r}]")
    elif sp.issparse(value):
        _check_state_value(value.data, where)
    elif isinstance(value, (float, np.floating, np.complexfloating, np.ndarray)):
        arr = np.asarray(value)
        if arr.dtype.kind in "fc":
            _expect(bool(np.all(np.isfinite(arr))),
                    f"{where}: non-finite values (NaN or inf)")


def _check_classes(classes, where):
    if classes is None:
        return
    _expect(isinstance(classes, np.ndarray) and classes.ndim == 1
            and classes.shape[0] >= 2, f"{where}: not a 1-D array of >= 2 labels")
    _expect(np.unique(classes).shape[0] == classes.shape[0],
            f"{where}: repeated labels")


def _check_archive_budget(zf, path):
    """The whole archive's declared sizes, before any member is inflated.

    ``save`` stores every member uncompressed, so an archive inflates to
    about its own size. Refused: more than ``_MAX_MEMBERS`` members; declared
    stored sizes adding up to more than the file holds; declared sizes adding
    up to more than ``_MAX_RATIO`` times the stored bytes (plus 1 MiB) -- a
    compression bomb, however it is split over members -- or to more memory
    than is left. ``zipfile`` never inflates a member beyond its declared
    size (it stops there, and the CRC check fails), so the declared sizes
    bound what reading costs.
    """
    infos = zf.infolist()
    _expect(len(infos) <= _MAX_MEMBERS,
            f"{len(infos)} archive members (at most {_MAX_MEMBERS}; not written "
            "by semisvm.save)")
    stored = sum(i.compress_size for i in infos)
    total = sum(i.file_size for i in infos)
    try:
        on_disk = os.fstat(zf.fp.fileno()).st_size
    except (AttributeError, OSError, ValueError):  # pragma: no cover - a stream
        on_disk = None
    _expect(on_disk is None or stored <= on_disk,
            f"its members declare {stored} stored bytes but the file has "
            f"{on_disk} (corrupt)")
    _expect(total <= _MAX_RATIO * stored + _RATIO_SLACK,
            f"its members inflate from {stored} to {total} bytes in all "
            "(not written by semisvm.save)")
    check_memory(total, f"the {len(infos)} members of the archive "
                        f"({total} bytes inflated)")


def _open_archive(path):
    """Open ``path`` as a ZIP, read and sanity-check the metadata member."""
    try:
        zf = zipfile.ZipFile(path)
    except zipfile.BadZipFile:
        raise _Invalid("not a semisvm model file (not a ZIP archive, or "
                       "truncated)") from None
    try:
        names = zf.namelist()
        _expect(METADATA_MEMBER in names,
                f"not a semisvm model file (no {METADATA_MEMBER} member)")
        _check_archive_budget(zf, path)
        info = zf.getinfo(METADATA_MEMBER)
        _expect(info.file_size <= _MAX_METADATA_BYTES, "metadata member too large")
        check_memory(_JSON_EXPANSION * info.file_size,
                     f"parsing the {info.file_size}-byte metadata member")
        try:
            meta = json.loads(zf.read(METADATA_MEMBER).decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise _Invalid(f"metadata is not valid JSON ({exc})") from None
        _expect(isinstance(meta, dict) and meta.get("format") == FORMAT,
                "not a semisvm model file (metadata format is not "
                f"{FORMAT!r})")
        version = meta.get("format_version")
        _expect(type(version) is int and version in _READ_VERSIONS,
                f"model format version {version!r} is not supported (this semisvm "
                f"reads versions {', '.join(map(str, _READ_VERSIONS))})")
        _expect(isinstance(meta.get("info", {}), dict), "invalid info")
        return zf, meta, names
    except BaseException:
        zf.close()
        raise


def _refuse(path, exc):
    if isinstance(exc, MemoryError) and not str(exc):
        exc = "not enough memory to read it"
    return ValueError(f"{os.fspath(path)}: {exc}")


_READ_ERRORS = (_Invalid, zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error,
                EOFError, KeyError, IndexError, OverflowError, ValueError,
                TypeError, AttributeError, NotImplementedError, RuntimeError,
                MemoryError)


def read_metadata(path):
    """Return the JSON metadata of the model file ``path`` (arrays are not read).

    Parameters
    ----------
    path : str or os.PathLike
        A file written by :func:`save`.

    Returns
    -------
    dict
        The metadata: ``"format"``, ``"format_version"``, ``"semisvm_version"``,
        ``"estimator"`` (its class, parameters and the arrays' names, shapes
        and dtypes) and ``"info"``.

    Raises
    ------
    ValueError
        If it is not a semisvm model file of a supported format version (the
        message names the file).
    OSError
        If it cannot be read.

    See Also
    --------
    load : Read the whole model.

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> import semisvm
    >>> from semisvm.io import read_metadata
    >>> clf = semisvm.LinearSVM().fit(np.array([[0.0], [1.0]]), [0, 1])
    >>> path = os.path.join(tempfile.mkdtemp(), "m.model")
    >>> semisvm.save(clf, path, info={"note": "example"})
    >>> meta = read_metadata(path)
    >>> meta["estimator"]["class"], meta["info"]
    ('LinearSVM', {'note': 'example'})
    """
    try:
        zf, meta, _ = _open_archive(path)
    except _READ_ERRORS as exc:
        raise _refuse(path, exc) from None
    zf.close()
    return meta


def _shape(value):
    """Shape of an array, ``()`` of a number, None of anything else."""
    if isinstance(value, np.ndarray) or sp.issparse(value):
        return tuple(value.shape)
    if isinstance(value, (int, float, np.number)) and not isinstance(value, bool):
        return ()
    return None


def _check_invariants(model):
    """The shapes that the estimator's own ``fit`` gives, checked against
    ``classes_`` and ``n_features_in_`` (the metadata describes the arrays;
    this checks the arrays describe a model): with K classes and d features,
    k = 1 output for K = 2 and K outputs otherwise."""
    n = getattr(model, "n_features_in_", None)
    _expect(isinstance(n, (int, np.integer)) and not isinstance(n, bool) and n >= 1,
            "the stored model has no valid n_features_in_")
    d = int(n)
    classes = getattr(model, "classes_", None)
    K = classes.shape[0] if isinstance(classes, np.ndarray) else 2
    k = 1 if K == 2 else K
    name = type(model).__name__
    st = vars(model)

    def want(attr, *shapes):
        if attr not in st:
            return
        got = _shape(st[attr])
        _expect(got in shapes,
                f"model.{attr} has shape {got} but {name} with {K} classes and "
                f"{d} features has {' or '.join(map(str, shapes))}")

    outputs = {"TSVM", "DASVM", "LinearSVM"}
    if name in outputs:
        want("coef_", (d,) if K == 2 else (K, d))
        want("intercept_", () if K == 2 else (K,))
        _expect("coef_" in st and "intercept_" in st,
                f"model: {name} needs coef_ and intercept_")
    elif name in ("LapSVM", "LapRLS"):
        want("coef_", (k, d))
        want("intercept_", (k,))
        dual = st.get("dual_coef_")
        if isinstance(dual, np.ndarray):
            _expect(dual.ndim == 2 and dual.shape[0] == k,
                    f"model.dual_coef_ has shape {dual.shape}, {name} with {K} "
                    f"classes has ({k}, n_fit)")
            if getattr(model, "kernel", None) != "precomputed":
                want("X_fit_", (dual.shape[1], d))
    elif name == "PUSVM":
        want("coef_", (d,))
        want("intercept_", ())
        sv = st.get("support_")
        if isinstance(sv, np.ndarray):
            _expect(sv.ndim == 1, f"model.support_ has shape {sv.shape}")
            want("dual_coef_", (sv.shape[0],))
            if getattr(model, "kernel", None) not in ("linear", "precomputed"):
                want("support_vectors_", (sv.shape[0], d))
    else:  # graph TV / Cheeger: a kernel expansion over the fitted rows
        alpha = st.get("alpha_")
        _expect(isinstance(alpha, np.ndarray) and alpha.ndim in (1, 2),
                "model.alpha_ is not a 1-D or 2-D array")
        want("alpha_", (alpha.shape[0],) if K == 2 else (alpha.shape[0], K))
        want("intercept_", () if K == 2 else (K,))
        want("X_fit_", (alpha.shape[0], d))
    if name in ("LapSVM", "LapRLS", "TVRLS", "TVSVM", "CheegerRLS", "CheegerSVM"):
        ovo = st.get("_ovo")
        if ovo is not None:
            # a fallback's one-vs-one SVC() (_fallback.PLAIN_FALLBACK_OVO):
            # its pairwise expansions over X_fit_, its classes a permutation
            fit = st.get("X_fit_")
            P = K * (K - 1) // 2
            _expect(isinstance(ovo, dict) and K > 2 and fit is not None
                    and set(ovo) == {"classes", "coef", "intercept", "gamma"},
                    "model._ovo is not a one-vs-one expansion")
            cls = ovo["classes"]
            _expect(isinstance(cls, np.ndarray) and cls.dtype.kind in "iu"
                    and np.array_equal(np.sort(cls), np.arange(K)),
                    f"model._ovo['classes'] is not a permutation of {K} classes")
            _expect(_shape(ovo["coef"]) == (P, _shape(fit)[0])
                    and _shape(ovo["intercept"]) == (P,)
                    and isinstance(ovo["coef"], np.ndarray)
                    and isinstance(ovo["intercept"], np.ndarray)
                    and isinstance(ovo["gamma"], float) and ovo["gamma"] > 0,
                    f"model._ovo does not hold {P} pairwise expansions over "
                    "X_fit_'s rows and a width")
        # the columns' scale of feature_scaling: predict divides new rows by it
        scale = st.get("feature_scale_")
        if scale is not None:
            _expect(isinstance(scale, np.ndarray) and scale.shape == (d,),
                    f"model.feature_scale_ has shape {_shape(scale)} but {name} "
                    f"with {d} features has None or ({d},)")
            _expect(scale.dtype.kind == "f" and bool(np.all(np.isfinite(scale)))
                    and bool(np.all(scale > 0)),
                    "model.feature_scale_ (the columns' standard deviations) "
                    "holds a value that is not a finite float > 0")


def _smoke_test(model):
    _check_invariants(model)
    d = int(model.n_features_in_)
    X = np.linspace(-1.0, 1.0, 3 * d).reshape(3, d)
    classes = getattr(model, "classes_", None)
    K = classes.shape[0] if isinstance(classes, np.ndarray) else 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            method = getattr(model, "decision_function", None)
            out = np.asarray(method(X)) if method is not None else None
            labels = np.asarray(model.predict(X))
        except Exception as exc:  # noqa: BLE001  (whatever fails, refuse the file)
            raise _Invalid("the stored model is inconsistent: predicting fails "
                           f"({type(exc).__name__}: {exc})") from None
    if out is not None:
        _expect(out.shape == ((3,) if K == 2 else (3, K)),
                f"the stored model is inconsistent: {out.shape} decision values "
                f"for 3 rows and {K} classes")
        _expect(out.dtype.kind not in "fc" or bool(np.all(np.isfinite(out))),
                "the stored model is inconsistent: non-finite output")
    _expect(labels.shape == (3,), f"the stored model is inconsistent: "
                                  f"{labels.shape} labels for 3 rows")
    if isinstance(classes, np.ndarray):
        _expect(bool(np.all(np.isin(labels, classes))),
                "the stored model is inconsistent: it predicts labels that are "
                "not in classes_")


def load(path):
    """Read a model written by :func:`save`; return the fitted estimator.

    Parameters
    ----------
    path : str or os.PathLike
        A file written by :func:`save`.

    Returns
    -------
    estimator
        The fitted semisvm estimator, of the class stored in the file.

    Raises
    ------
    ValueError
        The file is not a semisvm model file, has an unsupported format
        version, a class that is not a semisvm estimator, arrays whose shape or
        dtype differ from the metadata, is truncated or corrupt; the message
        starts with the file name.
    OSError
        The file cannot be opened.

    See Also
    --------
    save : Write a model.
    read_metadata : Read only the metadata.

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> import semisvm
    >>> X, y = np.array([[0.0], [1.0], [3.0], [4.0]]), np.array([0, 0, 1, 1])
    >>> path = os.path.join(tempfile.mkdtemp(), "m.model")
    >>> semisvm.save(semisvm.LinearSVM(lam=0.1).fit(X, y), path)
    >>> semisvm.load(path).predict([[0.5], [3.5]])
    array([0, 1])
    """
    return load_with_metadata(path)[0]


def load_with_metadata(path):
    """:func:`load` and :func:`read_metadata` in one reading of the file
    (the metadata parsed once): returns ``(estimator, metadata)``."""
    try:
        zf, meta, names = _open_archive(path)
        with zf:
            dec = _Decoder(zf)
            model = dec.decode_estimator(meta.get("estimator"))
            extra = set(names) - set(dec.used) - {METADATA_MEMBER}
            _expect(not extra, f"unexpected member(s) {sorted(extra)[:3]}")
        _smoke_test(model)
    except _READ_ERRORS as exc:
        raise _refuse(path, exc) from None
    return model, meta
