"""The picture of a Believe It or Not table (``render_mode="rgb_array"``), drawn with the shared
toolkit :mod:`cardzoo.envs.picture`.

The table shows the declared species and every placement, oldest first, face down except for
its owner (and the card a viewer peeked at); then the last doubt's turned card, the discarded
sets and the specials played. Each seat's row shows its hand (face up for the viewer only) and
the cards it is putting down. Which card another player added to a placement is never told."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from cardzoo.envs.believe_it_or_not.rules import (
    ADD_CARD,
    CARD_NAMES,
    DECISION_NAMES,
    FINISH,
    HAND_SIZE,
    IS_OUT,
    NO_ONE,
    NUM_TYPES,
    SPECIES,
    BelieveItOrNot,
    BelieveItOrNotState,
)
from cardzoo.envs.picture import (
    CARD_SIZE,
    FELT_INK,
    MARGIN,
    SMALL_CARD,
    TURN,
    Face,
    Seat,
    TableLayout,
    card_count,
    moves_text,
    player_name,
)

SPECIES_COLOURS = (
    (120, 120, 130),  # cat
    (170, 110, 50),  # dog
    (40, 130, 80),  # cow
    (214, 92, 138),  # pig
    (96, 124, 164),  # sheep
    (120, 70, 40),  # horse
    (150, 100, 190),  # rabbit
    (210, 170, 20),  # duck
)
FACES = [
    *(
        Face(name, colour, big=name[:2].title(), shape="disc")  # "Co"w and "Ca"t differ
        for name, colour in zip(SPECIES, SPECIES_COLOURS)
    ),
    Face("elephant", (80, 80, 90), big="E", shape="ring"),
    Face("peek", (30, 110, 150), big="?", shape="egg"),
    Face("skip", (30, 30, 36), big=">>", shape="none"),
]
assert len(FACES) == NUM_TYPES
TABLE_WIDTH = 620  # the placements; the notes go right of them


def layout(game: BelieveItOrNot) -> TableLayout:
    return TableLayout(game.num_players, table_height=SMALL_CARD[1] + 80)


def draw(
    game: BelieveItOrNot,
    state: BelieveItOrNotState,
    viewer: int | None = None,
    last_actions: Mapping[int, int] | None = None,
) -> np.ndarray:
    table = layout(game)
    seats = [seat_label(game, state, seat) for seat in range(game.num_players)]
    last = moves_text(last_actions, lambda player, action: describe(game, player, action, viewer))
    title = f"Believe It or Not ({game.variant})"
    picture = table.draw(title, status(game, state), last, seats, viewer)
    _draw_placements(picture, table, game, state, viewer)
    _draw_notes(picture, table, game, state)
    for seat in range(game.num_players):
        _draw_seat_cards(picture, table, game, state, seat, viewer)
    return picture.frame()


def describe(game: BelieveItOrNot, player: int, action: int, viewer: int | None) -> str:
    """An action as ``viewer`` saw it: another player's added card is only a card put down."""
    if ADD_CARD <= action < FINISH and viewer not in (None, player):
        return "put a card down"
    return game.action_name(action)


def _draw_placements(
    picture, table: TableLayout, game: BelieveItOrNot, state: BelieveItOrNotState, viewer
) -> None:
    top = table.table_top + 12
    if state.declared == NO_ONE:
        picture.text((MARGIN, top), "table: empty", 14, FELT_INK)
        return
    picture.text(
        (MARGIN, top), f"declared: {SPECIES[state.declared]}  ({state.table_size} cards)", 14, TURN
    )
    placements = game.placements(state)
    if not placements:  # a species declared, the first placement still being built
        return
    step = SMALL_CARD[0] + 3
    natural = sum(len(cards) * step + 12 for _, cards in placements)
    scale = min(1.0, TABLE_WIDTH / natural)
    x = MARGIN
    for index, (owner, cards) in enumerate(placements):
        faces = [FACES[CARD_NAMES.index(card)] for card in cards]
        shown: list[Face | None] = list(faces) if viewer in (None, owner) else [None] * len(faces)
        is_last = index == len(placements) - 1
        if is_last and viewer is not None and state.peek_player == viewer:
            shown[state.peek_position] = faces[state.peek_position]
        width = max(SMALL_CARD[0], round((len(cards) * step) * scale))
        picture.fan((x, top + 24), width, shown, SMALL_CARD, gap=3)
        picture.text((x, top + 28 + SMALL_CARD[1]), f"p{owner}", 11, FELT_INK)
        x += width + round(12 * scale)


def _draw_notes(picture, table: TableLayout, game: BelieveItOrNot, state: BelieveItOrNotState):
    left, top = MARGIN + TABLE_WIDTH + 24, table.table_top + 12
    lines = []
    if state.revealed_card != NO_ONE:
        verdict = "true" if state.revealed_true else "a bluff"
        lines.append(f"last doubt: {CARD_NAMES[state.revealed_card]} turned ({verdict})")
        lines.append(f"  {player_name(state.revealed_taker)} took the table")
    discarded = [SPECIES[s] for s in range(len(SPECIES)) if state.out_of_game[s] == 4]
    lines.append(f"sets discarded: {', '.join(discarded) or 'none'}")
    if game.special_cards:
        lines.append(f"specials played: {state.out_of_game[-2]} peek, {state.out_of_game[-1]} skip")
    for line, text in enumerate(lines):
        picture.fitted_text(
            (left, top + 18 * line), text, table.width - left - MARGIN, 13, fill=FELT_INK
        )


def _draw_seat_cards(
    picture, table: TableLayout, game: BelieveItOrNot, state: BelieveItOrNotState, seat, viewer
) -> None:
    left, top = table.cards_left(), table.cards_top(seat)
    sees = viewer in (None, seat)
    if sees:
        hand = [FACES[CARD_NAMES.index(name)] for name in game.hand_cards(state, seat)]
    else:
        hand = [None] * int(state.seat_counts[HAND_SIZE, seat])
    building = (
        state.building[: state.building_size].tolist()
        if not state.terminal and seat == state.current_player
        else []
    )
    building_width = len(building) * (CARD_SIZE[0] + 4) + 24 if building else 0
    used = picture.fan((left, top), table.cards_width() - building_width, hand)
    if building:
        x = left + used + 24
        faces = [FACES[card] if sees else None for card in building]
        picture.text((x, top - 12), "putting down", 10, (90, 90, 90))
        picture.fan((x, top), building_width - 24, faces)


def status(game: BelieveItOrNot, state: BelieveItOrNotState) -> str:
    if state.terminal:
        winners = ", ".join(player_name(p) for p in np.flatnonzero(state.winner_mask))
        return f"game over; winner(s): {winners}"
    return f"{player_name(state.current_player)} to {DECISION_NAMES[state.decision]}"


def seat_label(game: BelieveItOrNot, state: BelieveItOrNotState, seat: int) -> Seat:
    notes = ["out"] if state.seat_counts[IS_OUT, seat] else []
    return Seat(
        player_name(seat),
        score=card_count(int(state.seat_counts[HAND_SIZE, seat])),
        notes=notes,
        to_act=not state.terminal and seat == state.current_player,
    )
