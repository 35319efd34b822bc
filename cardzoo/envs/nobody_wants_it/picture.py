"""The picture of a Nobody Wants It table (``render_mode="rgb_array"``), drawn with the shared
toolkit :mod:`cardzoo.envs.picture`.

The table shows the draw pile (face down), the discard pile (its top card face up, and how many
of each species it holds, which everybody saw go down) and this round's four NWI cards: on their
pile or with the seat that holds them. Each seat's row shows its hand (face up for the viewer
only), a card set aside for a horse exchange (the same), the NWI cards it holds and its penalty
cards. A horse gift is told in the header only to the player who gave it."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from cardzoo.envs.nobody_wants_it.rules import (
    DECISION_NAMES,
    HORSE_GIVE,
    NO_GIFT,
    NUM_ACTIONS,
    ON_PILE,
    SPECIES,
    TURN,
    NobodyWantsIt,
    NobodyWantsItState,
)
from cardzoo.envs.picture import (
    CARD_SIZE,
    FELT_INK,
    MARGIN,
    SMALL_CARD,
    Face,
    Seat,
    TableLayout,
    card_count,
    moves_text,
    player_name,
)

COLOURS = {
    "sheep": (96, 124, 164),
    "pig": (214, 92, 138),
    "horse": (150, 96, 44),
    "cow": (52, 140, 92),
}
FACES = [Face(name, COLOURS[name], big=name[0].upper(), shape="disc") for name in SPECIES]
NWI_WIDTH = 4 * (SMALL_CARD[0] + 4)  # a seat's NWI cards, right of its hand


def nwi_face(species: int, round_number: int) -> Face:
    """The NWI card of ``species`` in round ``round_number``: worth that many points."""
    name = SPECIES[species]
    return Face(name, COLOURS[name], big=str(round_number), shape="star")


def layout(game: NobodyWantsIt) -> TableLayout:
    return TableLayout(game.num_players, table_height=CARD_SIZE[1] + 64)


def draw(
    game: NobodyWantsIt,
    state: NobodyWantsItState,
    viewer: int | None = None,
    last_actions: Mapping[int, int] | None = None,
) -> np.ndarray:
    table = layout(game)
    seats = [seat_label(game, state, seat) for seat in range(game.num_players)]
    last = moves_text(last_actions, lambda player, action: describe(game, player, action, viewer))
    title = f"Nobody Wants It - round {state.round_number} of {game.num_rounds}"
    picture = table.draw(title, status(game, state), last, seats, viewer)
    _draw_table(picture, table, state)
    for seat in range(game.num_players):
        _draw_seat_cards(picture, table, state, seat, viewer)
    return picture.frame()


def describe(game: NobodyWantsIt, player: int, action: int, viewer: int | None) -> str:
    """An action as ``viewer`` saw it: another player's horse gift is a card set aside."""
    if HORSE_GIVE <= action < NUM_ACTIONS and viewer not in (None, player):
        return "set a card aside for the horse"
    return game.action_name(action)


def _draw_table(picture, table: TableLayout, state: NobodyWantsItState) -> None:
    top = table.table_top + 16
    picture.pile((MARGIN + 4, top), int(state.draw_size), caption="draw")
    discard_x = MARGIN + 100
    top_card = None
    if state.discard_size:
        top_card = FACES[state.discard_pile[state.discard_size - 1]]
    picture.pile((discard_x, top), int(state.discard_size), top_card, caption="discard")
    counts = [f"{name} {count}" for name, count in zip(SPECIES, state.discard_counts.tolist())]
    picture.text((discard_x + 70, top + 4), "discarded:", 12, FELT_INK)
    for line, text in enumerate(counts):
        picture.text((discard_x + 70, top + 20 + 14 * line), text, 12, FELT_INK)
    left = 420
    picture.text(
        (left, top - 8),
        f"NWI cards of round {state.round_number} (a star; worth {state.round_number})",
        12,
        FELT_INK,
    )
    holders = state.nwi_holder[state.round_number - 1]
    for species, holder in enumerate(holders.tolist()):
        x = left + species * (CARD_SIZE[0] + 40)
        if holder == ON_PILE:
            picture.card((x, top + 10), nwi_face(species, state.round_number))
            place = "on its pile"
        else:
            picture.slot((x, top + 10))
            place = f"held by player_{holder}" if holder >= 0 else "out of the game"
        centre = (x + CARD_SIZE[0] / 2, top + CARD_SIZE[1] + 14)
        picture.fitted_text(centre, place, CARD_SIZE[0] + 36, 12, fill=FELT_INK, anchor="ma")


def _draw_seat_cards(
    picture, table: TableLayout, state: NobodyWantsItState, seat: int, viewer: int | None
) -> None:
    left, top = table.cards_left(), table.cards_top(seat)
    sees = viewer is None or viewer == seat
    if sees:
        hand = [FACES[s] for s in range(len(SPECIES)) for _ in range(state.hands[seat, s])]
    else:
        hand = [None] * int(state.hand_sizes[seat])
    gift = int(state.horse_gifts[seat])
    nwi_left = table.width - MARGIN - NWI_WIDTH
    hand_width = nwi_left - left - 24 - (CARD_SIZE[0] + 16 if gift != NO_GIFT else 0)
    used = picture.fan((left, top), hand_width, hand)
    if gift != NO_GIFT:
        x = left + used + 16
        if sees:
            picture.card((x, top), FACES[gift])
        else:
            picture.back((x, top))
        picture.text((x + CARD_SIZE[0] / 2, top - 12), "set aside", 10, (90, 90, 90), "ma")
    held = [
        nwi_face(species, round_index + 1)
        for round_index in range(state.round_number)
        for species, holder in enumerate(state.nwi_holder[round_index].tolist())
        if holder == seat
    ]
    if held:
        picture.text((nwi_left, top - 6), "NWI cards held", 10, (90, 90, 90))
    picture.fan((nwi_left, top + 10), NWI_WIDTH, held, SMALL_CARD)


def status(game: NobodyWantsIt, state: NobodyWantsItState) -> str:
    if state.terminal:
        winners = ", ".join(player_name(p) for p in np.flatnonzero(game.winners(state)))
        return f"game over; winner(s): {winners}"
    text = f"{player_name(state.active_player)}'s turn"
    if state.decision != TURN:
        text += (
            f"; {player_name(state.current_player)} to choose the {DECISION_NAMES[state.decision]}"
        )
    return text


def seat_label(game: NobodyWantsIt, state: NobodyWantsItState, seat: int) -> Seat:
    twos, fours = state.penalty_cards[seat].tolist()
    notes = [f"{card_count(int(state.hand_sizes[seat]))} in hand"]
    if twos or fours:
        notes.append(f"penalty cards: {twos} x 2, {fours} x 4")
    if seat == state.dealer:
        notes.append("dealer")
    return Seat(
        player_name(seat),
        score=f"{state.points[seat]} points",
        notes=notes,
        to_act=not state.terminal and seat == state.current_player,
    )
