"""How a training setting is declared: once, as a field of the run's configuration.

A setting is a dataclass field made by :func:`setting`: its name and type are the field's, and
the field's metadata holds the rest (a :class:`Setting`): its kind of value (:class:`Count`,
:class:`Number`, :class:`Choice`, :class:`Flag`, :class:`Sizes`, :class:`Names`, :class:`Text`,
:class:`Mapping`: how a command line's text is read and how a value is checked), its default,
whether a game may declare its own default (``per_game``: ``agents/profiles.py``), whether
``cardzoo train`` has an option for it (``--name-with-dashes``) and its help. Everything else
is read from there: the configuration's defaults and checks, ``config.json``, the command's
options, the options table of the training docs. A refused value raises
:class:`~cardzoo.errors.SettingError` naming the setting.

The reward modes (:class:`RewardMode`) are declared here too: what each pays is read by the
sampler, the checks and the configuration from this one type.

Imports nothing heavier than the standard library: the command line reads these declarations
to build its options before anything runs.
"""

from __future__ import annotations

import dataclasses
import enum
import math
from collections.abc import Callable, Iterator
from typing import Any

from cardzoo.errors import SettingError


class KindError(Exception):
    """A kind's reason for refusing a value (:meth:`Setting.check` names the setting)."""


# ----------------------------------------------------------------------------------------------
# Kinds of values
# ----------------------------------------------------------------------------------------------


class Kind:
    """What values a setting takes. :meth:`parse` reads an option's text, :meth:`coerce` brings
    a value of the right kind into its one form (a list read from JSON into a tuple), and
    :meth:`check` refuses what is not allowed (raising :class:`KindError` with the reason)."""

    metavar: str | None = None

    def parse(self, text: str) -> Any:
        return text

    def coerce(self, value: Any) -> Any:
        return value

    def check(self, value: Any) -> None:
        pass

    def argparse(self) -> dict[str, Any]:
        """What ``add_argument`` needs beyond ``type``, ``help`` and ``default``."""
        return {}

    def show(self, value: Any) -> str:
        """A value as the help and the docs write it."""
        return str(value)


def _read(text: str, convert: Callable[[str], Any], what: str) -> Any:
    """``convert(text)``, or the reason it cannot be read as ``what``."""
    try:
        return convert(text)
    except ValueError:
        raise KindError(f"must be {what}, got {text!r}") from None


@dataclasses.dataclass(frozen=True)
class Count(Kind):
    """An integer from ``low`` to ``high`` (no upper bound where None). The upper bounds are
    far beyond sensible runs: they stop mistakes (a frame stack of 10⁸, a billion games)
    before they end in an allocation failure hours later."""

    low: int
    high: int | None = None
    metavar: str | None = "N"

    def parse(self, text: str) -> int:
        return _read(text, int, "an integer")

    def check(self, value: Any) -> None:
        if isinstance(value, bool) or not isinstance(value, int):
            raise KindError(f"must be an integer, got {value!r}")
        if value < self.low or (self.high is not None and value > self.high):
            allowed = f">= {self.low}" if self.high is None else f"{self.low}..{self.high:,}"
            raise KindError(f"{value:,} is out of range; allowed {allowed}")

    def show(self, value: Any) -> str:
        return f"{value:,}"


@dataclasses.dataclass(frozen=True)
class StepsOrShare(Kind):
    """A number of learner decisions (an integer >= 1), or a share of the run's (a number from 0
    up to 1, 1 excluded), which the resolved configuration turns into decisions."""

    high: int
    metavar: str | None = "STEPS"

    def parse(self, text: str) -> int | float:
        number = _read(text, float, "a number")
        return int(number) if number >= 1 and number.is_integer() else number

    def check(self, value: Any) -> None:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise KindError(f"must be a number, got {value!r}")
        if not (math.isfinite(value) and 0 <= value <= self.high):
            raise KindError(f"{value!r} is out of range; allowed 0..{self.high:,}")
        if value >= 1 and not float(value).is_integer():
            raise KindError(f"must be a share below 1 or whole decisions, got {value!r}")

    def show(self, value: Any) -> str:
        return f"{value:g} of the run" if 0 < value < 1 else f"{value:,}"


