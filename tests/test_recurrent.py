"""Recurrent policies (`cardzoo train --memory gru|lstm`): the sampler's hidden states and the
update's sequences, numpy against torch, the policy file, the agent's one hidden state per seat
and game, runs that resume, and settings refused before any work."""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
import torch  # noqa: E402
from tiny_runs import TINY, interrupted_at_the_second_call  # noqa: E402

from cardzoo.agents import make_agent  # noqa: E402
from cardzoo.agents import policy as policy_module  # noqa: E402
from cardzoo.agents.policy import (  # noqa: E402
    PolicyAgent,
    PolicyInput,
    RecurrentCore,
    read_policy,
    save_policy,
)
from cardzoo.cli import main  # noqa: E402
from cardzoo.envs import load_game  # noqa: E402
from cardzoo.evaluation import play_match  # noqa: E402
from cardzoo.play import play  # noqa: E402
from cardzoo.table import Table, Tables  # noqa: E402
from cardzoo.tournament import tournament  # noqa: E402
from cardzoo.training import ppo  # noqa: E402
from cardzoo.training.league import decode_policy, encode_policy  # noqa: E402
from cardzoo.training.learner import Learner, Sequences  # noqa: E402
from cardzoo.training.ppo import TrainConfig, train  # noqa: E402
from cardzoo.training.sampler import (  # noqa: E402
    OpponentMix,
    Sampler,
    SamplerConfig,
    parse_mix,
    rollout_shapes,
)
from cardzoo.training.settings import RewardMode  # noqa: E402

torch.set_num_threads(1)

FOXY = {"num_players": 2, "memory": "none"}
CORES = ["gru", "lstm"]
#: the sampler's games: Foxy (played on Tables), and Nobody Wants It of one round (played as one
#: batch on its kernel; its games end inside 30 decisions too): name, parameters, opponents
FOXY_TABLE = ("foxy", FOXY, "random,perfect_memory")
BATCHED = ("nobody_wants_it", {"num_rounds": 1}, "random,nwi_dodger")
TABLES = [FOXY_TABLE, BATCHED]


def foxy() -> object:
    return load_game("foxy", **FOXY)


def learner(memory: str, seed: int = 0, size: int = 8, game=None) -> Learner:
    """A small recurrent learner for ``game`` (Foxy without memory by default), its core's
    biases made non-zero and its policy's last layer a hundred times its initial size (logits
    far from even, so that what the core remembers shows in the probabilities)."""
    game = game or foxy()
    made = Learner(game.observation_size, game.num_actions, (16,), 3e-4, seed,
                   memory=memory, memory_size=size)  # fmt: skip
    with torch.no_grad():
        for name, parameter in made.network.core.named_parameters():
            if name.startswith("bias"):
                parameter.uniform_(-0.5, 0.5, generator=torch.Generator().manual_seed(seed))
        made.network.policy[-1].weight.mul_(100.0)
    return made


def sampled(
    made: Learner,
    rollouts: int = 2,
    n_steps: int = 30,
    num_games: int = 3,
    table: tuple[str, dict, str] = FOXY_TABLE,
):
    """The last of ``rollouts`` rollouts the sampler plays with ``made``'s policy (sampling),
    in ``table``'s game (name, parameters, opponent mix)."""
    name, params, opponents = table
    game, core = load_game(name, **params), made.network.core
    state_size = core.hidden_size * (2 if isinstance(core, torch.nn.LSTM) else 1)
    mix = OpponentMix(name, parse_mix(name, opponents))
    config = SamplerConfig(name, params, num_games, RewardMode.WIN_SCORE, 0.1, 1, (), 0.9, 0.95,
                           seed=5, state_size=state_size)  # fmt: skip
    sampler = Sampler(config, mix)
    shapes = rollout_shapes(n_steps * num_games, sampler.input_size, game.num_actions,
                            num_games, state_size)  # fmt: skip
    out = {name: np.zeros(shape, dtype) for name, (shape, dtype) in shapes.items()}
    for _ in range(rollouts):
        sampler.collect(made.numpy_policy(), made.numpy_value(), n_steps, out)
    return out


