"""The package's layout: imports run one way, ``solvers`` is only a facade.

The package is built in layers (``LAYERS`` below), from the bottom: the
compiled core (``semisvm._core``, the Cython kernels of ``src/``), then input
validation, result dataclasses and the estimator registry, then the engine
and shared helpers (the MFN row loop, Dask, graphs, kernels), then one module
per paper family (``linear``, ``manifold``, ``pu``, ``graph_tv``, and
``model_selection``, which they all use), then the faces users call (the
``solvers`` facade, the package itself, model files, the command line). Why:
a family can be read, tested and changed without the ones beside it, and
nothing below a face depends on how users call it.

An import may only go to its own layer or a lower one, no chain of imports
may come back to where it started (also through imports inside functions),
and a module takes private names (``_name``) only from the engine and
validation layers below it. A new module must be given its layer in
``LAYERS`` (and listed in ``semisvm/meson.build``, or it is not installed).
"""
import ast
import importlib
from pathlib import Path

import pytest

import semisvm

PACKAGE = Path(semisvm.__file__).parent

LAYERS = {
    "semisvm._core": 0,
    "semisvm._thread_state": 1,
    "semisvm._validation": 1, "semisvm._results": 1, "semisvm._registry": 1,
    "semisvm._rows": 2, "semisvm._distributed": 2, "semisvm._threads": 2,
    "semisvm.graph": 2,
    "semisvm.kernels": 2, "semisvm._lowrank": 2, "semisvm._tv_solvers": 2,
    "semisvm._manifold_solvers": 2,
    "semisvm._fallback": 2, "semisvm._feature_scale": 2,
    "semisvm.linear": 3, "semisvm._linear_ssl": 3, "semisvm._linear_base": 3,
    "semisvm._linear_balance": 3, "semisvm.manifold": 3, "semisvm.pu": 3,
    "semisvm.graph_tv": 3, "semisvm.model_selection": 3,
    "semisvm._tv_inputs": 2,
    # the TV family's own modules, beside graph_tv (its check runs
    # model_selection's folds, as the linear family's modules sit beside linear)
    "semisvm._tv_setup": 3, "semisvm._tv_check": 3, "semisvm._tv_schemes": 3,
    "semisvm.solvers": 4, "semisvm": 4, "semisvm.io": 4, "semisvm.cli": 4,
    "semisvm.__main__": 5,
}
# private names may be imported from these (and from the compiled core)
ENGINE = {"semisvm._validation", "semisvm._results", "semisvm._registry",
          "semisvm._rows", "semisvm._distributed", "semisvm._threads"}


def _module_name(path):
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _layer(name):
    if name.startswith("semisvm._core"):
        return 0
    return LAYERS[name]


def _is_module(name):
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:     # a name inside a module, not a package
        return False


def _imports(path):
    """(target module, imported names) of every import of a semisvm module,
    at module level or inside functions."""
    tree = ast.parse(path.read_text(), filename=str(path))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, []) for a in node.names if a.name.startswith("semisvm")]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and (
                node.module or "").startswith("semisvm"):
            names = [a.name for a in node.names]
            # "from semisvm import _rows" imports a module, not a name
            mods = [n for n in names if _is_module(f"{node.module}.{n}")]
            for m in mods:
                out.append((f"{node.module}.{m}", []))
            rest = [n for n in names if n not in mods]
            if rest:
                out.append((node.module, rest))
    return out


def _graph():
    files = sorted(PACKAGE.glob("*.py"))
    assert files, PACKAGE
    return {_module_name(f): _imports(f) for f in files}


def test_every_module_has_a_layer():
    assert set(_graph()) <= set(LAYERS), set(_graph()) - set(LAYERS)


def test_imports_run_down_the_layers():
    bad = [(src, dst) for src, deps in _graph().items() for dst, _ in deps
           if _layer(dst) > _layer(src)]
    assert not bad, f"imports that go up a layer: {bad}"


def test_no_import_cycle():
    graph = {src: {dst for dst, _ in deps if dst in LAYERS and dst != src}
             for src, deps in _graph().items()}
    # "semisvm" (the package) is imported by every "from semisvm import x"
    # of a name: drop it as a target, its own imports stay checked
    for deps in graph.values():
        deps.discard("semisvm")
    state = {}

    def visit(node, path):
        state[node] = "open"
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                pytest.fail("import cycle: " + " -> ".join(path + [nxt]))
            if nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])


def test_private_names_only_from_the_engine_and_validation_layers():
    bad = []
    for src, deps in _graph().items():
        for dst, names in deps:
            private = [n for n in names if n.startswith("_") and n != "__version__"]
            if private and dst not in ENGINE and not dst.startswith("semisvm._core"):
                bad.append((src, dst, private))
    assert not bad, bad


