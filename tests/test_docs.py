"""The documentation's API reference lists every public name, and nothing else.

``docs/api.rst`` is read as text: ``.. currentmodule::`` sets the module of
the ``.. autosummary::`` entries below it; ``.. autodata::`` /
``.. autofunction::`` / ``.. autoclass::`` name objects in full. A public
module's ``__all__`` entry counts as listed when the page names it, or names
the same class or function under another public path (``semisvm.TSVM`` for
``semisvm.linear.TSVM``, ``semisvm.solvers.tsvm`` for ``semisvm.linear.tsvm``).
"""
import importlib
import re
from pathlib import Path

import pytest

API = Path(__file__).resolve().parents[1] / "docs" / "api.rst"
if not API.is_file():        # an installed wheel's test run has no source tree
    pytest.skip("docs/api.rst is not beside the tests (not a source checkout)",
                allow_module_level=True)

PUBLIC_MODULES = ["semisvm", "semisvm.linear", "semisvm.manifold", "semisvm.pu",
                  "semisvm.graph_tv", "semisvm.graph", "semisvm.kernels",
                  "semisvm.model_selection", "semisvm.io", "semisvm.solvers"]


def documented_names(text):
    """Fully qualified names the page documents."""
    names, module, in_summary = [], "semisvm", False
    for line in text.splitlines():
        directive = re.match(r"\.\. ([\w-]+)::\s*(\S*)", line.strip())
        if directive:
            kind, arg = directive.groups()
            in_summary = kind == "autosummary"
            if kind == "currentmodule":
                module = arg
            elif kind in ("autodata", "autofunction", "autoclass"):
                names.append(arg)
            continue
        if in_summary:
            entry = line.strip()
            if not entry or entry.startswith(":"):
                continue
            if not line.startswith("   "):
                in_summary = False
                continue
            names.append(f"{module}.{entry}")
    return names


def _resolve(full):
    parts = full.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(full)


def test_parser_reads_the_directives():
    text = ("Title\n\n.. currentmodule:: a.b\n\n.. autosummary::\n   :toctree: x\n\n"
            "   f\n   c.g\n\nSome text\n   indented\n\n.. autodata:: a.K\n")
    assert documented_names(text) == ["a.b.f", "a.b.c.g", "a.K"]


@pytest.mark.parametrize("module", PUBLIC_MODULES)
def test_every_public_name_is_in_the_api_reference(module):
    names = documented_names(API.read_text())
    objects = {}
    for full in names:
        try:
            obj = _resolve(full)
        except (ImportError, AttributeError):
            continue
        if callable(obj):  # classes and functions: the same object counts
            objects[id(obj)] = full
    mod = importlib.import_module(module)
    missing = []
    for name in mod.__all__:
        if name == "__version__":
            continue
        obj = getattr(mod, name)
        full = f"{module}.{name}"
        if full in names or (callable(obj) and id(obj) in objects):
            continue
        missing.append(full)
    assert not missing, f"public names missing from docs/api.rst: {missing}"


def test_the_api_reference_lists_only_public_names():
    public = set()
    for module in PUBLIC_MODULES:
        mod = importlib.import_module(module)
        public |= {f"{module}.{n}" for n in mod.__all__}
    stale = [full for full in documented_names(API.read_text()) if full not in public]
    assert not stale, f"docs/api.rst names that no public __all__ has: {stale}"
