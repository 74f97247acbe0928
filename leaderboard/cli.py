"""The ``bloombench`` command line: one click group, thin commands over library functions.

Each package contributes its commands through a module exposing ``COMMANDS``; user
mistakes (:class:`BloomBenchError`) become one line per problem and exit status 1.
"""

from __future__ import annotations

import importlib
import sys

import click

from . import __version__
from .errors import BloomBenchError

# Modules that contribute commands, in help order. Each defines COMMANDS = [click.Command, ...].
COMMAND_MODULES = [
    "leaderboard.commands",  # validate, score
    "leaderboard.site.commands",  # build
    "evaluator.commands",  # evaluate, merge
    "leaderboard.uncertainty_commands",  # compare
    "leaderboard.maintain",  # gates, verify
]

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class _Group(click.Group):
    """Turns a user's mistake into one line per problem instead of a traceback."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except BloomBenchError as exc:
            for problem in exc.problems:
                click.echo(f"error: {problem}", err=True)
            ctx.exit(1)


@click.group(cls=_Group, context_settings=CONTEXT_SETTINGS)
@click.version_option(__version__, "--version", prog_name="bloombench")
def main() -> None:
    """BloomBench leaderboard: validate and score submissions, evaluate models, build the site.

    \b
    Examples:
      bloombench validate submissions/qwen2.5-vl-7b
      bloombench score submissions/qwen2.5-vl-7b --format table
      bloombench build --out site/
    """


def _register() -> None:
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:  # a part not built yet; tests check every part is present
                continue
            raise
        for command in module.COMMANDS:
            main.add_command(command)


_register()

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
