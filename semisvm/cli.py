"""The ``semisvm`` command line: ``train``, ``predict`` and ``demo``.

Input files are svmlight/libsvm text (``label index:value ...``, indices from 1
unless ``--zero-based``), read by scikit-learn's ``load_svmlight_file``. Label
``0`` marks an unlabeled row, as in SVMlight and SVMlin. Models are written with
:func:`semisvm.save` (no pickle, atomic) and read with :func:`semisvm.load`.

Exit status: 0 on success; 2 on bad usage or bad input (missing, malformed,
truncated or compressed-and-truncated file, a file changed while being read,
not enough memory, corrupt or foreign model, feature-count mismatch, an
algorithm this installation does not have, an output that is an input or
read-only), with one line on stderr naming the file and the problem, and no
output file written; 130 on SIGINT and 143 on SIGTERM (one line, temporary
files removed; see :mod:`semisvm.__main__`).

Output files follow :func:`semisvm.io.atomic_open`: a regular file (or a new
path) is replaced atomically, keeping its permissions; ``-``, ``/dev/stdout``,
devices and FIFOs are written directly; a read-only target is refused.

The algorithms come from :data:`semisvm._registry.ALGORITHMS`; an estimator
option applies to an algorithm when its estimator has a parameter of that name.
"""
from __future__ import annotations

import argparse
import json
import logging
import lzma
import os
import shutil
import stat
import sys
import threading
import time
import warnings
import zlib

import numpy as np
import scipy.sparse as sp

from semisvm import _registry
from semisvm.io import atomic_open, load_with_metadata, same_file, save

__all__ = ["main"]

PROG = "semisvm"


class CLIError(Exception):
    """A user-facing error: printed as one line, exit status 2."""


def _float_or_auto(text):
    if text.strip() == "auto":
        return "auto"
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a number or 'auto', got {text!r}") from None


# ----------------------------------------------------------------------------------
# estimator options: one meaning per option, mapped per algorithm
# ----------------------------------------------------------------------------------

# algorithm groups (names of _registry.ALGORITHMS)
_LINEAR = ("linear",)
_SSL_LINEAR = ("tsvm", "da")
_LAPLACIAN = ("lapsvm", "laprls")
_PU = ("pu",)
_TV = ("tvsvm", "tvrls")
_CHEEGER = ("cheegersvm", "cheegerrls")
_KERNEL = _LAPLACIAN + _PU + _TV + _CHEEGER
_ALL = _LINEAR + _SSL_LINEAR + _KERNEL


class Option:
    """One command-line option of ``train``: one meaning for every algorithm.

    ``params`` maps each algorithm the option applies to onto the estimator
    parameter(s) that carry that meaning (the names differ between families:
    the kernel width is ``gamma`` for LapSVM and ``kernel_gamma`` for TVRLS).
    For any other algorithm the option is refused; ``instead`` names the
    option to use there, when one has the meaning the user probably wants.
    """

    def __init__(self, flags, help_, params, *, instead=None, **argparse_kw):
        self.flags = tuple(flags)
        self.dest = "opt_" + self.flags[0].lstrip("-").replace("-", "_")
        self.help = help_
        self.params = {alg: ((p,) if isinstance(p, str) else tuple(p))
                       for alg, p in params.items()}
        self.instead = dict(instead or {})
        self.argparse_kw = argparse_kw

    @property
    def flag(self):
        return self.flags[0]

    def help_text(self):
        """The help line: the meaning, then which parameter it sets where."""
        by_params = {}
        for alg, names in self.params.items():
            by_params.setdefault(names, []).append(alg)
        where = "; ".join(f"{'/'.join(names)} of {', '.join(algs)}"
                          for names, algs in by_params.items())
        return f"{self.help} [sets {where}]"

    def refusal(self, alg):
        """The one-line message refusing this option for algorithm ``alg``."""
        msg = (f"{self.flag} ({self.help.split(';')[0].split(' (')[0]}) does not "
               f"apply to -a {alg}")
        hint = self.instead.get(alg)
        if hint:
            msg += f"; {hint}"
        return msg


def _of(algs, param):
    return {a: param for a in algs}


