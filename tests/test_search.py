"""Search agents (pimc, ismcts), Nobody Wants It's resampler and its compiled playouts.

The resampler must keep everything the seat knows and redraw everything else uniformly; the
playout kernel must follow the engine's rules; the agents must never peek (the leak test) and
must be deterministic for a seed and a simulation budget.
"""

from __future__ import annotations

import numpy as np
import pytest
from positions import positions_with_a_choice

from cardzoo.agents.base import Agent, take_turn
from cardzoo.agents.search import AGENTS, ISMCTSAgent, PIMCAgent, parse_agent_params
from cardzoo.envs import kernels
from cardzoo.envs.believe_it_or_not.rules import BelieveItOrNot
from cardzoo.envs.core import Game
from cardzoo.envs.henhouse.rules import Henhouse
from cardzoo.envs.minus_two.rules import MinusTwo
from cardzoo.envs.nobody_wants_it import kernel, playout
from cardzoo.envs.nobody_wants_it.rules import (
    HORSE_GIFT,
    NO_GIFT,
    NUM_CARDS,
    NUM_SPECIES,
    NobodyWantsIt,
)

GAME = NobodyWantsIt()


def positions(seeds=range(3), every=7):
    """States from games played at random from fixed deals, every ``every`` steps."""
    for seed in seeds:
        state = GAME.new_state(np.random.default_rng(seed))
        choices = np.random.default_rng(100 + seed)
        step = 0
        while not state.terminal:
            if step % every == 0 or state.decision == HORSE_GIFT:
                yield GAME.copy_state(state)
            legal = np.flatnonzero(GAME.legal_mask(state, state.current_player))
            GAME.apply(state, int(choices.choice(legal)))
            step += 1


def public_part(state, seat):
    """Everything ``seat`` knows, as a comparable tuple."""
    return (
        state.hands[seat].tolist(),
        int(state.horse_gifts[seat]),
        (state.horse_gifts != NO_GIFT).tolist(),
        state.hand_sizes.tolist(),
        state.discard_pile[: state.discard_size].tolist(),
        state.draw_size,
        state.nwi_holder.tolist(),
        state.points.tolist(),
        state.penalty_cards.tolist(),
        (state.round_number, state.dealer, state.active_player, state.current_player),
        (state.decision, state.terminal),
    )


# ----------------------------------------------------------------------------------------------
# The resampler
# ----------------------------------------------------------------------------------------------


def test_resample_keeps_what_the_seat_knows():
    rng = np.random.default_rng(0)
    checked = 0
    for state in positions():
        for seat in range(GAME.num_players):
            world = GAME.resample(state, seat, rng)
            GAME.check_invariants(world)
            assert np.array_equal(GAME.observe(world, seat), GAME.observe(state, seat))
            assert np.array_equal(GAME.legal_mask(world, seat), GAME.legal_mask(state, seat))
            assert public_part(world, seat) == public_part(state, seat)
            checked += 1
    assert checked > 300


def test_resample_leaves_the_true_state_unchanged():
    state = next(positions(every=40))
    before = GAME.snapshot(state)
    GAME.resample(state, 1, np.random.default_rng(0))
    assert GAME.snapshot(state) == before


def horse_exchange_position():
    """A fixed position in a horse exchange: two players have set a card aside."""
    for state in positions(seeds=[5], every=10**9):
        if state.decision == HORSE_GIFT and (state.horse_gifts != NO_GIFT).sum() == 2:
            return state
    raise AssertionError("no such position in seed 5")


def test_resample_deals_every_unseen_card_to_every_place_it_could_be():
    state = horse_exchange_position()
    seat = state.current_player  # has not chosen yet; two others have
    others = [p for p in range(GAME.num_players) if p != seat]
    rng = np.random.default_rng(1)
    samples = 3000
    # Per place (each other hand, each other gift, the draw pile): species counts summed.
    hands = np.zeros((GAME.num_players, NUM_SPECIES))
    gifts = np.zeros((GAME.num_players, NUM_SPECIES))
    pile = np.zeros(NUM_SPECIES)
    for _ in range(samples):
        world = GAME.resample(state, seat, rng)
        hands += world.hands
        for p in others:
            if world.horse_gifts[p] != NO_GIFT:
                gifts[p, world.horse_gifts[p]] += 1
        pile += np.bincount(world.draw_pile[: world.draw_size], minlength=NUM_SPECIES)
    seen = state.hands[seat] + state.discard_counts
    unseen = 18 - seen
    unseen_total = unseen.sum()
    share = unseen / unseen_total
    places = [hands[p] for p in others] + [gifts[p] for p in others if gifts[p].sum()]
    places.append(pile)
    assert len(places) == 6  # three hands, two gifts, the draw pile
    for counts in places:
        expected = counts.sum() * share
        assert ((counts > 0) == (unseen > 0)).all()  # every unseen species lands there
        assert np.allclose(counts, expected, rtol=0.08, atol=40)
    assert np.array_equal(hands[seat], samples * state.hands[seat])


