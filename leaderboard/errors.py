"""Errors a user can act on: each one names the file, the line or field, and the fix."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """One problem in a user's file, printed as a single line."""

    file: str
    line: int | None
    message: str
    fix: str = ""

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        text = f"{where}: {self.message}"
        return f"{text}; {self.fix}" if self.fix else text


class BloomBenchError(Exception):
    """A user's mistake. The CLI prints it as one line per problem and exits 1."""

    def __init__(self, problems: list[Problem] | Problem | str):
        if isinstance(problems, (Problem, str)):
            problems = [problems]
        self.problems = [p if isinstance(p, Problem) else Problem("bloombench", None, p) for p in problems]
        super().__init__("\n".join(str(p) for p in self.problems))
