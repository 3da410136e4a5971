"""The package version, read once from the installed distribution's metadata.

``pyproject.toml`` is the single source of the version number: ``importlib.metadata`` reads
it from the installed distribution (``pip install`` / ``pip install -e``). Running from a
source tree that was never installed gives ``"0+unknown"`` rather than a made-up number.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

DISTRIBUTION = "oed-bandits"


def package_version(distribution: str = DISTRIBUTION) -> str:
    """Version string of the installed ``oed-bandits`` (``"0+unknown"`` if not installed)."""
    try:
        return version(distribution)
    except PackageNotFoundError:
        return "0+unknown"


__version__ = package_version()
