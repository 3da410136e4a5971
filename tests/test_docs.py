"""Every example of README.md and docs/*.md runs, and every output it shows is current.

The machinery is ``scripts/docs_outputs.py`` (``make docs-outputs`` rewrites stale outputs):
the blocks of one page run in order in one namespace, in a temporary working directory, with
the matplotlib Agg backend. A ```python block is executed; a ``>>>`` block is a doctest; a
```text block right after a ```python block that printed is that block's output; a
```console block is a shell session whose ``$ oed ...`` commands run as written (exit status
0) and whose shown outputs must match. Times are masked; ``...`` matches anything. A console
block marked ``<!-- no-run: REASON -->`` is skipped (REASON names the test that covers it).
If mkdocs is installed, the documentation site is also built with ``mkdocs build --strict``
(warnings are errors), and its pages are checked for maths written as ASCII code spans
(see ``formula_code_spans``).
"""

from __future__ import annotations

import html
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import docs_outputs  # noqa: E402

PAGES = docs_outputs.pages()


def test_block_parser():
    text = ("a\n```python\nx = 1\n```\n\n```text\nout\n```\n<!-- no-run: slow -->\n"
            "```console\n$ oed run x \\\n  --seed 1\nshown\n$ oed demo\n```\n")
    got = docs_outputs.blocks(text)
    assert [(b.lang, b.line, b.no_run) for b in got] == [("python", 3, False),
                                                         ("text", 7, False),
                                                         ("console", 11, True)]
    sessions = docs_outputs.sessions(got[2].code, got[2].start)
    assert [(c, w) for c, w, _ in sessions] == [("oed run x  --seed 1", "shown\n"),
                                                ("oed demo", "")]
    assert text[slice(*sessions[0][2])] == "shown\n"


def test_times_are_masked_and_nothing_else():
    shown = "processes x1, 0.90 s\nalgo  runs  ms/run\n----  ----  ------\nm     20    0.22\n"
    now = "processes x1, 3.59 s\nalgo  runs  ms/run\n----  ----  ------\nm     20    1.18\n"
    assert docs_outputs.matches(shown, now)
    assert not docs_outputs.matches(shown, now.replace("20", "21"))
    assert not docs_outputs.matches("samples 626", "samples 534")
    assert docs_outputs.matches("counts [\n 3,\n ...\n 3\n]", "counts [\n 3,\n 0,\n 0,\n 3\n]")


def _has_examples(page: Path) -> bool:
    return any(b.lang in ("python", "console") for b in
               docs_outputs.blocks(page.read_text(encoding="utf-8")))


