"""The dependency rules of docs/architecture.md, checked on the source."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FAMILIES = ("gifa", "game", "static", "phased", "logistic", "subsets")


def imports_of(path: Path) -> list[str]:
    """Every module name imported by ``path`` (``from a import b`` gives ``a`` and ``a.b``)."""
    tree = ast.parse(path.read_text())
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
            names += [f"{node.module}.{a.name}" for a in node.names]
    return names


BANDIT_MODULES = sorted((ROOT / "bandits").rglob("*.py"))


@pytest.mark.parametrize("path", BANDIT_MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_bandits_use_only_public_design_and_rounding(path: Path) -> None:
    bad = [m for m in imports_of(path)
           if m.split(".")[0] in ("design", "rounding") and any(
               part.startswith("_") for part in m.split(".")[1:])]
    assert not bad, f"{path.relative_to(ROOT)} imports private {bad}"


@pytest.mark.parametrize("path", BANDIT_MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_families_do_not_import_each_others_private_modules(path: Path) -> None:
    rel = path.relative_to(ROOT / "bandits").parts
    own = rel[0] if len(rel) > 1 else None
    bad = []
    for m in imports_of(path):
        parts = m.split(".")
        if len(parts) >= 3 and parts[0] == "bandits" and parts[1] in FAMILIES \
                and parts[1] != own and parts[2].startswith("_"):
            bad.append(m)
    assert not bad, f"{path.relative_to(ROOT)} imports another family's private {bad}"