def replayed(made: Learner, out: dict, order: np.ndarray):
    """Torch's log-probabilities of the rollout's actions and its values, the sequences replayed
    as the update replays them (in ``order``), back in the rollout's order."""
    plan = Sequences(out["dones"], len(out["hidden"])).plan(order)
    inputs, hidden = torch.from_numpy(out["inputs"]), torch.from_numpy(out["hidden"])
    with torch.no_grad():
        features = made.network.replay(inputs, hidden, plan)
        logits = made.network.masked_logits(features, torch.from_numpy(out["masks"][plan.samples]))
        logprobs = torch.log_softmax(logits, 1)
        chosen = logprobs.gather(1, torch.from_numpy(out["actions"][plan.samples])[:, None])[:, 0]
        values = made.network.value(features)[:, 0]
    back = np.argsort(plan.samples)
    return chosen.numpy()[back], values.numpy()[back], torch.exp(logprobs).numpy()[back]


# --- the sampler's sequences and the update ---------------------------------------------------


@pytest.mark.parametrize("table", TABLES, ids=lambda table: table[0])
@pytest.mark.parametrize("memory", CORES)
def test_the_update_replays_the_sequences_the_sampler_played(memory, table):
    """Two rollouts of 30 decisions in 3 games (Foxy's 20 decisions a game, on Tables; Nobody
    Wants It's round, as one batch): the second starts from stored hidden states that are not
    zeros, and games end inside it. Torch, replaying each sequence from its stored state with
    zeros after every game's end, gives the log-probabilities and values numpy sampled with, in
    any order of the sequences."""
    made = learner(memory, game=load_game(table[0], **table[1]))
    out = sampled(made, table=table)
    assert np.abs(out["hidden"]).min(axis=1).max() > 0  # no sequence started a game
    assert out["dones"].reshape(3, 30)[:, :-1].any(axis=1).all()  # every one ends one inside
    for order in ([0, 1, 2], [2, 0, 1]):
        logprobs, values, _ = replayed(made, out, np.array(order))
        np.testing.assert_allclose(logprobs, out["logprobs"], atol=2e-5)
        np.testing.assert_allclose(values, out["values"], atol=2e-5)


@pytest.mark.parametrize("table", TABLES, ids=lambda table: table[0])
def test_the_sampler_forgets_the_last_game_at_each_new_deal(table):
    """The same rollout replayed as if the hidden state went on into the next game (no reset at
    the ends) does not give the log-probabilities the sampler played with."""
    made = learner("gru", game=load_game(table[0], **table[1]))
    out = sampled(made, table=table)
    carried_on = dict(out, dones=np.zeros_like(out["dones"]))
    logprobs, _, _ = replayed(made, carried_on, np.arange(3))
    assert not np.allclose(logprobs, out["logprobs"], atol=1e-3)


def test_sequences_are_cut_after_each_episode_end():
    """Two sequences of 5: the first's episode ends after step 1, the second's after steps 0
    and 3. The minibatch of the second then the first has five segments, padded to 3 steps; the
    segments that start a sequence replay its stored state, the others start from zeros."""
    dones = np.array([0, 1, 0, 0, 0, 1, 0, 0, 1, 0], bool)
    plan = Sequences(dones, 2).plan(np.array([1, 0]))
    np.testing.assert_array_equal(plan.samples, [5, 6, 7, 8, 9, 0, 1, 2, 3, 4])
    np.testing.assert_array_equal(plan.first_of, [1, -1, -1, 0, -1])
    np.testing.assert_array_equal(plan.padded, [[5, 6, 9, 0, 2], [5, 7, 9, 1, 3], [5, 8, 9, 1, 4]])
    padded = plan.padded.reshape(-1)
    np.testing.assert_array_equal(padded[plan.gather], plan.samples)


@pytest.mark.parametrize("memory", CORES)
def test_backpropagation_through_time_in_numpy_gives_torchs_gradients(memory):
    """The learner's numpy forward and backward over 3 sequences of 7 steps, with episode ends
    inside them, against torch's own GRU/LSTM stepped with autograd: the same outputs and the
    same gradients of every weight of the core."""
    made = learner(memory)
    network, core = made.network, made.network.core
    generator = torch.Generator().manual_seed(0)
    inputs = torch.rand(21, core.input_size, generator=generator)
    hidden = torch.randn(3, core.hidden_size * (2 if memory == "lstm" else 1), generator=generator)
    dones = np.zeros(21, bool)
    dones[[2, 9, 10, 16]] = True
    plan = Sequences(dones, 3).plan(np.array([2, 0, 1]))
    weights = torch.randn(21, core.hidden_size, generator=generator)

    def gradients(outputs):
        core.zero_grad()
        (outputs * weights).sum().backward()
        return outputs.detach(), {name: p.grad.clone() for name, p in core.named_parameters()}

    ours = gradients(network.replay(inputs, hidden, plan))
    order = [2, 0, 1]
    steps = inputs.reshape(3, 7, -1)[order]
    state, keeps = hidden[order], torch.from_numpy(~dones.reshape(3, 7)[order]).float()
    size = core.hidden_size
    state = (state[None, :, :size], state[None, :, size:]) if memory == "lstm" else state[None]
    outputs = []
    for step in range(7):
        out, state = core(steps[:, step][None], state)
        outputs.append(out[0])
        keep = keeps[:, step][None, :, None]
        state = tuple(part * keep for part in state) if memory == "lstm" else state * keep
    torchs = gradients(torch.stack(outputs, 1).reshape(21, -1))
    torch.testing.assert_close(ours[0], torchs[0], rtol=1e-5, atol=1e-6)
    for name, gradient in torchs[1].items():
        torch.testing.assert_close(ours[1][name], gradient, rtol=1e-4, atol=1e-5, msg=name)