ESTIMATOR_OPTIONS = (
    Option(("--lam", "-W"),
           "weight lambda of the norm regularizer (SVMlin -W): lambda/2 ||w||^2, "
           "or the RKHS norm of a kernel model; for linear, tsvm and da LIBLINEAR "
           "C = 1/(2 lambda)",
           _of(_LINEAR + _SSL_LINEAR + _PU + _TV + _CHEEGER, "lam"),
           instead=_of(_LAPLACIAN, "its RKHS weight is --gamma-A"),
           type=float, metavar="LAM"),
    Option(("--lam-u", "-U"), "weight lambda_u of the unlabeled loss (SVMlin -U)",
           _of(_SSL_LINEAR, "lam_u"),
           instead={**_of(_LAPLACIAN, "its graph weight is --gamma-I"),
                    **_of(_TV, "its graph weight is --tv-weight")},
           type=float, metavar="LAM_U"),
    Option(("-r", "-R"),
           "fraction of the unlabeled rows that are positive (SVMlin -R, "
           "SVM-light -p)",
           _of(_SSL_LINEAR, "r"),
           instead={**_of(_PU, "the fraction of positives is --prior"),
                    **_of(_TV, "the estimator parameter r of this algorithm is "
                               "a solver penalty, set by --penalty"),
                    **_of(_CHEEGER, "the fraction of rows in the second class is "
                                    "--param balance=FRACTION; the estimator "
                                    "parameter r of this algorithm is a solver "
                                    "penalty, set by --penalty")},
           type=float, metavar="R"),
    Option(("-S",), "label pairs switched at once (SVMlin -S; 1 = Joachims' TSVM)",
           _of(("tsvm",), "S"), type=int, metavar="S"),
    Option(("--prior",),
           "class prior pi: fraction of the positives among the unlabeled rows "
           "(positive-unlabeled learning; 'auto' estimates it)",
           _of(_PU, "prior"),
           instead=_of(_SSL_LINEAR, "the fraction of positive unlabeled rows is -r"),
           type=_float_or_auto, metavar="PI"),
    Option(("--kernel",), "kernel: linear, rbf, poly (SVM-light -t)",
           _of(_KERNEL, "kernel"),
           instead=_of(_LINEAR + _SSL_LINEAR, "a linear algorithm has no kernel "
                                              "(-a lapsvm, pu, tvrls ... have one)"),
           type=str, metavar="NAME"),
    Option(("--gamma", "-g"),
           "kernel width of the rbf and poly kernels (SVM-light -g)",
           {**_of(_LAPLACIAN + _PU, "gamma"), **_of(_TV + _CHEEGER, "kernel_gamma")},
           instead=_of(_LINEAR + _SSL_LINEAR, "a linear algorithm has no kernel"),
           type=float, metavar="G"),
    Option(("--degree", "-d"), "degree of the poly kernel (SVM-light -d)",
           _of(_KERNEL, "degree"), type=int, metavar="D"),
    Option(("--coef0",), "offset of the poly kernel (SVM-light -r)",
           _of(_KERNEL, "coef0"), type=float, metavar="C0"),
    Option(("--gamma-A",), "ambient (RKHS) regularization weight gamma_A",
           _of(_LAPLACIAN, "gamma_A"),
           instead=_of(_LINEAR + _SSL_LINEAR + _PU + _TV + _CHEEGER,
                       "its RKHS (norm) weight is --lam"),
           type=float, metavar="GA"),
    Option(("--gamma-I",), "intrinsic (graph Laplacian) regularization weight gamma_I",
           _of(_LAPLACIAN, "gamma_I"),
           instead=_of(_TV, "its graph (total variation) weight is --tv-weight"),
           type=float, metavar="GI"),
    Option(("--tv-weight",), "weight gamma of the graph total-variation term",
           _of(_TV, "gamma"),
           instead=_of(_LAPLACIAN, "its graph weight is --gamma-I"),
           type=float, metavar="TV"),
    Option(("--penalty",),
           "penalty of the splitting solver (augmented-Lagrangian / proximal "
           "weight of the TV and Cheeger iterations)",
           {**_of(_TV, ("r1", "r2", "r")), **_of(_CHEEGER, "r")},
           type=float, metavar="P"),
    Option(("--n-neighbors", "-k"), "neighbours of the kNN graph",
           _of(_LAPLACIAN + _TV + _CHEEGER, "n_neighbors"), type=int, metavar="K"),
    Option(("--solver",), "solver variant (see the estimator's solver parameter)",
           _of(_LAPLACIAN + _PU, "solver"), type=str, metavar="NAME"),
    Option(("--cache-size",), "kernel cache budget (MB)",
           _of(_PU, "cache_size"), type=float, metavar="MB"),
    Option(("--max-iter",), "iteration limit of the estimator's outer loop",
           _of(_ALL, "max_iter"), type=int, metavar="N"),
    Option(("--tol",), "stopping tolerance of the estimator's outer loop",
           _of(_ALL, "tol"), type=float, metavar="TOL"),
    Option(("--class-weight",), "reweight the classes",
           _of(_LINEAR, "class_weight"), choices=["balanced"]),
    Option(("--no-intercept",), "fit no bias term",
           _of(_LINEAR + _SSL_LINEAR + _LAPLACIAN, "fit_intercept"),
           action="store_const", const=False),
    Option(("--safe",),
           "the safety net: compare with the supervised counterpart by "
           "cross-validation on the labeled rows and fall back to it when the "
           "unlabeled rows do not help (safe=True)",
           _of(_SSL_LINEAR + _LAPLACIAN + _TV + _CHEEGER, "safe"),
           action="store_const", const=True),
    Option(("--n-jobs",), "threads of the fit (n_jobs)",
           _of(_LINEAR + _SSL_LINEAR + _LAPLACIAN + _TV + _CHEEGER, "n_jobs"), type=int,
           metavar="N"),
    Option(("--seed",), "random seed (random_state)",
           _of(_LAPLACIAN + _PU + _TV + _CHEEGER, "random_state"),
           type=int, metavar="SEED"),
)


def _parse_value(text):
    """``--param NAME=VALUE``: JSON literal (1e-3, true, null, "x"), else a string."""
    low = text.strip()
    py = {"True": True, "False": False, "None": None}
    if low in py:
        return py[low]
    try:
        value = json.loads(low)
    except ValueError:
        return text
    if isinstance(value, (dict, list)):
        return value
    return value


def _param_pair(text):
    name, sep, value = text.partition("=")
    if not sep or not name.isidentifier():
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    return name, _parse_value(value)


# ----------------------------------------------------------------------------------
# argument parser
# ----------------------------------------------------------------------------------

