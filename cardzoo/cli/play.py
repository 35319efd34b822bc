"""``cardzoo play``: a person plays one seat in the terminal (:func:`cardzoo.play.play`)."""

from __future__ import annotations

from cardzoo.cli import args as cli_args


def add_parser(subparsers) -> None:
    """``cardzoo play``, registered in :data:`cardzoo.cli.SUBCOMMANDS`."""
    parser = subparsers.add_parser(
        "play", help="play one seat yourself, in the terminal, against agents"
    )
    cli_args.add_game_argument(parser)
    parser.add_argument(
        "--opponents",
        type=cli_args.agent_names,
        default=[],
        metavar="NAMES",
        help="comma-separated agent names, one per other seat (e.g. 'nwi_dodger, random'); "
        "a saved policy is ppo:PATH or rllib:PATH; leave it out for solo Foxy",
    )
    parser.add_argument(
        "--seat",
        type=cli_args.nonnegative_int,
        default=0,
        metavar="N",
        help="your seat: 0 for player_0 (default), 1 for player_1, ...",
    )
    parser.add_argument(
        "--seed",
        type=cli_args.nonnegative_int,
        default=None,
        help="seed of the deal, an integer >= 0 (default: a random deal; its seed is printed)",
    )
    cli_args.add_param_argument(parser)
    cli_args.add_max_cycles_argument(parser)
    parser.set_defaults(func=run_play)


def run_play(args) -> int:
    from cardzoo.play import play

    cli_args.check_agent_names(args.game, args.opponents, option="--opponents")
    params = cli_args.game_params(args)  # --param, checked; the player count comes from --opponents
    params.pop("num_players", None)
    play(
        args.game,
        args.opponents,
        seat=args.seat,
        seed=args.seed,
        params=params,
        max_cycles=args.max_cycles,
    )
    return 0
