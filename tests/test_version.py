"""``__version__`` and ``oed --version`` come from one source: pyproject.toml's version."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import bandits
import design
import rounding
from bandits.cli import main

ROOT = Path(__file__).resolve().parents[1]
# tomllib is Python >= 3.11; the package supports 3.10, so read the one line
PYPROJECT_VERSION = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(),
                              re.MULTILINE).group(1)


@pytest.mark.parametrize("package", [design, rounding, bandits], ids=lambda m: m.__name__)
def test_version_is_the_pyproject_version(package):
    assert package.__version__ == PYPROJECT_VERSION


def test_oed_version(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    out = capsys.readouterr().out.strip()
    assert re.fullmatch(r"oed-bandits \S+", out)
    assert out.split()[1] == PYPROJECT_VERSION
