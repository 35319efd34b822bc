"""A training run's configuration: every setting declared once, as a field of :class:`TrainConfig`.

Each field made by :func:`~cardzoo.training.settings.setting` is a setting: its kind of value,
default, help, whether a game may declare its own default and whether ``cardzoo train`` has an
option for it are said there and nowhere else. :meth:`TrainConfig.resolved` fills in what a run
leaves None (the game's default from ``agents/profiles.py``, else the setting's own) and checks
every value; ``config.json`` is :meth:`TrainConfig.to_json`; the command's options and the
options table of docs/training.md are built from the same fields (``cardzoo/cli/train.py``).
Adding a setting is one field here and the code that uses it.

A refused value raises :class:`~cardzoo.errors.SettingError` naming the setting (the command
line turns the name into its option).
"""

from __future__ import annotations

import contextvars
import dataclasses
from typing import Any

from cardzoo.agents import check_agent_name, game_agents, make_agent
from cardzoo.agents.policy import (
    CORE_STATES,
    ORDINAL_HEADS,
    PLAY_MODES,
    POSITION_MODES,
    PolicyInput,
    check_positions,
    stateless_inputs,
)
from cardzoo.agents.profiles import PROFILES
from cardzoo.envs import game_spec, load_game
from cardzoo.envs.core import Game
from cardzoo.errors import InputError, SettingError
from cardzoo.training import sampler as sampler_module
from cardzoo.training.league import FAIR_SHARES, OBSERVED, ONE_WINNER
from cardzoo.training.sampler import SELF, SamplerConfig, parse_mix
from cardzoo.training.settings import (
    Choice,
    Count,
    Flag,
    Mapping,
    Names,
    Number,
    RewardMode,
    Setting,
    Sizes,
    StepsOrShare,
    Text,
    setting,
    settings_of,
)

#: the first deal of the final evaluation unless a run says otherwise (the periodic
#: evaluations' deals start at 10⁶: ``cardzoo.training.ppo.PERIODIC_EVAL_SEED``)
FINAL_EVAL_SEED = 2_000_000
#: the first deal of the candidates' second evaluation (``select_top`` above 1), which chooses
#: the policy among them
SELECTION_EVAL_SEED = 1_250_000
#: the settings a resumed run may change: none changes what has been learned so far
RESUMABLE_CHANGES = ("timesteps", "final_eval_games", "final_eval_seed")
#: how messages about a run spell the settings they name: the options of the command running
#: it, which sets its own while it runs (``cardzoo train``: ``--final-eval-games``; ``cardzoo
#: exploit``: ``--eval-games``); called from Python, the settings' own names
#: (``final_eval_games``), as :class:`TrainConfig` and :func:`~cardzoo.training.ppo.train`
#: take them, not options of a command the caller is not running
OPTION_SPELLING: contextvars.ContextVar[dict[str, str] | None] = contextvars.ContextVar(
    "OPTION_SPELLING", default=None
)


def option_name(setting: str) -> str:
    """A setting's name as :data:`OPTION_SPELLING` spells it now (``--final-eval-games`` in
    ``cardzoo train``, ``final_eval_games`` from Python)."""
    return (OPTION_SPELLING.get() or {}).get(setting, setting)


#: the most decisions a run, an evaluation period or an exploiter may take
MOST_DECISIONS = 10**10
#: how a league's exploiters train (``TrainConfig.exploiter_recipe``): as ``cardzoo exploit``
#: trains a best response, or with the learner's settings (the runs before the setting)
EXPLOITER_RECIPES = ("exploit", "learner")


