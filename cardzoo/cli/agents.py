"""``cardzoo agents [GAME]``: every agent a game offers, what it is, and the parameters it takes.

cardzoo agents nobody_wants_it
"""

from __future__ import annotations

import argparse
import re

from cardzoo.cli.args import game_name
from cardzoo.envs import GAMES


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "agents", help="each game's agents: baselines, search bots, the pretrained policy"
    )
    parser.add_argument(
        "game", nargs="?", type=game_name, metavar="GAME", help="one game (default: every game)"
    )
    parser.set_defaults(func=run_agents)


def run_agents(args: argparse.Namespace) -> int:
    from cardzoo.agents import agent_names
    from cardzoo.agents.policy import PRETRAINED, pretrained_files
    from cardzoo.agents.registry import PRETRAINED as PRETRAINED_NAME
    from cardzoo.agents.registry import agent_classes, search_classes

    for game in [args.game] if args.game else list(GAMES):
        print(GAMES[game].versioned_name)
        classes = {**agent_classes(game), **search_classes(game)}
        for name in agent_names(game):
            if name == PRETRAINED_NAME:
                cards = ", ".join(path.with_suffix(".md").name for path in pretrained_files(game))
                about = f"the policy cardzoo ships (model cards in {PRETRAINED}: {cards})"
                params = _pretrained_params(game)
            else:
                about = _first_sentence(classes[name].__doc__ or "")
                params = dict.fromkeys(getattr(classes[name], "PARAMS", None) or {}, "...")
            shown = f"  [{name}:" + ":".join(f"{k}={v}" for k, v in params.items()) + "]"
            print(f"  {name:<16}{about}{shown if params else ''}")
        print("  ppo:PATH / rllib:PATH   a policy saved by cardzoo train / cardzoo train-rllib")
    return 0


def _pretrained_params(game: str) -> dict[str, str]:
    """What ``pretrained:KEY=VALUE`` may set in ``game``, each with the values it takes there
    (``positions=learned|blind`` where the game has face-down cards chosen by position, else
    only ``learned``): the shipped policy is no class, so its parameters are declared apart
    (:data:`cardzoo.agents.registry.PRETRAINED_PARAMS`)."""
    from cardzoo.agents.policy import POSITION_MODES
    from cardzoo.agents.profiles import game_agents
    from cardzoo.agents.registry import PRETRAINED_PARAMS

    values = {"positions": POSITION_MODES if game_agents(game).positions else ("learned",)}
    return {key: "|".join(values.get(key, ("...",))) for key in PRETRAINED_PARAMS}


def _first_sentence(docstring: str) -> str:
    """A docstring's first sentence as plain text: a cross-reference such as
    ``:class:`~cardzoo.agents.HandShedder``` reads as its last name (``HandShedder``), and a
    literal in double backticks reads as its text, without the backticks."""
    paragraph = " ".join(docstring.strip().split("\n\n")[0].split())
    paragraph = re.sub(r":\w+:`~?(?:[\w.]*\.)?([^`.]+)`", r"\1", paragraph)
    paragraph = re.sub(r"``([^`]+)``", r"\1", paragraph)
    return paragraph.split(". ")[0].rstrip(".") + "."