def test_resample_forgets_decks_fixed_by_reset_options():
    deck = ["sheep", "pig", "horse", "cow"] * 18
    state = GAME.new_state(np.random.default_rng(0), {"decks": [deck, deck, deck]})
    world = GAME.resample(state, 0, np.random.default_rng(0))
    assert (world.fixed_decks == -1).all()
    assert (state.fixed_decks[1:] >= 0).all()


def test_resample_cards_placed_by_memory_are_redrawn():
    """Decision: a card taken from the discard pile by another player is not tracked."""
    state = GAME.new_state(np.random.default_rng(3))
    GAME.apply(state, 0)  # player_0 plays a sheep ... (a fixed deal: seed 3)
    GAME.apply(state, 9)  # ... player_1 takes it from the discard pile
    rng = np.random.default_rng(0)
    sheep = [GAME.resample(state, 0, rng).hands[1, 0] for _ in range(300)]
    assert min(sheep) == 0  # player_1 is sometimes dealt no sheep at all


def test_resample_of_a_game_without_one_raises_naming_the_game():
    game = Henhouse()
    state = game.new_state(np.random.default_rng(0))
    with pytest.raises(NotImplementedError, match="henhouse has no resampler"):
        game.resample(state, 0, np.random.default_rng(0))


def test_copy_state_is_independent_and_continues_the_same():
    state = next(positions(every=50))
    copied = GAME.copy_state(state)
    assert GAME.snapshot(copied) == GAME.snapshot(state)
    copied.hands[0, 0] += 1
    assert copied.hands[0, 0] != state.hands[0, 0]
    assert copied.rng.random() == state.rng.random()


# ----------------------------------------------------------------------------------------------
# Playouts
# ----------------------------------------------------------------------------------------------


def test_playout_kernel_follows_the_engine_step_by_step():
    compared = 0
    for state in positions(seeds=range(4), every=1):
        if state.draw_size == 0:
            continue  # a draw would reshuffle: the kernel's shuffle is its own
        round_number = state.round_number
        legal = np.flatnonzero(GAME.legal_mask(state, state.current_player))
        for action in legal.tolist():
            after = GAME.copy_state(state)
            GAME.apply(after, action)
            row = playout.apply_packed(GAME, playout.pack([state])[0], action, seed=1)
            expected = playout.pack([after])[0]
            if after.round_number != round_number or after.terminal:
                for name in ("nwi_holder", "points", "penalty_cards"):  # the scoring
                    start, shape = kernel.parts(GAME.num_players, GAME.num_rounds)[name]
                    scoring = slice(start, start + np.prod(shape))
                    assert np.array_equal(row[scoring], expected[scoring]), name
                continue  # a new deal: the kernel's own
            assert np.array_equal(row, expected), GAME.action_name(action)
            compared += 1
    assert compared > 1000


def test_playout_kernel_knows_the_decks_sizes_the_rules_have():
    assert (kernel.NUM_SPECIES, kernel.NUM_CARDS) == (NUM_SPECIES, NUM_CARDS)


def test_playouts_end_in_valid_finished_games():
    states = [GAME.new_state(np.random.default_rng(seed)) for seed in range(20)]
    winners, scores = GAME.random_playouts(states, np.random.default_rng(0))
    assert winners.any(axis=1).all()
    assert np.array_equal(winners, scores == scores.min(axis=1, keepdims=True))
    rows = playout.playouts(GAME, playout.pack(states), np.random.default_rng(0))
    for row in rows:
        GAME.check_invariants(playout.unpack(GAME, row, np.random.default_rng(0)))
    assert GAME.snapshot(states[0]) == GAME.snapshot(GAME.new_state(np.random.default_rng(0)))


