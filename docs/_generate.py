"""Tables of the documentation computed at build time, so that they cannot go stale.

``docs/conf.py`` calls :func:`write_all` before Sphinx reads the sources; each
table is written as reStructuredText to ``docs/_generated/`` (not in git) and
pulled into a page with ``.. include::``:

* ``cli_options.rst``: what each ``semisvm train`` option sets for each
  algorithm, from :data:`semisvm.cli.ESTIMATOR_OPTIONS`;
* ``digits_table.rst``: the held-out digits table of the estimator chooser,
  computed by running ``examples/plot_digits_labels.py`` (the gallery example
  that draws the same numbers).
"""
from __future__ import annotations

import contextlib
import io
import re
import runpy
import warnings
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
OUT = DOCS / "_generated"


def _list_table(header, rows, widths=None):
    """A ``list-table`` directive (cells are reStructuredText)."""
    lines = [".. list-table::", "   :header-rows: 1"]
    if widths:
        lines.append("   :widths: " + " ".join(map(str, widths)))
    lines.append("")
    for row in [header, *rows]:
        for i, cell in enumerate(row):
            lines.append(("   * - " if i == 0 else "     - ") + (cell or "\\ "))
    return "\n".join(lines) + "\n"


def _literal_flags(text):
    """Command-line flags (``--gamma-A``, ``-r``) as literals: no en dashes."""
    return re.sub(r"(?<![\w`])(--?[A-Za-z][\w-]*(?:=[A-Z]+)?)", r"``\1``", text)


def cli_options_table():
    """One row per option: its meaning and the parameter it sets, per algorithm."""
    from semisvm import _registry
    from semisvm.cli import ESTIMATOR_OPTIONS

    rows = []
    for opt in ESTIMATOR_OPTIONS:
        flags = ", ".join(f"``{f}``" for f in opt.flags)
        by_params = {}
        for alg, names in opt.params.items():
            by_params.setdefault(names, []).append(alg)
        sets = "; ".join(
            f"``{'``, ``'.join(names)}`` of {', '.join(f'``{a}``' for a in algs)}"
            for names, algs in by_params.items())
        refused = [a.name for a in _registry.ALGORITHMS if a.name not in opt.params]
        by_hint = {}
        for a in refused:
            if a in opt.instead:
                by_hint.setdefault(_literal_flags(opt.instead[a]), []).append(a)
        hints = "; ".join(f"{', '.join(f'``{a}``' for a in algs)}: {hint}"
                          for hint, algs in by_hint.items())
        ref = ", ".join(f"``{a}``" for a in refused) or "none"
        if hints:
            ref += f" ({hints})"
        rows.append([flags, _literal_flags(opt.help), sets, ref])
    return _list_table(["option", "meaning", "sets", "refused by"], rows,
                       widths=(14, 34, 30, 22))


def digits_table():
    """Test error % against labels per class on digits, from the gallery example."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore", UserWarning)   # plt.show() under Agg
        ns = runpy.run_path(str(ROOT / "examples" / "plot_digits_labels.py"),
                            run_name="__docs__")
    plt.close("all")
    errors, per_class = ns["errors"], ns["per_class"]
    names = list(errors)
    rows = []
    for i, m in enumerate(per_class):
        base = errors[names[0]][i]
        cells = [str(m)]
        for name in names:
            e = errors[name][i]
            cell = f"{e:.1f}"
            if name != names[0] and e > base:
                cell += " (worse)"
            cells.append(cell)
        rows.append(cells)
    return _list_table(["labels per class", *names], rows)


def write_all():
    """Write every generated table to ``docs/_generated/``."""
    OUT.mkdir(exist_ok=True)
    for name, make in (("cli_options.rst", cli_options_table),
                       ("digits_table.rst", digits_table)):
        (OUT / name).write_text(make())