def test_a_minibatch_holds_batch_size_over_n_steps_whole_sequences():
    made = learner("gru")
    out = sampled(made, rollouts=1, n_steps=10, num_games=3)
    rollout = Sequences(out["dones"], 3)
    batches = [plan for _, plan in made._minibatches(30, 20, rollout)]
    assert [len(plan.samples) for plan in batches] == [20, 10]  # 2 sequences, then 1
    seen = np.concatenate([plan.samples for plan in batches])
    np.testing.assert_array_equal(np.sort(seen), np.arange(30))


# --- numpy and torch, the policy file ---------------------------------------------------------


@pytest.mark.parametrize("memory", CORES)
def test_a_recurrent_policy_file_round_trips_and_plays_as_torch(memory, tmp_path):
    """The policy saved and read back holds the core's weights exactly, and numpy, one step at a
    time with the hidden state reset after each game's end, gives torch's action probabilities
    on the sequences the sampler played."""
    made = learner(memory, seed=3)
    info = {"game": "foxy", "params": foxy().params(), "num_actions": foxy().num_actions,
            "observation_size": foxy().observation_size}  # fmt: skip
    save_policy(tmp_path / "policy.npz", made.numpy_policy(), info)
    policy, record = read_policy(tmp_path / "policy.npz")
    assert (record["format"], record["core"]) == (3, memory)
    for name, array in made.numpy_policy().core.state().items():
        if name != "kind":
            np.testing.assert_array_equal(getattr(policy.core, name), array)
    out = sampled(made)
    _, _, expected = replayed(made, out, np.arange(3))
    inputs = out["inputs"].reshape(3, 30, -1)
    dones, masks = out["dones"].reshape(3, 30), out["masks"].reshape(3, 30, -1)
    hidden = out["hidden"]
    probabilities = []
    for step in range(30):
        logits, hidden = policy.step(inputs[:, step], hidden)
        logits = np.where(masks[:, step], logits, -np.inf)
        row = np.exp(logits - logits.max(axis=1, keepdims=True))
        probabilities.append(row / row.sum(axis=1, keepdims=True))
        hidden = hidden * ~dones[:, step, None]
    got = np.stack(probabilities, axis=1).reshape(90, -1)
    np.testing.assert_allclose(got, expected, atol=1e-5)


def test_a_feed_forward_policy_file_keeps_format_2_and_old_files_load(tmp_path):
    game = foxy()
    made = Learner(game.observation_size, game.num_actions, (16,), 3e-4, 0)
    save_policy(tmp_path / "ff.npz", made.numpy_policy(), {"game": "foxy"})
    assert read_policy(tmp_path / "ff.npz")[1]["format"] == 2
    # the Foxy agent shipped until 2026-12-04 (a frame stack of 20): written before cores
    old = Path(__file__).parent.parent / "benchmarks/results/previous_pretrained/foxy-stack20.npz"
    shipped, record = read_policy(old)
    assert shipped.core is None and "core" not in record and record["format"] == 2


def test_a_policy_file_whose_core_does_not_fit_its_layers_is_refused(tmp_path):
    made = learner("gru")
    policy = made.numpy_policy()
    weight, bias, activation = policy.layers[0]
    policy.layers[0] = (np.zeros((9, weight.shape[1]), np.float32), bias, activation)
    save_policy(tmp_path / "bad.npz", policy, {"game": "foxy", "num_actions": 82})
    with pytest.raises(ValueError, match="its core gives 8 numbers but its first layer takes 9"):
        read_policy(tmp_path / "bad.npz")
    with pytest.raises(ValueError, match="unknown recurrent core 'rnn'"):
        RecurrentCore("rnn", *[np.zeros((3, 1), np.float32)] * 2, *[np.zeros(3, np.float32)] * 2)


