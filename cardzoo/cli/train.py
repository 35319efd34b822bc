"""``cardzoo train``: learn a policy for one seat (the train extra), then evaluate it."""

from __future__ import annotations

import argparse
from pathlib import Path

from cardzoo.agents.profiles import PROFILES
from cardzoo.cli.args import (
    UsageError,
    _Parser,
    add_game_argument,
    add_out_argument,
    add_param_argument,
    add_players_argument,
    add_quiet_argument,
    add_setting_options,
    game_params,
    given_settings,
    note_memory_already_observed,
    option_spelling,
    out_folder,
    refuse_memory_size_without_core,
    require_train_extra,
    setting_errors,
)
from cardzoo.training.config import GAME_DEFAULTS, OPTION_SPELLING, SETTINGS

#: the settings ``cardzoo train`` has options for, by name, and their options
OPTIONS = {declared.name: declared.flag for declared in SETTINGS if declared.option}
#: where a refused setting came from on the command line (the rest have options of their own)
FLAGS = {**OPTIONS, "params": "--param", "game": "GAME"}
#: how the run folder's messages name a setting while this command runs
SPELLING = option_spelling(OPTIONS)


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "train",
        help="learn a policy for one seat with cardzoo's PPO (needs the train extra)",
        description="Train a policy for one seat; the run folder holds the model, metrics.json, "
        "learning_curve.png and TensorBoard logs. Each setting left out takes the game's "
        "default (docs/training.md, 'Defaults per game').",
    )
    add_game_argument(parser, learnable=True)
    add_players_argument(parser)
    add_param_argument(parser)
    add_setting_options(parser, dict.fromkeys(OPTIONS))
    add_out_argument(parser, help="the run folder (default runs/GAME; checked writable before "
                     "anything runs)", folder=True)  # fmt: skip
    parser.add_argument(
        "--resume",
        action="store_true",
        help="continue an interrupted run from its last checkpoint, or extend a finished one: "
        "a larger --timesteps trains on, a larger --final-eval-games evaluates again. Every "
        "setting left out keeps the run's own (not the game's default)",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace a run already in --out (a finished run is never overwritten without it)",
    )
    add_quiet_argument(parser)
    parser.set_defaults(func=run_train)


def run_train(args: argparse.Namespace) -> int:
    require_train_extra("train")
    import torch

    from cardzoo.training.config import LEAGUE_SETTINGS, SETTING, TrainConfig
    from cardzoo.training.ppo import refuse_exploit_run, report, resumed_settings, train

    # The command owns its process: one torch thread is 5-10x faster than torch's default on
    # these small networks and few cores.
    torch.set_num_threads(1)

    if args.resume and args.force:
        raise UsageError("--resume", "cannot be combined with --force")
    params = game_params(args)
    given = given_settings(args, OPTIONS)
    out = out_folder(args.out, Path("runs") / args.game)
    spelling = OPTION_SPELLING.set(SPELLING)  # the run folder's messages name these options
    try:
        refuse_exploit_run(out, args.resume, args.force)  # before its settings are read
        with setting_errors(FLAGS):
            config = TrainConfig(args.game, params=params, **given)
            if args.resume:  # what is left out keeps the run's own, not the game's default
                kept = [name for name in SETTING if name not in given]
                kept = [name for name in kept if name != "params" or not params]
                config = resumed_settings(config, out, kept)
            config = config.resolved()
        stray = [name for name in LEAGUE_SETTINGS if name in given and not config.league]
        if stray:  # given, though a run without a league would ignore it (even at its default)
            raise UsageError(FLAGS[stray[0]], "a league's setting; turn league on (--league)")
        refuse_memory_size_without_core(given, config.memory)
        note_memory_already_observed(config.params, config.memory, config.frame_stack)
        result = train(config, out, resume=args.resume, force=args.force, progress=not args.quiet)
    finally:
        OPTION_SPELLING.reset(spelling)
    print(report(result))
    return 0


def options_table() -> str:
    """The options of ``cardzoo train`` as the Markdown table of docs/training.md."""
    subparsers = _Parser(prog="cardzoo").add_subparsers()
    add_parser(subparsers)
    train = subparsers.choices["train"]
    rows = ["| option | meaning |", "| --- | --- |"]
    for action in train._actions:
        if not action.option_strings or action.dest == "help":
            continue
        shown = " / ".join(action.choices) if action.choices else action.metavar
        option = " ".join(filter(None, [action.option_strings[0], shown]))
        rows.append(f"| `{option}` | {str(action.help).replace('%%', '%')} |")
    return "\n".join(rows)


def settings_table() -> str:
    """The settings without an option (set them in Python, :class:`TrainConfig`) as the
    Markdown table of docs/training.md."""
    rows = ["| setting | default | meaning |", "| --- | --- | --- |"]
    for declared in SETTINGS:
        if not declared.option:
            default = declared.kind.show(declared.default)
            if declared.per_game:
                default += ", or the game's"
            rows.append(f"| `{declared.name}` | {default} | {declared.help} |")
    return "\n".join(rows)


def defaults_table() -> str:
    """Each game's training defaults as the Markdown table of docs/training.md: what it sets
    apart from the settings' own defaults."""
    rows = [
        "| game | best heuristic | default budget | other defaults |",
        "| --- | --- | --- | --- |",
    ]
    for game, defaults in GAME_DEFAULTS.items():
        agents = PROFILES[game]
        budget = f"{defaults['timesteps']:,} decisions, {agents.minutes:g} min"
        apart = [
            f"{declared.name} `{declared.kind.show(defaults[declared.name])}`"
            for declared in SETTINGS
            if declared.per_game and declared.name != "timesteps"
            and defaults[declared.name] != declared.default
        ]  # fmt: skip
        rows.append(f"| {game} | `{agents.best}` | {budget} | {', '.join(apart)} |")
    return "\n".join(rows)


#: the tables of docs/training.md built from the declarations, by the name of their markers
#: (``<!-- options start -->`` ... ``<!-- options end -->``)
DOC_TABLES = {"options": options_table, "defaults": defaults_table, "settings": settings_table}


def rewrite_tables(path: str) -> None:
    """Write each table of :data:`DOC_TABLES` between its markers in the Markdown file
    ``path`` (docs/training.md)."""
    text = Path(path).read_text()
    for name, table in DOC_TABLES.items():
        start, end = f"<!-- {name} start -->\n", f"\n<!-- {name} end -->"
        before, _, rest = text.partition(start)
        _, _, after = rest.partition(end)
        text = before + start + table() + end + after
    Path(path).write_text(text)