@dataclasses.dataclass(frozen=True)
class Number(Kind):
    """A finite number >= 0; with ``positive`` above 0, with ``high`` at most ``high`` (a
    discount of 5 or a learning rate of 0 would not fail until the run's weights turned to NaN,
    in a sampling process, with a message about something else)."""

    metavar: str | None = "X"
    positive: bool = False
    high: float | None = None

    def parse(self, text: str) -> float:
        return _read(text, float, "a number")

    def check(self, value: Any) -> None:
        low = "> 0" if self.positive else ">= 0"
        allowed = f"a finite number {low}" + ("" if self.high is None else f" and <= {self.high:g}")
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not math.isfinite(value)
            or value < 0
            or (self.positive and value == 0)
            or (self.high is not None and value > self.high)
        ):
            raise KindError(f"must be {allowed}, got {value!r}")

    def show(self, value: Any) -> str:
        return f"{value:g}"


@dataclasses.dataclass(frozen=True)
class Choice(Kind):
    """One of ``values`` (strings), or with ``enum`` one of its members (given by value)."""

    values: tuple[str, ...] = ()
    enum: type[enum.Enum] | None = None

    @property
    def allowed(self) -> tuple[str, ...]:
        return tuple(m.value for m in self.enum) if self.enum else self.values

    def coerce(self, value: Any) -> Any:
        if self.enum is not None and value in self.allowed:
            return self.enum(value)
        return value

    def check(self, value: Any) -> None:
        if value not in self.allowed:
            raise KindError(f"{value!r} is not allowed; choose one of {list(self.allowed)}")

    def argparse(self) -> dict[str, Any]:
        return {"choices": self.allowed}

    def show(self, value: Any) -> str:
        return str(getattr(value, "value", value))


@dataclasses.dataclass(frozen=True)
class Flag(Kind):
    """On or off: the option turns it on."""

    def check(self, value: Any) -> None:
        if not isinstance(value, bool):
            raise KindError(f"true or false, got {value!r}")

    def argparse(self) -> dict[str, Any]:
        return {"action": "store_true"}

    def show(self, value: Any) -> str:
        return "on" if value else "off"


@dataclasses.dataclass(frozen=True)
class Sizes(Kind):
    """1 to ``most`` sizes of 1..``largest`` (the hidden layers of a network), ``256,256`` on
    the command line."""

    most: int = 8
    largest: int = 4096
    metavar: str | None = "SIZES"

    def parse(self, text: str) -> tuple[int, ...]:
        try:
            return tuple(int(part) for part in text.split(","))
        except ValueError:
            raise KindError(f"{text!r} is not comma-separated sizes, e.g. 256,256") from None

    def coerce(self, value: Any) -> Any:
        return tuple(value) if isinstance(value, (list, tuple)) else value

    def check(self, value: Any) -> None:
        if not isinstance(value, tuple) or not 1 <= len(value) <= self.most:
            raise KindError(f"1 to {self.most} sizes, got {value!r}")
        for size in value:
            if isinstance(size, bool) or not isinstance(size, int):
                raise KindError(f"sizes are integers, got {size!r}")
            if not 1 <= size <= self.largest:
                raise KindError(f"{size:,} is out of range; allowed 1..{self.largest}")

    def show(self, value: Any) -> str:
        return ",".join(str(size) for size in value)


@dataclasses.dataclass(frozen=True)
class Names(Kind):
    """Names (``card,sheet`` on the command line); none is empty."""

    metavar: str | None = "NAMES"

    def parse(self, text: str) -> tuple[str, ...]:
        return tuple(part.strip() for part in text.split(",") if part.strip())

    def coerce(self, value: Any) -> Any:
        return tuple(value) if isinstance(value, (list, tuple)) else value

    def check(self, value: Any) -> None:
        if not isinstance(value, tuple) or not all(isinstance(v, str) and v for v in value):
            raise KindError(f"names, got {value!r}")

    def show(self, value: Any) -> str:
        return ",".join(value) or "none"


@dataclasses.dataclass(frozen=True)
class Text(Kind):
    """A text that is not empty (what it says is checked where it is read)."""

    metavar: str | None = "TEXT"

    def check(self, value: Any) -> None:
        if not isinstance(value, str) or not value.strip():
            raise KindError(f"a text, got {value!r}")


@dataclasses.dataclass(frozen=True)
class Mapping(Kind):
    """Names and values (a game's parameters); a game's default ones lie under the given."""

    def check(self, value: Any) -> None:
        if not isinstance(value, dict) or not all(isinstance(key, str) for key in value):
            raise KindError(f"a mapping of names to values, got {value!r}")

    def show(self, value: Any) -> str:
        return ",".join(f"{key}={item}" for key, item in value.items()) or "none"