@pytest.mark.skipif(kernels.numba is None, reason="numba is not installed")
def test_playouts_compiled_and_plain_are_identical():
    """Decision: one source, compiled by numba or run as plain Python, same results."""
    states = [GAME.new_state(np.random.default_rng(seed)) for seed in range(10)]
    rows = playout.pack(states)
    first = np.array([4, 8, -1, 0, 8, 8, 1, -1, 8, 8])
    compiled = playout.playouts(GAME, rows.copy(), np.random.default_rng(7), first, True)
    plain = playout.playouts(GAME, rows.copy(), np.random.default_rng(7), first, False)
    assert np.array_equal(compiled, plain)


# ----------------------------------------------------------------------------------------------
# The agents
# ----------------------------------------------------------------------------------------------

BUDGETS = {"pimc": {"simulations": 48}, "ismcts": {"simulations": 40}}


def decision_positions(count, seeds=range(2)):
    """Positions with more than one legal action, where a search agent really searches."""
    found = []
    for state in positions(seeds=seeds, every=5):
        if np.count_nonzero(GAME.legal_mask(state, state.current_player)) > 1:
            found.append(state)
    return found[:: max(1, len(found) // count)][:count]


def act(agent_class, state, seed=11):
    agent = agent_class(GAME, seed=seed, **BUDGETS[agent_class.name])
    mask = GAME.legal_mask(state, state.current_player)
    return agent.act({"action_mask": mask, "state": state})


@pytest.mark.parametrize("agent_class", [PIMCAgent, ISMCTSAgent])
def test_search_never_peeks_at_cards_its_seat_cannot_see(agent_class):
    """The leak test: the action is the same when the unseen cards are dealt differently."""
    shuffler = np.random.default_rng(99)
    moves = set()
    for state in decision_positions(12):
        seat = state.current_player
        action = act(agent_class, state)
        for _ in range(2):
            other = GAME.resample(state, seat, shuffler)
            other.rng = np.random.default_rng(12345)  # the true generator differs too
            assert act(agent_class, other) == action
        moves.add(action)
    assert len(moves) > 2  # the positions ask for different decisions


def moved_by_hand(state, seat: int, rng: np.random.Generator):
    """The same position with cards ``seat`` cannot see moved by the test itself, not by the
    resampler under test: a card of another hand swapped with a draw-pile card of another
    species, and the draw pile shuffled. None where nothing can move."""
    other = GAME.copy_state(state)
    pile = other.draw_pile[: other.draw_size]
    for player in rng.permutation(GAME.num_players):
        if player == seat:
            continue
        for species in np.flatnonzero(other.hands[player]):
            elsewhere = np.flatnonzero(pile != species)
            if elsewhere.size:
                at = int(rng.choice(elsewhere))
                other.hands[player, species] -= 1
                other.hands[player, pile[at]] += 1
                pile[at] = species
                rng.shuffle(pile)
                return other
    return None


def test_nobody_wants_its_resample_does_not_depend_on_the_cards_the_seat_cannot_see():
    """The leak test above deals the cards differently with the resampler it checks: one that
    kept an unseen card in place would keep it in both states and pass. Here the test moves
    unseen cards itself; the resampler, with one generator, must give the same world from
    both (a review: Believe It or Not and Minus Two had such a test, Nobody Wants It none)."""
    rng = np.random.default_rng(3)
    checked = 0
    for state in positions(seeds=range(6), every=5):
        for seat in range(GAME.num_players):
            other = moved_by_hand(state, seat, rng)
            if other is None:
                continue
            assert not np.array_equal(other.row, state.row)  # an unseen card really moved
            first = GAME.resample(state, seat, np.random.default_rng(99))
            second = GAME.resample(other, seat, np.random.default_rng(99))
            assert np.array_equal(np.asarray(first.row), np.asarray(second.row))
            checked += 1
    assert checked > 200


def test_a_resampler_that_keeps_one_unseen_card_fails_the_by_hand_test(monkeypatch):
    """The by-hand test can fail: a resampler that leaves the first other hand as it is."""
    real = NobodyWantsIt.resample

    def keeps_a_hand(self, state, player, rng):
        world = real(self, state, player, rng)
        keep = (player + 1) % self.num_players
        world.hands[keep] = state.hands[keep]  # the rest of the world no longer adds up
        return world

    monkeypatch.setattr(NobodyWantsIt, "resample", keeps_a_hand)
    with pytest.raises(AssertionError):
        test_nobody_wants_its_resample_does_not_depend_on_the_cards_the_seat_cannot_see()


@pytest.mark.parametrize("agent_class", [PIMCAgent, ISMCTSAgent])
def test_search_is_deterministic_for_a_seed_and_a_budget(agent_class):
    def play(seed):
        state = GAME.new_state(np.random.default_rng(4))
        agent = agent_class(GAME, seed=seed, **BUDGETS[agent_class.name])
        actions = []
        for _ in range(25):
            mask = GAME.legal_mask(state, state.current_player)
            action = agent.act({"action_mask": mask, "state": state})
            actions.append(action)
            GAME.apply(state, action)
        return actions

    assert play(3) == play(3)
    assert play(3) != play(4)


def test_search_agents_play_whole_games_through_take_turn():
    state = GAME.new_state(np.random.default_rng(2))
    agents = [ISMCTSAgent(GAME, seed=0, simulations=8), PIMCAgent(GAME, seed=1, simulations=8)]
    agents += [ISMCTSAgent(GAME, seed=2, simulations=8), PIMCAgent(GAME, seed=3, simulations=8)]
    while not state.terminal:
        take_turn(GAME, state, agents[state.current_player])
    assert GAME.winners(state).any()


def test_take_turn_passes_the_state_only_to_agents_that_search():
    seen = []

    class Recorder(Agent):
        def act(self, observation):
            seen.append(sorted(observation))
            return int(np.flatnonzero(observation["action_mask"])[0])

    class Searcher(Recorder):
        uses_state = True

    state = GAME.new_state(np.random.default_rng(0))
    take_turn(GAME, state, Recorder(GAME))
    take_turn(GAME, state, Searcher(GAME))
    assert seen == [["action_mask", "observation"], ["action_mask", "observation", "state"]]


def test_win_share_decision_ties_share_the_win():
    """Decision: a rollout gives each of k tied winners 1/k."""
    state = GAME.new_state(np.random.default_rng(0))
    state.terminal = True
    state.round_number = GAME.num_rounds
    state.points[:] = [3, 5, 3, 7]
    agent = PIMCAgent(GAME, seed=0)
    assert agent._shares([state], None).tolist() == [[0.5, 0.0, 0.5, 0.0]]


def test_one_legal_action_is_taken_without_search():
    state = GAME.new_state(np.random.default_rng(0))
    GAME.apply(state, 1)  # a pig: the left neighbour answers (two choices)
    mask = np.zeros(GAME.num_actions, np.int8)
    mask[10] = 1
    agent = ISMCTSAgent(GAME, seed=0, simulations=5)
    assert agent.act({"action_mask": mask}) == 10  # no state needed


def test_seconds_budget_stops_the_search():
    state = decision_positions(1)[0]
    agent = PIMCAgent(GAME, seed=0, seconds=0.01)
    mask = GAME.legal_mask(state, state.current_player)
    assert mask[agent.act({"action_mask": mask, "state": state})]
    assert agent.simulations is None


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"simulations": 0}, "simulations must be an integer >= 1"),
        ({"simulations": 2.5}, "simulations must be an integer >= 1"),
        ({"simulations": True}, "simulations must be an integer >= 1"),
        ({"seconds": -1.0}, "seconds must be a finite number > 0"),
        ({"seconds": 0}, "seconds must be a finite number > 0"),
        ({"seconds": "fast"}, "seconds must be a number > 0"),
        # a typo's budget sat on the first move for days
        (
            {"simulations": 99999999999999},
            r"^simulations=99,999,999,999,999 is out of range; "
            r"allowed 1\.\.10,000,000$",
        ),
        ({"seconds": 3601}, r"seconds must be a finite number > 0 and <= 3600"),
        ({"depth": 3}, r"unknown parameter\(s\) \['depth'\]; allowed"),
        ({"seed": -1}, "seed must be None or an integer >= 0"),
    ],
)
@pytest.mark.parametrize("agent_class", [PIMCAgent, ISMCTSAgent])
def test_bad_parameters_are_refused(agent_class, params, message):
    with pytest.raises(ValueError, match=message):
        agent_class(GAME, **params)


