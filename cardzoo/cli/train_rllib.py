"""``cardzoo train-rllib``: multi-agent self-play on Ray RLlib, registered in
:data:`cardzoo.cli.SUBCOMMANDS`. A thin shell over :func:`cardzoo.training.rllib.train`.

    cardzoo train-rllib nobody_wants_it --iterations 60 --env-runners 2 --out runs/nwi-rllib
    cardzoo train-rllib foxy --players 3 --policy per-seat --out runs/foxy-rllib
    cardzoo train-rllib nobody_wants_it --out runs/nwi-rllib --resume --iterations 100
    cardzoo train-rllib minus_two --address ray://head-node:10001   # an existing cluster
"""

from __future__ import annotations

import argparse
from pathlib import Path

from cardzoo.cli import args as cli_args

DEFAULTS = {
    "policy": "shared",
    "iterations": 100,
    "env_runners": 2,
    "rollout_length": 1024,
    "envs_per_runner": 8,
    "seed": 0,
    "checkpoint_every": 10,
    "eval_games": 1000,
}


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "train-rllib",
        help="every seat learns at once, on Ray RLlib (needs the rllib extra)",
        description="Multi-agent self-play with RLlib's PPO: one shared policy for all seats, "
        "or one per seat; illegal actions masked. The run folder holds settings.json, "
        "progress.jsonl, checkpoints/ and metrics.json. Options left out when resuming keep "
        "the run's saved values.",
    )
    cli_args.add_game_argument(parser, learnable=True)
    parser.add_argument(
        "--policy",
        choices=["shared", "per-seat"],
        help="one policy for every seat, or one per seat (default shared)",
    )
    parser.add_argument(
        "--iterations",
        type=cli_args.positive_int,
        metavar="N",
        help=f"training iterations in total (default {DEFAULTS['iterations']})",
    )
    parser.add_argument(
        "--env-runners",
        type=cli_args.nonnegative_int,
        metavar="N",
        help=f"Ray workers playing games (0: in this process; default {DEFAULTS['env_runners']})",
    )
    parser.add_argument(
        "--rollout-length",
        type=cli_args.positive_int,
        metavar="N",
        help="decisions each env runner plays per iteration "
        f"(default {DEFAULTS['rollout_length']})",
    )
    parser.add_argument(
        "--envs-per-runner",
        type=cli_args.positive_int,
        metavar="N",
        help="games each env runner plays side by side, its actions chosen in one batch "
        f"(default {DEFAULTS['envs_per_runner']})",
    )
    parser.add_argument(
        "--seed", type=cli_args.nonnegative_int, help=f"seed (default {DEFAULTS['seed']})"
    )
    cli_args.add_players_argument(parser)
    cli_args.add_param_argument(parser)
    cli_args.add_out_argument(parser, help="the run folder (default: runs/GAME-rllib)", folder=True)
    parser.add_argument("--resume", action="store_true", help="continue the run in --out")
    parser.add_argument("--force", action="store_true", help="replace a run already in --out")
    parser.add_argument(
        "--address",
        metavar="ADDRESS",
        help="an existing Ray cluster (e.g. ray://head:10001 or auto); default: a local Ray "
        "instance on this machine's cores",
    )
    parser.add_argument(
        "--checkpoint-every",
        type=cli_args.positive_int,
        metavar="N",
        help=f"iterations between checkpoints (default {DEFAULTS['checkpoint_every']})",
    )
    parser.add_argument(
        "--eval-games",
        type=cli_args.nonnegative_int,
        metavar="N",
        help=f"final evaluation games per opponent, 0 for none (default {DEFAULTS['eval_games']})",
    )
    parser.add_argument("--quiet", action="store_true", help="no line per iteration")
    parser.set_defaults(func=run_train_rllib)


def run_train_rllib(args: argparse.Namespace) -> int:
    if args.resume and args.force:
        raise cli_args.UsageError("--resume", "cannot be combined with --force")
    params = cli_args.game_params(args)
    out = cli_args.out_folder(args.out, Path("runs") / f"{args.game}-rllib")
    try:
        from cardzoo.training import rllib
        from cardzoo.training.rllib.eval import report

        rllib._require_ray()
    except ImportError as error:
        raise cli_args.UsageError(None, str(error)) from None
    given = {
        "policy": args.policy,
        "iterations": args.iterations,
        "env_runners": args.env_runners,
        "rollout_length": args.rollout_length,
        "envs_per_runner": args.envs_per_runner,
        "seed": args.seed,
        "checkpoint_every": args.checkpoint_every,
        "eval_games": args.eval_games,
        "address": args.address,
    }
    given = {key: value for key, value in given.items() if value is not None}
    options = given if args.resume else {**DEFAULTS, **given}
    metrics = rllib.train(
        args.game,
        out,
        params,
        resume=args.resume,
        force=args.force,
        log=None if args.quiet else print,
        **options,
    )
    if args.quiet:
        print(report(metrics))
    return 0
