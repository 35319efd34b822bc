"""``cardzoo train``: learn a policy for one seat (the train extra), then evaluate it."""

from __future__ import annotations

import argparse
from pathlib import Path

from cardzoo.cli.args import (
    UsageError,
    add_game_argument,
    add_out_argument,
    add_param_argument,
    add_players_argument,
    add_quiet_argument,
    add_seed_argument,
    game_params,
    nonnegative_int,
    out_folder,
    positive_int,
)
from cardzoo.errors import InputError


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "train",
        help="learn a policy for one seat with cardzoo's PPO (needs the train extra)",
        description="Train a policy for one seat; the run folder holds the model, metrics.json, "
        "learning_curve.png and TensorBoard logs. Defaults per game: cardzoo.training.ppo.",
    )
    add_game_argument(parser)
    parser.add_argument(
        "--opponents",
        metavar="MIX",
        help='the other seats, drawn every game from agents with weights, e.g. "nwi_dodger:0.5,'
        'self:0.3,random:0.2"; self = frozen earlier snapshots of the learner, ppo:PATH = a '
        "saved policy (default: the game's mix)",
    )
    parser.add_argument(
        "--timesteps",
        type=positive_int,
        help="learner steps (default per game; with --resume, the run's own)",
    )
    add_seed_argument(parser)
    parser.add_argument(
        "--n-envs", type=positive_int, default=64, help="games played at once (default 64)"
    )
    parser.add_argument(
        "--processes",
        type=positive_int,
        help="sampling processes playing the games beside the learner (default per game: 2 "
        "where sampling costs more than learning, else 1)",
    )
    add_players_argument(parser)
    add_param_argument(parser)
    parser.add_argument(
        "--reward",
        choices=["win", "win+points", "points", "win+score"],
        help="reward mode (default per game; see docs/training.md)",
    )
    parser.add_argument(
        "--lr-schedule",
        choices=["constant", "linear"],
        default="constant",
        help="the learning rate throughout, or falling linearly to 0 at --timesteps "
        "(default constant)",
    )
    parser.add_argument(
        "--frame-stack", type=positive_int, help="the learner sees its last K observations"
    )
    parser.add_argument(
        "--stack-fields",
        type=field_names,
        default=(),
        metavar="FIELDS",
        help="with --frame-stack: keep only these observation fields of the earlier "
        "observations, e.g. card for foxy (default: all)",
    )
    parser.add_argument(
        "--count-fields",
        type=field_names,
        default=(),
        metavar="FIELDS",
        help="the learner also sees these observation fields summed over the game so far, "
        "and that sum times their value now: an exact count of what it has seen, e.g. card "
        "for foxy (default: none)",
    )
    parser.add_argument(
        "--net-arch",
        type=layer_sizes,
        default=(128, 128),
        metavar="SIZES",
        help="hidden layers of the policy and value networks, e.g. 256,256 (default 128,128)",
    )
    parser.add_argument(
        "--activation",
        choices=["tanh", "relu"],
        help="the hidden layers' activation (default per game: relu for foxy, else tanh)",
    )
    parser.add_argument(
        "--memory",
        choices=["none", "gru", "lstm"],
        help="a recurrent core before the policy's and value's layers, trained on sequences: "
        "it remembers the game (hidden state per seat, reset every game), e.g. for foxy with "
        "memory=none; not with --frame-stack (default: none, a feed-forward policy)",
    )
    parser.add_argument(
        "--memory-size",
        type=positive_int,
        metavar="N",
        help="with --memory gru or lstm: the core's hidden size (default 64)",
    )
    parser.add_argument(
        "--head",
        choices=["linear", "ordinal", "ordinal-shared"],
        help="the policy's output: one logit per action, or for a game whose actions write a "
        "number a bell over the numbers (ordinal-shared: every kind of action, e.g. foxy's "
        "circled numbers, as sharp as the plain ones; default per game: ordinal for foxy, "
        "else linear)",
    )
    parser.add_argument(
        "--play",
        choices=["greedy", "sample"],
        default="greedy",
        help="how the trained policy plays in the evaluations and as an agent: its most likely "
        "action, or a draw from its distribution (a mixed strategy; default greedy)",
    )
    parser.add_argument(
        "--league",
        action="store_true",
        help="draw one opponent a game from a league (the mix's agents, snapshots of the "
        "learner, exploiters) by prioritized fictitious self-play; see docs/training.md",
    )
    parser.add_argument(
        "--pfsp-power",
        type=float,
        default=2.0,
        metavar="P",
        help="with --league: how strongly the opponents that beat the learner are preferred "
        "(0: by the mix's weights alone; default 2)",
    )
    parser.add_argument(
        "--exploiter-every",
        type=nonnegative_int,
        default=0,
        metavar="STEPS",
        help="with --league: train an exploiter against the learner every STEPS decisions "
        "and add it to the league (default 0: never)",
    )
    parser.add_argument(
        "--exploiter-timesteps",
        type=positive_int,
        default=200_000,
        metavar="STEPS",
        help="each exploiter's training budget (default 200,000)",
    )
    parser.add_argument("--eval-every", type=positive_int, default=100_000, metavar="STEPS")
    parser.add_argument("--eval-games", type=positive_int, default=400, metavar="N")
    parser.add_argument(
        "--final-eval-games",
        type=positive_int,
        metavar="N",
        help="games per line-up of the final evaluation (default 1000; with --resume, the run's "
        "own)",
    )
    add_out_argument(parser, help="the run folder (default: runs/GAME)", folder=True)
    parser.add_argument(
        "--resume",
        action="store_true",
        help="continue an interrupted run, or extend a finished one to a larger --timesteps "
        "(or --final-eval-games); what is left out keeps the run's own",
    )
    parser.add_argument("--force", action="store_true", help="replace a run already in --out")
    add_quiet_argument(parser)
    parser.set_defaults(func=run_train)


