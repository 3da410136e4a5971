"""Every option and positional of every ``oed`` command has a help text, and the help says
what the code does."""

from __future__ import annotations

import argparse

import pytest

from bandits.cli import build_parser


def _subparsers(parser: argparse.ArgumentParser | None = None, prefix: str = ""
                ) -> dict[str, argparse.ArgumentParser]:
    """Every command and nested sub-command (``experiment new``, ...) by its full name."""
    parser = build_parser() if parser is None else parser
    found: dict[str, argparse.ArgumentParser] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found[prefix + name] = sub
                found.update(_subparsers(sub, prefix + name + " "))
    return found


@pytest.mark.parametrize("command", sorted(_subparsers()))
def test_every_argument_has_help(command):
    sub = _subparsers()[command]
    missing = [a.dest for a in sub._actions
               if not isinstance(a, argparse._HelpAction) and not (a.help or "").strip()]
    assert not missing, f"oed {command}: arguments without help: {missing}"
    assert sub.format_help()  # renders (no % formatting errors in help strings)


def test_top_level_help_lists_every_command():
    text = build_parser().format_help()
    for command in _subparsers():
        assert command.split()[0] in text
