"""The one exception for bad input (ground floor: imports nothing of cardzoo).

:class:`InputError` is what the library raises when what a user gave it (an argument, a parameter,
an agent's name, a saved file) is refused, before any work starts. It is a ``ValueError``, so
callers that catch ``ValueError`` keep working; the ``cardzoo`` command prints it as one line
with exit code 2. Any other exception is a bug, not bad input: the command shows its traceback.
"""

from __future__ import annotations


class InputError(ValueError):
    """Refused input: the message says what was given, what is wrong and what is allowed."""
