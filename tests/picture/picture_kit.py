"""Helpers for the picture tests (a module name of its own: every test folder has a conftest)."""

from __future__ import annotations


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
