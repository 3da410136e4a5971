"""Every option and positional of every ``oed`` command has a help text, and the help says
what the code does."""

from __future__ import annotations

import argparse

import pytest

from bandits.cli import build_parser


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


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
        assert command in text
