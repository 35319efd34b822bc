"""The drawing toolkit behind every game's picture (``render_mode="rgb_array"``).

Each game draws its table in ``cardzoo/envs/<game>/picture.py`` from these pieces, so that every
idea has one place: a card face (:class:`Face`, :meth:`Picture.card`), the back of a card, a pile,
a fan of cards, a label, and the frame's layout (:class:`TableLayout`: a header with the title,
whose turn it is and the last action; the table; one row per seat with its name, marks and score).

Pictures are drawn with Pillow and its built-in font (``ImageFont.load_default``), so a frame
depends only on the state drawn and on the Pillow version: the same game gives the same pixels.
The frame's size depends only on the game's parameters (the number of seats), never on the
state, so every frame of one game can go into one video.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping, Sequence

import numpy as np
from PIL import Image, ImageDraw, ImageFont

Colour = tuple[int, int, int]

WIDTH = 960
HEADER_HEIGHT = 64
ROW_HEIGHT = 92
MARGIN = 12
LABEL_WIDTH = 176  # the seat's name, marks and score, left of its cards
CARD_SIZE = (50, 72)
SMALL_CARD = (36, 52)

INK: Colour = (30, 30, 36)
PAPER: Colour = (252, 250, 244)
FELT: Colour = (36, 96, 66)
FELT_INK: Colour = (236, 244, 236)
HEADER: Colour = (32, 36, 48)
HEADER_INK: Colour = (245, 245, 245)
MUTED: Colour = (120, 120, 128)
ROW_COLOURS: tuple[Colour, Colour] = ((244, 239, 226), (234, 228, 212))
TURN: Colour = (240, 176, 32)  # the frame of the seat to act
BACK: Colour = (44, 66, 132)
BACK_LINE: Colour = (92, 118, 184)
GOOD: Colour = (40, 140, 70)
BAD: Colour = (196, 50, 50)


@functools.cache
def font(size: int) -> ImageFont.FreeTypeFont:
    """Pillow's built-in font at ``size`` pixels (cached: loading it is the slowest step)."""
    return ImageFont.load_default(size=size)


@dataclasses.dataclass(frozen=True)
class Face:
    """What a card's face shows: ``corner`` (a short name, top left, readable on a fanned card),
    ``colour`` (the band and shape, one per animal or value), ``big`` (large text in the middle,
    e.g. a value), ``shape`` (drawn behind it: "disc", "egg", "star", "ring", "none", or
    "feathersN" for N feathers) and ``lines`` (words stacked in the middle, for a card showing
    several things)."""

    corner: str
    colour: Colour
    big: str = ""
    shape: str = "disc"
    ink: Colour = INK
    lines: tuple[str, ...] = ()


def mix(colour: Colour, other: Colour, share: float) -> Colour:
    """``colour`` moved ``share`` of the way towards ``other`` (for pale backgrounds)."""
    return tuple(round(a + (b - a) * share) for a, b in zip(colour, other))


