"""How long games of a cardzoo game last, in agent steps, under each of its agents.

The evidence behind a game's default ``max_cycles``: the default has to let every game that ends
end, and should stop a game that cycles (play that can go on for ever) soon. Every seat plays the
same agent; game ``g`` is dealt with seed ``g`` and seat ``i``'s agent is seeded ``10 * g + i``,
so the numbers are the same on every machine. A game is cut at ``--limit`` steps (counted as
that length).

    python benchmarks/game_lengths.py believe_it_or_not --games 2000

prints, per variant, player count and agent: the mean, 99th and 99.9th percentile and longest
game, and the game's default ``max_cycles`` for that player count.
"""

from __future__ import annotations

import argparse

import numpy as np

from cardzoo.agents import agent_classes, take_turn
from cardzoo.envs import GAMES


def game_length(game, agent_class, seed: int, limit: int) -> int:
    """Agent steps of one game with ``agent_class`` in every seat (cut at ``limit``)."""
    agents = [agent_class(game, seed=10 * seed + seat) for seat in range(game.num_players)]
    state = game.new_state(np.random.default_rng(seed))
    steps = 0
    while not state.terminal and steps < limit:
        take_turn(game, state, agents[state.current_player])
        steps += 1
    return steps


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", choices=list(GAMES))
    parser.add_argument("--games", type=int, default=2000, help="games per row (default 2000)")
    parser.add_argument("--limit", type=int, default=100_000, help="cut games at this length")
    parser.add_argument("--variant", action="append", help="variant(s), if the game has them")
    args = parser.parse_args(argv)
    spec = GAMES[args.game]
    game_class = spec.game_class()
    variants = [{"variant": v} for v in args.variant] if args.variant else [{}]
    print("params | agent | mean | p99 | p99.9 | longest | default max_cycles")
    for variant in variants:
        for num_players in range(game_class.min_players, game_class.max_players + 1):
            game = game_class(num_players=num_players, **variant)
            for name, agent_class in agent_classes(args.game).items():
                lengths = np.array(
                    [game_length(game, agent_class, g, args.limit) for g in range(args.games)]
                )
                print(
                    f"{game.params()} | {name} | {lengths.mean():.1f} | "
                    f"{np.percentile(lengths, 99):.0f} | {np.percentile(lengths, 99.9):.0f} | "
                    f"{lengths.max()} | {game.default_max_cycles}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