def test_a_recurrent_snapshot_round_trips_through_the_runs_json():
    state = learner("lstm").numpy_policy().state()
    again = decode_policy(json.loads(json.dumps(encode_policy(state))))
    assert again["core"]["kind"] == "lstm"
    for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
        np.testing.assert_array_equal(again["core"][name], state["core"][name])


# --- the agent: one hidden state per seat and game ----------------------------------------------


class Watching(PolicyAgent):
    """A policy agent that also keeps every observation its seat was shown."""

    def reset(self) -> None:
        super().reset()
        self.seen = []

    @staticmethod
    def act_batch(agents, observations, masks):
        for agent, observation in zip(agents, observations):
            agent.seen.append(observation.copy())
        return PolicyAgent.act_batch(agents, observations, masks)


def _own_memory(policy, game, observations) -> np.ndarray:
    """The hidden state a seat reaches from zeros over ``observations``, alone."""
    inputs, hidden = PolicyInput(game), policy.initial_hidden()[None]
    for observation in observations:
        _, hidden = policy.step(inputs(observation)[None], hidden)
    return hidden[0]


@pytest.mark.parametrize("memory", CORES)
def test_a_recurrent_agent_keeps_one_hidden_state_per_seat_and_game(memory):
    """Three games side by side, both seats of each played by one recurrent policy: each seat's
    agent decides together with the same seat of the other games in one forward pass (Tables),
    yet its hidden state is what the core makes of its own seat's observations alone, no two
    are alike, and a new game starts every one from zeros."""
    game, policy = foxy(), learner(memory).numpy_policy()
    agents = [[Watching(game, policy, deterministic=False) for _ in range(2)] for _ in range(3)]
    for deal in range(2):
        tables = []
        for index, seats in enumerate(agents):
            for seat, agent in enumerate(seats):
                agent.reseed(100 * deal + 10 * index + seat)
                np.testing.assert_array_equal(agent.hidden, np.zeros(policy.core.state_size))
            state = game.new_state(np.random.default_rng(10 * deal + index))
            tables.append(Table(game, state, seats, game.default_max_cycles))
        Tables(tables).play()
        for agent in (agent for seats in agents for agent in seats):
            assert len(agent.seen) == 20
            expected = _own_memory(policy, game, agent.seen)
            np.testing.assert_allclose(agent.hidden, expected, rtol=1e-5, atol=1e-6)
        memories = {tuple(np.round(agent.hidden, 4)) for seats in agents for agent in seats}
        assert len(memories) == 6


def test_a_recurrent_agent_acting_alone_plays_as_in_a_batch():
    """One seat's agent deciding through ``act`` (one observation at a time) makes the moves and
    reaches the hidden state it does deciding in a batch."""
    game, policy = foxy(), learner("gru").numpy_policy()
    alone = [PolicyAgent(game, policy, seed=seat) for seat in range(2)]
    together = [PolicyAgent(game, policy, seed=seat) for seat in range(2)]
    moves = []
    for agents, advance in ((alone, "one"), (together, "batch")):
        state = game.new_state(np.random.default_rng(4))
        table = Table(game, state, agents, game.default_max_cycles)
        Tables([table]).play() if advance == "batch" else table.play()
        moves.append(game.scores(table.state).tolist())
    assert moves[0] == moves[1]
    for one, batched in zip(alone, together):
        np.testing.assert_allclose(one.hidden, batched.hidden, rtol=1e-5, atol=1e-6)


# --- training runs ------------------------------------------------------------------------------


def tiny(memory: str = "gru", **changes) -> TrainConfig:
    size = {} if memory == "none" else {"memory_size": 8}
    settings = {**TINY, "params": FOXY, "memory": memory, **size, **changes}
    return TrainConfig("foxy", **settings)


@pytest.fixture(scope="module")
def recurrent_run(tmp_path_factory):
    """A tiny GRU run on Foxy without memory, with self-play: its snapshots are recurrent."""
    out = tmp_path_factory.mktemp("runs") / "gru"
    return train(tiny(opponents="self:0.5,random:0.5", processes=2), out, progress=False)


def test_a_recurrent_run_saves_its_core_and_self_play_snapshots(recurrent_run):
    policy, record = read_policy(recurrent_run.run_dir / "policy.npz")
    assert record["core"] == "gru" and policy.core.hidden_size == 8
    progress = json.loads((recurrent_run.run_dir / "progress.json").read_text())
    assert [snapshot["core"]["kind"] for snapshot in progress["pool"]] == ["gru"] * 3
    assert recurrent_run.metrics["settings"]["memory"] == "gru"