class Picture:
    """One frame being drawn: a Pillow image and the drawing operations the games share."""

    def __init__(self, width: int, height: int, background: Colour = PAPER):
        self.image = Image.new("RGB", (width, height), background)
        self.draw = ImageDraw.Draw(self.image)

    def frame(self) -> np.ndarray:
        """The picture as an ``(height, width, 3)`` uint8 array."""
        width, height = self.image.size
        return np.frombuffer(self.image.tobytes(), np.uint8).reshape(height, width, 3).copy()

    # --- text -----------------------------------------------------------------------------

    def text(
        self,
        xy: tuple[float, float],
        text: str,
        size: int = 14,
        fill: Colour = INK,
        anchor: str = "la",
        bold: bool = False,
    ) -> None:
        """Text at ``xy`` (Pillow's ``anchor``: "la" left-top, "mm" centred, ...)."""
        self.draw.text(
            xy,
            text,
            font=font(size),
            fill=fill,
            anchor=anchor,
            stroke_width=1 if bold else 0,
            stroke_fill=fill,
        )

    def fitted_text(
        self, xy: tuple[float, float], text: str, width: int, size: int = 14, **kwargs
    ) -> None:
        """Text shrunk (down to 8 px), then cut with "...", to fit ``width`` pixels."""
        while size > 8 and font(size).getlength(text) > width:
            size -= 1
        while len(text) > 4 and font(size).getlength(text) > width:
            text = text[:-4] + "..."
        self.text(xy, text, size, **kwargs)

    def badge(self, xy: tuple[float, float], text: str, fill: Colour, size: int = 12) -> int:
        """A rounded label (white text on ``fill``) with its left edge at ``xy``; returns its
        width, so badges can be put side by side."""
        width = round(font(size).getlength(text)) + 10
        x, y = xy
        self.draw.rounded_rectangle((x, y, x + width, y + size + 6), 6, fill=fill)
        self.text((x + width / 2, y + (size + 6) / 2), text, size, PAPER, "mm")
        return width + 4

    # --- cards ----------------------------------------------------------------------------

    def card(self, xy: tuple[float, float], face: Face, size: tuple[int, int] = CARD_SIZE) -> None:
        """A card face up: white, a coloured band with the corner name, the shape and the big
        text in the middle. Each face is drawn once per size and pasted from then on (text is
        the slowest thing to draw)."""
        image, mask = _card_face(face, size)
        self.image.paste(image, (round(xy[0]), round(xy[1])), mask)

    def draw_face(self, face: Face, size: tuple[int, int]) -> None:
        """Draw ``face`` at the top left corner of this picture (see :meth:`card`)."""
        x, y = 0, 0
        w, h = size
        self.draw.rounded_rectangle((x, y, x + w, y + h), 5, fill=PAPER, outline=INK, width=1)
        band = max(12, h // 5)
        self.draw.rounded_rectangle(
            (x + 2, y + 2, x + w - 2, y + band), 4, fill=face.colour, outline=None
        )
        self.text((x + 4, y + 2 + band / 2), face.corner, max(9, band - 3), PAPER, "lm")
        self._shape((x + w / 2, y + band + (h - band) / 2), face, min(w, h - band) * 0.8)
        if face.big:
            size_px = round(min(w, h - band) * (0.55 if len(face.big) <= 2 else 0.36))
            self.text((x + w / 2, y + band + (h - band) / 2), face.big, size_px, face.ink, "mm")
        if face.lines:
            pitch = (h - band - 4) / len(face.lines)
            size_px = min(14, round(pitch * 0.8))
            for index, line in enumerate(face.lines):
                centre = (x + w / 2, y + band + 2 + pitch * (index + 0.5))
                self.fitted_text(centre, line, w - 4, size_px, fill=face.ink, anchor="mm")

    def _shape(self, centre: tuple[float, float], face: Face, extent: float) -> None:
        cx, cy = centre
        r = extent / 2
        pale = mix(face.colour, PAPER, 0.55)
        if face.shape == "disc":
            self.draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=pale, outline=face.colour)
        elif face.shape == "ring":
            self.draw.ellipse((cx - r, cy - r, cx + r, cy + r), outline=face.colour, width=3)
        elif face.shape == "egg":
            self.draw.ellipse(
                (cx - r * 0.7, cy - r, cx + r * 0.7, cy + r),
                fill=pale,
                outline=face.colour,
                width=2,
            )
        elif face.shape == "star":
            points = [
                (
                    cx + (r if k % 2 == 0 else r * 0.45) * np.sin(np.pi * k / 5),
                    cy - (r if k % 2 == 0 else r * 0.45) * np.cos(np.pi * k / 5),
                )
                for k in range(10)
            ]
            self.draw.polygon(points, fill=pale, outline=face.colour)
        elif face.shape.startswith("feathers"):
            count = int(face.shape[len("feathers") :])
            for k in range(count):
                dx = (k - (count - 1) / 2) * r * 0.6
                self.draw.ellipse(
                    (cx + dx - r * 0.22, cy - r * 0.9, cx + dx + r * 0.22, cy + r * 0.9),
                    fill=pale,
                    outline=face.colour,
                    width=2,
                )
                self.draw.line((cx + dx, cy - r * 0.8, cx + dx, cy + r), fill=face.colour)

    def back(self, xy: tuple[float, float], size: tuple[int, int] = CARD_SIZE) -> None:
        """A card face down: the same back for every card of every game."""
        image, mask = _card_back(size)
        self.image.paste(image, (round(xy[0]), round(xy[1])), mask)

    def slot(self, xy: tuple[float, float], size: tuple[int, int] = CARD_SIZE) -> None:
        """An empty place where a card could lie (an outline)."""
        x, y = xy
        self.draw.rounded_rectangle(
            (x, y, x + size[0], y + size[1]), 5, outline=mix(INK, PAPER, 0.6), width=1
        )

    def fan(
        self,
        xy: tuple[float, float],
        width: int,
        faces: Sequence[Face | None],
        size: tuple[int, int] = CARD_SIZE,
        gap: int = 4,
    ) -> int:
        """Cards side by side from ``xy`` (``None``: face down), overlapping as much as needed
        to fit ``width``; returns the width used."""
        if not faces:
            return 0
        step = min(size[0] + gap, (width - size[0]) / max(1, len(faces) - 1))
        x, y = xy
        for index, face in enumerate(faces):
            position = (round(x + index * step), y)
            if face is None:
                self.back(position, size)
            else:
                self.card(position, face, size)
        return round(step * (len(faces) - 1) + size[0])

    def pile(
        self,
        xy: tuple[float, float],
        count: int,
        top: Face | None = None,
        caption: str = "",
        size: tuple[int, int] = CARD_SIZE,
        ink: Colour = FELT_INK,
    ) -> None:
        """A stack of ``count`` cards (a few backs showing its height), ``top`` face up on it if
        given, and ``caption`` with the count underneath."""
        x, y = xy
        if count == 0:
            self.slot(xy, size)
        layers = min(count, 4)
        for layer in range(layers - 1, -1, -1):
            position = (x + layer * 2, y - layer * 2)
            if layer == 0 and top is not None:
                self.card(position, top, size)
            else:
                self.back(position, size)
        label = f"{caption}: {count}" if caption else str(count)
        self.text((x + size[0] / 2, y + size[1] + 4), label, 12, ink, "ma")


