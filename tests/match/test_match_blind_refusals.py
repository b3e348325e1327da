"""A blind game's refusals hold in the library, not only in ``new``: ``match.create`` (used by
``new``, ``demo``, the judge's sign-ups and any program) refuses each blind table the command
line refuses, with the same one-line reason, and makes the games next to them.

No sign-up path makes a blind game: ``signup.start`` never passes ``blind`` to ``create`` and
``new --invite --blind`` is refused (a blind game cannot take its seats by mail yet), so these
refusals are tested here, where the judge's path would meet them."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from koryo_pbm import match
from koryo_pbm.crypto.keys import Identity
from koryo_pbm.deadlines import DEFAULT_KIND, Policy
from koryo_pbm.engine.registry import find_game
from koryo_pbm.errors import KoryoPbmError, SetupError

KEYS = {n: Identity.generate(n) for n in ("mod", "alice", "bob", "carl")}
MOD = KEYS["mod"]
BLIND = ("mod", "carl", KEYS["carl"].public)
NOW = datetime(2026, 11, 26, tzinfo=UTC)


def _players(*seats: str) -> dict[str, Any]:
    """Seats in order; a name without a key of its own (cat, dog) is a bot seat (the moderator's key)."""
    return {s: KEYS[s].public if s in KEYS else MOD.public for s in seats}


def _create(game_name: str, seats=("alice", "bob"), *, game=None, **kw):
    return match.create(game or find_game(game_name), MOD, _players(*seats), blind=BLIND, now=NOW, **kw)


def _refused(said: str, *args, **kw) -> None:
    with pytest.raises(SetupError) as info:
        _create(*args, **kw)
    assert str(info.value) == said
    assert "\n" not in said


class _WithoutBlindRules:
    """A game as a plug-in without blind rules would be (the contract's default)."""

    def __init__(self, inner) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def blind_rules(self) -> None:
        return None


class _RulesWithoutBots:
    """Blind rules that choose no bot's order (a plug-in whose bots cannot play blind)."""

    def __init__(self, inner) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        if name == "bot_order":
            raise AttributeError(name)
        return getattr(self.inner, name)


class _WithoutBlindBots(_WithoutBlindRules):
    def blind_rules(self) -> Any:  # type: ignore[override]
        return _RulesWithoutBots(self.inner.blind_rules())


HOUR = {"deadlines": {DEFAULT_KIND: "1h"}}


def test_the_blind_refusals_of_new_hold_in_match_create():
    koryo = find_game("koryo")
    _refused("Koryo has no blind rules: it cannot be played at a blind table (--blind)", "koryo",
             game=_WithoutBlindRules(koryo))
    _refused("a blind game cannot start from --position (a position shows the hands)", "koryo",
             position={"game": "koryo", "players": ["alice", "bob"]})
    _refused("a blind game takes no --seed (the deck's order is the two dealers', not a seed's)", "koryo", seed="x")
    no_bots = _WithoutBlindBots(koryo)
    _refused("Koryo has no bots at a blind table: no --bot seat, no --missed bot", "koryo", ("alice", "bob", "cat"),
             game=no_bots, policy=Policy(bots={"cat": "random"}))
    _refused("Koryo has no bots at a blind table: no --bot seat, no --missed bot", "koryo", game=no_bots,
             policy=Policy(**HOUR, missed="bot", bot_level="random"))
    _refused("a blind game has no abandoned seats yet (--abandon-after): with --missed bot the dealers open an absent "
             "player's hand to the moderator at each missed deadline", "koryo",
             policy=Policy(**HOUR, missed="bot", bot_level="heuristic", abandon_after=2))
    # without what each refused, the same blind games are made (a player and a bot seat, missed orders played)
    doc, _ = _create("koryo", ("alice", "bob", "cat"), policy=Policy(**HOUR, missed="bot", bot_level="heuristic",
                                                                     bots={"cat": "random"}))
    assert doc.deal == "blind" and list(doc.players) == ["alice", "bob", "cat", "carl"]
    assert _create("koryo", game=no_bots)[0].deal == "blind"  # no bots asked: no bots needed


def test_korsar_bot_refusals_of_new_hold_in_match_create():
    missed = "Korsar has no --missed bot at a blind table yet (its bot seats, --bot, can play)"
    _refused(missed, "korsar", policy=Policy(**HOUR, missed="bot", bot_level="random"))
    _refused(missed, "korsar", ("alice", "bob", "cat"),
             policy=Policy(**HOUR, missed="bot", bot_level="heuristic", bots={"cat": "random"}))
    four = ("alice", "cat", "bob", "dog")
    bots = Policy(bots={"cat": "random", "dog": "random"})
    for teams, partner, bot in (([["alice", "cat"], ["bob", "dog"]], "alice", "cat"),
                                ([["cat", "bob"], ["alice", "dog"]], "bob", "cat")):
        _refused(f"{partner} is the partner of bot seat {bot}: at a blind table the moderator, who runs the bot, would "
                 f"see {partner}'s cards (seat both partners as bots, or neither)", "korsar", four, policy=bots,
                 options={"teams": teams})
    doc, _ = _create("korsar", ("alice", "bob", "cat", "dog"), policy=bots,
                     options={"teams": [["alice", "bob"], ["cat", "dog"]]})
    assert doc.deal == "blind" and doc.service["bots"] == {"cat": "random", "dog": "random"}


def test_the_most_specific_reason_comes_first():
    """A blind table's refusal comes before a bot level's or the co-dealer's: the game itself
    cannot do what is asked, whatever the rest says."""
    with pytest.raises(KoryoPbmError, match="no --missed bot at a blind table"):
        _create("korsar", policy=Policy(**HOUR, missed="bot", bot_level="no-such-level"))
    with pytest.raises(KoryoPbmError, match="no bots at a blind table"):
        _create("koryo", ("alice", "bob", "cat"), game=_WithoutBlindBots(find_game("koryo")),
                policy=Policy(bots={"cat": "no-such-level"}))