@pytest.mark.parametrize("page", [p for p in PAGES if _has_examples(p)],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_examples_run_and_outputs_are_current(page: Path, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.chdir(tmp_path)
    stale = docs_outputs.run_page(page, tmp_path)
    report = "\n".join(f"{m.page.relative_to(ROOT)}:{m.line}: {m.what}\n--- shown\n{m.want}"
                       f"--- now\n{m.got}" for m in stale)
    assert not stale, f"stale outputs (regenerate with `make docs-outputs`):\n{report}"


def test_every_page_in_nav():
    """Every docs page is reachable from mkdocs.yml's nav."""
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    for page in (ROOT / "docs").rglob("*.md"):
        assert str(page.relative_to(ROOT / "docs")) in nav, page


@pytest.mark.skipif(
    importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("mkdocstrings") is None,
    reason="mkdocs/mkdocstrings not installed (pip install -e '.[docs]' or `make docs`)",
)
def test_mkdocs_build_strict(tmp_path: Path):
    env = {**os.environ, "MPLBACKEND": "Agg"}
    proc = subprocess.run(
        # no -q: mkdocs counts the warnings that --strict turns into a failure only at
        # the log level it prints (with -q, duplicate API entries passed unnoticed)
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    documented = _inventory(tmp_path / "site" / "objects.inv")
    missing = [name for name in _public_names() if name not in documented]
    assert not missing, f"public names without an API reference entry: {missing}"
    figures = {p.name for p in (tmp_path / "site" / "figures").iterdir()}
    assert figures == set(docs_outputs_figures())
    _check_rendered_maths(tmp_path / "site")


# Maths is written for MathJax (pymdownx.arithmatex: $...$ inline, $$...$$ display), not as
# ASCII in code spans. MATHS_PAGES must show rendered maths; every page outside
# NO_MATHS_CHECK must have no formula-looking code span (``formula_code_spans``).
MATHS_PAGES = ("design.md", "criteria.md", "xy_design.md", "c_optimal.md",
               "rounding.md", "complexity.md", "exact.md", "tutorials/design.md",
               "bandits.md", "static_phased.md", "logistic.md", "subsets.md",
               "tutorials/complexity.md", "instances.md", "tutorials/bandits.md",
               "tutorials/ask_tell.md", "index.md")
# Not checked: pages other developers own or that are generated (choices.md, architecture.md,
# algorithms.md, reproduction.md) and the API reference (docstrings, also read as plain text
# in a terminal).
NO_MATHS_CHECK = ("choices.md", "architecture.md", "algorithms.md", "reproduction.md", "api/")
_GREEK = (r"(?:alpha|beta|gamma|delta|epsilon|eps|eta|theta|lambda|mu|nu|sigma|omega|phi|psi|"
          r"rho|tau|kappa|xi|zeta|chi|Delta|Gamma|Sigma|Omega|Lambda)")
# What makes a code span a formula rather than code (Python spells powers ** and indexes
# with [], so these do not occur in code names, arguments or calls):
FORMULA = re.compile("|".join((
    r"\^",                                              # x^T, A^{-1}, sigma^2, 2^26
    r"\b(?:sum|prod|max|min|argmax|argmin|inf|sup|lim)_(?:\{|\w\b)",  # sum_a, max_{x}; not max_iter
    r"\b(?:argmax|argmin)\s+\w",                       # argmax omega; not the field argmax
    r"(?<![.\w])(?:tr|det|sqrt|diag|log|exp)\s*\(",   # tr(L A^{-1}), sqrt(..); not np.sqrt(
    r"\blog det\b|\bdet [A-Z]",                        # log det A(w)
    # omega_a, mu_(m), theta(..), eta / 2; not a quoted key or an attribute (.theta_hat)
    r"(?<![\"'.])\b" + _GREEK + r"(?:_[\w(]|\(|\s+(?:<=|>=|<|>|=|/|\*|\+|-)\s)",
    r"\s(?:<=|>=|[=/*+-])\s+" + _GREEK + r"\b",       # ... <= delta; not the argument delta=0.05
    r"(?<![\w.])[a-zA-Z]_(?:\{|\w\b)",               # x_a, w_{S}, x_1; not n_runs
    r"\|\|",                                            # ||y||_A
    "[\u0370-\u03ff\u2211\u221a\u2264\u2265\u207b\u1d40\u00b2\u00b3\u2016\u2208\u2229\u2308\u2309\u2aa0\u2248]",
    # Unicode maths: Greek letters, sums, roots, <=, >=, superscripts, norms, ceilings
)))


def formula_code_spans(page_html: str) -> list[str]:
    """Inline code spans of a built page (outside code blocks) that look like formulas."""
    text = re.sub(r"<pre\b.*?</pre>", "", page_html, flags=re.S)
    spans = (html.unescape(re.sub(r"<[^>]+>", "", s))
             for s in re.findall(r"<code\b[^>]*>(.*?)</code>", text, flags=re.S))
    return [s for s in spans if FORMULA.search(s)]


def formula_headings(page_html: str) -> list[str]:
    """Headings of a built page whose plain text (outside rendered maths and code spans)
    looks like a formula (``H_LB``, ``rho^G``)."""
    found = []
    for heading in re.findall(r"<h[1-6]\b[^>]*>(.*?)</h[1-6]>", page_html, flags=re.S):
        heading = re.sub(r'<span class="arithmatex">.*?</span>', "", heading, flags=re.S)
        heading = re.sub(r"<code\b[^>]*>.*?</code>", "", heading, flags=re.S)
        text = html.unescape(re.sub(r"<[^>]+>", "", heading)).strip()
        if FORMULA.search(text):
            found.append(text)
    return found


def test_formula_heuristic():
    page = ("<p><code>A(w) = sum_a w_a x_a x_a^T</code> <code>tr(L A^{-1})</code> "
            "<code>sigma^2 A(w)^{-1} / n</code> <code>max_a omega_a</code> <code>eps / 2</code>"
            " <code>||y||_{A^{-1}}</code> <code>x &lt;= delta</code> <code>theta_hat</code>"
            " <code>\u03bc'(x_a\u1d40\u03b8*)</code> <code>mu_(m) - mu_(m+1)</code></p>"
            "<p><code>res.weights</code> <code>tol=1e-6</code> <code>g_optimal(X)</code> "
            "<code>delta=0.05</code> <code>max_iter</code> <code>np.sqrt(x)</code> "
            "<code>info[\"log_det\"]</code> <code>n_runs</code> <code>delta</code>"
            " <code>argmax</code> <code>hres.info[\"mu_prime\"]</code>"
            " <code>result.theta_hat</code></p>"
            "<pre><code>x_a^T A(w)^{-1} x_a</code></pre>")
    assert formula_code_spans(page) == [
        "A(w) = sum_a w_a x_a x_a^T", "tr(L A^{-1})", "sigma^2 A(w)^{-1} / n",
        "max_a omega_a", "eps / 2", "||y||_{A^{-1}}", "x <= delta", "theta_hat",
        "\u03bc'(x_a\u1d40\u03b8*)", "mu_(m) - mu_(m+1)"]
    headings = ('<h2 id="a">Soare (2014): H_LB and rho^G</h2>'
                '<h2 id="b">Soare (2014): <span class="arithmatex">\\(H_{LB}\\)</span></h2>'
                '<h3 id="c">The solver (<code>method="auto"</code>)</h3>'
                '<h2 id="d">Figs. 1-3 (N = 45, p_i ~ U[0,1])</h2>')
    assert formula_headings(headings) == ["Soare (2014): H_LB and rho^G",
                                          "Figs. 1-3 (N = 45, p_i ~ U[0,1])"]


def _check_rendered_maths(site: Path):
    for page in sorted((ROOT / "docs").rglob("*.md")):
        name = str(page.relative_to(ROOT / "docs"))
        built = site / (name[:-3] if name.endswith(".md") else name)
        built = built.parent / "index.html" if built.name == "index" else built / "index.html"
        page_html = built.read_text(encoding="utf-8")
        if name in MATHS_PAGES:
            assert 'class="arithmatex"' in page_html, f"{name}: no rendered maths"
        if not any(name.startswith(skip) for skip in NO_MATHS_CHECK):
            found = formula_code_spans(page_html)
            assert not found, (f"{name}: formulas written as code spans; write them as "
                               f"maths ($...$ or $$...$$): {found}")
            found = formula_headings(page_html)
            assert not found, (f"{name}: headings with formulas in plain text; write them "
                               f"as maths ($...$): {found}")


PUBLIC_PACKAGES = ("design", "rounding", "bandits", "bandits.logistic", "bandits.subsets",
                   "bandits.plots", "bandits.subsets.plots", "bandits.logistic.experiments",
                   "bandits.replicate", "bandits.provenance", "bandits.warmup",
                   "bandits.reproduce")


def _public_names() -> list[str]:
    """``module.name`` of every public function and class of the packages' ``__all__``,
    where it is defined."""
    import importlib
    import inspect

    names = set()
    for pkg in PUBLIC_PACKAGES:
        mod = importlib.import_module(pkg)
        for name in getattr(mod, "__all__", []):
            obj = getattr(mod, name)
            if (inspect.isfunction(obj) or inspect.isclass(obj)) and not name.startswith("_"):
                names.add(f"{obj.__module__}.{obj.__qualname__}")
    return sorted(names)


def _inventory(path: Path) -> set[str]:
    """Object names of a Sphinx-style ``objects.inv`` (what mkdocstrings documented)."""
    import zlib

    raw = path.read_bytes()
    body = raw.split(b"\n", 4)[4]
    return {line.split(" ", 1)[0] for line in zlib.decompress(body).decode().splitlines()}


def docs_outputs_figures() -> list[str]:
    import make_figures

    return list(make_figures.FIGURES)


def test_no_merge_conflict_markers_in_tracked_text_files():
    """A merge once committed README.md with its conflict markers, outside any code block,
    so no example test saw them: every tracked text file is checked for marker lines."""
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    markers = ("<<<<<<< ", ">>>>>>> ", "=======\n")
    found = []
    for name in listed.stdout.split():
        path = ROOT / name
        if path.suffix not in {".md", ".py", ".toml", ".yml", ".yaml", ".cfg", ".txt", ".js", ""}:
            continue
        try:
            lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue
        found += [f"{name}:{i + 1}" for i, line in enumerate(lines)
                  if line.startswith(markers[:2]) or line == markers[2]]
    assert not found, f"merge conflict markers: {found}"
