"""MkDocs hook: draw the tutorials' figures (scripts/make_figures.py) into the site.

Registered in mkdocs.yml (``hooks:``). The figures are generated files of the build
(``figures/NAME``), not files of docs/, so a page can only show what the code draws now;
``mkdocs build --strict`` fails if a page links a figure that is not made.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from make_figures import make_all  # noqa: E402


def on_files(files, config):
    from mkdocs.structure.files import File

    with tempfile.TemporaryDirectory() as tmp:
        for path in make_all(Path(tmp)):
            files.append(File.generated(config, f"figures/{path.name}",
                                        content=path.read_bytes()))
    return files
