"""Run the examples of README.md and docs/, check or rewrite the outputs they show.

Each page runs in order in one namespace, in a temporary working directory:

* a ```python block is executed; a ``>>>`` block is run as a doctest (its outputs are part
  of the block);
* a ```text block right after a ```python block that printed something is that block's
  output;
* a ```console block is a shell session: every ``$ COMMAND`` line (``\\`` continues a
  line) is run and the lines after it, up to the next ``$``, are its output. ``oed``
  commands run in-process (``bandits.cli.main``), others through the shell; a command
  must exit with status 0. A console block preceded by ``<!-- no-run: REASON -->`` is not
  run (REASON says where it is tested instead); a console block without ``$`` prompts is
  not a session and is not run either.

Shown outputs are compared as doctest does (whitespace-insensitive; ``...`` matches
anything) after masking times (``0.26 ms``, ``1.2 s`` and the ``ms/run`` column), which
vary between runs. ``python scripts/docs_outputs.py --write`` (``make docs-outputs``)
replaces every shown output that does not match by what the code prints now; ``--check``
(and ``tests/test_docs.py``) fails on any mismatch, so the docs cannot go stale.
"""

from __future__ import annotations

import contextlib
import doctest
import io
import os
import re
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
NO_RUN = re.compile(r"<!--\s*no-run:(?:(?!-->).)*-->\s*\Z", re.DOTALL)
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
_TIME = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?\s?(?:ms|s|us|µs)\b")


def pages() -> list[Path]:
    """README.md and every page of docs/."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


@dataclass
class Block:
    """One fenced block: its info string, code, and position in the page text."""

    lang: str
    code: str
    start: int  # offset of the code in the page text
    end: int
    line: int
    no_run: bool = False


@dataclass
class Mismatch:
    """A shown output that differs from what the code prints (``block`` holds it)."""

    page: Path
    line: int
    what: str
    want: str
    got: str
    block: Block = field(repr=False)
    span: tuple[int, int] = (0, 0)  # offsets of the shown output in the page text


def blocks(text: str) -> list[Block]:
    """Every fenced block of a Markdown text, in order."""
    out = []
    for m in FENCE.finditer(text):
        before = text[max(0, m.start() - 400): m.start()]
        out.append(Block(m.group(1).strip().split(" ")[0], m.group(2), m.start(2), m.end(2),
                         text.count("\n", 0, m.start()) + 2, bool(NO_RUN.search(before))))
    return out


def mask_times(text: str) -> str:
    """Times replaced by ``<T>``: units ms/s, and the last column of ``ms/run`` tables."""
    lines, in_table = [], False
    for line in text.splitlines():
        if "ms/run" in line.split():
            in_table = True
        elif in_table and not line.strip():
            in_table = False
        elif in_table and not set(line.strip()) <= set("- "):
            head, _, last = line.rstrip().rpartition(" ")
            if re.fullmatch(r"[\d.,]+|nan|-", last):
                line = f"{head} <T>"
        lines.append(_TIME.sub("<T>", line))
    return "\n".join(lines) + ("\n" if text.endswith("\n") else "")


def matches(want: str, got: str) -> bool:
    """doctest's comparison (``...`` and whitespace-insensitive) after masking times."""
    return doctest.OutputChecker().check_output(mask_times(want.strip() + "\n"),
                                                mask_times(got.strip() + "\n"), FLAGS)


def sessions(code: str, offset: int) -> list[tuple[str, str, tuple[int, int]]]:
    """``(command, shown output, span of the output)`` of each ``$`` line of a block."""
    out, pos, lines = [], 0, code.splitlines(keepends=True)
    i = 0
    while i < len(lines):
        if not lines[i].startswith("$ "):
            pos += len(lines[i])
            i += 1
            continue
        cmd = lines[i][2:].rstrip("\n")
        pos += len(lines[i])
        i += 1
        while cmd.endswith("\\") and i < len(lines):
            cmd = cmd[:-1] + " " + lines[i].strip()
            pos += len(lines[i])
            i += 1
        start = pos
        while i < len(lines) and not lines[i].startswith("$ "):
            pos += len(lines[i])
            i += 1
        out.append((cmd, code[start:pos], (offset + start, offset + pos)))
    return out