def test_a_match_with_a_recurrent_agent_is_the_same_alone_or_beside_other_games():
    """16 games played one at a time and 8 side by side (one forward pass for all of them):
    the same results game by game, so no hidden state crosses from one game to another."""
    policy = learner("gru").numpy_policy()

    def recurrent(game, seed):
        return PolicyAgent(game, policy, seed)

    recurrent.name = "recurrent"
    lineup = [recurrent, "perfect_memory"]
    alone = play_match("foxy", lineup, 16, 3, FOXY, parallel=1)
    together = play_match("foxy", lineup, 16, 3, FOXY, parallel=8)
    assert [g.scores.tolist() for g in alone.games] == [g.scores.tolist() for g in together.games]
    assert len({tuple(g.scores) for g in alone.games}) > 8


def test_a_recurrent_policy_plays_wherever_agents_are_named(recurrent_run, tmp_path, monkeypatch):
    """As ppo:RUN in a tournament and at the terminal, as pretrained, and as a training
    opponent."""
    name = f"ppo:{recurrent_run.run_dir}"
    result = tournament("foxy", [name, "forgetful"], games=4, params={"memory": "none"})
    assert set(result.ratings) == {name, "forgetful"}
    played = play("foxy", [name], seed=1, params={"memory": "none"},
                  input_stream=io.StringIO("0\n" * 20), output_stream=io.StringIO())  # fmt: skip
    assert played.players == ["you", name] and len(played.scores) == 2
    monkeypatch.setattr(policy_module, "PRETRAINED", tmp_path / "shipped")
    (tmp_path / "shipped").mkdir()
    shipped = tmp_path / "shipped" / "foxy.npz"
    shipped.write_bytes((recurrent_run.run_dir / "policy.npz").read_bytes())
    agent = make_agent("foxy", "pretrained", foxy(), seed=0)
    assert agent.hidden.shape == (8,)
    opponent = train(tiny("none", opponents=name, timesteps=512), tmp_path / "against",
                     progress=False)  # fmt: skip
    assert opponent.metrics["timesteps"] == 512


def test_a_recurrent_league_seats_its_snapshots_and_resumes_them(tmp_path, monkeypatch):
    """--league with self in the mix: the learner's recurrent snapshots join the league, are
    drawn as opponents, and come back from progress.json with their core on resume."""
    config = tiny(league=True, opponents="self:0.5,random:0.5")
    real_evaluate = ppo.evaluate
    monkeypatch.setattr(ppo, "evaluate", interrupted_at_the_second_call(real_evaluate))
    with pytest.raises(KeyboardInterrupt):
        train(config, tmp_path / "run", progress=False)
    monkeypatch.setattr(ppo, "evaluate", real_evaluate)
    result = train(config, tmp_path / "run", resume=True, progress=False)
    members = json.loads((tmp_path / "run" / "progress.json").read_text())["league"]["members"]
    snapshots = [member for member in members if member["kind"] == "snapshot"]
    assert [member["policy"]["core"]["kind"] for member in snapshots] == ["gru"] * 3
    assert sum(member["games"] for member in snapshots) > 0
    assert result.metrics["timesteps"] == 1024


def test_every_game_trains_a_recurrent_policy_that_the_web_page_seats(tmp_path):
    """Nobody Wants It with an LSTM: trained, then seated on the web page beside random
    players and played to the end."""
    from cardzoo.web.sessions import Sessions

    config = TrainConfig("nobody_wants_it", **{**TINY, "timesteps": 512}, memory="lstm")
    run = train(config, tmp_path / "nwi", progress=False)
    assert read_policy(run.run_dir / "policy.npz")[0].core.kind == "lstm"
    name = f"ppo:{run.run_dir}"
    session = Sessions([name]).start({"game": "nobody_wants_it", "lineup": [name, *["random"] * 3]})
    session.advance(10_000)
    assert session.table.over


