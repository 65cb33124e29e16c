"""User-facing errors: one line naming the file and the problem."""

from __future__ import annotations

import os


class RtEegError(Exception):
    """An input or configuration problem the user can fix.

    The CLI prints ``str(err)`` as one line and exits with code 2, without a traceback.

    Parameters
    ----------
    problem : str
        What is wrong, in one sentence without a trailing period.
    path : str or os.PathLike, optional
        The file (or directory) the problem is in.
    """

    def __init__(self, problem: str, path: str | os.PathLike | None = None):
        self.problem = problem
        self.path = None if path is None else os.fspath(path)
        super().__init__(str(self))

    def __str__(self) -> str:
        return f"{self.path}: {self.problem}" if self.path else self.problem
