"""The run folder of an RLlib training run: settings, progress, checkpoints, metrics.

::

    runs/NAME/
      settings.json             what was asked for: game, parameters, policies, hyperparameters
      progress.jsonl            one line per training iteration (steps, time, returns, losses)
      checkpoints/
        checkpoint_000040/      RLlib's checkpoint of the whole algorithm, plus cardzoo.json
      metrics.json              written when the run is finished: evaluation, speed, versions

A checkpoint is written into a hidden temporary folder beside its final place and renamed when
complete, so a crash leaves either the previous checkpoint or the new one, never half of one; the
older checkpoints are then removed (the last :data:`KEEP_CHECKPOINTS` stay). ``progress.jsonl``
is rewritten atomically after every iteration; on resume, the lines past the checkpoint are
dropped, since training continues from the checkpoint.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cardzoo.errors import InputError
from cardzoo.io import write_bytes_atomic, write_json_atomic

SETTINGS = "settings.json"
PROGRESS = "progress.jsonl"
METRICS = "metrics.json"
CHECKPOINTS = "checkpoints"
CHECKPOINT_INFO = "cardzoo.json"
CHECKPOINT_PREFIX = "checkpoint_"
#: the numpy policy files of a checkpoint, and of the latest one in the run folder
POLICIES = "policies"
KEEP_CHECKPOINTS = 2
#: what a checkpoint's cardzoo.json says it is (and a run's settings.json)
RUN_KIND = "cardzoo-rllib"


class RunFolder:
    """Paths and files of one run folder."""

    def __init__(self, path: str | Path):
        self.path = Path(path)

    @property
    def settings_path(self) -> Path:
        return self.path / SETTINGS

    @property
    def metrics_path(self) -> Path:
        return self.path / METRICS

    @property
    def checkpoints_path(self) -> Path:
        return self.path / CHECKPOINTS

    def is_run(self) -> bool:
        return self.settings_path.is_file()

    def is_finished(self) -> bool:
        return self.metrics_path.is_file()

    # --- starting ---------------------------------------------------------------------------

    def start_new(self, settings: dict[str, Any], force: bool) -> None:
        """Prepare the folder for a new run. It must be missing or empty, or (with ``force``)
        hold an earlier run, which is removed; a folder holding anything else is never
        touched."""
        self._check_is_folder()
        occupied = self.path.is_dir() and any(self.path.iterdir())
        if occupied and not self.is_run():
            raise InputError(f"--out: {self.path} is not empty and holds no cardzoo RLlib run")
        if occupied and not force:
            state = "a finished run" if self.is_finished() else "an unfinished run"
            raise InputError(
                f"--out: {self.path} already holds {state}; --resume continues it, "
                "--force starts it over"
            )
        if occupied:
            self._clear()
        self.path.mkdir(parents=True, exist_ok=True)
        write_json_atomic(self.settings_path, settings)

    def start_resumed(self, settings: dict[str, Any]) -> None:
        """Prepare the folder to continue its run with ``settings`` (its saved ones, with the
        options that may change on resume replaced)."""
        self._check_is_folder()
        if not self.is_run():
            raise InputError(f"--resume: {self.path} holds no run to resume")
        if self.latest_checkpoint() is None:
            raise InputError(
                f"--resume: {self.path} has no checkpoint yet; start over with --force"
            )
        self.metrics_path.unlink(missing_ok=True)  # finished again only when this ends
        write_json_atomic(self.settings_path, settings)

    def _check_is_folder(self) -> None:
        if self.path.exists() and not self.path.is_dir():
            raise InputError(f"--out: {self.path} is a file, not a run folder")

    def _clear(self) -> None:
        """Remove a previous run's files (only the ones a run writes)."""
        for name in (SETTINGS, PROGRESS, METRICS):
            (self.path / name).unlink(missing_ok=True)
        shutil.rmtree(self.checkpoints_path, ignore_errors=True)

    def read_settings(self) -> dict[str, Any]:
        try:
            settings = json.loads(self.settings_path.read_text())
        except (OSError, json.JSONDecodeError) as error:
            raise InputError(f"{self.settings_path}: unreadable run settings: {error}") from error
        if not isinstance(settings, dict) or settings.get("kind") != RUN_KIND:
            raise InputError(f"{self.path} is not a cardzoo RLlib run (its settings say otherwise)")
        return settings

    # --- progress ---------------------------------------------------------------------------

    def read_progress(self) -> list[dict[str, Any]]:
        path = self.path / PROGRESS
        if not path.is_file():
            return []
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]

    def write_progress(self, rows: list[dict[str, Any]]) -> None:
        text = "".join(json.dumps(row) + "\n" for row in rows)
        write_bytes_atomic(self.path / PROGRESS, text.encode())

    # --- checkpoints ------------------------------------------------------------------------

    def checkpoints(self) -> list[Path]:
        """Complete checkpoints, oldest first (temporary folders of a crashed save excluded)."""
        if not self.checkpoints_path.is_dir():
            return []
        found = [
            path
            for path in self.checkpoints_path.iterdir()
            if path.name.startswith(CHECKPOINT_PREFIX) and (path / CHECKPOINT_INFO).is_file()
        ]
        return sorted(found, key=lambda path: path.name)

    def latest_checkpoint(self) -> Path | None:
        found = self.checkpoints()
        return found[-1] if found else None

    def save_checkpoint(
        self,
        algorithm: Any,
        info: dict[str, Any],
        write_more: Callable[[Path], None] | None = None,
    ) -> Path:
        """Save ``algorithm`` (an RLlib ``Algorithm``) with ``info`` (cardzoo.json) atomically;
        ``write_more(folder)`` adds files to the checkpoint before it appears (the policies as
        numpy files, :func:`~cardzoo.training.rllib.agent.export_policies`), and the run
        folder's ``policies/`` gets a copy of the latest checkpoint's."""
        self.checkpoints_path.mkdir(parents=True, exist_ok=True)
        final = self.checkpoints_path / f"{CHECKPOINT_PREFIX}{info['iteration']:06d}"
        temporary = Path(tempfile.mkdtemp(dir=self.checkpoints_path, prefix=f".{final.name}."))
        try:
            algorithm.save_to_path(str(temporary.absolute()))  # RLlib reads paths as URIs
            write_json_atomic(temporary / CHECKPOINT_INFO, info)
            if write_more is not None:
                write_more(temporary)
            if final.exists():  # the same iteration saved again (a resumed run's last one)
                shutil.rmtree(final)
            temporary.rename(final)
        except BaseException:
            shutil.rmtree(temporary, ignore_errors=True)
            raise
        self._copy_latest_policies(final)
        for old in self.checkpoints()[:-KEEP_CHECKPOINTS]:
            shutil.rmtree(old, ignore_errors=True)
        self._remove_stale_temporaries()
        return final

    def _copy_latest_policies(self, checkpoint: Path) -> None:
        """The checkpoint's policy files into the run folder's ``policies/`` (each replaced
        atomically), where ``rllib:RUN`` finds them."""
        latest = self.path / POLICIES
        for file in sorted((checkpoint / POLICIES).glob("*.npz")):
            latest.mkdir(exist_ok=True)
            write_bytes_atomic(latest / file.name, file.read_bytes())

    def _remove_stale_temporaries(self) -> None:
        for path in self.checkpoints_path.glob(f".{CHECKPOINT_PREFIX}*"):
            shutil.rmtree(path, ignore_errors=True)


def read_checkpoint_info(checkpoint: Path) -> dict[str, Any]:
    try:
        info = json.loads((checkpoint / CHECKPOINT_INFO).read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise InputError(f"{checkpoint}: unreadable {CHECKPOINT_INFO}: {error}") from error
    if not isinstance(info, dict) or info.get("kind") != RUN_KIND:
        raise InputError(f"{checkpoint} is not a cardzoo RLlib checkpoint")
    return info
