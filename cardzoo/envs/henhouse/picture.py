"""The picture of a Henhouse table (``render_mode="rgb_array"``), drawn with the shared toolkit
:mod:`cardzoo.envs.picture`.

Every deck is face down, for its owner too (nobody may look at their deck), so a seat's view
shows the same as any other seat's; only the full view (no viewer) turns the decks face up, top
card first. The pile is face up: its newest cards lie on the right."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from cardzoo.envs.henhouse.rules import CARD_NAMES, NO_PLAYER, Henhouse, HenhouseState
from cardzoo.envs.picture import (
    CARD_SIZE,
    FELT_INK,
    MARGIN,
    Face,
    Seat,
    TableLayout,
    card_count,
    moves_text,
    player_name,
)

FACES = {
    "hen": Face("hen", (214, 160, 24), shape="disc"),
    "feather1": Face("feather1", (52, 104, 196), shape="feathers1"),
    "feather2": Face("feather2", (52, 104, 196), shape="feathers2"),
    "feather3": Face("feather3", (52, 104, 196), shape="feathers3"),
    "egg": Face("egg", (150, 110, 70), shape="egg"),
    "fox": Face("FOX", (222, 96, 24), shape="star"),
}
PILE_SHOWN = 12  # newest pile cards drawn


def layout(game: Henhouse) -> TableLayout:
    return TableLayout(game.num_players, table_height=CARD_SIZE[1] + 56)


def draw(
    game: Henhouse,
    state: HenhouseState,
    viewer: int | None = None,
    last_actions: Mapping[int, int] | None = None,
) -> np.ndarray:
    table = layout(game)
    seats = [seat_label(game, state, seat) for seat in range(game.num_players)]
    last = moves_text(last_actions, lambda player, action: "turned a card")
    picture = table.draw("Henhouse", status(game, state), last, seats, viewer)
    top = table.table_top + 12
    newest = [FACES[name] for name in game.pile_cards(state)[-PILE_SHOWN:]]
    if not newest:
        picture.slot((MARGIN, top))
    picture.fan((MARGIN, top), table.width - 2 * MARGIN, newest, gap=6)
    shown = f", the newest {PILE_SHOWN} shown" if state.pile_size > PILE_SHOWN else ""
    caption = f"pile: {state.pile_size} cards{shown} (newest on the right)"
    picture.text((MARGIN, top + CARD_SIZE[1] + 6), caption, 13, FELT_INK)
    for seat in range(game.num_players):
        size = int(state.deck_size[seat])
        if viewer is None:
            faces = [FACES[name] for name in game.deck_cards(state, seat)]
        else:
            faces = [None] * size
        picture.fan((table.cards_left(), table.cards_top(seat)), table.cards_width(), faces)
    return picture.frame()


def status(game: Henhouse, state: HenhouseState) -> str:
    if state.terminal:
        winner = int(np.flatnonzero(game.winners(state))[0])
        return f"game over: {player_name(winner)} holds every card"
    actor = player_name(state.current_player)
    if state.debt:
        return f"{actor} pays {state.debt} more to {player_name(state.owed)}"
    return f"{actor} to turn a card"


def seat_label(game: Henhouse, state: HenhouseState, seat: int) -> Seat:
    notes = []
    if state.is_out[seat]:
        notes.append("out")
    if seat == state.owed and state.owed != NO_PLAYER:
        notes.append(f"owed {state.debt}")
    if seat == state.payer and state.payer != NO_PLAYER:
        notes.append("paying")
    return Seat(
        player_name(seat),
        score=card_count(int(state.deck_size[seat])),
        notes=notes,
        to_act=not state.terminal and seat == state.current_player,
    )


__all__ = ["CARD_NAMES", "draw", "layout"]
