"""The learning curve of a run: win rate against each evaluation opponent over training, with
its 95% confidence band (and, where the game is scored in points, the mean score)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cardzoo.io import write_bytes_atomic


def learning_curve(history: list[dict[str, Any]], path: str | Path, title: str = "") -> None:
    """Plot ``history`` (the periodic evaluations of a run) into the PNG ``path``."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (wins, scores) = plt.subplots(1, 2, figsize=(11, 4))
    steps = [entry["timesteps"] for entry in history]
    opponents = list(history[0]["against"]) if history else []
    for opponent in opponents:
        results = [entry["against"][opponent] for entry in history]
        line = wins.plot(steps, [r["win_rate"] for r in results], marker="o", label=opponent)[0]
        wins.fill_between(
            steps,
            [r["win_rate_ci"][0] for r in results],
            [r["win_rate_ci"][1] for r in results],
            color=line.get_color(),
            alpha=0.2,
        )
        scores.plot(steps, [r["mean_score"] for r in results], marker="o", label=opponent)
        scores.fill_between(
            steps,
            [r["mean_score_ci"][0] for r in results],
            [r["mean_score_ci"][1] for r in results],
            color=line.get_color(),
            alpha=0.2,
        )
    wins.set(xlabel="training steps", ylabel="win rate (95% CI)", ylim=(0, 1))
    wins.set_title("learner in one seat, opponents in all others")
    scores.set(xlabel="training steps", ylabel="learner's mean score (95% CI)")
    for axes in (wins, scores):
        axes.grid(alpha=0.3)
        axes.legend(title="against")
    figure.suptitle(title)
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100)
    plt.close(figure)
    write_bytes_atomic(path, buffer.getvalue())
