"""Evaluation of an RLlib run with the match runner, and its ``metrics.json``.

Each trained policy sits in one seat, every other seat holds copies of an opponent (random, then
the game's strongest heuristic); seats rotate every game and every deal is played once per
rotation (:func:`cardzoo.evaluation.play_match`). For scale, the same games are played with
random and with the heuristic in the policy's seat instead: the heuristic against copies of
itself is that seat's fair share, the bar a policy has to clear to "beat the heuristic".

Decision: the policies play greedily (their most likely legal action), on deals seeded from
:data:`EVAL_SEED` on; the heuristic to beat is the game's entry in :data:`BASELINES`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from cardzoo.agents import BEST_HEURISTIC, make_agent
from cardzoo.envs import load_game
from cardzoo.envs.core import Game
from cardzoo.evaluation import play_match
from cardzoo.training.rllib.run import RunFolder
from cardzoo.training.run_info import git_commit, versions

EVAL_SEED = 2_000_000

#: each game's strongest heuristic, the opponent to beat (shared with ``cardzoo train``)
BASELINES = BEST_HEURISTIC


class SeatAgent:
    """A ``play_match`` lineup entry with a label of its own, so that it is counted apart from
    copies of the same agent in the other seats."""

    def __init__(self, label: str, build: Callable[[Game, int], Any]):
        self.name = label
        self.build = build

    def __call__(self, game: Game, seed: int):
        return self.build(game, seed)


def evaluate_run(
    folder: RunFolder, settings: dict[str, Any], log: Callable[[str], None] = print
) -> dict[str, Any]:
    """Every policy of the run's last checkpoint, and random and the heuristic for scale, in one
    seat against each opponent. Returns ``{"games", "seed", "opponents": {opponent: {seat
    player: summary}}}``."""
    game_name, params = settings["game"], settings["params"]
    num_games = settings["eval_games"]
    if num_games == 0:
        return {"games": 0}
    game = load_game(game_name, **params)
    n = game.num_players
    num_games = math.ceil(num_games / n) * n  # every deal under every rotation
    baseline = BASELINES.get(game_name, "random")
    seat_players = [_policy_seat(game_name, folder, module) for module in settings["module_ids"]]
    seat_players += [
        _baseline_seat(game_name, name) for name in dict.fromkeys(["random", baseline])
    ]
    opponents = list(dict.fromkeys(["random", baseline])) if n > 1 else ["(alone)"]
    results: dict[str, dict[str, Any]] = {}
    for opponent in opponents:
        results[opponent] = {}
        for seat_player in seat_players:
            lineup = [seat_player] + [opponent] * (n - 1)
            match = play_match(game_name, lineup, num_games, seed=EVAL_SEED, params=params)
            results[opponent][seat_player.name] = _summary(match.agents[seat_player.name].summary())
        log(evaluation_table(game_name, opponent, n, results[opponent]))
    return {"games": num_games, "seed": EVAL_SEED, "baseline": baseline, "opponents": results}


def _policy_seat(game_name: str, folder: RunFolder, module_id: str) -> SeatAgent:
    name = f"rllib:{folder.path}@{module_id}"
    label = f"rllib {module_id}"
    return SeatAgent(label, lambda game, seed: make_agent(game_name, name, game, seed=seed))


def _baseline_seat(game_name: str, agent_name: str) -> SeatAgent:
    label = f"{agent_name} (same seat)"
    return SeatAgent(label, lambda game, seed: make_agent(game_name, agent_name, game, seed=seed))


def _summary(agent: dict[str, Any]) -> dict[str, Any]:
    keys = ("seat_games", "win_rate", "win_rate_ci", "mean_score", "mean_score_ci", "mean_reward")
    return {key: agent[key] for key in keys}


def evaluation_table(game_name: str, opponent: str, n: int, rows: dict[str, Any]) -> str:
    if n > 1:
        title = f"{game_name}: one seat against {n - 1} x {opponent}, seats rotated, mirrored deals"
    else:
        title = f"{game_name}: playing alone"
    lines = [
        title,
        f"  {'in the seat':<28}{'games':>7}  {'win rate [95% CI]':<24}{'mean score [95% CI]'}",
    ]
    for label, row in rows.items():
        low, high = row["win_rate_ci"]
        score_low, score_high = row["mean_score_ci"]
        lines.append(
            f"  {label:<28}{row['seat_games']:>7}  "
            f"{row['win_rate']:.3f} [{low:.3f}, {high:.3f}]".ljust(2 + 28 + 7 + 2 + 24)
            + f"{row['mean_score']:.2f} [{score_low:.2f}, {score_high:.2f}]"
        )
    return "\n".join(lines)


def report(metrics: dict[str, Any]) -> str:
    """A finished run in a few lines: training speed, then the evaluation tables."""
    settings, training = metrics["settings"], metrics["training"]
    rate = training.get("agent_steps_per_second") or 0.0
    lines = [
        f"{settings['game']} {settings['params']}, policy {settings['policy']}: "
        f"{training.get('iterations', 0)} iterations, {training.get('agent_steps', 0):,} "
        f"decisions, {rate:,.0f} decisions/s; wall clock {metrics['wall_clock_seconds']:.0f} s"
    ]
    evaluation = metrics["evaluation"]
    n = load_game(settings["game"], **settings["params"]).num_players
    for opponent, rows in evaluation.get("opponents", {}).items():
        lines.append(evaluation_table(settings["game"], opponent, n, rows))
    return "\n".join(lines)


def run_metrics(
    settings: dict[str, Any],
    training: dict[str, Any],
    evaluation: dict[str, Any],
    wall_clock_seconds: float,
) -> dict[str, Any]:
    """The content of ``metrics.json``."""
    return {
        "settings": settings,
        "seed": settings["seed"],
        "versions": versions(),
        "git_commit": git_commit(),
        "training": training,
        "evaluation": evaluation,
        "wall_clock_seconds": wall_clock_seconds,
        "agent_steps_per_second": training.get("agent_steps_per_second"),
    }