def test_a_resumed_recurrent_run_continues_from_its_checkpoint_exactly(tmp_path, monkeypatch):
    """Interrupted at its second evaluation, the run resumes with its learner (core included),
    optimiser and minibatch generator exactly as the checkpoint saved them, and finishes."""
    out = tmp_path / "run"
    real_evaluate = ppo.evaluate
    monkeypatch.setattr(ppo, "evaluate", interrupted_at_the_second_call(real_evaluate))
    with pytest.raises(KeyboardInterrupt):
        train(tiny(), out, progress=False)
    saved = torch.load(out / "checkpoint.pt", weights_only=True)
    monkeypatch.setattr(ppo, "evaluate", real_evaluate)
    first_update = []
    real_update = Learner.update

    def record_first(self, *args, **kwargs):
        if not first_update:
            first_update.append(copy.deepcopy(self.state()))
        return real_update(self, *args, **kwargs)

    monkeypatch.setattr(Learner, "update", record_first)
    result = train(tiny(), out, resume=True, progress=False)
    assert [entry["timesteps"] for entry in result.metrics["history"]] == [512, 1024]
    resumed = first_update[0]
    assert set(resumed["network"]) >= {"core.weight_ih_l0", "core.weight_hh_l0"}
    for name, tensor in saved["network"].items():
        torch.testing.assert_close(resumed["network"][name], tensor, rtol=0, atol=0)
    assert torch.equal(resumed["generator"], saved["generator"])
    assert resumed["optimizer"]["state"][0]["step"] == saved["optimizer"]["state"][0]["step"]


def test_a_recurrent_run_resumes_only_with_its_core(tmp_path, monkeypatch):
    out = tmp_path / "run"
    monkeypatch.setattr(ppo, "final_evaluation", _interrupt)
    with pytest.raises(KeyboardInterrupt):
        train(tiny(timesteps=512), out, progress=False)
    for other in (tiny("lstm", timesteps=512), tiny(timesteps=512, memory_size=16)):
        with pytest.raises(ValueError, match="other settings"):
            train(other, out, resume=True, progress=False)


def _interrupt(*args, **kwargs):
    raise KeyboardInterrupt


# --- bad input ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {"memory": "rnn"},
            r"memory: 'rnn' is not allowed; choose one of \['none', 'gru', 'lstm'\]",
        ),
        ({"memory_size": 0}, "memory_size: 0 is out of range"),
        (
            {"frame_stack": 20},
            "memory: a gru core remembers the game itself; use it without a frame",
        ),
        ({"memory": "none", "memory_size": 32}, "memory_size: only with a recurrent core"),
    ],
)
def test_bad_recurrent_settings_are_refused_before_anything_runs(tmp_path, changes, message):
    with pytest.raises(ValueError, match=message):
        train(tiny(**changes), tmp_path / "run", progress=False)
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--memory", "rnn"], "--memory: invalid choice: 'rnn'"),
        (["--memory", "gru", "--memory-size", "0"], "--memory-size:"),
        (["--memory", "lstm", "--frame-stack", "20"], "--memory: a lstm core"),
        (["--memory-size", "32"], "--memory-size: only with a recurrent core"),
    ],
)
def test_cardzoo_train_refuses_bad_memory_options_in_one_line(options, message, tmp_path, capsys):
    assert main(["train", "foxy", *options, "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0], err
    assert not (tmp_path / "run").exists()


MEMORY_NOTE = (
    "cardzoo: note: memory=perfect (foxy's training default) shows the species counts so far in "
    "the observation, so the learner's own memory has nothing to remember; --param memory=none "
    "hides them\n"
)


@pytest.mark.parametrize("command", ["train", "exploit"])
@pytest.mark.parametrize(
    ("options", "noted"),
    [
        (["--memory", "gru"], True),  # on the training default, memory=perfect
        (["--frame-stack", "4"], True),
        (["--memory", "gru", "--param", "memory=none"], False),
        (["--memory", "gru", "--quiet"], True),  # --quiet: no progress bar, not no notes
        ([], False),
    ],
)
def test_a_learner_given_memory_in_foxy_with_perfect_memory_is_told(
    command, options, noted, tmp_path, capsys, monkeypatch
):
    """``cardzoo train foxy --memory gru`` trained on memory=perfect, its default, where the
    observation counts for the core: the only sign was the game's parameters in the report."""
    from cardzoo.training import exploit as exploit_module

    class StopError(Exception):
        pass

    def stop(*args, **kwargs):
        raise StopError  # the note comes before any training: stop there

    monkeypatch.setattr(ppo, "train", stop)
    monkeypatch.setattr(exploit_module, "exploit", stop)
    argv = [command, "foxy", *(["random"] if command == "exploit" else []), *options]
    with pytest.raises(StopError):
        main([*argv, "--out", str(tmp_path / "run")])
    assert capsys.readouterr().err == (MEMORY_NOTE if noted else "")
