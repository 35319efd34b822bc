"""The list of games: each game's name and the parameter sets the shared test suite runs it at.
A new game adds one entry here; everything else about a game (what it is, its player counts,
whether its moves are simultaneous, ...) is a fact its engine declares on its
:class:`~cardzoo.envs.core.Game` class, read through :meth:`GameSpec.game_class`.

:func:`load_game` builds a game's engine by name (OpenSpiel's ``load_game``).
:func:`register_gymnasium` enters every game's single-agent view in Gymnasium's registry as
``cardzoo/<GameName>-vN`` (:func:`gym_id`), N the game's version (``Game.version``).

:func:`register_pettingzoo` (called by ``import cardzoo``) enters every game in PettingZoo's
registry, so ``pettingzoo.make("aec", "cardzoo/henhouse-v0")`` and
``pettingzoo.make("parallel", "cardzoo/foxy-v0")`` work as they do for PettingZoo's own games.
Each game's public module, ids and environment name carry its version: ``_v0``, ``-v0`` for
most, ``believe_it_or_not_v1`` since its observation changed."""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Iterable
from types import ModuleType
from typing import TYPE_CHECKING, Any

from cardzoo.errors import InputError

if TYPE_CHECKING:
    from cardzoo.envs.core import Game

PETTINGZOO_NAMESPACE = "cardzoo"


def camel_case(game_name: str) -> str:
    """``"nobody_wants_it"`` -> ``"NobodyWantsIt"``: the name of a game's engine class and of
    its Gymnasium id."""
    return "".join(word.capitalize() for word in game_name.split("_"))


@dataclasses.dataclass(frozen=True)
class GameSpec:
    """A game in the list: its ``name`` and the ``test_variants`` the shared tests play. The
    game's own facts are on its engine class, :meth:`game_class` (``min_players``,
    ``max_players``, ``description``, ``simultaneous``, ``has_decisions``, ...)."""

    name: str  # e.g. "henhouse"; the public module is cardzoo.envs.<name>_v<version>
    #: parameter sets the shared tests run (each also at every player count in range)
    test_variants: tuple[dict[str, Any], ...] = ({},)

    @property
    def version(self) -> int:
        """The game's version (``Game.version``): the N of its ``_vN`` module and ``-vN`` ids."""
        return self.game_class().version

    @property
    def versioned_name(self) -> str:
        """``<name>_v<version>``: the public module's name, the environments' ``metadata``
        name and the name ``cardzoo list`` prints."""
        return f"{self.name}_v{self.version}"

    @property
    def module_name(self) -> str:
        return f"cardzoo.envs.{self.versioned_name}"

    @property
    def pettingzoo_id(self) -> str:
        """The id in PettingZoo's registry: ``cardzoo/<name>-v<version>`` (PettingZoo also
        accepts ``cardzoo/<name>_v<version>`` and, for the latest version, ``cardzoo/<name>``)."""
        return f"{PETTINGZOO_NAMESPACE}/{self.name}-v{self.version}"

    def module(self) -> ModuleType:
        return importlib.import_module(self.module_name)

    def game_class(self) -> type[Game]:
        """The game's engine class (e.g. ``NobodyWantsIt`` in
        ``cardzoo.envs.nobody_wants_it.rules``), the one its environments run, with the game's
        facts. Only the engine is imported, not the environments."""
        rules = importlib.import_module(f"cardzoo.envs.{self.name}.rules")
        return getattr(rules, camel_case(self.name))

    def test_configs(self) -> list[dict[str, Any]]:
        """Every (player count, variant) the shared test suite plays."""
        game_class = self.game_class()
        return [
            {"num_players": n, **variant}
            for n in range(game_class.min_players, game_class.max_players + 1)
            for variant in self.test_variants
        ]


GAMES: dict[str, GameSpec] = {
    spec.name: spec
    for spec in [
        GameSpec("henhouse"),
        GameSpec(
            "nobody_wants_it",
            ({"reward": "win"}, {"reward": "points", "num_rounds": 1}),
        ),
        GameSpec(
            "believe_it_or_not",
            (
                {"variant": "standard"},
                {"variant": "quick"},
                {"variant": "standard", "special_cards": False, "num_species": 4},
                {"variant": "quick", "special_cards": False, "num_species": 6},
                {"variant": "standard", "num_species": 5},
                {"variant": "quick", "num_species": 7},
            ),
        ),
        GameSpec(
            "minus_two",
            (
                {"target_score": 60},
                {"target_score": 60, "reward": "points"},
                {"scoring": "count", "target_score": 8},
                {"scoring": "count", "target_score": 8, "reward": "points"},
            ),
        ),
        GameSpec(
            "foxy",
            (
                {"memory": "none"},
                {"memory": "perfect"},
                {"memory": "none", "reward": "points"},
                {"memory": "perfect", "reward": "points"},
            ),
        ),
    ]
}


