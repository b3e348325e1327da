"""The state of a Koryo match: a small mutable object the rules copy before changing.

Piles are count arrays (see :mod:`.cards`); players are seat indices. ``apply`` copies the state
once (a handful of short lists, no ``deepcopy``) and then works on the copy in place.
"""

from __future__ import annotations

from koryo_pbm.engine.rng import Rng

ORDERS, ACTIONS, END, OVER = "orders", "actions", "end", "over"
_copy_list = list.copy
PHASES = (ORDERS, ACTIONS, END, OVER)


class Hidden:
    """What a state built by ``from_view`` does not know: other players' hand and face-down
    sizes, the deck size and the discard size (their contents are unknown)."""

    __slots__ = ("deck", "discard", "facedown", "hands")

    def __init__(self, hands: list[int], facedown: list[int], deck: int, discard: int) -> None:
        self.hands = hands
        self.facedown = facedown
        self.deck = deck
        self.discard = discard


class KoryoState:
    """One Koryo match.

    * ``players``: seat names, clockwise (a tuple); everything else indexes seats.
    * ``round`` 1..8; ``phase`` one of ``orders``/``actions``/``end``/``over``.
    * ``first``: seat of the first player; ``turn``: in ``actions``/``end``, how many players
      (in turn order from ``first``) have already taken their turn / discard.
    * ``bank``, ``tokens[p]``: victory tokens.
    * ``tables[p]``, ``hands[p]``, ``facedown[p]``, ``discard``: count arrays of 11.
    * ``deck``: card ids, **top of the deck last** (``pop()`` draws).
    * ``rng``: the match's seeded generator.
    * ``hidden``: ``None`` for a full state; for a state rebuilt from one player's view, the
      sizes of what that player cannot see (see :class:`Hidden`).
    """

    __slots__ = (
        "bank",
        "decision",
        "deck",
        "discard",
        "facedown",
        "first",
        "hands",
        "hidden",
        "phase",
        "players",
        "rng",
        "round",
        "tables",
        "tokens",
        "turn",
    )

    players: tuple[str, ...]
    round: int
    phase: str
    first: int
    turn: int
    bank: int
    tokens: list[int]
    tables: list[list[int]]
    hands: list[list[int]]
    facedown: list[list[int]]
    deck: list[int]
    discard: list[int]
    rng: Rng | None
    hidden: Hidden | None
    #: the pending decision, computed once (a state is never changed after ``apply`` returns it)
    decision: object

    def copy(self) -> KoryoState:
        """A copy whose piles and counters can be changed without touching ``self`` (the
        generator is shared until something draws from it, see :func:`.rules.end_round`)."""
        t = KoryoState.__new__(KoryoState)
        t.players = self.players
        t.round = self.round
        t.phase = self.phase
        t.first = self.first
        t.turn = self.turn
        t.bank = self.bank
        t.tokens = self.tokens[:]
        t.tables = [*map(_copy_list, self.tables)]
        t.hands = [*map(_copy_list, self.hands)]
        t.facedown = [*map(_copy_list, self.facedown)]
        t.deck = self.deck[:]
        t.discard = self.discard[:]
        # The generator is shared, not copied: the only draws after set-up are the round-end
        # shuffles, and :func:`.rules.end_round` gives the state its own copy before drawing.
        t.rng = self.rng
        t.hidden = self.hidden  # never mutated
        t.decision = None
        return t

    # -- helpers -------------------------------------------------------------------------

    def seat(self, name: str) -> int:
        return self.players.index(name)

    def current(self) -> int:
        """The seat whose action turn or discard is next (``actions``/``end`` phases)."""
        return (self.first + self.turn) % len(self.players)

    def hand_size(self, p: int) -> int:
        n = sum(self.hands[p])
        return n + self.hidden.hands[p] if self.hidden is not None else n

    def facedown_size(self, p: int) -> int:
        n = sum(self.facedown[p])
        return n + self.hidden.facedown[p] if self.hidden is not None else n

    def deck_size(self) -> int:
        return len(self.deck) + (self.hidden.deck if self.hidden is not None else 0)

    def discard_size(self) -> int:
        return sum(self.discard) + (self.hidden.discard if self.hidden is not None else 0)

    def key(self) -> tuple:
        """Everything but the generator, for comparing states in tests."""
        return (self.players, self.round, self.phase, self.first, self.turn, self.bank,
                tuple(self.tokens), tuple(map(tuple, self.tables)), tuple(map(tuple, self.hands)),
                tuple(map(tuple, self.facedown)), tuple(self.deck), tuple(self.discard))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, KoryoState) and self.key() == other.key() and self.rng == other.rng

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (f"KoryoState(round={self.round}, phase={self.phase!r}, turn={self.turn}, "
                f"players={self.players!r})")
