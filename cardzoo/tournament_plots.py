"""Pictures of a tournament: the ratings with error bars, the pairwise scores as a heat map.

The figures are plain matplotlib ``Figure`` objects drawn with the Agg backend (no pyplot, so no
window and no global figure state): a notebook shows them, :func:`save_figure` writes a PNG.
"""

from __future__ import annotations

import io
import os
from typing import TYPE_CHECKING

import matplotlib
import numpy as np
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from cardzoo.io import write_bytes_atomic
from cardzoo.stats import Z_95

if TYPE_CHECKING:  # the tournament module imports this one when it draws
    from cardzoo.tournament import TournamentResult


def _figure_and_axes(ax: Axes | None, width: float, height: float) -> tuple[Figure, Axes]:
    if ax is not None:
        return ax.figure, ax
    figure = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(figure)
    return figure, figure.add_subplot()


def plot_ratings(result: TournamentResult, ax: Axes | None = None) -> Figure:
    """Each agent's mu with its 95% interval (mu ± 1.96 sigma), best at the top, and a tick at
    its conservative ordinal (mu - 3 sigma), the number the ranking uses."""
    agents = result.agents
    figure, ax = _figure_and_axes(ax, 7, 1.2 + 0.45 * len(agents))
    mus = np.array([result.ratings[agent].mu for agent in agents])
    sigmas = np.array([result.ratings[agent].sigma for agent in agents])
    rows = np.arange(len(agents))[::-1]  # the best agent on top
    ax.errorbar(mus, rows, xerr=Z_95 * sigmas, fmt="o", capsize=4, label="mu ± 1.96 sigma")
    ax.plot(mus - 3 * sigmas, rows, "|", markersize=14, color="black", label="ordinal mu - 3 sigma")
    ax.set_yticks(rows, agents)
    ax.set_ylim(-0.7, len(agents) - 0.3)
    ax.set_xlabel("rating (openskill Plackett-Luce)")
    ax.set_title(f"{result.game}, {result.num_players} players: ratings")
    ax.legend(loc="best", fontsize="small")
    ax.grid(axis="x", alpha=0.3)
    return figure


def plot_pairwise(result: TournamentResult, ax: Axes | None = None) -> Figure:
    """The score of each row agent against each column agent (draws count 1/2), with its 95%
    interval written in the cell: red below 1/2, blue above."""
    scores, intervals = result.score_matrix()
    agents = result.agents
    size = 2.5 + 1.3 * len(agents)
    figure, ax = _figure_and_axes(ax, size + 1.5, size)
    colours = matplotlib.colormaps["RdBu"].with_extremes(bad="0.85")  # grey diagonal
    image = ax.imshow(scores, cmap=colours, vmin=0.0, vmax=1.0)
    for i, j in np.ndindex(scores.shape):
        if i == j:
            continue
        low, high = intervals[i, j]
        ax.text(
            j,
            i,
            f"{scores[i, j]:.2f}\n[{low:.2f}, {high:.2f}]",
            ha="center",
            va="center",
            fontsize="small",
            color="white" if abs(scores[i, j] - 0.5) > 0.3 else "black",
        )
    ax.set_xticks(range(len(agents)), agents, rotation=30, ha="right")
    ax.set_yticks(range(len(agents)), agents)
    ax.set_xlabel("opponent")
    ax.set_ylabel("agent")
    ax.set_title(f"{result.game}, {result.num_players} players: score of row against column")
    figure.colorbar(image, ax=ax, label="score (wins + draws / 2) / games", shrink=0.8)
    return figure


def save_figure(figure: Figure, path: str | os.PathLike, dpi: int = 120) -> None:
    """Write ``figure`` as a PNG atomically (rendered in memory first)."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi)
    write_bytes_atomic(path, buffer.getvalue())