def test_leaf_rollouts_average_several_rollouts_of_an_iteration_world():
    state = decision_positions(1)[0]
    mask = GAME.legal_mask(state, state.current_player)
    agent = ISMCTSAgent(GAME, seed=0, simulations=20, leaf_rollouts=4)
    assert mask[agent.act({"action_mask": mask, "state": state})]
    with pytest.raises(ValueError, match="leaf_rollouts must be an integer >= 1"):
        ISMCTSAgent(GAME, leaf_rollouts=0)


def test_bad_exploration_is_refused():
    with pytest.raises(ValueError, match="exploration must be a finite number >= 0"):
        ISMCTSAgent(GAME, exploration=-0.5)
    with pytest.raises(ValueError, match=r"unknown parameter\(s\) \['exploration'\]"):
        PIMCAgent(GAME, exploration=0.5)


def test_search_agents_refuse_a_game_without_a_resampler():
    with pytest.raises(ValueError, match="henhouse does not have"):
        ISMCTSAgent(Henhouse())


def test_parse_agent_params_reads_an_agent_name():
    assert parse_agent_params("ismcts:simulations=400:seconds=0.05:seed=3") == (
        "ismcts",
        {"simulations": 400, "seconds": 0.05, "seed": 3},
    )
    assert parse_agent_params("pimc") == ("pimc", {})
    name, params = parse_agent_params("ismcts:exploration=1.5")
    assert AGENTS[name](GAME, **params).exploration == 1.5
    with pytest.raises(
        ValueError, match=r"^unknown search agent 'mcts'; choose one of \['pimc', 'ismcts'\]$"
    ):
        parse_agent_params("mcts:simulations=3")
    with pytest.raises(ValueError) as error:
        parse_agent_params("pimc:exploration=1")
    assert str(error.value) == (
        "agent 'pimc': unknown parameter 'exploration'; write KEY=VALUE with KEY one of "
        "simulations, seconds, seed, rollout, horizon"
    )
    with pytest.raises(ValueError) as error:
        parse_agent_params("ismcts:simulations=many")
    assert str(error.value) == "agent 'ismcts': parameter simulations must be int, got 'many'"
    with pytest.raises(ValueError, match="simulations must be an integer >= 1"):
        ISMCTSAgent(GAME, **parse_agent_params("ismcts:simulations=0")[1])


