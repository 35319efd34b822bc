"""Recorded games: the pictures of a game (``render_mode="rgb_array"`` frames, or
``render_seat`` views) written as an animated GIF, one frame per step.

>>> from cardzoo.envs import henhouse_v0
>>> from cardzoo.envs.recording import write_gif
>>> env = henhouse_v0.env(num_players=2, render_mode="rgb_array")
>>> env.reset(seed=0)
>>> frames = [env.render()]
>>> for _ in range(10):
...     env.step(0)
...     frames.append(env.render())
>>> write_gif("henhouse.gif", frames)  # doctest: +SKIP

Each frame gets its number stamped in a corner ("3/11"). Besides telling the viewer where they
are, it keeps every step a frame of its own: GIF writers merge a frame identical to the one
before it (a step that changes nothing a seat can see would otherwise vanish from its video).

The GIF is written by Pillow directly, with one palette for the whole game (the 256 colours of
a sample of its frames, no dithering: the pictures are flat colours and text). imageio hands GIFs
to Pillow too, which then works out a palette for every frame: that took 4.5 to 5.6 times as
long (61 frames of Minus Two, CPU time, both ways in one run).
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import Any

import numpy as np
from PIL import Image

from cardzoo.envs.picture import MUTED, PAPER, Picture, font
from cardzoo.envs.rendering import RENDER_FPS
from cardzoo.errors import InputError

PALETTE_SAMPLES = 8  # frames the palette is made from, spread over the game


def write_gif(
    path: str | os.PathLike, frames: Sequence[np.ndarray], fps: float = RENDER_FPS
) -> str:
    """Write ``frames`` (``(H, W, 3)`` uint8 arrays of one size) to ``path`` as a GIF that loops,
    ``fps`` frames per second; returns the path. ``ValueError`` for no frames, frames of
    different sizes or dtypes, or an ``fps`` that is not a finite number > 0."""
    frames = list(frames)
    check_frames(frames)
    fps = check_fps(fps)
    stamped = [stamp(frame, f"{index + 1}/{len(frames)}") for index, frame in enumerate(frames)]
    palette = game_palette(stamped)
    images = [
        Image.fromarray(frame, "RGB").quantize(palette=palette, dither=Image.Dither.NONE)
        for frame in stamped
    ]
    images[0].save(
        path, format="GIF", save_all=True, append_images=images[1:], duration=1000 / fps, loop=0
    )
    return os.fspath(path)


def check_fps(fps: Any) -> float:
    """``fps`` as a float if it is a finite number > 0 (Python's or numpy's, not a bool); else
    :class:`~cardzoo.errors.InputError` naming it (an infinite rate wrote frames of no
    duration)."""
    number = isinstance(fps, (int, float, np.integer, np.floating))
    if isinstance(fps, (bool, np.bool_)) or not number or not 0 < fps < math.inf:
        raise InputError(f"fps must be a finite number > 0, got {fps!r:.80}")
    return float(fps)


def check_frames(frames: list) -> None:
    """``ValueError`` unless ``frames`` is a non-empty list of RGB uint8 arrays of one shape."""
    if not frames:
        raise ValueError("frames is empty: a GIF needs at least one frame")
    shape = np.shape(frames[0])
    for index, frame in enumerate(frames):
        if not isinstance(frame, np.ndarray) or frame.dtype != np.uint8 or frame.ndim != 3:
            raise ValueError(f"frames[{index}] must be an (H, W, 3) uint8 array")
        if frame.shape != shape or shape[2] != 3:
            raise ValueError(f"frames[{index}] has shape {frame.shape}; frames[0] has {shape}")


def game_palette(frames: list[np.ndarray]) -> Image.Image:
    """One 256-colour palette for every frame: the colours of a few frames spread over the game
    (the same frames give the same palette)."""
    step = max(1, len(frames) // PALETTE_SAMPLES)
    sample = np.concatenate(frames[::step][:PALETTE_SAMPLES], axis=0)
    return Image.fromarray(sample, "RGB").quantize(256, method=Image.Quantize.FASTOCTREE)


def stamp(frame: np.ndarray, text: str) -> np.ndarray:
    """A copy of ``frame`` with ``text`` in its bottom right corner."""
    height, width, _ = frame.shape
    picture = Picture(width, height)
    picture.image.paste(Image.fromarray(frame, "RGB"))
    x, y = width - 6, height - 4
    box = picture.draw.textbbox((x, y), text, font=font(11), anchor="rd")
    picture.draw.rectangle((box[0] - 3, box[1] - 2, box[2] + 3, box[3] + 2), fill=PAPER)
    picture.text((x, y), text, 11, MUTED, "rd")
    return picture.frame()