@functools.cache
def _card_mask(size: tuple[int, int]) -> Image.Image:
    """The shape of a card of ``size``: its rounded corners stay transparent when pasted."""
    mask = Image.new("L", (size[0] + 1, size[1] + 1), 0)
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, *size), 5, fill=255)
    return mask


@functools.cache
def _card_face(face: Face, size: tuple[int, int]) -> tuple[Image.Image, Image.Image]:
    """A card face of ``size`` and its mask, drawn once."""
    picture = Picture(size[0] + 1, size[1] + 1)
    picture.draw_face(face, size)
    return picture.image, _card_mask(size)


@functools.cache
def _card_back(size: tuple[int, int]) -> tuple[Image.Image, Image.Image]:
    """The back of a card of ``size`` and its mask, drawn once."""
    w, h = size
    image = Image.new("RGB", (w + 1, h + 1), BACK)
    draw = ImageDraw.Draw(image)
    for offset in range(-h, w + h, 8):  # a diagonal lattice
        draw.line((offset, 0, offset + h, h), fill=BACK_LINE)
        draw.line((offset, h, offset + h, 0), fill=BACK_LINE)
    draw.rounded_rectangle((3, 3, w - 3, h - 3), 3, outline=PAPER, width=2)
    draw.rounded_rectangle((0, 0, w, h), 5, outline=INK, width=1)
    return image, _card_mask(size)