class WithoutFastPlayouts(NobodyWantsIt):
    """Nobody Wants It as a game without fast playouts (``Game``'s defaults): search rolls out
    through the engine."""

    random_playouts = Game.random_playouts
    playout_policies = Game.playout_policies
    playout_horizons = Game.playout_horizons


def test_search_without_fast_playouts_rolls_out_through_the_engine_without_peeking():
    game = WithoutFastPlayouts()
    state = decision_positions(1, seeds=[1])[0]
    agent = PIMCAgent(game, seed=5, simulations=12)
    assert (agent.rollout, agent.horizon) == ("random", "game")
    mask = game.legal_mask(state, state.current_player)
    action = agent.act({"action_mask": mask, "state": state})
    other = game.resample(state, state.current_player, np.random.default_rng(8))
    again = PIMCAgent(game, seed=5, simulations=12).act({"action_mask": mask, "state": other})
    assert again == action
    with pytest.raises(ValueError, match=r"rollout='shedder' is not a rollout policy"):
        PIMCAgent(game, rollout="shedder")


def test_round_horizon_stops_playouts_at_the_end_of_the_round():
    states = [GAME.new_state(np.random.default_rng(seed)) for seed in range(5)]
    winners, scores = GAME.random_playouts(states, np.random.default_rng(0), horizon="round")
    assert winners.any(axis=1).all()
    rows = playout.playouts(GAME, playout.pack(states), np.random.default_rng(0), one_round=True)
    assert (rows[:, playout.ROUND] == 2).all()
    assert np.array_equal(playout.final_points(GAME, rows), scores)


def test_seed_groups_play_alike_after_alike_first_actions():
    states = [GAME.new_state(np.random.default_rng(0))] * 4
    rows = playout.playouts(GAME, playout.pack(states), np.random.default_rng(0), seed_groups=2)
    assert np.array_equal(rows[0], rows[1]) and np.array_equal(rows[2], rows[3])
    assert not np.array_equal(rows[0], rows[2])


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"rollout": "smart"}, r"rollout='smart' is not a rollout policy of nobody_wants_it"),
        ({"horizon": "turn"}, r"horizon='turn' is not a rollout horizon of nobody_wants_it"),
    ],
)
def test_bad_rollout_options_are_refused(params, message):
    with pytest.raises(ValueError, match=message):
        ISMCTSAgent(GAME, **params)