def run_command(cmd: str) -> tuple[int, str]:
    """Run one shell-session command in the current directory: status and stdout."""
    argv = shlex.split(cmd, comments=True)
    if argv and argv[0] == "oed":
        from bandits.cli import main

        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            try:
                status = main(argv[1:])
            except SystemExit as exc:  # --help / --version
                status = int(exc.code or 0)
        return status, buf.getvalue()
    proc = subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=600)
    return proc.returncode, proc.stdout


def run_page(page: Path, workdir: Path) -> list[Mismatch]:
    """Run every example of ``page`` in ``workdir``; the shown outputs that differ.

    Raises ``AssertionError`` when an example raises or a command exits with an error:
    that is a broken example, not a stale output.
    """
    import matplotlib

    matplotlib.use("Agg", force=True)
    os.environ["MPLBACKEND"] = "Agg"
    text = page.read_text(encoding="utf-8")
    rel = page.relative_to(ROOT) if page.is_relative_to(ROOT) else page
    namespace: dict = {"__name__": "__main__"}
    mismatches: list[Mismatch] = []
    printed: str | None = None
    cwd = os.getcwd()
    os.chdir(workdir)
    try:
        for b in blocks(text):
            if b.lang == "python":
                printed = _run_python(b, namespace, str(rel), page, mismatches)
                continue
            if b.lang == "text" and printed:
                if not matches(b.code, printed):
                    mismatches.append(Mismatch(page, b.line, "output of the python block above",
                                               b.code, printed, b, (b.start, b.end)))
            elif b.lang == "console" and not b.no_run:
                for cmd, want, span in sessions(b.code, b.start):
                    status, got = run_command(cmd)
                    if status != 0:
                        raise AssertionError(f"{rel}:{b.line}: `{cmd}` exited with {status}")
                    if want.strip() and not matches(want, got):
                        mismatches.append(Mismatch(page, b.line, f"$ {cmd}", want, got, b, span))
            printed = None
    finally:
        os.chdir(cwd)
    return mismatches


def _run_python(b: Block, namespace: dict, name: str, page: Path,
                mismatches: list[Mismatch]) -> str:
    if b.code.lstrip().startswith(">>>"):
        test = doctest.DocTestParser().get_doctest(b.code, namespace, name, name, b.line - 1)
        report: list[str] = []
        runner = doctest.DocTestRunner(optionflags=FLAGS)
        runner.run(test, out=report.append, clear_globs=False)
        namespace.update(test.globs)
        if runner.failures:
            mismatches.append(Mismatch(page, b.line, "doctest", "", "".join(report), b))
        return ""
    buf = io.StringIO()
    compiled = compile("\n" * (b.line - 1) + b.code, name, "exec")
    try:
        with contextlib.redirect_stdout(buf):
            exec(compiled, namespace)
    except Exception as exc:
        raise AssertionError(f"example at {name}:{b.line} failed: {exc!r}") from exc
    finally:
        import matplotlib.pyplot as plt

        plt.close("all")
    return buf.getvalue()


def rewrite(page: Path, mismatches: list[Mismatch]) -> int:
    """Replace the stale shown outputs of ``page`` by the current ones; how many."""
    text = page.read_text(encoding="utf-8")
    fixable = [m for m in mismatches if m.what != "doctest"]
    for m in sorted(fixable, key=lambda m: m.span[0], reverse=True):
        got = m.got if m.got.endswith("\n") else m.got + "\n"
        if text[m.span[0]: m.span[1]].endswith("\n\n"):  # keep the blank line before a `$`
            got += "\n"
        text = text[: m.span[0]] + got + text[m.span[1]:]
    page.write_text(text, encoding="utf-8")
    return len(fixable)


def main(argv: list[str] | None = None) -> int:
    import argparse

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("pages", nargs="*", type=Path, help="pages (default: README and docs/)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="report stale outputs (default)")
    mode.add_argument("--write", action="store_true", help="rewrite stale outputs")
    args = p.parse_args(argv)
    stale = 0
    for page in [q.resolve() for q in args.pages] or pages():
        with tempfile.TemporaryDirectory() as tmp:
            found = run_page(page, Path(tmp))
        for m in found:
            print(f"{m.page.relative_to(ROOT)}:{m.line}: {m.what}\n--- shown\n{m.want}"
                  f"--- now\n{m.got}", file=sys.stderr)
        if args.write and found:
            print(f"{page.relative_to(ROOT)}: rewrote {rewrite(page, found)} output(s)")
        stale += len(found)
    return 1 if stale and not args.write else 0


if __name__ == "__main__":
    sys.exit(main())