def load_game(name: str, **params: Any) -> Game:
    """The engine of game ``name`` with ``params`` (OpenSpiel's ``pyspiel.load_game``): a
    :class:`~cardzoo.envs.core.Game`, without building an environment around it.

    >>> game = load_game("nobody_wants_it", num_players=3)

    An unknown game or parameter, or a bad value, raises ``ValueError`` naming it and what is
    allowed."""
    return game_spec(name).game_class().with_params(params)


def game_spec(name: str) -> GameSpec:
    """The entry of game ``name`` in :data:`GAMES`: its versioned name and PettingZoo id, its
    engine class (``game_class()``, with the game's facts) and its environment module
    (``module()``). Nothing is imported until asked for. An unknown name raises ``ValueError``
    listing the games.

    >>> game_spec("foxy").versioned_name
    'foxy_v0'
    """
    if not isinstance(name, str) or name not in GAMES:
        raise unknown_game(name, GAMES)
    return GAMES[name]


def versioned_game(name: str) -> str | None:
    """The game ``name`` spells with a version suffix (``foxy`` for ``foxy_v0`` or ``foxy_v7``,
    as ``cardzoo list`` and the PettingZoo modules spell games), else None."""
    base, _, version = name.rpartition("_v")
    return base if base in GAMES and version.isdigit() else None


def unknown_game(name: Any, known: Iterable[str]) -> InputError:
    """The error for a game name not in ``known``; for a versioned name (``foxy_v0``, as
    ``cardzoo list`` and the PettingZoo modules spell it) it says the name the functions take."""
    hint = ""
    if isinstance(name, str):
        base = versioned_game(name)
        if base is not None:
            installed = GAMES[base].versioned_name
            hint = (
                f"; games are named without their version here: {base!r}"
                if name == installed
                else f"; this cardzoo has {installed}, named {base!r} (a game's results are "
                "comparable within one version: CHANGELOG.md)"
            )
    return InputError(f"unknown game {name!r:.80}; choose one of {list(known)}{hint}")


def register_pettingzoo() -> None:
    """Enter every game in PettingZoo's registry: the AEC ``env()`` of each game, and
    ``parallel_env()`` where its moves are simultaneous (``Game.simultaneous``). Only the
    engines are imported, to read that fact; entry points are strings, so no environment is
    imported until ``pettingzoo.make`` asks for it. Calling this again changes nothing (and
    does not trigger PettingZoo's "Overriding environment" warning)."""
    import pettingzoo

    for spec in GAMES.values():
        parallel = spec.game_class().simultaneous
        kinds = {"aec": "env", **({"parallel": "parallel_env"} if parallel else {})}
        for env_type, function in kinds.items():
            entry_point = f"{spec.module_name}:{function}"
            registry = (
                pettingzoo.aec_registry if env_type == "aec" else pettingzoo.parallel_registry
            )
            known = registry.get(spec.pettingzoo_id)
            if known is None or known.entry_point != entry_point:
                pettingzoo.register(env_type, spec.pettingzoo_id, entry_point=entry_point)


def gym_id(game_name: str) -> str:
    """The Gymnasium id of a game's single-agent view: ``"nobody_wants_it"`` ->
    ``"cardzoo/NobodyWantsIt-v0"`` (the game's version: ``"cardzoo/BelieveItOrNot-v1"``)."""
    return f"cardzoo/{camel_case(game_name)}-v{game_spec(game_name).version}"


def register_gymnasium() -> None:
    """Register every game's single-agent view (:class:`cardzoo.single_agent.SingleAgentEnv`)
    with Gymnasium, and, for a game with a kernel (``Game.kernel_module``), its vector form
    (:class:`cardzoo.vector.VectorEnv`) as the id's vector entry point, which
    ``gymnasium.make_vec`` uses. The entry points are strings: nothing is imported until
    ``gymnasium.make`` or ``make_vec`` asks for it."""
    import gymnasium

    for name, spec in GAMES.items():
        if gym_id(name) not in gymnasium.registry:
            has_kernel = spec.game_class().kernel_module is not None
            gymnasium.register(
                id=gym_id(name),
                entry_point="cardzoo.single_agent:SingleAgentEnv",
                vector_entry_point="cardzoo.vector:VectorEnv" if has_kernel else None,
                kwargs={"game": name},
            )
