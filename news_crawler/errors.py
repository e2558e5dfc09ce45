"""Errors an operator can cause (a bad sites file, an unreachable Redis, a bad setting): each
is reported as one line naming the problem and the fix, with a non-zero exit, never as a
traceback. Tracebacks are for bugs."""


class UserError(Exception):
    """A mistake in how the crawler was run or configured; its message is the one line shown."""

    exit_code = 2
