"""``cardzoo tournament``: every agent against every other, with ratings, pairwise scores and
plots (:func:`cardzoo.tournament.tournament`)."""

from __future__ import annotations

from pathlib import Path

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
        parser,
        folder=True,
        help="the tournament's folder, new or empty: every line-up is kept there as it "
        "finishes, and tournament.json, ratings.png and pairwise.png are written at the end",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="continue the interrupted tournament in --out, given the same arguments again: "
        "its finished line-ups are read back and only the others played, so the result is the "
        "one an uninterrupted run gives (other settings, or a saved policy's file changed "
        "since, are refused)",
    )
    parser.add_argument(
        "--processes",
        type=cli_args.positive_int,
        default=2,
        metavar="P",
        help="line-ups played at once, each in a process of its own (default 2, both cores of "
        "a 2-core machine); the games and the result do not depend on it",
    )
    cli_args.add_quiet_argument(parser)
    parser.set_defaults(func=run_tournament)


def run_tournament(args) -> int:
    from cardzoo.tournament import tournament

    if args.resume and args.out is None:
        raise cli_args.UsageError("--resume", "needs --out, the folder of the tournament")
    if args.out is not None:
        _check_out(args.out, args.resume)
    cli_args.check_agent_names(args.game, args.agents)
    params = cli_args.game_params(args)  # --players and --param, checked by building the game
    params.pop("num_players")
    with cli_args.setting_errors({"folder": "--out"}):
        result = tournament(
            args.game,
            args.agents,
            games=args.games,
            seed=args.seed,
            players=args.players,
            params=params,
            max_cycles=args.max_cycles,
            progress=not args.quiet,
            folder=args.out,
            processes=args.processes,
        )
    print(result.table())
    if args.out:
        paths = result.save(args.out)
        print(f"written: {', '.join(str(path) for path in paths.values())}")
    return 0


def _check_out(out: Path, resume: bool) -> None:
    """A tournament already in ``out`` is continued only with ``--resume``, and a finished one
    never (as ``cardzoo train`` treats its run folder); the library checks the rest (the same
    settings, every file) before the first game."""
    from cardzoo.tournament import SETTINGS_FILE, SUMMARY_FILE

    started = (out / SETTINGS_FILE).is_file()
    finished = started and (out / SUMMARY_FILE).is_file()
    if resume and not started:
        raise cli_args.UsageError(
            "--resume",
            f"{out} holds no tournament to resume (no {SETTINGS_FILE}); leave out --resume to "
            "start one there",
        )
    if finished and resume:
        raise cli_args.UsageError(
            "--resume", f"the tournament in {out} is finished ({SUMMARY_FILE}); nothing to resume"
        )
    if finished:
        raise cli_args.UsageError(
            "--out", f"{out} holds a finished tournament ({SUMMARY_FILE}); give another folder"
        )
    if started and not resume:
        raise cli_args.UsageError(
            "--out", f"{out} holds an interrupted tournament; --resume continues it"
        )