def _build_parser():
    from semisvm import __version__

    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Semi-supervised and positive-unlabeled SVMs on svmlight files "
                    "(label 0 = unlabeled).",
    )
    parser.add_argument("--version", action="version",
                        version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    algs = "\n".join(f"  {a.name:<11} {a.cls:<11} {a.summary}"
                     for a in _registry.ALGORITHMS)
    train = sub.add_parser(
        "train", help="fit a model on an svmlight file and save it",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Fit a model on TRAIN (svmlight/libsvm; label 0 = unlabeled) "
                    "and write it to MODEL.",
        epilog=f"algorithms (-a):\n{algs}\n\nAn option that does not apply to the "
               "algorithm is refused (exit status 2); any other estimator "
               "parameter can be set with --param NAME=VALUE.")
    train.add_argument("-a", "--algorithm", default="linear",
                       choices=[a.name for a in _registry.ALGORITHMS],
                       metavar="ALG", help="algorithm (default: linear); see below")
    opts = train.add_argument_group(
        "estimator parameters",
        "Each option has one meaning; [sets ...] names the estimator parameter "
        "it sets for each algorithm, and any other algorithm refuses it.")
    for opt in ESTIMATOR_OPTIONS:
        opts.add_argument(*opt.flags, dest=opt.dest, default=argparse.SUPPRESS,
                          help=opt.help_text(), **opt.argparse_kw)
    opts.add_argument("--param", dest="extra_params", action="append",
                      type=_param_pair, default=[], metavar="NAME=VALUE",
                      help="set the estimator parameter NAME (its Python name, "
                           "see the estimator's documentation) (repeatable)")
    _add_input_options(train)
    train.add_argument("-q", "--quiet", action="store_true",
                       help="no progress indicator and no information on stderr")
    train.add_argument("train", metavar="TRAIN", help="training data (svmlight)")
    train.add_argument("model", metavar="MODEL",
                       help="model file to write ('-': standard output)")

    pred = sub.add_parser(
        "predict", help="apply a saved model to an svmlight file",
        description="Write one decision value (or, with --labels, one label) per "
                    "row of TEST to OUTPUT; print the accuracy on the labeled rows "
                    "(label != 0) of TEST to stderr.")
    pred.add_argument("--labels", action="store_true",
                      help="write predicted labels instead of decision values")
    _add_input_options(pred, default_from_model=True)
    pred.add_argument("-q", "--quiet", action="store_true",
                      help="no accuracy line on stderr")
    pred.add_argument("test", metavar="TEST", help="data to predict (svmlight)")
    pred.add_argument("model", metavar="MODEL", help="model file (semisvm train)")
    pred.add_argument("output", metavar="OUTPUT",
                      help="predictions file to write ('-': standard output)")

    demo = sub.add_parser(
        "demo", help="compare the algorithms on scikit-learn's digits",
        description="Digits 2,3,5 against 6,8,9 (scikit-learn's bundled copy) with "
                    "few labels: test error and fit time of every available "
                    "algorithm, averaged over random draws.")
    demo.add_argument("--n-labeled", type=int, default=20, metavar="N",
                      help="labeled training rows, half per class (default: 20)")
    demo.add_argument("--repeats", type=int, default=3, metavar="K",
                      help="random draws of the labels and split (default: 3)")
    demo.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    demo.add_argument("--save", metavar="DIR", default=None,
                      help="instead of the comparison, write the first draw as "
                           "DIR/train.svm (labels -1/1, 0 = unlabeled) and "
                           "DIR/test.svm, the files of the README's example")
    return parser


def _add_input_options(p, default_from_model=False):
    g = p.add_argument_group("input")
    extra = (" (default: as in training)" if default_from_model
             else " (default: they start at 1)")
    g.add_argument("--zero-based", action=argparse.BooleanOptionalAction,
                   default=None,
                   help="feature indices start at 0 instead of 1" + extra)
    if not default_from_model:
        g.add_argument("--dtype", choices=["float64", "float32"], default="float64",
                       help="floating-point precision of the data (default: float64)")


# ----------------------------------------------------------------------------------
# input
# ----------------------------------------------------------------------------------

def _one_line(text):
    return " ".join(str(text).split())


def _memory_message(exc):
    """One line for a ``MemoryError``: "not enough memory: needs N GiB for ..."."""
    text = _one_line(exc)
    if text.startswith("not enough memory"):
        return text
    size = getattr(exc, "_total_size", None)  # NumPy's _ArrayMemoryError
    shape, dtype = getattr(exc, "shape", None), getattr(exc, "dtype", None)
    if size is not None and shape is not None:
        return (f"not enough memory: needs {size / 2**30:.1f} GiB for an array of "
                f"shape {tuple(shape)} ({dtype})")
    return "not enough memory" + (f" ({text})" if text else "")


_STREAM_CHUNK = 2**20


def _is_stream(path):
    """An existing input that is not a regular file: a device, a FIFO, a
    socket (``/dev/stdin``, a pipe, ``/dev/zero``): it may never end."""
    try:
        return not stat.S_ISREG(os.stat(path).st_mode) \
            and not stat.S_ISDIR(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def stream_limit():
    """Bytes read at most from an input that is not a regular file: a quarter
    of the memory left (the text, then the parsed arrays, are held at once)."""
    from semisvm._validation import memory_budget
    budget, _ = memory_budget()
    return int(min(budget / 4, 2**62))


def _read_stream(path, role):
    """Read a device/FIFO input into memory, refusing one that never ends.

    svmlight text holds no NUL byte, so binary data (``/dev/zero``,
    ``/dev/urandom``) is refused at its first chunk; text is read up to
    :func:`stream_limit` bytes and refused beyond (``yes "1 1:1"``).
    ``.gz``/``.bz2`` names are decompressed as scikit-learn does for files.
    """
    import bz2
    import gzip
    import io

    limit = stream_limit()
    buf = io.BytesIO()
    with open(path, "rb") as f:
        raw = f
        name = os.fspath(path)
        if name.endswith(".gz"):
            raw = gzip.GzipFile(fileobj=f)
        elif name.endswith(".bz2"):
            raw = bz2.BZ2File(f)
        while True:
            chunk = raw.read(_STREAM_CHUNK)
            if not chunk:
                break
            nul = chunk.find(b"\0")
            if nul >= 0:
                raise CLIError(f"{role} file {path}: not a valid svmlight/libsvm "
                               f"file (binary data: a NUL byte at offset "
                               f"{buf.tell() + nul})")
            if buf.tell() + len(chunk) > limit:
                raise CLIError(f"{role} file {path}: more than {limit} bytes read "
                               "from a device or pipe (the limit is a quarter of "
                               "the memory left); write the data to a regular "
                               "file")
            buf.write(chunk)
    buf.seek(0)
    return buf


def read_svmlight(path, role, *, zero_based=False, dtype=np.float64, n_features=None,
                  model_path=None):
    """Read an svmlight file as (CSR X with int32 indices, y); CLIError if bad."""
    from sklearn.datasets import load_svmlight_file

    def _version(p):
        try:
            st = os.stat(p)
        except (OSError, ValueError):
            return None
        return (st.st_size, st.st_mtime_ns) if stat.S_ISREG(st.st_mode) else None

    before = _version(path)
    try:
        source = _read_stream(path, role) if _is_stream(path) else os.fspath(path)
        X, y = load_svmlight_file(source, dtype=dtype,
                                  zero_based=bool(zero_based))
    except FileNotFoundError:
        raise CLIError(f"{role} file {path}: no such file") from None
    except IsADirectoryError:
        raise CLIError(f"{role} file {path}: is a directory") from None
    except OSError as exc:
        raise CLIError(f"{role} file {path}: cannot read it "
                       f"({_one_line(exc.strerror or exc)})") from None
    except EOFError:
        raise CLIError(f"{role} file {path}: truncated (the compressed stream "
                       "ends early)") from None
    except (zlib.error, lzma.LZMAError) as exc:
        raise CLIError(f"{role} file {path}: corrupt compressed data "
                       f"({_one_line(exc)})") from None
    except MemoryError as exc:
        raise CLIError(f"{role} file {path}: {_memory_message(exc)} while "
                       "reading it") from None
    except (ValueError, RuntimeError, UnicodeDecodeError, OverflowError) as exc:
        hint = ""
        if "index 0" in str(exc) and not zero_based:
            hint = "; use --zero-based for 0-based feature indices"
        detail = _one_line(exc)
        detail = detail if len(detail) <= 120 else detail[:117] + "..."
        raise CLIError(f"{role} file {path}: not a valid svmlight/libsvm file "
                       f"({detail}){hint}") from None
    if before is not None and _version(path) != before:
        raise CLIError(f"{role} file {path}: changed (truncated or rewritten) while "
                       "it was being read; run again once it is complete")
    if X.shape[0] == 0:
        raise CLIError(f"{role} file {path}: no data rows")
    if not (np.all(np.isfinite(X.data)) and np.all(np.isfinite(y))):
        raise CLIError(f"{role} file {path}: contains NaN or infinite values")
    if n_features is not None:
        if X.shape[1] > n_features:
            raise CLIError(
                f"{role} file {path} has {X.shape[1]} features but the model in "
                f"{model_path} was trained on {n_features}")
        X = sp.csr_matrix((X.data, X.indices, X.indptr),
                          shape=(X.shape[0], n_features))
    X = sp.csr_matrix((X.data, X.indices.astype(np.int32, copy=False),
                       X.indptr.astype(np.int32, copy=False)), shape=X.shape)
    return X, y


def targets(kind, y, role="TRAIN", path=""):
    """Turn svmlight labels (0 = unlabeled) into what an estimator of ``kind`` fits.

    Returns ``(rows, y_fit, labels, notes)``: ``rows`` selects the rows to fit
    (None = all), ``labels`` are the file's class labels (semi-supervised: ``y_fit``
    holds their indices 0..k-1 and -1 for unlabeled), ``notes`` are lines for stderr.
    """
    labeled = y != 0
    n_unlabeled = int(np.count_nonzero(~labeled))
    where = f"{role} file {path}"
    if kind == _registry.SUPERVISED:
        if not labeled.any():
            raise CLIError(f"{where}: no labeled rows (every label is 0)")
        notes = []
        if n_unlabeled:
            notes.append(f"skipped {n_unlabeled} unlabeled rows (label 0) of "
                         f"{y.shape[0]}: the algorithm is supervised")
        return labeled, y[labeled], None, notes
    if kind == _registry.SEMI:
        if not labeled.any():
            raise CLIError(f"{where}: no labeled rows (every label is 0)")
        labels, idx = np.unique(y[labeled], return_inverse=True)
        y_fit = np.full(y.shape[0], -1, dtype=np.int64)
        y_fit[labeled] = idx
        return None, y_fit, labels, []
    if kind == _registry.PU:
        bad = ~np.isin(y, (1.0, 0.0, -1.0))
        if bad.any():
            raise CLIError(f"{where}: positive-unlabeled training takes labels 1 "
                           f"(positive) and 0 or -1 (unlabeled), found {y[bad][0]:g}")
        if not (y == 1).any():
            raise CLIError(f"{where}: no positive rows (label 1)")
        notes = []
        n_neg = int(np.count_nonzero(y == -1))
        if n_neg:
            notes.append(f"{n_neg} rows labeled -1 are treated as unlabeled "
                         "(positive-unlabeled learning)")
        return None, np.where(y == 1, 1, -1).astype(np.int64), None, notes
    raise ValueError(f"unknown algorithm kind {kind!r}")


def relabel(model, labels):
    """Give a model fitted on label indices 0..k-1 the file's labels back.

    ``classes_`` (and ``transduction_``) are mapped through ``labels`` when they
    hold those indices, so ``predict`` returns the labels written in TRAIN.
    """
    k = labels.shape[0]
    classes = getattr(model, "classes_", None)
    if classes is None or not np.array_equal(classes, np.arange(k)):
        return
    model.classes_ = labels.copy()
    trans = getattr(model, "transduction_", None)
    if isinstance(trans, np.ndarray) and trans.ndim == 1:
        known = (trans >= 0) & (trans < k)
        if np.all(known):
            model.transduction_ = labels[trans.astype(np.intp)]


# ----------------------------------------------------------------------------------
# progress indicator
# ----------------------------------------------------------------------------------

class Progress:
    """Spinner, elapsed time and the last solver log line on stderr.

    Shown only when enabled (default: ``stream`` is a terminal) and after
    ``delay`` seconds, so quick fits print nothing. Solver messages arrive
    through the ``"semisvm"`` logger (estimators log there when ``verbose``).
    """

    _FRAMES = "|/-\\"

    def __init__(self, label, *, stream=None, enabled=None, delay=0.5, interval=0.1):
        self.stream = sys.stderr if stream is None else stream
        if enabled is None:
            try:
                enabled = self.stream.isatty()
            except (AttributeError, ValueError):
                enabled = False
        self.enabled = bool(enabled)
        self.label, self.delay, self.interval = label, delay, interval
        self.status = ""
        self.drawn = False
        self._stop = threading.Event()
        self._thread = None
        self._handler = None

    def update(self, status):
        self.status = _one_line(status)

    def _line(self, frame, elapsed):
        width = max(20, shutil.get_terminal_size((80, 20)).columns - 1)
        text = f"{self._FRAMES[frame % 4]} {self.label} {elapsed:6.1f} s  {self.status}"
        return text[:width].ljust(width)

    def _run(self):
        start = time.perf_counter()
        frame = 0
        if self._stop.wait(self.delay):
            return
        while not self._stop.is_set():
            self.stream.write("\r" + self._line(frame, time.perf_counter() - start))
            self.stream.flush()
            self.drawn = True
            frame += 1
            self._stop.wait(self.interval)

    def __enter__(self):
        if not self.enabled:
            return self
        progress = self

        class _Handler(logging.Handler):
            def emit(self, record):
                try:
                    progress.update(record.getMessage())
                except Exception:  # noqa: BLE001, S110  # pragma: no cover
                    pass  # a progress line must never break a fit

        self._handler = _Handler(logging.INFO)
        logger = logging.getLogger("semisvm")
        self._old_level = logger.level
        logger.addHandler(self._handler)
        if logger.getEffectiveLevel() > logging.INFO:
            logger.setLevel(logging.INFO)
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        if not self.enabled:
            return False
        self._stop.set()
        self._thread.join()
        logger = logging.getLogger("semisvm")
        logger.removeHandler(self._handler)
        logger.setLevel(self._old_level)
        if self.drawn:
            width = max(20, shutil.get_terminal_size((80, 20)).columns - 1)
            self.stream.write("\r" + " " * width + "\r")
            self.stream.flush()
        return False


# ----------------------------------------------------------------------------------
# commands
# ----------------------------------------------------------------------------------

def _info(args, msg):
    if not getattr(args, "quiet", False):
        print(f"{PROG} {args.command}: {msg}", file=sys.stderr)


def _estimator_params(args, alg, cls):
    """``{parameter: value}`` for ``cls`` from the options given; CLIError if an
    option does not apply to ``alg`` or two options set the same parameter."""
    given, sources = {}, {}

    def _set(name, value, source):
        if name in given:
            raise CLIError(f"{source} and {sources[name]} both set the parameter "
                           f"{name!r} of {cls.__name__}: give one")
        given[name] = value
        sources[name] = source

    values = vars(args)
    for opt in ESTIMATOR_OPTIONS:
        if opt.dest not in values:
            continue
        if alg.name not in opt.params:
            raise CLIError(opt.refusal(alg.name))
        for name in opt.params[alg.name]:
            _set(name, values[opt.dest], opt.flag)
    accepted = cls().get_params(deep=False)
    for name, value in args.extra_params:
        if name not in accepted:
            raise CLIError(f"--param {name} does not apply to -a {alg.name} "
                           f"({cls.__name__} has no parameter {name!r}; its "
                           f"parameters: {', '.join(sorted(accepted))})")
        _set(name, value, f"--param {name}")
    return given, sources


def _for_estimator(X, cls):
    """CSR ``X`` as is, or dense for an estimator that does not take sparse input."""
    try:
        sparse_ok = cls().__sklearn_tags__().input_tags.sparse
    except AttributeError:  # pragma: no cover - every semisvm estimator has tags
        sparse_ok = True
    return X if sparse_ok else X.toarray()


def _refuse_input_as_output(out_role, out_path, inputs):
    """Exit 2 if the output path names the same file as one of the inputs."""
    for role, path in inputs:
        if same_file(out_path, path):
            raise CLIError(f"{out_role} file {out_path} is the same file as the "
                           f"{role} file {path}: refusing to overwrite an input")


def cmd_train(args):
    _refuse_input_as_output("MODEL", args.model, [("TRAIN", args.train)])
    alg = _registry.by_name(args.algorithm)
    try:
        cls = _registry.get_class(alg)
    except _registry.NotAvailableError as exc:
        raise CLIError(str(exc)) from None
    params, sources = _estimator_params(args, alg, cls)
    zero_based = bool(args.zero_based)
    X, y = read_svmlight(args.train, "TRAIN", zero_based=zero_based,
                         dtype=np.dtype(args.dtype))
    rows, y_fit, labels, notes = targets(alg.kind, y, "TRAIN", args.train)
    X_fit = _for_estimator(X if rows is None else X[rows], cls)
    try:
        model = cls(**params)
    except (TypeError, ValueError) as exc:
        raise CLIError(f"invalid parameters for {cls.__name__}: {_one_line(exc)}") \
            from None
    progress = Progress(f"training {cls.__name__}",
                        enabled=False if args.quiet else None)
    verbose = model.get_params().get("verbose")
    if progress.enabled and verbose is not None and not verbose:
        model.set_params(verbose=1)
    start = time.perf_counter()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with progress:
                model.fit(X_fit, y_fit)
    except MemoryError as exc:
        if not isinstance(exc, ValueError):
            raise CLIError(f"TRAIN file {args.train}: {cls.__name__} cannot be "
                           f"fitted: {_memory_message(exc)}") from None
        raise CLIError(f"TRAIN file {args.train}: {cls.__name__} cannot be fitted: "
                       f"{_one_line(exc)}") from None
    except (TypeError, ValueError) as exc:
        msg = _one_line(exc)
        hint = next((f" (option {sources[p]})" for p in sorted(
            sources, key=len, reverse=True) if msg.startswith(p + " ")), "")
        raise CLIError(f"TRAIN file {args.train}: {cls.__name__} cannot be fitted: "
                       f"{msg}{hint}") from None
    finally:
        if verbose is not None:
            model.set_params(verbose=verbose)
    for w in caught:  # shown once the progress line is gone
        warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    elapsed = time.perf_counter() - start
    for attr, value in vars(model).items():  # never save a NaN model
        if (attr.endswith("_") and isinstance(value, np.ndarray)
                and value.dtype.kind in "fc" and not np.all(np.isfinite(value))):
            raise CLIError(f"TRAIN file {args.train}: {cls.__name__} produced "
                           f"non-finite values in {attr} (data or options out of "
                           "numerical range); no MODEL written")
    if labels is not None:
        relabel(model, labels)
    info = {"cli": {"algorithm": alg.name, "zero_based": zero_based,
                    "dtype": args.dtype, "train": os.path.basename(args.train)}}
    try:
        save(model, args.model, info=info)
    except OSError as exc:
        raise CLIError(f"MODEL file {args.model}: cannot write it "
                       f"({exc.strerror or exc})") from None
    except TypeError as exc:  # a parameter/attribute the format cannot hold
        raise CLIError(f"MODEL file {args.model}: {_one_line(exc)}") from None
    for note in notes:  # after the fit, so that an error stays a single line
        _info(args, note)
    n_lab = int(np.count_nonzero(y[rows] != 0 if rows is not None else y != 0))
    _info(args, f"{cls.__name__} fitted on {X_fit.shape[0]} rows ({n_lab} labeled) x "
                f"{X.shape[1]} features in {elapsed:.2f} s; model written to "
                f"{args.model}")
    return 0


def _fmt_label(v):
    if isinstance(v, (float, np.floating)) and float(v).is_integer():
        return str(int(v))
    if isinstance(v, (np.generic,)):
        return str(v.item())
    return str(v)


def cmd_predict(args):
    _refuse_input_as_output("OUTPUT", args.output,
                            [("TEST", args.test), ("MODEL", args.model)])
    try:
        model, meta = load_with_metadata(args.model)
    except FileNotFoundError:
        raise CLIError(f"MODEL file {args.model}: no such file") from None
    except IsADirectoryError:
        raise CLIError(f"MODEL file {args.model}: is a directory") from None
    except OSError as exc:
        raise CLIError(f"MODEL file {args.model}: cannot read it "
                       f"({exc.strerror or exc})") from None
    except ValueError as exc:
        raise CLIError(f"MODEL file {_one_line(exc)}") from None
    cli_info = meta.get("info", {}).get("cli")
    if not isinstance(cli_info, dict):  # a file saved with the user's own info
        cli_info = {}
    zero_based = args.zero_based
    if zero_based is None:
        zero_based = bool(cli_info.get("zero_based", False))
    dtype = np.float32 if cli_info.get("dtype") == "float32" else np.float64
    X, y = read_svmlight(args.test, "TEST", zero_based=zero_based, dtype=dtype,
                         n_features=int(model.n_features_in_), model_path=args.model)
    X = _for_estimator(X, type(model))
    try:
        labels = np.asarray(model.predict(X))
        scores = None
        if not args.labels and hasattr(model, "decision_function"):
            scores = np.asarray(model.decision_function(X))
            if scores.ndim != 1:
                scores = None
    except MemoryError as exc:
        raise CLIError(f"TEST file {args.test}: cannot predict with the model in "
                       f"{args.model}: {_memory_message(exc)}") from None
    except (TypeError, ValueError) as exc:
        raise CLIError(f"TEST file {args.test}: cannot predict with the model in "
                       f"{args.model}: {_one_line(exc)}") from None
    if scores is not None and not np.all(np.isfinite(scores)):
        bad = int(np.flatnonzero(~np.isfinite(scores))[0])
        raise CLIError(f"TEST file {args.test}: the model in {args.model} gives a "
                       f"non-finite decision value on row {bad + 1} (features out "
                       "of the range it was trained on?); no OUTPUT written")
    if scores is not None:
        lines = [repr(float(v)) for v in scores]
    else:
        lines = [_fmt_label(v) for v in labels]
    try:
        with atomic_open(args.output, "w") as f:
            f.write("\n".join(lines))
            f.write("\n")
    except OSError as exc:
        raise CLIError(f"OUTPUT file {args.output}: cannot write it "
                       f"({exc.strerror or exc})") from None
    labeled = y != 0
    n = int(np.count_nonzero(labeled))
    if n:
        try:
            correct = int(np.count_nonzero(labels[labeled].astype(float)
                                           == y[labeled]))
        except (TypeError, ValueError):
            correct = None
        if correct is not None:
            _info(args, f"accuracy {100.0 * correct / n:.2f}% ({correct}/{n} labeled "
                        f"rows of {args.test})")
    return 0


DEMO_NEGATIVE, DEMO_POSITIVE = (2, 3, 5), (6, 8, 9)
DEMO_BASELINE = "linear"  # the supervised baseline of the demo table


def _demo_splits(n_labeled, seed, repeats):
    """Digits 2,3,5 (0) vs 6,8,9 (1): 2/3 train with ``n_labeled`` labels, 1/3 test."""
    from sklearn.datasets import load_digits

    X, digit = load_digits(return_X_y=True)
    keep = np.isin(digit, DEMO_NEGATIVE + DEMO_POSITIVE)
    X = np.ascontiguousarray(X[keep] / 16.0)
    y = np.isin(digit[keep], DEMO_POSITIVE).astype(np.int64)
    rng = np.random.default_rng(seed)
    splits = []
    for _ in range(repeats):
        perm = rng.permutation(X.shape[0])
        n_train = 2 * X.shape[0] // 3
        tr, te = perm[:n_train], perm[n_train:]
        lab = np.concatenate([
            rng.choice(np.flatnonzero(y[tr] == c), n, replace=False)
            for c, n in ((0, n_labeled // 2), (1, n_labeled - n_labeled // 2))])
        splits.append((X[tr], y[tr], lab, X[te], y[te]))
    return splits


def _demo_fit(alg, cls, split, seed):
    """Fit ``alg`` on one split as its kind requires; return (test error, seconds)."""
    X, y, lab, X_test, y_test = split
    accepted = cls().get_params(deep=False)
    params = {k: v for k, v in alg.demo_params.items() if k in accepted}
    unl = np.ones(y.shape[0], bool)
    unl[lab] = False
    given = {"r": float(np.mean(y[lab])),          # estimated from the labels
             "prior": float(np.mean(y[unl])),      # PU: assumed known
             "random_state": seed}
    params.update({k: v for k, v in given.items() if k in accepted and k not in params})
    if alg.kind == _registry.SUPERVISED:
        fit_args = (X[lab], y[lab])
    elif alg.kind == _registry.SEMI:
        y_fit = np.full(y.shape[0], -1, dtype=np.int64)
        y_fit[lab] = y[lab]
        fit_args = (X, y_fit)
    else:
        y_fit = np.full(y.shape[0], -1, dtype=np.int64)
        y_fit[lab[y[lab] == 1]] = 1
        fit_args = (X, y_fit)
    start = time.perf_counter()
    model = cls(**params).fit(*fit_args)
    elapsed = time.perf_counter() - start
    pred = model.predict(X_test)
    if alg.kind == _registry.PU:
        pred = (pred == 1).astype(np.int64)
    return float(np.mean(pred != y_test)), elapsed


def _demo_save(directory, split):
    """Write one demo draw as svmlight files: DIR/train.svm, DIR/test.svm."""
    from sklearn.datasets import dump_svmlight_file

    X, y, lab, X_test, y_test = split
    y_file = np.zeros(y.shape[0])
    y_file[lab] = np.where(y[lab] == 1, 1.0, -1.0)          # 0: unlabeled
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError as exc:
        raise CLIError(f"--save directory {directory}: cannot create it "
                       f"({exc.strerror or exc})") from None
    written = []
    for name, XX, yy in (("train.svm", X, y_file),
                         ("test.svm", X_test, np.where(y_test == 1, 1.0, -1.0))):
        path = os.path.join(directory, name)
        try:
            with atomic_open(path, "wb") as f:
                dump_svmlight_file(XX, yy, f, zero_based=False)
        except OSError as exc:
            raise CLIError(f"--save file {path}: cannot write it "
                           f"({exc.strerror or exc})") from None
        written.append(path)
    print(f"wrote {written[0]} ({X.shape[0]} rows, {lab.size} labeled -1/1, "
          f"{X.shape[0] - lab.size} unlabeled 0) and {written[1]} "
          f"({X_test.shape[0]} rows): digits {','.join(map(str, DEMO_NEGATIVE))} (-1) "
          f"vs {','.join(map(str, DEMO_POSITIVE))} (1), {X.shape[1]} features")
    return 0


def _say(text):
    import textwrap

    print(textwrap.fill(text, width=79))


def cmd_demo(args):
    if args.n_labeled < 2:
        raise CLIError("--n-labeled must be at least 2")
    if args.repeats < 1:
        raise CLIError("--repeats must be at least 1")
    splits = _demo_splits(args.n_labeled, args.seed, args.repeats)
    if args.save is not None:
        return _demo_save(args.save, splits[0])
    X, _, lab, X_test, _ = splits[0]
    draws = "one random draw" if len(splits) == 1 else f"mean of {len(splits)} " \
        "random draws"
    _say(f"semisvm demo: scikit-learn digits {','.join(map(str, DEMO_NEGATIVE))} vs "
         f"{','.join(map(str, DEMO_POSITIVE))}; {X.shape[0]} training rows of which "
         f"{lab.size} labeled, {X_test.shape[0]} test rows; {draws}.")
    _say("Each row fits one algorithm (default parameters; -r from the labeled "
          "rows, PU: the true prior) and gives its error on the test rows. The "
          "first row, linear, is the supervised baseline: it sees the labeled "
          "rows only. 'vs baseline' is the error minus the baseline's, in "
          "points; WORSE marks an algorithm that loses to the baseline here.")
    print()
    head = (f"{'algorithm':<11} {'estimator':<11} {'trained on':<22} "
            f"{'test error':>10} {'vs baseline':>11} {'fit time':>9}")
    print(head)
    print("-" * len(head))
    missing = []
    baseline = None
    n_worse = 0
    n_pu = 0
    for alg in _registry.ALGORITHMS:
        try:
            cls = _registry.get_class(alg)
        except _registry.NotAvailableError:
            missing.append(f"{alg.name} ({alg.cls})")
            continue
        n_pos = int(np.sum(splits[0][1][lab] == 1))
        used = {_registry.SUPERVISED: f"{lab.size} labeled",
                _registry.SEMI: f"{lab.size} lab. + {X.shape[0] - lab.size} unlab.",
                _registry.PU: f"{n_pos} pos. + {X.shape[0] - n_pos} unlab."}[alg.kind]
        vs, mark = "", ""
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                runs = [_demo_fit(alg, cls, split, args.seed) for split in splits]
                error = 100.0 * np.mean([e for e, _ in runs])
                err = f"{error:9.1f}%"
                tm = f"{np.mean([t for _, t in runs]):8.2f}s"
                if baseline is None and alg.name == DEMO_BASELINE:
                    baseline = error
                    vs = "baseline"
                elif alg.kind == _registry.PU:
                    # another task: positive labels only (no negative one),
                    # so it is not ranked against the baseline
                    vs = "other task"
                    n_pu += 1
                elif baseline is not None:
                    vs = f"{error - baseline:+.1f}"
                    if error > baseline:
                        mark = "  WORSE"
                        n_worse += 1
            except Exception as exc:  # noqa: BLE001  (one failure must not stop the demo)
                err, tm = "failed", f"({type(exc).__name__}: {_one_line(exc)[:60]})"
        note = "  (did not converge)" if any(
            "converge" in str(w.message).lower() for w in caught) else ""
        print(f"{alg.name:<11} {alg.cls:<11} {used:<22} {err:>10} {vs:>11} "
              f"{tm:>9}{mark}{note}", flush=True)
    if baseline is not None:
        print()
        _say(f"{n_worse} of the algorithms lose to the labels-only baseline on this "
             "problem. Whether unlabeled rows help depends on the data: the "
             "graph and kernel estimators check it at fit (safe=\"auto\", when "
             "every class has at least 4 labels) and fall back to a supervised "
             "SVC when the labels say so; safe=True (or semisvm.model_selection) "
             "checks it by cross-validation on the labeled rows.")
        if n_pu:
            n_pos = int(np.sum(splits[0][1][lab] == 1))
            _say(f"pu solves another task, positive-unlabeled learning: it is "
                 f"given only the {n_pos} positive labels (and the class prior), "
                 "no negative one, so it is not compared with the baseline, "
                 "which sees both classes' labels.")
    if missing:
        print(f"not in this installation: {', '.join(missing)}")
    return 0


COMMANDS = {"train": cmd_train, "predict": cmd_predict, "demo": cmd_demo}


def main(argv=None):
    """Run the command line; return the exit status (0 ok, 2 bad input)."""
    parser = _build_parser()
    args = parser.parse_args(argv)

    def _show(message, category, filename, lineno, file=None, line=None):
        print(f"{PROG} {args.command}: warning: {_one_line(message)}",
              file=sys.stderr)

    with warnings.catch_warnings():
        warnings.simplefilter("default")
        warnings.showwarning = _show
        try:
            return COMMANDS[args.command](args)
        except CLIError as exc:
            print(f"{PROG} {args.command}: error: {_one_line(exc)}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            print(f"{PROG} {args.command}: interrupted", file=sys.stderr)
            return 130
        except MemoryError as exc:
            print(f"{PROG} {args.command}: error: {_memory_message(exc)}",
                  file=sys.stderr)
            return 2
        except Exception as exc:  # a bug: still one line (SEMISVM_DEBUG=1 shows it)
            if os.environ.get("SEMISVM_DEBUG"):
                raise
            print(f"{PROG} {args.command}: error: internal error "
                  f"({type(exc).__name__}: {_one_line(exc)[:200]}); please report "
                  "it (SEMISVM_DEBUG=1 prints the traceback)", file=sys.stderr)
            return 2