def run_train(args: argparse.Namespace) -> int:
    import torch

    from cardzoo.training.ppo import TrainConfig, report, resumed_settings, train

    # The command owns its process: one torch thread is 5-10x faster than torch's default on
    # these small networks and few cores.
    torch.set_num_threads(1)

    if args.resume and args.force:
        raise UsageError("--resume", "cannot be combined with --force")
    config = TrainConfig(
        args.game,
        params=game_params(args),
        opponents=args.opponents,
        timesteps=args.timesteps,
        seed=args.seed,
        n_envs=args.n_envs,
        processes=args.processes,
        reward=args.reward,
        frame_stack=args.frame_stack,
        lr_schedule=args.lr_schedule,
        net_arch=args.net_arch,
        stack_fields=args.stack_fields,
        count_fields=args.count_fields,
        head=args.head,
        activation=args.activation,
        memory=args.memory,
        **({} if args.memory_size is None else {"memory_size": args.memory_size}),
        play=args.play,
        league=args.league,
        pfsp_power=args.pfsp_power,
        exploiter_every=args.exploiter_every,
        exploiter_timesteps=args.exploiter_timesteps,
        eval_every=args.eval_every,
        eval_games=args.eval_games,
        final_eval_games=args.final_eval_games,
    )
    out = out_folder(args.out, Path("runs") / args.game)
    if args.resume:  # what is left out keeps the run's own length, not the game's default
        config = resumed_settings(config, out)
    try:
        config = config.resolved()
    except InputError as error:
        option = _option_of(str(error))
        message = str(error)
        if option is not None:  # "opponents: ..." is said by --opponents once, not twice
            message = message.removeprefix(option[2:].replace("-", "_") + ": ")
        raise UsageError(option, message) from None
    result = train(config, out, resume=args.resume, force=args.force, progress=not args.quiet)
    print(report(result))
    return 0


def field_names(text: str) -> tuple[str, ...]:
    """``"card,sheet"`` -> ``("card", "sheet")`` (``--stack-fields``, ``--count-fields``)."""
    return tuple(part.strip() for part in text.split(",") if part.strip())


def layer_sizes(text: str) -> tuple[int, ...]:
    """``"256,256"`` -> ``(256, 256)`` (``--net-arch``): 1 to 8 sizes of 1..4096."""
    try:
        sizes = tuple(int(part) for part in text.split(","))
    except ValueError:
        sizes = ()
    if not 1 <= len(sizes) <= 8 or not all(1 <= size <= 4096 for size in sizes):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not 1 to 8 comma-separated layer sizes of 1..4096, e.g. 256,256"
        )
    return sizes


def _option_of(message: str) -> str | None:
    """The option a refused setting came from: ``frame_stack=...`` -> ``--frame-stack``."""
    name = message.replace("=", " ").replace(":", " ").split(" ", 1)[0]
    options = {
        *("n_envs", "processes", "timesteps", "frame_stack", "stack_fields", "eval_every"),
        *("eval_games", "final_eval_games", "reward", "opponents", "seed"),
        *("net_arch", "head", "activation", "play", "league", "pfsp_power", "exploiter_every"),
        *("exploiter_timesteps", "memory", "memory_size", "count_fields"),
    }
    return "--" + name.replace("_", "-") if name in options else None