# ----------------------------------------------------------------------------------------------
# Settings
# ----------------------------------------------------------------------------------------------

#: no value (a setting without a value for runs saved before it existed)
_NONE = object()


@dataclasses.dataclass(frozen=True)
class Setting:
    """Everything said about one setting but its name and type (the field's)."""

    kind: Kind
    #: the value when neither the run nor (for a ``per_game`` setting) the game sets one
    default: Any
    help: str
    #: a game may declare its own default (``agents/profiles.py``); the field is None until
    #: the configuration is resolved
    per_game: bool = False
    #: the field is None until resolved (to the default, or on resume to the run's own)
    unset: bool = False
    #: ``cardzoo train`` has an option for it, ``--name-with-dashes``
    option: bool = True
    #: the value of runs saved before the setting existed (else its default)
    saved_before: Any = _NONE
    name: str = ""

    @property
    def flag(self) -> str:
        """The setting's option on the command line."""
        return "--" + self.name.replace("_", "-")

    @property
    def resolves(self) -> bool:
        """Left None until the configuration is resolved."""
        return self.per_game or self.unset

    def check(self, value: Any) -> Any:
        """``value`` in its one form (:meth:`Kind.coerce`), or :class:`SettingError`."""
        value = self.kind.coerce(value)
        try:
            self.kind.check(value)
        except KindError as refused:
            raise SettingError(self.name, str(refused)) from None
        return value

    def value_for_old_runs(self) -> Any:
        return self.default if self.saved_before is _NONE else self.saved_before


def setting(
    kind: Kind,
    default: Any,
    help: str,
    *,
    per_game: bool = False,
    unset: bool = False,
    option: bool = True,
    saved_before: Any = _NONE,
) -> Any:
    """A dataclass field declaring one setting (:class:`Setting`). Its field default is the
    setting's default, or None where the setting resolves later (``per_game``, ``unset``)."""
    declared = Setting(kind, default, help, per_game, unset, option, saved_before)
    metadata = {"setting": declared}
    if isinstance(default, dict):  # a mapping is never None: the game's lies under it
        return dataclasses.field(default_factory=lambda: dict(default), metadata=metadata)
    if per_game or unset:
        return dataclasses.field(default=None, metadata=metadata)
    return dataclasses.field(default=default, metadata=metadata)


def settings_of(cls: Any) -> Iterator[Setting]:
    """The settings a dataclass declares, in field order, each with its name."""
    for field in dataclasses.fields(cls):
        if "setting" in field.metadata:
            yield dataclasses.replace(field.metadata["setting"], name=field.name)


# ----------------------------------------------------------------------------------------------
# Reward modes
# ----------------------------------------------------------------------------------------------


class RewardMode(str, enum.Enum):
    """What the learner is paid, per decision (everything its seat earned until its next one).

    - ``win``: the game's own reward (+1 for a winner, −1 otherwise, at the end);
    - ``points``: the game's points reward (its ``reward="points"`` parameter) times the run's
      ``points_scale``;
    - ``win+points``: those scaled points, and ±1 for the result at the end;
    - ``win+score``: the game's win reward plus ``points_scale`` times the change of the seat's
      score, in the direction the game counts it, since its previous decision: potential-based
      shaping, which changes how fast good play is found, not which play is best.
    """

    WIN = "win"
    WIN_POINTS = "win+points"
    POINTS = "points"
    WIN_SCORE = "win+score"

    def __str__(self) -> str:
        return self.value

    @property
    def uses_points(self) -> bool:
        """Whether the game pays its points reward (``reward="points"``): only a game that has
        one (``Game.has_points_reward``) can be played so."""
        return self in (RewardMode.POINTS, RewardMode.WIN_POINTS)

    @property
    def shapes_score(self) -> bool:
        """Whether the change of the seat's score is paid (``win+score``)."""
        return self is RewardMode.WIN_SCORE

    def step_reward(self, earned: float, score_change: float, points_scale: float) -> float:
        """The reward of one decision: ``earned`` is what the game paid the seat meanwhile,
        ``score_change`` the change of its score (signed so that better is positive; read only
        where :attr:`shapes_score`)."""
        if self.shapes_score:
            return earned + points_scale * score_change
        if self.uses_points:
            return earned * points_scale
        return earned

    def final_reward(self, won: bool) -> float:
        """What the end of a game adds: ±1 for the result with ``win+points``."""
        if self is RewardMode.WIN_POINTS:
            return 1.0 if won else -1.0
        return 0.0
