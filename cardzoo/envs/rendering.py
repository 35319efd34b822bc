"""``render()`` of every cardzoo environment (the AEC base and Foxy's parallel form), in the three
modes they offer, and the seat's-eye view.

- ``"ansi"``: the table as text (``Game.render``);
- ``"rgb_array"``: the table as a picture, an ``(H, W, 3)`` uint8 array (``Game.picture``, drawn
  by the game's ``picture`` module with Pillow); H and W depend only on the game's parameters;
- ``"human"``: that picture in a window where a display exists (through matplotlib, without
  blocking), else the text printed, with a one-line note the first time.

:meth:`Rendering.render_seat` draws what one seat may see, whatever the render mode. Pictures cost
nothing until one is asked for: ``step`` only remembers who took the last action and which (two
attribute stores), and Pillow and the games' picture modules are imported on the first picture.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import gymnasium
import numpy as np

from cardzoo.errors import InputError

RENDER_MODES = ["ansi", "human", "rgb_array"]
#: frames per second a video of a game is played at (Gymnasium's and PettingZoo's metadata key)
RENDER_FPS = 2


class Rendering:
    """``render()``, ``render_seat()`` and ``close()`` over ``self.game``, ``self.state_``,
    ``self.render_mode`` and the latest move: ``self._last_agent`` and ``self._last_action`` in
    the AEC form, ``self._last_moves`` (every agent's action of the last card) in Foxy's
    parallel form."""

    game: Any
    state_: Any
    render_mode: str | None
    _last_agent: str | None = None
    _last_action: int | None = None
    _last_moves: tuple | None = None
    _display: HumanDisplay | None = None

    @property
    def last_actions(self) -> dict[int, int] | None:
        """Player -> action of the latest move (None before the first move of a game)."""
        if self._last_moves:
            moves = self._last_moves
        elif self._last_agent is not None:
            moves = ((self._last_agent, self._last_action),)
        else:
            return None
        return {self.agent_name_mapping[agent]: int(action) for agent, action in moves}

    def render(self) -> str | np.ndarray | None:
        """The whole table (every card face up) in the environment's ``render_mode``."""
        if self.render_mode is None:
            gymnasium.logger.warn(
                "render() called without a render_mode; pass render_mode='ansi' or 'rgb_array'"
            )
            return None
        self._require_state()
        if self.render_mode == "ansi":
            return self.game.render(self.state_)
        if self.render_mode == "rgb_array":
            return self.game.picture(self.state_, None, self.last_actions)
        if self._display is None:
            self._display = HumanDisplay(self.metadata["name"])
        self._display.show(
            lambda: self.game.picture(self.state_, None, self.last_actions),
            lambda: self.game.render(self.state_),
        )
        return None

    def render_seat(self, agent: str, mode: str = "rgb_array") -> str | np.ndarray:
        """What ``agent`` sees of the table: their own cards face up, every card they may not
        see face down, the last actions as they saw them. ``mode`` "rgb_array" (default): an
        ``(H, W, 3)`` uint8 picture of the same size as ``render()``'s; "ansi": the text.
        Works whatever the environment's ``render_mode`` (``None`` included)."""
        if not isinstance(agent, str) or agent not in self.agent_name_mapping:
            raise InputError(
                f"render_seat: agent={agent!r:.80} is not one of {self.possible_agents}"
            )
        if mode not in ("rgb_array", "ansi"):
            raise InputError(
                f"render_seat: mode={mode!r:.80} is not allowed; use 'rgb_array' or 'ansi'"
            )
        self._require_state("render_seat")
        player = self.agent_name_mapping[agent]
        if mode == "ansi":
            return self.game.render(self.state_, player)
        return self.game.picture(self.state_, player, self.last_actions)

    def close(self) -> None:
        if self._display is not None:
            self._display.close()
            self._display = None

    def _require_state(self, method: str = "render") -> None:
        if self.state_ is None:
            raise RuntimeError(f"{method}() called before reset()")


def display_available() -> bool:
    """Whether a window can be opened: on Linux and other X11/Wayland systems only with
    ``DISPLAY`` or ``WAYLAND_DISPLAY`` set; macOS and Windows always have a screen."""
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


class HumanDisplay:
    """``render_mode="human"``: the picture in a matplotlib window that is updated in place and
    never blocks (``plt.pause``); without a display, or where matplotlib has no interactive
    backend, the text is printed, with a one-line note the first time."""

    def __init__(self, title: str):
        self.title = title
        self._figure = None
        self._image = None
        self._noted = False
        self._use_window = display_available() and _interactive_matplotlib()

    def show(self, frame: Any, text: Any) -> None:
        """Show ``frame()`` in the window, or print ``text()``: each is called only if needed."""
        if self._use_window:
            self._show_frame(frame())
            return
        if not self._noted:
            print("(no display for a window: render_mode='human' prints the table as text)")
            self._noted = True
        print(text())

    def _show_frame(self, frame: np.ndarray) -> None:
        import matplotlib.pyplot as plt

        if self._figure is None or not plt.fignum_exists(self._figure.number):
            height, width, _ = frame.shape
            self._figure = plt.figure(self.title, figsize=(width / 100, height / 100), dpi=100)
            axes = self._figure.add_axes((0, 0, 1, 1))
            axes.set_axis_off()
            self._image = axes.imshow(frame)
        else:
            self._image.set_data(frame)
        plt.pause(0.001)

    def close(self) -> None:
        if self._figure is not None:
            import matplotlib.pyplot as plt

            plt.close(self._figure)
            self._figure = None


def _interactive_matplotlib() -> bool:
    """Whether matplotlib's backend opens windows (not Agg, nor a notebook's inline one)."""
    try:
        import matplotlib
        from matplotlib.backends import BackendFilter, backend_registry
    except ImportError:
        return False
    interactive = backend_registry.list_builtin(BackendFilter.INTERACTIVE)
    return matplotlib.get_backend().lower() in {name.lower() for name in interactive}