def round_up(value: int, multiple: int = 16) -> int:
    """``value`` rounded up to a multiple (video encoders want sizes in blocks of 16)."""
    return -(-value // multiple) * multiple


@dataclasses.dataclass
class Seat:
    """What the row of one seat says, left of its cards: its name (``player_1``, "you" added
    for the viewer), its score and notes ("out", "owed 2"); ``to_act`` frames the row."""

    name: str
    score: str = ""
    notes: Sequence[str] = ()
    to_act: bool = False


class TableLayout:
    """The geometry of one game's frames, fixed by its number of seats: a header (title, status,
    last action), the table (height ``table_height``), then one row per seat."""

    def __init__(self, num_players: int, table_height: int, row_height: int = ROW_HEIGHT):
        self.num_players = num_players
        self.table_top = HEADER_HEIGHT
        self.table_height = table_height
        self.row_height = row_height
        self.width = WIDTH
        self.height = round_up(HEADER_HEIGHT + table_height + num_players * row_height + MARGIN)

    @property
    def shape(self) -> tuple[int, int, int]:
        return (self.height, self.width, 3)

    def row_top(self, seat: int) -> int:
        return self.table_top + self.table_height + seat * self.row_height

    def cards_left(self) -> int:
        """Where a seat's cards start, right of its label."""
        return LABEL_WIDTH + MARGIN

    def cards_width(self) -> int:
        return self.width - LABEL_WIDTH - 2 * MARGIN

    def cards_top(self, seat: int, size: tuple[int, int] = CARD_SIZE) -> int:
        """The top of a seat's cards, centred in its row."""
        return self.row_top(seat) + (self.row_height - size[1]) // 2

    def draw(
        self, title: str, status: str, last_action: str, seats: Sequence[Seat], viewer: int | None
    ) -> Picture:
        """A new picture with the header, the empty table and every seat's label drawn."""
        picture = Picture(self.width, self.height)
        draw = picture.draw
        draw.rectangle((0, 0, self.width, HEADER_HEIGHT), fill=HEADER)
        view = "everything shown" if viewer is None else f"seen by player_{viewer}"
        picture.text((MARGIN, 8), title, 20, HEADER_INK)
        picture.text((self.width - MARGIN, 10), view, 13, (190, 200, 220), "ra")
        picture.fitted_text((MARGIN, 34), status, self.width // 2 - MARGIN, 14, fill=TURN)
        if last_action:
            picture.fitted_text(
                (self.width - MARGIN, 36),
                f"last: {last_action}",
                self.width // 2 - MARGIN,
                13,
                fill=HEADER_INK,
                anchor="ra",
            )
        draw.rectangle(
            (0, self.table_top, self.width, self.table_top + self.table_height), fill=FELT
        )
        for index, seat in enumerate(seats):
            self._draw_seat(picture, index, seat, viewer)
        return picture

    def _draw_seat(self, picture: Picture, index: int, seat: Seat, viewer: int | None) -> None:
        top = self.row_top(index)
        box = (0, top, self.width - 1, top + self.row_height - 1)
        picture.draw.rectangle(box, fill=ROW_COLOURS[index % 2])
        if seat.to_act:
            picture.draw.rectangle(box, outline=TURN, width=4)
        name = seat.name + (" (you)" if index == viewer else "")
        picture.text((MARGIN, top + 10), name, 15, INK, bold=seat.to_act)
        if seat.score:
            picture.text((MARGIN, top + 32), seat.score, 13, INK)
        for line, note in enumerate(seat.notes[:2]):
            picture.fitted_text(
                (MARGIN, top + 52 + 17 * line), note, LABEL_WIDTH - MARGIN, 12, fill=MUTED
            )


def player_name(player: int) -> str:
    return f"player_{player}"


def card_count(count: int) -> str:
    """``"1 card"``, ``"5 cards"``."""
    return f"{count} card" if count == 1 else f"{count} cards"


def moves_text(last_actions: Mapping[int, int] | None, describe: Callable[[int, int], str]) -> str:
    """The header's "last" line: each player's last action as ``describe(player, action)``
    says it (a game's describe hides what the viewer may not know)."""
    if not last_actions:
        return ""
    return "; ".join(
        f"{player_name(player)} {describe(player, action)}"
        for player, action in sorted(last_actions.items())
    )
