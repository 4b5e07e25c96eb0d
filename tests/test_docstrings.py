"""Every public class and function has a numpydoc docstring that passes
``numpydoc.validate`` for the sections Parameters, Returns (functions),
Attributes (estimators), See Also and Examples, and every Examples section
runs as a doctest (as scikit-learn's ``test_docstrings.py``).
"""
import doctest
import importlib
import inspect
import warnings

import numpy as np
import pytest

numpydoc_validate = pytest.importorskip("numpydoc.validate")

import semisvm  # noqa: E402
import semisvm.graph  # noqa: E402
import semisvm.io  # noqa: E402
import semisvm.kernels  # noqa: E402
import semisvm.linear  # noqa: E402
import semisvm.solvers  # noqa: E402


def _public_objects():
    objs = {}
    modules = [semisvm, semisvm.solvers, semisvm.graph, semisvm.kernels, semisvm.io]
    try:
        modules.append(importlib.import_module("semisvm.model_selection"))
    except ImportError:
        pass
    for mod in modules:
        for name in mod.__all__:
            obj = getattr(mod, name)
            if inspect.isclass(obj) or inspect.isfunction(obj):
                objs[f"{obj.__module__}.{obj.__qualname__}"] = obj
    objs["semisvm.linear.default_lam"] = semisvm.linear.default_lam
    return dict(sorted(objs.items()))


PUBLIC = _public_objects()
# numpydoc codes: PR01 parameter not documented, PR02 unknown parameter,
# RT01 no Returns section, SA01 no See Also, EX01 no Examples, GL08 no docstring
CHECKS = ("GL08", "PR01", "PR02", "RT01", "SA01", "EX01")


def test_the_public_api_is_covered():
    names = {n.rsplit(".", 1)[1] for n in PUBLIC}
    assert {"LinearSVM", "TSVM", "DASVM", "LapSVM", "LapRLS", "PUSVM", "TVRLS",
            "TVSVM", "CheegerRLS", "CheegerSVM", "l2svm_mfn", "tsvm", "da_s3vm",
            "lapsvm_primal", "usmo", "graph_tv", "graph_cheeger", "save", "load",
            "knn_affinity", "kernel_matrix"} <= names


@pytest.mark.parametrize("name", list(PUBLIC))
def test_numpydoc_sections(name):
    obj = PUBLIC[name]
    assert isinstance(obj.__doc__, str) and obj.__doc__.strip(), f"{name}: no __doc__"
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # an unknown section is an error
        res = numpydoc_validate.validate(name)
    errors = [f"{code}: {msg}" for code, msg in res["errors"] if code in CHECKS]
    assert not errors, f"{name}:\n" + "\n".join(errors)
    if inspect.isclass(obj):
        assert "\n    Attributes\n    ----------\n" in obj.__doc__, name
        for meth in ("fit", "predict", "decision_function"):
            if hasattr(obj, meth):
                doc = getattr(obj, meth).__doc__
                assert doc and doc.strip(), f"{name}.{meth}: no __doc__"


@pytest.mark.parametrize("name", list(PUBLIC))
def test_examples_run(name):
    obj = PUBLIC[name]
    tests = doctest.DocTestFinder(recurse=False).find(obj, name, globs={})
    assert tests and any(t.examples for t in tests), f"{name}: no examples"
    runner = doctest.DocTestRunner(
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    with np.printoptions(legacy=False):
        for t in tests:
            runner.run(t)
    res = runner.summarize(verbose=False)
    assert res.failed == 0, f"{name}: {res.failed} of {res.attempted} examples failed"


# reST messages that only mean "a Sphinx role or directive" to plain docutils
_SPHINX_ONLY = ("Unknown interpreted text role", "Unknown directive type",
                "No role entry", "No directive entry", "as canonical role name")


@pytest.mark.parametrize("name", list(PUBLIC))
def test_docstring_is_valid_restructuredtext(name):
    # the docs are built with warnings as errors (sphinx-build -W): a
    # docstring that numpydoc renders to invalid reST (e.g. "shape
    # (n_features_in_,)": a trailing underscore is a reference to an
    # unknown target) fails the docs build while every other test passes
    import io

    core = pytest.importorskip("docutils.core")
    from numpydoc.docscrape_sphinx import SphinxDocString
    text = str(SphinxDocString(inspect.getdoc(PUBLIC[name])))
    err = io.StringIO()
    core.publish_doctree(text, settings_overrides={
        "warning_stream": err, "report_level": 2, "halt_level": 5})
    msgs = [line for line in err.getvalue().splitlines()
            if any(f"({lvl}/" in line for lvl in ("WARNING", "ERROR", "SEVERE"))
            and not any(s in line for s in _SPHINX_ONLY)]
    assert not msgs, f"{name}:\n" + "\n".join(msgs)
