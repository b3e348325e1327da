"""Helpers for the Korsar tests: positions from TOML text, orders in one call."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from koryo_pbm_games.korsar import KorsarGame

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "positions"


class Table:
    """A Korsar game driven from a test: ``t.load(toml)``, ``t.play("bob", "red-3", "g1")``."""

    def __init__(self) -> None:
        self.game = KorsarGame()
        self.state = None
        self.events = []

    def load(self, text: str, seed: str = "test"):
        self.state = self.game.load_position(tomllib.loads(text), seed)
        return self.state

    def example(self, name: str, seed: str = "test"):
        with open(EXAMPLES / name, "rb") as f:
            self.state = self.game.load_position(tomllib.load(f), seed)
        return self.state

    def order(self, player: str, order: dict):
        self.state, self.events = self.game.apply(self.state, {player: order})
        self.game.check_invariants(self.state)
        return self.events

    def draw(self, player: str):
        return self.order(player, {"action": "draw"})

    def play(self, player: str, card: str, galleon: str | None = None):
        o = {"action": "play", "card": card}
        if galleon is not None:
            o["galleon"] = galleon
        return self.order(player, o)

    def discard(self, player: str, card: str):
        return self.order(player, {"action": "discard", "card": card})

    @property
    def current(self) -> str | None:
        d = self.game.pending(self.state)
        return d.players[0] if d else None

    @property
    def texts(self) -> list[str]:
        return [e.text for e in self.events]

    def galleon(self, gid: str):
        return self.state.galleon(gid)

    def legal(self, player: str | None = None) -> list[dict]:
        return self.game.legal_orders(self.state, player or self.current)


@pytest.fixture
def game():
    return KorsarGame()


@pytest.fixture
def table():
    return Table()
