"""``cardzoo tournament``: every agent against every other, with ratings, pairwise scores and
plots (:func:`cardzoo.tournament.tournament`)."""

from __future__ import annotations

from cardzoo.cli import args as cli_args


def add_parser(subparsers) -> None:
    """``cardzoo tournament``, registered in :data:`cardzoo.cli.SUBCOMMANDS`."""
    parser = subparsers.add_parser(
        "tournament", help="every agent against every other: ratings, pairwise scores, plots"
    )
    cli_args.add_game_argument(parser)
    cli_args.add_agents_argument(
        parser,
        help="comma-separated agent names, at least 2 (e.g. 'random, nwi_dodger'); "
        "a saved policy is ppo:PATH or rllib:PATH",
    )
    cli_args.add_players_argument(parser, default=2)
    cli_args.add_param_argument(parser)
    parser.add_argument(
        "--games",
        type=cli_args.games_count,
        default=200,
        metavar="N",
        help="games per pair of agents, rounded up to whole deals in every seat (default 200)",
    )
    cli_args.add_seed_argument(parser)
    cli_args.add_max_cycles_argument(parser)
    cli_args.add_out_argument(
        parser, folder=True, help="write tournament.json, ratings.png and pairwise.png here"
    )
    cli_args.add_quiet_argument(parser)
    parser.set_defaults(func=run_tournament)


def run_tournament(args) -> int:
    from cardzoo.tournament import tournament

    cli_args.check_agent_names(args.game, args.agents)
    params = cli_args.game_params(args)  # --players and --param, checked by building the game
    params.pop("num_players")
    result = tournament(
        args.game,
        args.agents,
        games=args.games,
        seed=args.seed,
        players=args.players,
        params=params,
        max_cycles=args.max_cycles,
        progress=not args.quiet,
    )
    print(result.table())
    if args.out:
        paths = result.save(args.out)
        print(f"written: {', '.join(str(path) for path in paths.values())}")
    return 0
