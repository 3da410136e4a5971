"""Every ```python block in README.md and docs/*.md is executed.

The blocks of one page run in order in one namespace, in a temporary working directory,
with the matplotlib Agg backend. A block written as an interactive session (``>>>``) is
run as a doctest: its shown output must match (whitespace-insensitive, ``...`` allowed).
Output and shell snippets are fenced as ```text or ```console and are not executed.
If mkdocs is installed, the documentation site is also built with
``mkdocs build --strict`` (warnings are errors).
"""

from __future__ import annotations

import doctest
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```\s*$", re.MULTILINE | re.DOTALL)


def python_blocks(text: str) -> list[tuple[int, str]]:
    """(line number, code) of every fenced block whose info string is ``python``."""
    blocks = []
    for match in FENCE.finditer(text):
        if match.group(1).strip().split(" ")[0] == "python":
            line = text.count("\n", 0, match.start()) + 2
            blocks.append((line, match.group(2)))
    return blocks


def test_fence_parser():
    text = "a\n```python\nx = 1\n```\n\n```text\nout\n```\n```\nplain\n```\n```python\ny = 2\n```\n"
    assert python_blocks(text) == [(3, "x = 1\n"), (13, "y = 2\n")]


def run_doctest(code: str, namespace: dict, name: str, line: int) -> None:
    """Run a ``>>>`` block in ``namespace``; fail with doctest's report on any mismatch."""
    test = doctest.DocTestParser().get_doctest(code, namespace, name, name, line - 1)
    flags = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS
    report: list[str] = []
    runner = doctest.DocTestRunner(optionflags=flags)
    runner.run(test, out=report.append, clear_globs=False)
    namespace.update(test.globs)  # DocTest works on a copy; later blocks see the names
    assert runner.failures == 0, "".join(report)


PAGES_WITH_CODE = [p for p in PAGES if python_blocks(p.read_text(encoding="utf-8"))]


@pytest.mark.parametrize("page", PAGES_WITH_CODE, ids=lambda p: str(p.relative_to(ROOT)))
def test_examples_run(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    import matplotlib

    matplotlib.use("Agg", force=True)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    namespace: dict = {"__name__": "__main__"}  # run `if __name__ == "__main__":` parts
    rel = page.relative_to(ROOT)
    for line, code in python_blocks(page.read_text(encoding="utf-8")):
        if code.lstrip().startswith(">>>"):
            run_doctest(code, namespace, f"{rel}:{line}", line)
            continue
        compiled = compile("\n" * (line - 1) + code, str(rel), "exec")
        try:
            exec(compiled, namespace)
        except Exception as exc:  # pragma: no cover - the message is the point
            raise AssertionError(f"example at {rel}:{line} failed: {exc!r}") from exc
        finally:
            import matplotlib.pyplot as plt

            plt.close("all")


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
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