def test_dodger_rollout_policy_passes_on_an_nwi_card_and_avoids_taking_one():
    """Decision: the default rollout policy chooses pairs like nwi_dodger's first and last
    choices (a fixed position: seed 0's deal, hands and NWI holders set by hand)."""
    state = GAME.new_state(np.random.default_rng(0))
    state.hands[0] = [3, 2, 2, 0]  # player_0 to play: pairs of sheep, pig and horse
    state.hand_sizes[0] = 7
    state.nwi_holder[0] = [-1, 3, 0, -1]  # pig's NWI card: player_3 (passes it to me); horse's: me
    row = playout.pack([state])[0]
    assert playout.policy_action(GAME, row, "shedder") == 4  # the largest pair: sheep
    assert playout.policy_action(GAME, row, "dodger") == 6  # passes the horse's NWI card on
    state.nwi_holder[0, 2] = -1
    row = playout.pack([state])[0]
    assert playout.policy_action(GAME, row, "dodger") == 4  # sheep; never the pig pair first
    state.hands[0] = [0, 2, 0, 1]
    state.hand_sizes[0] = 3
    row = playout.pack([state])[0]
    assert playout.policy_action(GAME, row, "dodger") == 5  # still better than a single card


@pytest.mark.parametrize(
    "game",
    [BelieveItOrNot(variant="quick"), BelieveItOrNot(), MinusTwo()],
    ids=["believe_it_or_not-quick", "believe_it_or_not-standard", "minus_two"],
)
@pytest.mark.parametrize("agent_class", [PIMCAgent, ISMCTSAgent])
def test_search_never_peeks_in_the_other_decision_games(game, agent_class):
    """The leak test in the other games (Believe It or Not through its playout kernel, Minus Two
    through the engine's rollouts)."""
    assert moves_changed_by_unseen_cards(game, agent_class) == 0


def moves_changed_by_unseen_cards(game, agent_class) -> int:
    """Of 10 positions, those whose move changes when the cards the seat cannot see are dealt
    again (48 simulations a move: with 3 positions and 6 a peeking ``pimc`` had passed in
    Believe It or Not's quick game, a review)."""
    shuffler, changed = np.random.default_rng(3), 0
    for state in positions_with_a_choice(game, 10):
        seat = state.current_player
        mask = game.legal_mask(state, seat)
        search = agent_class(game, seed=2, simulations=48)
        action = search.act({"action_mask": mask, "state": state})
        other = game.resample(state, seat, shuffler)
        other.rng = np.random.default_rng(54321)
        search = agent_class(game, seed=2, simulations=48)
        changed += search.act({"action_mask": mask, "state": other}) != action
    return changed


@pytest.mark.parametrize(
    "game",
    [BelieveItOrNot(variant="quick"), BelieveItOrNot(), MinusTwo()],
    ids=["believe_it_or_not-quick", "believe_it_or_not-standard", "minus_two"],
)
@pytest.mark.parametrize("agent_class", [PIMCAgent, ISMCTSAgent])
def test_the_leak_test_catches_a_search_that_peeks(game, agent_class, monkeypatch):
    """The leak test can fail in every game: a search whose sampled worlds are the true state."""
    monkeypatch.setattr(agent_class, "_world", lambda self, state, seat: game.copy_state(state))
    assert moves_changed_by_unseen_cards(game, agent_class) > 0


def test_numbas_debugging_switch_runs_the_kernels_plain_with_the_same_games():
    """``NUMBA_DISABLE_JIT=1`` (numba's usual debugging switch) ran the kernels' compiled form
    as Python on numpy's small integers, which overflowed: a Believe It or Not search died with
    an IndexError in its legal actions (a review). With it, the kernels run their plain form,
    as without numba, and play the same games."""
    import os
    import subprocess
    import sys

    pytest.importorskip("numba")
    script = (
        "from cardzoo.envs import kernels; from cardzoo.evaluation import play_match; "
        "r = play_match('believe_it_or_not', ['pimc:simulations=20', 'ismcts:simulations=20', "
        "'bluffer', 'bluffer'], 4, seed=2); "
        "print(kernels.numba is None, [g.scores.tolist() for g in r.games])"
    )
    runs = [
        subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                       env={**os.environ, "NUMBA_DISABLE_JIT": switch}).stdout.split(" ", 1)
        for switch in ("1", "0")
    ]  # fmt: skip
    assert [run[0] for run in runs] == ["True", "False"]
    assert runs[0][1] == runs[1][1]
