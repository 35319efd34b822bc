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

The GIF has one palette for the whole game (the 256 colours of a sample of its frames, the first
and the last among them; no dithering: the pictures are flat colours and text). imageio, and
Pillow when given RGB frames, work out a palette for every frame: that took 4.5 to 5.6 times as
long (61 frames of Minus Two, CPU time, both ways in one run).

Decision (memory): a game's pictures are never all held at once. A game of thousands of steps
has thousands of pictures of about 2 MB each (``(768, 960, 3)`` for six players), and Pillow's
GIF writer keeps every frame it is given until the end. So :class:`PackedFrames` keeps each
picture zlib-compressed as soon as it is drawn (about 70 kB; past :data:`SPOOL_BYTES` they go to
a temporary file), and :func:`write_gif` writes the GIF itself, one frame at a time: stamped,
mapped to the palette, cut to the rectangle that changed since the frame before, and encoded
with Pillow's GIF encoder (``GifImagePlugin.getdata``). The same frames give the same bytes.
"""

from __future__ import annotations

__all__ = ["write_gif"]

import io
import math
import os
import struct
import tempfile
import zlib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, BinaryIO, overload

import numpy as np
from PIL import GifImagePlugin, Image

from cardzoo.envs.picture import MUTED, PAPER, Picture, font
from cardzoo.envs.rendering import RENDER_FPS
from cardzoo.errors import InputError
from cardzoo.io import write_bytes_atomic

PALETTE_SAMPLES = 8  # frames the palette is made from, spread over the game, first and last too

#: the longest a GIF shows one picture, in hundredths of a second (its delay is 16 bits)
MOST_DELAY = 65535
#: the fewest pictures a second a GIF can show: one every 655.35 seconds
MIN_FPS = 100 / MOST_DELAY
#: the most pictures a second a GIF plays as asked: one every 2/100 s. A GIF can hold one
#: every 1/100 s, but browsers show a picture of 1/100 s (or none) for 1/10 s, so such a GIF
#: played ten times too slowly where GIFs are mostly seen; 50 is the most they show as written
MAX_FPS = 50
#: the most pixels a GIF picture may have across or down (its sizes are 16 bits)
MOST_PIXELS = 65535

#: how many bytes of compressed pictures :class:`PackedFrames` keeps in memory before it moves
#: them to a temporary file
SPOOL_BYTES = 16 << 20


def write_gif(
    path: str | os.PathLike, frames: Iterable[np.ndarray], fps: float = RENDER_FPS
) -> str:
    """Write ``frames`` (``(H, W, 3)`` uint8 arrays of one size, or a :class:`PackedFrames`) to
    ``path`` as a GIF that loops, ``fps`` frames per second; returns the path.

    Everything is checked before the file is opened (:class:`~cardzoo.errors.InputError`): no
    frames, a frame that is not an RGB uint8 array, frames of different sizes, an empty frame;
    an ``fps`` outside what a GIF plays as asked (see :func:`check_fps`); an empty ``path``, a
    folder, or a file in a folder that does not exist.

    Decision: this is the low-level writer, and like ``open(path, "wb")`` it replaces a file at
    ``path``, but only once the GIF is whole: it is made in memory and then written under a
    temporary name and renamed, so a failure leaves the old file as it was and no half-written
    one. Recordings that must never replace a file go through
    :func:`cardzoo.recording.record_games`, which gives a GIF its name only if that name is
    free."""
    fps = check_fps(fps)
    if not isinstance(frames, Sequence):  # a generator, an array of frames: read it once
        frames = list(frames)
    check_frames(frames)
    path = check_gif_path(path)
    palette = game_palette(frames)
    buffer = io.BytesIO()
    write_gif_frames(buffer, frames, palette, gif_delay(fps))
    # a link is written through, to its target, as open() does (the rename would replace it)
    write_bytes_atomic(os.path.realpath(path), buffer.getvalue())
    return os.fspath(path)


def write_gif_frames(
    file: BinaryIO, frames: Sequence[np.ndarray], palette: Image.Image, delay: int
) -> None:
    """Write the GIF of ``frames`` (checked) to ``file``, one frame at a time: the header with
    ``palette`` as the one colour table, then every frame stamped with its number, mapped to the
    palette, cut to what changed since the frame before and shown ``delay`` hundredths of a
    second; it loops."""
    height, width, _ = frames[0].shape
    colours = bytes(palette.getpalette("RGB") or [])[: 3 * 256].ljust(3 * 256, b"\0")
    # 256 colours of 8 bits for every frame (0xF7), then loop forever (NETSCAPE2.0, 0 times)
    file.write(b"GIF89a" + struct.pack("<HHBBB", width, height, 0xF7, 0, 0) + colours)
    file.write(b"!\xff\x0bNETSCAPE2.0\x03\x01" + struct.pack("<H", 0) + b"\0")
    previous = None
    for index in range(len(frames)):
        frame = stamp(frames[index], f"{index + 1}/{len(frames)}")
        pixels = np.asarray(
            Image.fromarray(frame).quantize(palette=palette, dither=Image.Dither.NONE)
        )
        left, top, right, bottom = changed_box(previous, pixels)
        part = pixels[top:bottom, left:right].copy()
        flags, clear = 1 << 2, 0  # disposal 1: the frame stays under the next one
        if previous is not None:
            flags, clear = unchanged_clear(previous[top:bottom, left:right], part, flags)
        file.write(b"!\xf9\x04" + struct.pack("<BHBB", flags, delay, clear, 0))
        image = Image.frombytes("P", (right - left, bottom - top), part.tobytes())
        file.write(b"".join(GifImagePlugin.getdata(image, (left, top))))
        previous = pixels
    file.write(b";")


def unchanged_clear(before: np.ndarray, part: np.ndarray, flags: int) -> tuple[int, int]:
    """Make the pixels of ``part`` that equal ``before`` (the same rectangle of the frame
    before) transparent, in place: they show the frame before, and one colour repeated packs
    far better than the picture (a step's rectangle reaches from what changed to the corner
    stamp, mostly unchanged). Returns the graphic control ``flags`` and the transparent index:
    the first palette index no changed pixel uses (none free: nothing is made transparent)."""
    unchanged = before == part
    counts = np.bincount(part[~unchanged], minlength=256)
    free = np.flatnonzero(counts == 0)
    if not free.size or not unchanged.any():
        return flags, 0
    part[unchanged] = free[0]
    return flags | 1, int(free[0])


def check_fps(fps: Any) -> float:
    """``fps`` as a float if it is a number (Python's or numpy's, not a bool) a GIF plays as
    asked: from :data:`MIN_FPS` (100/65535, one picture every 655.35 s) to :data:`MAX_FPS` (50).
    A GIF holds each picture's time as a whole number of hundredths of a second, up to 65535;
    browsers show 0 or 1 hundredth as 10. Else :class:`~cardzoo.errors.InputError` naming it.
    The time written is 100/fps hundredths, rounded (:func:`gif_delay`)."""
    number = isinstance(fps, (int, float, np.integer, np.floating))
    if isinstance(fps, (bool, np.bool_)) or not number or not MIN_FPS <= fps <= MAX_FPS:
        raise InputError(
            f"fps must be a number from 100/65535 (about 0.00153: one picture every 655.35 "
            f"seconds) to 50, got {fps!r:.80}: a GIF holds the time of each picture as a whole "
            "number of hundredths of a second, at most 65535, and browsers show a picture of "
            "one hundredth for ten"
        )
    return float(fps)


def gif_delay(fps: float) -> int:
    """How long a GIF shows each picture at ``fps`` (checked by :func:`check_fps`): 100/fps
    hundredths of a second, rounded to the nearest (halves up)."""
    return min(max(math.floor(100 / fps + 0.5), 1), MOST_DELAY)


def check_frames(frames: Sequence[np.ndarray]) -> None:
    """:class:`~cardzoo.errors.InputError` unless ``frames`` holds at least one frame and every
    frame is an ``(H, W, 3)`` uint8 array (RGB) of the first one's size, at least one pixel and
    at most :data:`MOST_PIXELS` across and down. A :class:`PackedFrames` checked each frame as it
    was added."""
    if not len(frames):
        raise InputError("frames is empty: a GIF needs at least one frame")
    if isinstance(frames, PackedFrames):
        return
    shape = None
    for index, frame in enumerate(frames):
        check_frame(index, frame, shape)
        shape = frame.shape


def check_frame(index: int, frame: Any, shape: tuple[int, ...] | None) -> None:
    """:class:`~cardzoo.errors.InputError` naming ``frames[index]`` unless it is an
    ``(H, W, 3)`` uint8 array a GIF can hold, of ``shape`` (None: any; the first frame)."""
    if not isinstance(frame, np.ndarray):
        raise InputError(
            f"frames[{index}] is a {type(frame).__name__}; a frame must be an (H, W, 3) uint8 "
            "numpy array of RGB colours"
        )
    if frame.dtype != np.uint8 or frame.ndim != 3 or frame.shape[2] != 3:
        raise InputError(
            f"frames[{index}] must be an (H, W, 3) uint8 array of RGB colours, got an array of "
            f"shape {frame.shape} and dtype {frame.dtype}"
            + (" (RGBA? drop the alpha: frame[..., :3])" if frame.shape[2:] == (4,) else "")
        )
    if shape is not None and frame.shape != shape:
        raise InputError(
            f"frames[{index}] has shape {frame.shape} but frames[0] has {shape}: every frame of a "
            "GIF has the same size"
        )
    height, width, _ = frame.shape
    if not (0 < height <= MOST_PIXELS and 0 < width <= MOST_PIXELS):
        raise InputError(
            f"frames[{index}] has shape {frame.shape}: a GIF picture has 1 to {MOST_PIXELS} "
            "pixels across and down"
        )


def check_gif_path(path: Any) -> Path:
    """``path`` as a Path if a GIF can be written there: not empty, not a folder, in a folder
    that exists and may be written in; else :class:`~cardzoo.errors.InputError` naming it. A
    file there may be replaced (:func:`write_gif`)."""
    text = os.fsdecode(path) if isinstance(path, (str, bytes, os.PathLike)) else None
    if text is None:
        raise InputError(f"path must be a file name (a str or a path), got {path!r:.80}")
    if not text.strip():
        raise InputError("path: an empty path names no file; give a file name such as 'game.gif'")
    if os.path.isdir(text):
        raise InputError(f"path: {text!r} is a folder; give the name of a file in it")
    folder = os.path.dirname(text) or "."
    if not os.path.isdir(folder):
        what = "is a file" if os.path.exists(folder) else "does not exist"
        raise InputError(
            f"path: the folder of {text!r}, {folder!r}, {what}; give a file in an existing folder"
        )
    if not os.access(folder, os.W_OK | os.X_OK) or (
        os.path.exists(text) and not os.access(text, os.W_OK)
    ):
        raise InputError(f"path: no permission to write {text!r}")
    return Path(text)


def palette_samples(count: int) -> list[int]:
    """The frames of a game of ``count`` frames that its palette is made from: up to
    :data:`PALETTE_SAMPLES`, spread evenly from the first (the deal, every card still in play)
    to the last (the end: what a game draws only then, a struck-out card's red say, has
    colours of its own)."""
    samples = min(count, PALETTE_SAMPLES)
    if samples == 1:
        return [0]
    return [(i * (count - 1)) // (samples - 1) for i in range(samples)]


def game_palette(frames: Sequence[np.ndarray]) -> Image.Image:
    """One 256-colour palette for every frame: the colours of a few stamped frames spread over
    the game, the first and the last among them (:func:`palette_samples`; the same frames give
    the same palette). The samples are stacked one under the other as they are read, so only
    they are held, once."""
    indices = palette_samples(len(frames))
    first = frames[indices[0]]
    height = first.shape[0]
    sample = np.empty((height * len(indices), *first.shape[1:]), np.uint8)
    for row, index in enumerate(indices):
        frame = first if row == 0 else frames[index]
        sample[row * height : (row + 1) * height] = stamp(frame, f"{index + 1}/{len(frames)}")
    return Image.fromarray(sample).quantize(256, method=Image.Quantize.FASTOCTREE)


def changed_box(previous: np.ndarray | None, pixels: np.ndarray) -> tuple[int, int, int, int]:
    """The rectangle ``(left, top, right, bottom)`` of ``pixels`` (palette indices) that
    differs from ``previous``: the whole picture for the first frame, and one pixel for a frame
    that changes nothing (every frame is kept, so a step still takes its time)."""
    height, width = pixels.shape
    if previous is None:
        return 0, 0, width, height
    changed = previous != pixels
    rows = np.flatnonzero(changed.any(axis=1))
    if not rows.size:
        return 0, 0, 1, 1
    columns = np.flatnonzero(changed.any(axis=0))
    return int(columns[0]), int(rows[0]), int(columns[-1]) + 1, int(rows[-1]) + 1


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


class PackedFrames(Sequence[np.ndarray]):
    """A game's pictures kept zlib-compressed, added one at a time with :meth:`append` and read
    back one at a time (``frames[i]``, a new array each time): a recording then holds one
    picture at a time, however long the game. The compressed pictures stay in memory up to
    :data:`SPOOL_BYTES`, then go to a temporary file (removed by :meth:`close`, or with the
    object, or when the process ends).

    Every picture is checked as it is added, as :func:`write_gif` checks its frames
    (:class:`~cardzoo.errors.InputError`). Use it as a context manager, or call :meth:`close`."""

    def __init__(self) -> None:
        self._file = tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES)  # noqa: SIM115 (see close)
        self._spans: list[tuple[int, int]] = []  # where each picture's bytes are in the file
        self._end = 0
        self.shape: tuple[int, int, int] | None = None  # every picture's shape

    def append(self, frame: np.ndarray) -> None:
        """Add ``frame``, an ``(H, W, 3)`` uint8 array of the first one's shape."""
        check_frame(len(self._spans), frame, self.shape)
        data = zlib.compress(np.ascontiguousarray(frame).data, 1)  # fast; flat colours pack well
        self._file.seek(self._end)
        self._file.write(data)
        self._spans.append((self._end, len(data)))
        self._end += len(data)
        self.shape = frame.shape

    def __len__(self) -> int:
        return len(self._spans)

    @overload
    def __getitem__(self, index: int) -> np.ndarray: ...

    @overload
    def __getitem__(self, index: slice) -> list[np.ndarray]: ...

    def __getitem__(self, index: int | slice) -> np.ndarray | list[np.ndarray]:
        """Picture ``index`` (a new array); a slice gives a list of them (all held at once)."""
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if not isinstance(index, (int, np.integer)) or isinstance(index, bool):
            raise TypeError(f"PackedFrames index must be an int or a slice, got {index!r:.80}")
        start, size = self._spans[index]  # IndexError past the end: ends iteration
        self._file.seek(start)
        data = zlib.decompress(self._file.read(size))
        return np.frombuffer(data, np.uint8).reshape(self.shape).copy()

    @property
    def packed_bytes(self) -> int:
        """How many bytes the compressed pictures take."""
        return self._end

    def close(self) -> None:
        """Let the pictures go (and remove the temporary file, if there is one)."""
        self._file.close()
        self._spans.clear()

    def __enter__(self) -> PackedFrames:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