def test_solvers_is_a_facade():
    tree = ast.parse((PACKAGE / "solvers.py").read_text())
    defined = [n.name for n in tree.body
               if isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))]
    assert defined == [], f"solvers.py defines {defined}"
    users = [src for src, deps in _graph().items()
             if src != "semisvm.solvers" and any(d == "semisvm.solvers" for d, _ in deps)]
    assert users == [], f"modules importing semisvm.solvers: {users}"
    import semisvm.solvers as facade
    for name in facade.__all__:
        fn = getattr(facade, name)
        assert fn.__module__ != "semisvm.solvers"
        assert fn.__module__ in LAYERS and _layer(fn.__module__) == 3


def test_star_import_gives_the_public_names():
    ns = {}
    exec("from semisvm import *", ns)
    for name in semisvm.__all__:
        assert name in ns
    exec("import semisvm.solvers", ns)


@pytest.mark.slow  # four Python start-ups with NumPy, SciPy and scikit-learn
def test_source_tree_without_extensions_says_what_to_do(tmp_path):
    # Python started in a checkout's root imports the checkout's semisvm/,
    # which has no compiled modules: one sentence saying what to do, for the
    # Python API and for `python -m semisvm`
    import shutil
    import subprocess
    import sys

    shutil.copytree(PACKAGE, tmp_path / "semisvm",
                    ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__"))
    (tmp_path / "semisvm" / "_core" / "meson.build").write_text("# source tree\n")
    # an editable install's import hook would find the built package anyway
    pre = ("import sys; sys.meta_path[:] = [f for f in sys.meta_path if "
           "'editable' not in type(f).__module__]; ")
    for code in ("from semisvm import TSVM",
                 "from semisvm._core import _mfn",
                 "from semisvm.manifold import LapSVM"):
        r = subprocess.run([sys.executable, "-c", pre + code], cwd=tmp_path,
                           capture_output=True, text=True)
        assert r.returncode == 1
        last = r.stderr.strip().splitlines()[-1]
        assert last.startswith("ImportError: semisvm is being imported from its "
                               "source tree"), r.stderr
        assert "pip install ." in last and "_mfn" not in last
    r = subprocess.run(
        [sys.executable, "-c", pre + "import runpy; runpy.run_module('semisvm', "
         "run_name='__main__')", "train", "a.svm", "m"],
        cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 2
    assert r.stderr.startswith("semisvm train: error: semisvm is being imported "
                               "from its source tree")
    assert len(r.stderr.splitlines()) == 1, r.stderr


def _negative_subscripts(path):
    """``(line, text)`` of each subscript element of a Cython source that
    starts with a unary minus (``a[-1]``, ``a[i, -k]``), strings and comments
    left out; slices (``a[:-1]``) are not elements that start with one."""
    import io
    import tokenize

    toks = [t for t in tokenize.generate_tokens(io.StringIO(path.read_text()).readline)
            if t.type not in (tokenize.COMMENT, tokenize.STRING, tokenize.NL,
                              tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT)]
    found, stack = [], []  # stack: per open bracket, whether it is a subscript
    for k, t in enumerate(toks):
        prev = toks[k - 1] if k else None
        if t.string in "([{" and t.type == tokenize.OP:
            stack.append(t.string == "[" and prev is not None
                         and (prev.type == tokenize.NAME or prev.string in ")]"))
        elif t.string in ")]}" and t.type == tokenize.OP:
            if stack:
                stack.pop()
        elif (t.string == "-" and stack and stack[-1] and prev is not None
              and prev.string in ("[", ",")):
            found.append((t.start[0], t.line.strip()))
    return found


def test_no_negative_index_in_the_cython_sources(tmp_path):
    # Release builds compile src/ with wraparound=False (meson.build: only
    # -Dcython-checks=true turns it on, as the test command does): there
    # Cython may hand a negative index on to the object as it is, and NumPy
    # 2.5 answers a[-1] on an array of n + 1 entries with "index -(n + 2) is
    # out of bounds" -- every TV / Cheeger fit failed so. Index from the
    # front (a[n], not a[-1]).
    src = Path(__file__).resolve().parent.parent / "src"
    pyx = sorted(src.glob("*.pyx"))
    assert pyx, src
    bad = {p.name: _negative_subscripts(p) for p in pyx}
    assert not {k: v for k, v in bad.items() if v}, bad
    # the scan finds what it looks for
    probe = tmp_path / "probe.pyx"
    probe.write_text('"""a[-1] in a docstring"""\nx = a[-1]\ny = b[i, -k]\n'
                     'z = c[:-1] + f([-w, w]) + d[n - 1]  # e[-1]\n')
    assert [ln for ln, _ in _negative_subscripts(probe)] == [2, 3]
