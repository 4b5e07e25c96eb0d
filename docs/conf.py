"""Sphinx configuration of the semisvm documentation.

Build (warnings are errors):  sphinx-build -W -b html docs docs/_build/html
"""
import importlib
import os
import sys
import warnings
from pathlib import Path

import semisvm

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs"))

# the tables computed at build time (docs/_generate.py): the command-line
# options and the held-out digits table of the estimator chooser
importlib.import_module("_generate").write_all()

project = "semisvm"
author = "the semisvm developers"
copyright = "the semisvm developers, BSD-3-Clause"
release = semisvm.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "myst_parser",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "auto_examples/*.ipynb", "auto_examples/*.py",
                    "auto_examples/*.zip", "auto_examples/*.md5",
                    "auto_examples/*.json"]
myst_heading_anchors = 3

autosummary_generate = True
templates_path = ["_templates"]
autodoc_default_options = {"members": False, "inherited-members": False}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
# the docstrings are checked by tests/test_docstrings.py (numpydoc.validate)

intersphinx_mapping = {}        # no network at build time

html_theme = "pydata_sphinx_theme"
html_title = f"semisvm {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 8,
}
html_show_sourcelink = False

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
warnings.filterwarnings("ignore", category=UserWarning,
                        message="Matplotlib is currently using agg")

sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "within_subsection_order": "FileNameSortKey",
    "download_all_examples": False,
    "remove_config_comments": True,
    "matplotlib_animations": False,
    "show_memory": False,
    "abort_on_example_error": True,
}
