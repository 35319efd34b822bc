"""The picture of a Minus Two table (``render_mode="rgb_array"``), drawn with the shared toolkit
:mod:`cardzoo.envs.picture`.

Each seat's row shows its hand (face up for the viewer only), then its four places: the
face-down card (face down for everybody, its owner included; face up only in the full view) and
the face-up card lying on it. The table shows the pile (newest on the right), its limit and the
cards ``>>>`` removed this round. Every action is seen by everybody, so the header tells it
in full."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from cardzoo.envs.minus_two.rules import (
    CARD_NAMES,
    HAND,
    NO_CARD,
    NUM_TYPES,
    ROW,
    MinusTwo,
    MinusTwoState,
)
from cardzoo.envs.picture import (
    CARD_SIZE,
    FELT_INK,
    MARGIN,
    SMALL_CARD,
    Face,
    Seat,
    TableLayout,
    mix,
    moves_text,
    player_name,
)

LOW, HIGH = (40, 150, 80), (200, 60, 40)  # value 1 is green, 10 red: the limit goes down


def _face(name: str) -> Face:
    if name == "-2":
        return Face("-2", (120, 60, 170), big="-2", shape="ring")
    if name == ">>>":
        return Face(">>>", (30, 30, 36), big=">>>", shape="none")
    value = int(name)
    return Face(name, mix(LOW, HIGH, (value - 1) / 9), big=name, shape="none")


FACES = {name: _face(name) for name in CARD_NAMES}
PILE_SHOWN = 14
PLACE_STEP = CARD_SIZE[0] + 14  # one face-down place and the face-up card on it


def layout(game: MinusTwo) -> TableLayout:
    return TableLayout(game.num_players, table_height=CARD_SIZE[1] + 56, row_height=100)


def draw(
    game: MinusTwo,
    state: MinusTwoState,
    viewer: int | None = None,
    last_actions: Mapping[int, int] | None = None,
) -> np.ndarray:
    table = layout(game)
    seats = [seat_label(game, state, seat) for seat in range(game.num_players)]
    last = moves_text(last_actions, lambda player, action: game.action_name(action))
    title = f"Minus Two - round {state.round}, target {state.target}"
    picture = table.draw(title, status(game, state), last, seats, viewer)
    _draw_pile(picture, table, game, state)
    for seat in range(game.num_players):
        _draw_seat_cards(picture, table, game, state, seat, viewer)
    return picture.frame()


def _draw_pile(picture, table: TableLayout, game: MinusTwo, state: MinusTwoState) -> None:
    top = table.table_top + 12
    newest = [FACES[name] for name in game.pile_cards(state)[-PILE_SHOWN:]]
    if not newest:
        picture.slot((MARGIN, top))
    picture.fan((MARGIN, top), 640, newest, gap=6)
    shown = f", the newest {PILE_SHOWN} shown" if state.pile_size > PILE_SHOWN else ""
    limit = f"limit {state.limit}" if state.pile_size else "no limit"
    picture.text(
        (MARGIN, top + CARD_SIZE[1] + 6),
        f"pile: {state.pile_size} cards{shown}; each seat: its hand, then its face-down cards "
        "with the face-up cards on them",
        13,
        FELT_INK,
    )
    right = table.width - MARGIN
    picture.text((right, top), limit, 26, FELT_INK, "ra")
    removed = [CARD_NAMES[t] for t in range(NUM_TYPES) for _ in range(state.removed[t])]
    if removed:
        faces = [FACES[name] for name in removed]
        width = 300
        picture.text((right, top + 40), "removed by >>> this round", 12, FELT_INK, "ra")
        picture.fan((right - width, top + 58), width, faces, SMALL_CARD)


def _draw_seat_cards(
    picture, table: TableLayout, game: MinusTwo, state: MinusTwoState, seat: int, viewer
) -> None:
    left, top = table.cards_left(), table.row_top(seat) + 6
    places_left = table.width - MARGIN - ROW * PLACE_STEP
    hand_width = places_left - left - 24
    if viewer is None or viewer == seat:
        hand = [FACES[name] for name in game.hand_cards(state, seat)]
    else:
        hand = [None] * int(state.sizes[HAND, seat])
    picture.fan((left, top), hand_width, hand)
    face_up = game.face_up_cards(state, seat)
    for place in range(ROW):
        x = places_left + place * PLACE_STEP
        card = state.face_down[seat, place]
        if card == NO_CARD:
            picture.slot((x, top))
        elif viewer is None:
            picture.card((x, top), FACES[CARD_NAMES[card]])
        else:
            picture.back((x, top))
        if place < len(face_up):
            picture.card((x + 6, top + 14), FACES[face_up[place]])


def status(game: MinusTwo, state: MinusTwoState) -> str:
    if state.terminal:
        winners = [player_name(p) for p in np.flatnonzero(game.winners(state))]
        return f"game over: {', '.join(winners)} wins with the lowest total"
    return f"{player_name(state.current_player)} to play"


def seat_label(game: MinusTwo, state: MinusTwoState, seat: int) -> Seat:
    notes = []
    if seat == state.dealer:
        notes.append("dealer")
    if state.round_winner != -1:
        notes.append(f"last round {int(state.round_points[seat]):+d}")
    return Seat(
        player_name(seat),
        score=f"total {state.totals[seat]}",
        notes=notes,
        to_act=not state.terminal and seat == state.current_player,
    )
