"""The Korsar state: one plain value, copied (never changed) by the rules."""

from __future__ import annotations

from dataclasses import dataclass, field

from koryo_pbm.engine.rng import Rng


@dataclass
class Galleon:
    """A galleon on the table. ``id`` is public and stable (``"g1"``, ``"g2"``... in the order
    galleons were played). ``beside`` maps each player who has cards beside it to those cards,
    in the order they were played."""

    id: str
    owner: str
    card: str
    beside: dict[str, list[str]] = field(default_factory=dict)

    def copy(self) -> Galleon:
        return Galleon(self.id, self.owner, self.card, {p: list(cs) for p, cs in self.beside.items()})


@dataclass
class KorsarState:
    """A whole match.

    * ``players`` in clockwise seat order; ``teams`` pairs ``(first, second)`` where ``second``
      sits right after ``first`` (empty when everybody plays alone).
    * ``hands``, ``pile`` (top first), ``galleons`` (the table, in the order played),
      ``loot`` (galleons seized, per player who took them), ``removed`` (cards out of the game).
    * ``current`` the seat index of the player whose turn it is (the last one to play when the
      match is over), ``turn`` the number of that turn (1, 2, ... across the whole table).
    * ``last_beside`` the id of the galleon the previous turn's player put a card beside
      (``""`` if they did not): the team rule "not both beside one galleon in the same round".
    * ``last_launched`` the id of the galleon the previous turn's player put to sea (``""`` if
      they did not): in a team, the second teammate may defend it at once with the admiral.
      Optional in stored states and positions (older files have none).
    * ``next_galleon`` the number the next galleon played gets (``g<next_galleon>``).
    """

    players: tuple[str, ...]
    teams: tuple[tuple[str, str], ...]
    hands: dict[str, list[str]]
    pile: list[str]
    galleons: list[Galleon]
    loot: dict[str, list[str]]
    removed: list[str]
    current: int
    turn: int
    next_galleon: int
    last_beside: str
    over: bool
    rng: Rng
    last_launched: str = ""

    def copy(self) -> KorsarState:
        return KorsarState(
            players=self.players,
            teams=self.teams,
            hands={p: list(cs) for p, cs in self.hands.items()},
            pile=list(self.pile),
            galleons=[g.copy() for g in self.galleons],
            loot={p: list(cs) for p, cs in self.loot.items()},
            removed=list(self.removed),
            current=self.current,
            turn=self.turn,
            next_galleon=self.next_galleon,
            last_beside=self.last_beside,
            over=self.over,
            rng=self.rng.copy(),
            last_launched=self.last_launched,
        )

    # -- seats and sides ------------------------------------------------------------------

    @property
    def current_player(self) -> str:
        return self.players[self.current]

    def galleon(self, gid: str) -> Galleon | None:
        for g in self.galleons:
            if g.id == gid:
                return g
        return None

    def side(self, player: str) -> str:
        """The side a player plays for: their own name alone, ``"first+second"`` in a team."""
        for first, second in self.teams:
            if player in (first, second):
                return f"{first}+{second}"
        return player

    def members(self, side: str) -> tuple[str, ...]:
        for first, second in self.teams:
            if side == f"{first}+{second}":
                return (first, second)
        return (side,)

    def sides(self) -> list[str]:
        if self.teams:
            return [f"{a}+{b}" for a, b in self.teams]
        return list(self.players)

    def partner(self, player: str) -> str | None:
        for first, second in self.teams:
            if player == first:
                return second
            if player == second:
                return first
        return None

    def is_second_teammate(self, player: str) -> bool:
        return any(player == second for _, second in self.teams)

    def holder(self, side: str) -> str:
        """Who keeps a side's loot: the player, or a team's first teammate (who seizes)."""
        return self.members(side)[0]
