"""The picture of a Foxy game (``render_mode="rgb_array"``), drawn with the shared toolkit
:mod:`cardzoo.envs.picture`.

The table shows the card just turned (large, left) and a strip of the 20 cards in stack order,
one column per card; each seat's row shows its sheet in the same columns. Nobody may look back:
a seat's view shows only the card just turned and the rest of the stack face down; it shows the
numbers on the viewer's own sheet, and of the others' sheets only which cards they have written
on. The full view shows the whole stack face up, the true answer under every card turned so far,
and every number. Once the
game is over the sheets are checked in the open: every view shows every card, answer and number,
green where it scored and struck out in red where it did not."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from cardzoo.envs.foxy.rules import (
    ANIMAL_KINDS,
    CAT,
    FOXY,
    LANDSCAPES,
    SPECIES,
    STACK_SIZE,
    Foxy,
    FoxyState,
)
from cardzoo.envs.picture import (
    BAD,
    FELT_INK,
    GOOD,
    INK,
    LABEL_WIDTH,
    MARGIN,
    MUTED,
    PAPER,
    SMALL_CARD,
    TURN,
    Face,
    Seat,
    TableLayout,
    mix,
    moves_text,
    player_name,
)

LANDSCAPE_COLOURS = ((176, 96, 60), (40, 120, 60), (196, 150, 24), (40, 110, 190))
CAT_COLOUR = (110, 110, 120)
BIG_CARD = (78, 112)
COLUMN = 38  # one column per card of the stack: 20 fill the width right of the labels


def card_face(kind: int) -> Face:
    """A card of the stack: the landscape's colour, the species it shows one per line."""
    if kind == FOXY:
        return Face("FOXY", (230, 110, 20), big="FOX", shape="star")
    species = sorted(ANIMAL_KINDS[kind])
    landscapes = [s // 2 for s in species if s != CAT]
    if landscapes:
        name, colour = LANDSCAPES[landscapes[0]], LANDSCAPE_COLOURS[landscapes[0]]
    else:
        name, colour = "cat", CAT_COLOUR
    return Face(name, colour, shape="none", lines=tuple(SPECIES[s] for s in species))


def layout(game: Foxy) -> TableLayout:
    return TableLayout(game.num_players, table_height=BIG_CARD[1] + 40, row_height=64)


def draw(
    game: Foxy,
    state: FoxyState,
    viewer: int | None = None,
    last_actions: Mapping[int, int] | None = None,
) -> np.ndarray:
    table = layout(game)
    points = game.points(state) if state.terminal else None
    seats = [seat_label(game, state, seat, points) for seat in range(game.num_players)]
    last = moves_text(last_actions, lambda player, action: describe(game, player, action, viewer))
    picture = table.draw("Foxy", status(game, state), last, seats, viewer)
    _draw_table(picture, table, state, viewer)
    for seat in range(game.num_players):
        _draw_sheet(picture, table, game, state, seat, viewer, points)
    return picture.frame()


def describe(game: Foxy, player: int, action: int, viewer: int | None) -> str:
    """An action as ``viewer`` saw it: another player's number is secret."""
    if viewer not in (None, player):
        return "wrote a number"
    return game.action_name(action).replace("write", "wrote")


def column_left(card: int) -> int:
    return LABEL_WIDTH + MARGIN + card * COLUMN


def _draw_table(picture, table: TableLayout, state: FoxyState, viewer: int | None) -> None:
    top = table.table_top + 10
    current = STACK_SIZE - 1 if state.terminal else state.turned - 1
    if not state.terminal:
        picture.card((MARGIN + 30, top), card_face(int(state.stack[current])), BIG_CARD)
        caption = f"card {state.turned} of {STACK_SIZE}"
        picture.text(
            (MARGIN + 30 + BIG_CARD[0] / 2, top + BIG_CARD[1] + 6), caption, 13, FELT_INK, "ma"
        )
    if state.terminal:
        picture.text((MARGIN + 8, top + 20), "the sheets", 14, FELT_INK)
        picture.text((MARGIN + 8, top + 40), "checked", 14, FELT_INK)
    open_view = viewer is None or state.terminal
    strip_top = top + 18
    for card in range(STACK_SIZE):
        x = column_left(card) + 1
        if card == current and not state.terminal:
            picture.draw.rectangle(
                (x - 2, strip_top - 2, x + SMALL_CARD[0] + 2, strip_top + SMALL_CARD[1] + 2),
                outline=TURN,
                width=2,
            )
        if card > current and viewer is not None:
            picture.back((x, strip_top), SMALL_CARD)
        elif open_view or card == current:
            picture.card((x, strip_top), card_face(int(state.stack[card])), SMALL_CARD)
            if open_view and card <= current:
                answer = str(int(state.answers[card]))
                picture.text(
                    (x + SMALL_CARD[0] / 2, strip_top + SMALL_CARD[1] + 4),
                    answer,
                    12,
                    FELT_INK,
                    "ma",
                )
        else:
            picture.slot((x, strip_top), SMALL_CARD)
    if viewer is None and not state.terminal:
        label = "the whole stack; true answers under the cards turned so far"
    elif open_view:
        label = "true answers under the cards"
    else:
        label = "earlier cards are not looked at; the rest of the stack is face down"
    picture.text((column_left(0), top - 4), label, 11, FELT_INK)


def _draw_sheet(picture, table, game: Foxy, state: FoxyState, seat: int, viewer, points) -> None:
    top = table.row_top(seat) + 14
    written = game.numbers_written(state, seat)
    sees = viewer in (None, seat) or state.terminal
    for card in range(STACK_SIZE):
        x = column_left(card) + 1
        box = (x, top, x + SMALL_CARD[0], top + 34)
        if card >= written:
            picture.draw.rectangle(box, outline=mix(INK, PAPER, 0.75))
            continue
        if not sees:
            picture.draw.rectangle(box, fill=mix(INK, PAPER, 0.8), outline=MUTED)
            continue
        # Checked: green where it scored, struck out in red where a number above 0 did not.
        struck = points is not None and points[seat, card] == 0 and state.sheets[seat, card] > 0
        colour = INK if points is None else BAD if struck else GOOD
        picture.draw.rectangle(box, fill=PAPER, outline=MUTED)
        number = str(int(state.sheets[seat, card]))
        centre = (x + SMALL_CARD[0] / 2, top + 17)
        picture.text(centre, number, 16, colour, "mm")
        if state.circled[seat] == card:
            picture.draw.ellipse(
                (centre[0] - 13, centre[1] - 13, centre[0] + 13, centre[1] + 13),
                outline=colour,
                width=2,
            )
        if struck:
            picture.draw.line((box[0] + 3, box[3] - 3, box[2] - 3, box[1] + 3), fill=BAD, width=2)


def status(game: Foxy, state: FoxyState) -> str:
    if state.terminal:
        winners = ", ".join(player_name(p) for p in np.flatnonzero(game.winners(state)))
        if game.num_players == 1:
            best = game.best_possible_score(state)
            verdict = "won" if winners else "lost"
            return f"game over: best possible {best}; {verdict}"
        return f"game over; winner(s): {winners}"
    # Everyone writes at once (the AEC form asks them one after another, the parallel form all
    # together): the header names every player still to write for this card, not one of them.
    waiting = [p for p in range(game.num_players) if not _written(game, state, p)]
    names = ", ".join(player_name(p) for p in waiting)
    who = "everyone" if len(waiting) == game.num_players > 1 else names
    return f"{who} to write a number for card {state.turned}"


def _written(game: Foxy, state: FoxyState, seat: int) -> bool:
    """Whether ``seat`` has written its number for the card turned last."""
    return game.numbers_written(state, seat) >= state.turned


def seat_label(game: Foxy, state: FoxyState, seat: int, points) -> Seat:
    if points is not None:
        score = f"total {int(points[seat].sum())}"
    else:
        score = "written" if _written(game, state, seat) else "to write"
    return Seat(
        player_name(seat),
        score=score,
        to_act=not state.terminal and not _written(game, state, seat),  # all write at once
    )
