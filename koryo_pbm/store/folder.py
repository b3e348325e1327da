"""The game folder: ``game.toml``, ``inbox/`` and ``archive/``."""

from __future__ import annotations

from pathlib import Path

from koryo_pbm.errors import StorageError

GAME_FILE = "game.toml"


def game_paths(target: str | Path | None) -> tuple[Path, Path]:
    """``(folder, game file)`` for a folder or a game file path (default: current folder)."""
    path = Path(target) if target is not None else Path(".")
    if path.is_dir():
        return path, path / GAME_FILE
    if path.exists() or path.suffix == ".toml":
        return path.parent, path
    raise StorageError(f"no game folder or game file at {path}")
