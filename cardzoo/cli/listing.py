"""``cardzoo list``: the games, their player counts, agents and parameters."""

from __future__ import annotations

import argparse

from cardzoo.envs import GAMES, load_game


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser("list", help="the games, their player counts and descriptions")
    parser.add_argument("--agents", action="store_true", help="also list each game's agents")
    parser.add_argument(
        "--params", action="store_true", help="also list each game's parameters and defaults"
    )
    parser.set_defaults(func=run_list)


def run_list(args: argparse.Namespace) -> int:
    from cardzoo.agents import agent_names

    print(f"{'game':<24}{'players':<10}description")
    for spec in GAMES.values():
        game_class = spec.game_class()
        players = f"{game_class.min_players}..{game_class.max_players}"
        print(f"{spec.versioned_name:<24}{players:<10}{game_class.description}")
        if args.agents:
            print(f"{'':<34}agents: {', '.join(agent_names(spec.name))}")
        if args.params:
            defaults = load_game(spec.name).params()
            shown = ", ".join(f"{key}={value!r}" for key, value in defaults.items())
            print(f"{'':<34}parameters: {shown}")
    return 0