@dataclasses.dataclass
class TrainConfig:
    """Everything that defines a training run (the table of options in docs/training.md, "One
    command"). A field left None takes the game's default (:data:`GAME_DEFAULTS`) or the
    setting's own when the configuration is resolved; on ``resume``, the run's own."""

    game: str
    params: dict[str, Any] = setting(
        Mapping(),
        {},
        "the game's parameters (the command's --players and --param); the game's defaults lie "
        "under them",
        per_game=True,
        option=False,
    )
    opponents: str | None = setting(
        Text(metavar="MIX"),
        None,
        "who sits in the other seats, drawn anew for every seat of every game: agent names "
        "with weights, e.g. nwi_dodger:0.5,self:0.3,random:0.2. self is a pool of frozen "
        "earlier snapshots of the learner (self-play; a snapshot joins the pool at every "
        "evaluation, the last 10 are kept), ppo:PATH a saved policy",
        per_game=True,
    )
    timesteps: int | None = setting(
        Count(1, MOST_DECISIONS),
        300_000,
        "learner decisions to train for, rounded up to whole rollouts (n_envs x n_steps "
        "decisions each: 20,000 trains 20,480 with 64 games of 64)",
        per_game=True,
    )
    seed: int = setting(
        Count(0, 2**64 - 1, metavar="S"),  # torch's generator takes 64 bits
        0,
        "seeds the learner, the games and the opponents: the same command trains the same policy",
    )
    n_envs: int | None = setting(
        Count(1, 4096),
        64,
        "games played at once (one batched forward pass of the learner for all of them)",
        per_game=True,
    )
    processes: int | None = setting(
        Count(1, 64, metavar="P"),
        2,
        "sampling processes playing those games beside the learner (each its share; 2 pays "
        "where sampling costs more than learning, 1 where it costs less); they run at a lower "
        "priority than the learner (nice 10), which is the slower side on 2 cores",
        per_game=True,
    )
    reward: RewardMode | None = setting(
        Choice(enum=RewardMode),
        RewardMode.WIN,
        "the reward (docs/training.md, 'Rewards and observations')",
        per_game=True,
    )
    points_scale: float | None = setting(
        Number(),
        0.0,
        "what a point (or, with win+score, a unit of score) is worth in the reward",
        per_game=True,
        option=False,
    )
    frame_stack: int | None = setting(
        Count(1, 64, metavar="K"),
        1,
        "the learner sees its last K observations: memory of its own, for Foxy with memory=none",
        per_game=True,
    )
    stack_fields: tuple[str, ...] = setting(
        Names(metavar="FIELDS"),
        (),
        "with --frame-stack: only these fields of the earlier observations (comma-separated), "
        "e.g. card for Foxy: the cards seen, not every earlier copy of the sheet",
    )
    count_fields: tuple[str, ...] = setting(
        Names(metavar="FIELDS"),
        (),
        "the learner also sees these fields (comma-separated) summed over its observations of "
        "the game so far, and that sum times their value now: an exact count of what it has "
        "seen, at any length of game, e.g. card for Foxy (how many of each species have "
        "appeared, and of the species on this card). Recorded in the policy file (format 4), "
        "which cardzoo versions before it refuse",
    )
    eval_every: int = setting(
        Count(1, MOST_DECISIONS, metavar="STEPS"),
        100_000,
        "learner decisions between evaluations (each puts a snapshot into the self-play "
        "pool, plays random and the best heuristic, keeps the best policy, writes a "
        "checkpoint)",
    )
    eval_games: int = setting(
        Count(1, 10**6),
        400,
        "games per line-up of each periodic evaluation",
    )
    final_eval_games: int | None = setting(
        Count(1, 10**6),
        1000,
        "games per line-up of the final evaluation",
        unset=True,
    )
    select_top: int = setting(
        Count(1, 100, metavar="K"),
        1,
        "checkpoints kept as candidates: above 1, the K best by the periodic evaluations are "
        "evaluated again when training ends, on select_games games on deals of their own "
        f"(from {SELECTION_EVAL_SEED:,}), and the best of them there is the policy (1: the best "
        "periodic evaluation's)",
    )
    select_games: int = setting(
        Count(1, 10**6),
        2000,
        "games against the deciding opponent when the candidates are evaluated again "
        "(select_top above 1)",
    )
    #: the agents the evaluations seat in every other seat, the last of them the one that
    #: chooses the checkpoint and whose own share is the baseline (empty: random and the
    #: game's best heuristic); ``cardzoo exploit`` names its target here
    eval_opponents: tuple[str, ...] = setting(
        Names(),
        (),
        "the agents the evaluations play against, the deciding one last (none: random and the "
        "game's best heuristic)",
        option=False,
    )
    final_eval_seed: int = setting(
        Count(0, metavar="SEED"),
        FINAL_EVAL_SEED,
        "the first deal of the final evaluation (later deals follow it)",
        option=False,
    )
    pool_size: int = setting(
        Count(1, 1000), 10, "self-play snapshots kept in the pool", option=False
    )
    league: bool = setting(
        Flag(),
        False,
        "one opponent a game, drawn from a league (the mix's agents, snapshots of the learner, "
        "exploiters) by prioritized fictitious self-play (docs/training.md, 'The league')",
    )
    pfsp_power: float = setting(
        Number(metavar="P"),
        2.0,
        "with --league: how strongly the members that beat the learner are preferred (0: by "
        "the mix's weights alone)",
    )
    pfsp_fair_share: str = setting(
        Choice(FAIR_SHARES),
        OBSERVED,
        "with --league: the learner's win rate that PFSP counts as even odds against a member: "
        "the share of seats that won in the league's games ('observed': 3 in 4 in Believe It or "
        "Not's standard game), or one in the number of players ('one_winner')",
        saved_before=ONE_WINNER,
    )
    exploiter_every: int = setting(
        Count(0, MOST_DECISIONS, metavar="STEPS"),
        0,
        "with --league: train an exploiter against the learner at the first evaluation after "
        "every STEPS decisions (no fewer than between evaluations) and add it to the league "
        "(0: never)",
    )
    exploiter_timesteps: int = setting(
        Count(1, MOST_DECISIONS, metavar="STEPS"),
        200_000,
        "with --league: each exploiter's training decisions",
    )
    exploiter_recipe: str = setting(
        Choice(EXPLOITER_RECIPES),
        "exploit",
        "with --league: how an exploiter trains: as 'cardzoo exploit' trains a best response "
        "(the game's training defaults, the learner's --processes), or with the learner's own "
        "settings",
        saved_before="learner",
    )
    learning_rate: float = setting(Number(positive=True), 3e-4, "Adam's step size", option=False)
    lr_schedule: str | None = setting(
        Choice(("constant", "linear")),
        "constant",
        "the learning rate throughout, or falling linearly to 0 at --timesteps (CleanRL's and "
        "SB3's annealing: the policy settles at the end of a run instead of moving at full "
        "step size)",
        per_game=True,
    )
    n_steps: int = setting(
        Count(1, 10**5), 64, "learner decisions per game and rollout", option=False
    )
    batch_size: int | None = setting(
        Count(1, 10**6), 512, "learner decisions per minibatch", per_game=True, option=False
    )
    n_epochs: int | None = setting(
        Count(1, 1000), 4, "passes of the update over each rollout", per_game=True, option=False
    )
    gamma: float | None = setting(
        Number(high=1.0), 0.995, "the discount", per_game=True, option=False
    )
    gae_lambda: float = setting(Number(high=1.0), 0.95, "GAE's lambda", option=False)
    ent_coef: float | None = setting(
        Number(), 0.01, "the entropy bonus's weight", per_game=True, option=False
    )
    net_arch: tuple[int, ...] | None = setting(
        Sizes(),
        (128, 128),
        "the hidden layers of the policy and value networks, e.g. 256,256",
        per_game=True,
    )
    head: str | None = setting(
        Choice(("linear", *ORDINAL_HEADS)),
        "linear",
        "the policy's output: one logit per action, or, for a game whose actions write a "
        "number, a bell over the numbers (docs/training.md, 'Networks and the ordinal head'; "
        "ordinal-shared: every kind of action, e.g. Foxy's circled numbers, as sharp as the "
        "plain ones)",
        per_game=True,
        saved_before="linear",
    )
    hold_special: int | float | None = setting(
        StepsOrShare(MOST_DECISIONS),
        0,
        "the learner may not choose the special kinds of action (Foxy's circled numbers) for "
        "its first STEPS decisions (below 1: that share of --timesteps); then they start from "
        "the plain ones, 1/20 as likely. A once-a-game action is learned once the numbers it "
        "needs are right, instead of given up while they are still wrong (0: allowed from the "
        "start; docs/training.md, 'Networks and the ordinal head')",
        per_game=True,
        saved_before=0,
    )
    activation: str | None = setting(
        Choice(("tanh", "relu")),
        "tanh",
        "the hidden layers' activation",
        per_game=True,
        saved_before="tanh",
    )
    memory: str | None = setting(
        Choice(("none", *CORE_STATES)),
        "none",
        "a recurrent core before the policy's and value's layers, trained on sequences: the "
        "policy remembers the whole game (hidden state per seat, reset every game); not with "
        "--frame-stack",
        per_game=True,
        saved_before="none",
    )
    memory_size: int = setting(
        Count(1, 4096),
        64,
        "with --memory: the core's hidden size (twice that many numbers for the LSTM's two states)",
    )
    play: str = setting(
        Choice(PLAY_MODES),
        "greedy",
        "how the trained policy plays in the evaluations and as an agent: its most likely "
        "action, or a draw from its distribution (a mixed strategy)",
    )
    positions: str | None = setting(
        Choice(POSITION_MODES),
        "learned",
        "where face-down cards are chosen by position (Believe It or Not): the policy's own "
        "choice, or blind, as the heuristics choose them (docs/training.md, 'Positions')",
        per_game=True,
        saved_before="learned",
    )
    clip_range: float = setting(
        Number(positive=True), 0.2, "PPO's clipping of the ratio", option=False
    )
    vf_coef: float = setting(Number(), 0.5, "the value loss's weight", option=False)
    max_grad_norm: float = setting(
        Number(positive=True), 0.5, "the gradients' norm is clipped to this", option=False
    )

    def resolved(self, build_agents: bool = True) -> TrainConfig:
        """A copy with every None filled in (the game's default, else the setting's) and every
        value checked (with ``build_agents``, the opponents too, by building each once: see
        :meth:`check`)."""
        if not game_spec(self.game).game_class().has_decisions:
            choices = list(GAME_DEFAULTS)
            raise SettingError("game", f"{self.game} has no decisions to learn; choose one of "
                               f"{choices}")  # fmt: skip
        ours = GAME_DEFAULTS[self.game]
        values = {}
        for declared in SETTINGS:
            value = getattr(self, declared.name)
            if isinstance(declared.kind, Mapping):  # the game's own lie under the given
                value = {**ours.get(declared.name, {}), **value}
            elif value is None:
                value = ours.get(declared.name, declared.default)
            values[declared.name] = declared.check(value)
        stateless = stateless_inputs(values["frame_stack"], values["count_fields"])
        if self.positions is None and not (stateless and values["memory"] == "none"):
            values["positions"] = "learned"  # the game's default "blind" needs stateless inputs
        if 0 < values["hold_special"] < 1:  # a share of the run: its decisions from here on
            values["hold_special"] = int(values["hold_special"] * values["timesteps"])
        config = dataclasses.replace(self, **values)
        config.check(build_agents)
        return config

    def check(self, build_agents: bool = True) -> None:
        """Every value allowed, alone and together, before any work starts. With
        ``build_agents`` every opponent is built once (:meth:`_check_agents`); a saved run's
        settings are read without."""
        for declared in SETTINGS:
            declared.check(getattr(self, declared.name))
        if "reward" in self.params:
            raise SettingError("params", "the game's reward is set by the run's reward mode "
                               "(--reward)")  # fmt: skip
        try:
            game = load_game(self.game, **self.params)
        except InputError as error:
            raise SettingError("params", str(error)) from None
        if self.head != "linear" and game.action_numbers() is None:
            raise SettingError("head", f"{self.game}'s actions are not numbers; use head linear")
        numbers = game.action_numbers()
        if self.hold_special and (numbers is None or numbers[1].max() < 1):
            raise SettingError("hold_special", f"only for a game with special kinds of action "
                               f"(Foxy's circle); {self.game} has none")  # fmt: skip
        if self.exploiter_every and not self.league:
            raise SettingError("exploiter_every", "exploiters join a league; turn league on")
        for name in self.eval_opponents:
            try:
                check_agent_name(self.game, name)
            except InputError as error:
                raise SettingError("eval_opponents", str(error)) from None
        assert self.memory is not None and self.frame_stack is not None  # checked just above
        assert self.processes is not None and self.n_envs is not None
        if self.memory == "none" and self.memory_size != MEMORY_SIZE.default:
            raise SettingError("memory_size", "only with a recurrent core (memory gru or lstm)")
        if self.memory != "none" and self.frame_stack > 1:
            raise SettingError(
                "memory",
                f"a {self.memory} core remembers the game itself; use it without a frame "
                f"stack (frame_stack 1, got {self.frame_stack})",
            )
        try:
            assert self.positions is not None and self.frame_stack is not None  # resolved
            stateless = stateless_inputs(self.frame_stack, self.count_fields)
            check_positions(self.game, self.positions, stateless, self.memory != "none")
        except InputError as error:
            raise SettingError("positions", str(error)) from None
        if self.processes > self.n_envs:
            raise SettingError("processes", f"at most n_envs ({self.n_envs}), got "
                               f"{self.processes}")  # fmt: skip
        assert self.opponents is not None and self.reward is not None
        mix = parse_mix(self.game, self.opponents)
        if self.league and self.exploiter_every and SELF not in mix:
            raise SettingError(
                "exploiter_every",
                "a league's exploiters are drawn with the weight of self in the opponent mix, "
                f"which has none ({self.opponents}); add self to it (as in "
                f"{self.opponents.split(',')[0].split(':')[0]}:0.5,self:0.5)",
            )
        if RewardMode(self.reward).uses_points and not game.has_points_reward:
            raise SettingError("reward", f"{self.game} has no points reward; use win or "
                               "win+score")  # fmt: skip
        if self.stack_fields and self.frame_stack == 1:
            raise SettingError("stack_fields", "only with a frame stack (frame_stack > 1)")
        PolicyInput(game, self.frame_stack, self.stack_fields, self.count_fields)  # fields exist
        if build_agents:
            self._check_agents()

    def _check_agents(self) -> None:
        """Every opponent and evaluation opponent is built once for the run's game: a search
        bot's bad parameter, a policy that cannot play these parameters or a damaged policy
        file stops the run here, before its folder is touched, not in a sampling process
        after the run has started."""
        game = run_game(self)
        assert self.opponents is not None  # resolved() fills in the game's mix
        mix = parse_mix(self.game, self.opponents)
        for name_of, names in (("opponents", mix), ("eval_opponents", self.evaluation_opponents)):
            for name in names:
                if name == SELF:
                    continue
                try:
                    make_agent(self.game, name, game, seed=0)
                except InputError as error:
                    raise SettingError(name_of, str(error)) from None

    def to_json(self) -> dict[str, Any]:
        """The configuration as ``config.json`` holds it: tuples as lists, the reward mode by
        its name."""
        data: dict[str, Any] = {"game": self.game}
        for declared in SETTINGS:
            value = getattr(self, declared.name)
            data[declared.name] = (
                list(value) if isinstance(value, tuple) else getattr(value, "value", value)
            )
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TrainConfig:
        """A configuration from :meth:`to_json`'s form. A setting the file lacks (a run saved
        before it existed) takes the value such runs had."""
        known = {"game", *(declared.name for declared in SETTINGS)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise TypeError(f"unknown settings {unknown}")
        values = {
            declared.name: declared.kind.coerce(data[declared.name])
            if declared.name in data
            else declared.value_for_old_runs()
            for declared in SETTINGS
        }
        return cls(data["game"], **values)

    @property
    def evaluation_opponents(self) -> tuple[str, ...]:
        """The agents the evaluations play against, the deciding one last."""
        best = game_agents(self.game).best or "random"  # every game that trains has a best
        return self.eval_opponents or tuple(dict.fromkeys(["random", best]))

    @property
    def greedy(self) -> bool:
        return self.play == "greedy"

    @property
    def hidden_state_size(self) -> int:
        """The numbers of the learner's hidden state in one game (0: feed-forward)."""
        if self.memory == "none":
            return 0
        assert self.memory is not None  # resolved() fills in the game's
        return CORE_STATES[self.memory] * self.memory_size

    def sampler(self, num_games: int, seed: int) -> SamplerConfig:
        """What one sampling process plays: ``num_games`` of the run's games from ``seed``."""
        assert self.reward is not None and self.points_scale is not None  # resolved
        assert self.frame_stack is not None and self.gamma is not None
        return SamplerConfig(
            game_name=self.game,
            params=game_params(self),
            num_games=num_games,
            reward=self.reward,
            points_scale=self.points_scale,
            frame_stack=self.frame_stack,
            stack_fields=self.stack_fields,
            count_fields=self.count_fields,
            gamma=self.gamma,
            gae_lambda=self.gae_lambda,
            seed=seed,
            state_size=self.hidden_state_size,
            tables=sampler_module.TABLES,
        )

    def update(self) -> dict[str, Any]:
        """The learner's update settings (:meth:`cardzoo.training.learner.Learner.update`)."""
        names = ("n_epochs", "batch_size", "clip_range", "ent_coef", "vf_coef", "max_grad_norm")
        return {name: getattr(self, name) for name in names}

    def learning_rate_at(self, timesteps: int) -> float:
        """The step size of the update that follows ``timesteps`` learner decisions."""
        if self.lr_schedule == "linear":
            assert self.timesteps is not None  # a resolved configuration's
            return self.learning_rate * max(0.0, 1.0 - timesteps / self.timesteps)
        return self.learning_rate


#: every setting of a training run, in the order of :class:`TrainConfig`'s fields
SETTINGS: tuple[Setting, ...] = tuple(settings_of(TrainConfig))
SETTING = {declared.name: declared for declared in SETTINGS}
#: the settings only a run with a league reads (``cardzoo train`` refuses them without one)
LEAGUE_SETTINGS = (
    "pfsp_power",
    "pfsp_fair_share",
    "exploiter_every",
    "exploiter_timesteps",
    "exploiter_recipe",
)
MEMORY_SIZE = SETTING["memory_size"]


def check_exploiter_spacing(config: TrainConfig) -> None:
    """A new league run's exploiters come at most one an evaluation: ``exploiter_every`` below
    ``eval_every`` is a :class:`~cardzoo.errors.SettingError` (it trained fewer exploiters than
    it said, without a word). Runs saved before it was refused resume as they were trained."""
    assert config.eval_every is not None  # resolved
    if config.league and config.exploiter_every and config.exploiter_every < config.eval_every:
        raise SettingError(
            "exploiter_every",
            f"{config.exploiter_every:,} is below {option_name('eval_every')} "
            f"({config.eval_every:,}): an exploiter falls due at an evaluation, so one at most "
            f"each; give {config.eval_every:,} or more",
        )


#: the settings :func:`cardzoo.training.exploit.exploit` takes under other names (setting ->
#: its parameter): its messages, and ``cardzoo exploit``'s mapping of options, name them so
EXPLOIT_PARAMETERS = {
    "final_eval_games": "eval_games",
    "final_eval_seed": "eval_seed",
    "eval_games": "periodic_games",
}


def best_response_config(
    game: str,
    agent: str,
    params: dict[str, Any] | None,
    timesteps: int,
    seed: int,
    report_games: int,
    report_seed: int,
    **settings: Any,
) -> TrainConfig:
    """The run that learns a best response to ``agent`` (``cardzoo exploit``'s, and a league's
    exploiters'): the game's training defaults, every other seat ``agent``, the evaluations
    against ``agent`` alone, the final one (the report) of ``report_games`` from
    ``report_seed``, its positions its own choice (a best response is there to find any habit
    of its target, of positions too); ``settings`` are further fields (``eval_games``: the
    periodic evaluations'). Nothing checked here
    (:func:`cardzoo.training.exploit.exploit_config` checks the agent)."""
    return TrainConfig(
        game,
        params=dict(params or {}),
        opponents=agent,
        timesteps=timesteps,
        seed=seed,
        final_eval_games=report_games,
        final_eval_seed=report_seed,
        eval_opponents=(agent,),
        **{"positions": "learned", **settings},
    )


def game_defaults(game: str) -> dict[str, Any]:
    """Every per-game setting's default for ``game``: the game's own where it declares one
    (``agents/profiles.py``), else the setting's. A name that is no per-game setting is a
    mistake in the game's declaration."""
    ours = dict(PROFILES[game].training)
    unknown = sorted(set(ours) - {s.name for s in SETTINGS if s.per_game})
    if unknown:
        raise TypeError(f"{game}'s training defaults name no per-game setting: {unknown}")
    return {s.name: s.kind.coerce(ours.get(s.name, s.default)) for s in SETTINGS if s.per_game}


#: each decision game's training defaults (every per-game setting), chosen by experiment and
#: declared with the game's agents (``cardzoo.agents.profiles``): a new game needs no change
#: here
GAME_DEFAULTS: dict[str, dict[str, Any]] = {
    name: game_defaults(name) for name in PROFILES if game_spec(name).game_class().has_decisions
}


def game_params(config: TrainConfig) -> dict[str, Any]:
    """The game's parameters: the run's, with the engine's points reward where the run's reward
    mode uses points."""
    params = dict(config.params)
    if config.reward is not None and RewardMode(config.reward).uses_points:
        params["reward"] = "points"
    return params


def run_game(config: TrainConfig) -> Game:
    """The game the run plays (its parameters, with the reward its reward mode needs)."""
    return load_game(config.game, **game_params(config))
