"""The one exception for bad input (ground floor: imports nothing of cardzoo).

:class:`InputError` is what the library raises when what a user gave it (an argument, a parameter,
an agent's name, a saved file) is refused, before any work starts. It is a ``ValueError``, so
callers that catch ``ValueError`` keep working; the ``cardzoo`` command prints it as one line
with exit code 2. Any other exception is a bug, not bad input: the command shows its traceback.

:class:`SettingError` is the :class:`InputError` of one named setting (a training run's
``frame_stack``, say): it carries the setting's name as data, so the command names the option
the setting came from without reading the message.
"""

from __future__ import annotations

__all__ = ["InputError", "SettingError"]


class InputError(ValueError):
    """Refused input: the message says what was given, what is wrong and what is allowed."""


class SettingError(InputError):
    """Refused input of one setting: ``setting`` is its name (``"frame_stack"``), ``reason``
    what is wrong with it; the message is ``"frame_stack: reason"``."""

    def __init__(self, setting: str, reason: str):
        self.setting = setting
        self.reason = reason
        super().__init__(f"{setting}: {reason}")
