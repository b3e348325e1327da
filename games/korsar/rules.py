"""The rules of Korsar as pure functions over :class:`KorsarState`.

Nothing here does I/O or draws chance except through the state's :class:`Rng`. Functions whose
name starts with ``do_`` change the state they are given: :mod:`.game` always hands them a copy.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from koryo_pbm.engine.contract import Event
from koryo_pbm.engine.rng import Rng
from koryo_pbm.errors import IllegalOrder, OrderError, SetupError

from . import cards as C
from .state import Galleon, KorsarState

PLAYER_COUNTS: tuple[int, ...] = (2, 3, 4, 5, 6, 8)
HAND_SIZE = 6
ACTIONS = ("draw", "play", "discard")
ORDER_KEYS = ("action", "card", "galleon")
GALLEON_ID = re.compile(r"g[1-9][0-9]*")


# -- set-up -----------------------------------------------------------------------------


def check_players(players: object) -> tuple[str, ...]:
    if isinstance(players, str) or not isinstance(players, Sequence):
        raise SetupError("players must be a list of names")
    names = tuple(players)
    for p in names:
        if not isinstance(p, str) or not p.strip():
            raise SetupError(f"player names must be non-empty text, not {p!r}")
        if "+" in p:
            raise SetupError(f"player name {p!r} must not contain '+' (it joins teammates' names)")
    dupes = sorted({p for p in names if names.count(p) > 1})
    if dupes:
        raise SetupError(f"player names must be different: {', '.join(dupes)} appears twice")
    n = len(names)
    if n == 7:
        raise SetupError("Korsar cannot be played by 7 players (2, 3, 4, 5, 6 or 8)")
    if n not in PLAYER_COUNTS:
        raise SetupError(f"Korsar is for 2, 3, 4, 5, 6 or 8 players, not {n}")
    return names


def resolve_teams(players: tuple[str, ...], option: object) -> tuple[tuple[str, str], ...]:
    """The teams as ``(first, second)`` pairs in seat order, from the ``teams`` option.

    ``first`` is the teammate whose left-hand neighbour (next clockwise) is the partner, so the
    pair always plays first then second in consecutive turns."""
    n = len(players)
    if option is None or option is False:
        if n in (6, 8):
            raise SetupError(f"{n} players play Korsar as teams of two: set the option teams (true, or the pairs)")
        return ()
    if n in (2, 3, 5):
        raise SetupError(f"{n} players play Korsar alone: teams are only for 4 (optional), 6 or 8 players")
    seat = {p: i for i, p in enumerate(players)}
    if option is True:
        return tuple((players[i], players[i + 1]) for i in range(0, n, 2))
    if isinstance(option, str) or not isinstance(option, Sequence):
        raise SetupError("option teams must be true or a list of pairs of player names, e.g. [[\"a\", \"b\"], [\"c\", \"d\"]]")
    pairs: list[tuple[str, str]] = []
    seen: set[str] = set()
    for pair in option:
        if isinstance(pair, str) or not isinstance(pair, Sequence) or len(pair) != 2:
            raise SetupError(f"each team is a pair of two player names, not {pair!r}")
        for p in pair:
            if not isinstance(p, str) or p not in seat:
                raise SetupError(f"team {list(pair)!r} names {p!r}, who does not play")
            if p in seen:
                raise SetupError(f"{p} is in two teams")
            seen.add(p)
        a, b = pair
        if (seat[b] - seat[a]) % n == 1:
            pairs.append((a, b))
        elif (seat[a] - seat[b]) % n == 1:
            pairs.append((b, a))
        else:
            raise SetupError(f"{a} and {b} are not neighbours: teammates sit side by side (consecutive seats)")
    missing = [p for p in players if p not in seen]
    if missing:
        raise SetupError(f"every player must be in a team of two: {', '.join(missing)} is in none")
    pairs.sort(key=lambda pair: seat[pair[0]])
    return tuple(pairs)


def new_match(
    players: Sequence[str], seed: str, first: str | None, options: Mapping[str, Any] | None
) -> KorsarState:
    names = check_players(players)
    opts = dict(options or {})
    unknown = sorted(set(opts) - {"teams"})
    if unknown:
        raise SetupError(f"Korsar has no option {', '.join(unknown)} (options: teams)")
    teams = resolve_teams(names, opts.get("teams"))
    if first is not None and first not in names:
        raise SetupError(f"first player {first!r} does not play")
    rng = Rng.from_seed(seed)
    deck = C.full_deck()
    rng.shuffle(deck)
    hands: dict[str, list[str]] = {p: [] for p in names}
    for _ in range(HAND_SIZE):
        for p in names:
            hands[p].append(deck.pop(0))
    start = names.index(first) if first is not None else rng.below(len(names))
    return KorsarState(
        players=names,
        teams=teams,
        hands=hands,
        pile=deck,
        galleons=[],
        loot={p: [] for p in names},
        removed=[],
        current=start,
        turn=1,
        next_galleon=1,
        last_beside="",
        over=False,
        rng=rng,
    )


# -- control ----------------------------------------------------------------------------


def strengths(s: KorsarState, g: Galleon) -> dict[str, int]:
    """Pirate strength of every side with a card beside ``g`` (0 for a side with only the admiral)."""
    out: dict[str, int] = {}
    for p, cs in g.beside.items():
        side = s.side(p)
        out[side] = out.get(side, 0) + sum(C.strength(c) for c in cs if C.is_pirate(c))
    return out


def personage(g: Galleon) -> tuple[str, str] | None:
    """The captain or admiral beside ``g`` as ``(player, card)``, if any."""
    for p, cs in g.beside.items():
        for c in cs:
            if C.is_personage(c):
                return p, c
    return None


def controller(s: KorsarState, g: Galleon) -> str | None:
    """The side that controls ``g`` now, or ``None`` (equal strengths)."""
    boss = personage(g)
    if boss is not None:
        return s.side(boss[0])  # the admiral is always its owner's
    owner_side = s.side(g.owner)
    st = strengths(s, g)
    if all(side == owner_side for side in st):
        return owner_side  # nobody else has a card beside it
    best = max(st.values())
    top = [side for side, v in st.items() if v == best]
    return top[0] if len(top) == 1 else None


def side_colour(s: KorsarState, g: Galleon, side: str) -> str:
    for m in s.members(side):
        for c in g.beside.get(m, ()):
            if C.is_pirate(c):
                return C.colour(c)
    return ""


def colour_user(s: KorsarState, g: Galleon, colour: str, side: str) -> str:
    """A player of another side using ``colour`` beside ``g`` (``""`` if none)."""
    for p, cs in g.beside.items():
        if s.side(p) != side and any(C.is_pirate(c) and C.colour(c) == colour for c in cs):
            return p
    return ""


def colours(s: KorsarState, g: Galleon) -> dict[str, str]:
    """Each player's colour beside ``g`` (their side's colour; players with only the admiral have none)."""
    out = {}
    for p in g.beside:
        col = side_colour(s, g, s.side(p))
        if col:
            out[p] = col
    return out


# -- orders -----------------------------------------------------------------------------


def parse_order(order: object) -> tuple[str, str, str]:
    """``(action, card, galleon)`` from an order, ``""`` for what it leaves out; raises
    :class:`OrderError` for anything malformed."""
    if not isinstance(order, Mapping):
        raise OrderError('an order is a table such as {action = "draw"} or {action = "play", card = "galleon-5"}')
    unknown = sorted(str(k) for k in order if k not in ORDER_KEYS)
    if unknown:
        raise OrderError(f"unknown key {', '.join(repr(k) for k in unknown)} in order (keys: action, card, galleon)")
    action = order.get("action")
    if action is None:
        raise OrderError("the order has no action (draw, play or discard)")
    if not isinstance(action, str) or action not in ACTIONS:
        raise OrderError(f"unknown action {action!r} (draw, play or discard)")
    card = order.get("card")
    galleon = order.get("galleon")
    if action == "draw":
        if card is not None or galleon is not None:
            raise OrderError("draw takes no card and no galleon")
        return action, "", ""
    if card is None:
        raise OrderError(f"{action} needs a card")
    if not isinstance(card, str):
        raise OrderError(f"card must be a card id such as \"red-3\", not {card!r}")
    if not C.is_card(card):
        raise OrderError(f"unknown card {card!r} (e.g. galleon-5, red-3, blue-captain, admiral)")
    if galleon is not None:
        if not isinstance(galleon, str):
            raise OrderError(f"galleon must be a galleon id such as \"g1\", not {galleon!r}")
        if not GALLEON_ID.fullmatch(galleon):
            raise OrderError(f"{galleon!r} is not a galleon id (they look like g1, g2, ...)")
    if action == "discard":
        if galleon is not None:
            raise OrderError("a discard takes no galleon")
        return action, card, ""
    if C.is_galleon(card):
        if galleon is not None:
            raise OrderError(f"{card} is placed in front of you, not beside a galleon: leave out galleon")
        return action, card, ""
    if galleon is None:
        raise OrderError(f"playing {card} needs the galleon to put it beside, e.g. galleon = \"g1\"")
    return action, card, galleon


def violation(s: KorsarState, player: str, action: str, card: str, gid: str) -> str | None:
    """The rule a well-formed order breaks, in words, or ``None`` if it is legal."""
    if s.over:
        return "the game is over"
    if player != s.current_player:
        return f"it is {s.current_player}'s turn, not {player}'s"
    if action == "draw":
        if not s.pile:
            return "the draw pile is empty: nobody can draw any more"
        return None
    if card not in s.hands[player]:
        return f"{player} has no {card} in hand"
    if action == "discard":
        if C.is_galleon(card):
            return "a galleon can never be discarded"
        if s.pile:
            return f"discarding is allowed only once the draw pile is empty ({len(s.pile)} cards left)"
        return None
    if C.is_galleon(card):
        return None
    g = s.galleon(gid)
    if g is None:
        return f"there is no galleon {gid} on the table"
    if s.teams and s.last_beside == gid and s.is_second_teammate(player):
        return (
            "teammates may not both put cards beside one galleon in the same round: "
            f"{s.partner(player)} put a card beside {gid} this round"
        )
    if C.is_admiral(card):
        if g.owner == player or launched_by_partner(s, player, g):
            return None
        if s.teams and s.is_second_teammate(player):
            return (f"the admiral goes only beside a galleon you own, or beside the galleon {s.partner(player)} "
                    f"has just put to sea: {gid} is {g.owner}'s")
        return f"the admiral goes only beside a galleon you own: {gid} is {g.owner}'s"
    side = s.side(player)
    mine = side_colour(s, g, side)
    who = "your team's" if s.teams else "your"
    col = C.colour(card)
    if C.is_captain(card):
        if mine != col:
            has = "your team has" if s.teams else "you have"
            return f"a captain needs a pirate of its colour beside the galleon: {has} no {col} pirate beside {gid}"
        return None
    if mine and col != mine:
        return f"{who} colour beside {gid} is {mine}: later pirates there must be {mine}"
    user = colour_user(s, g, col, side)
    if user:
        return f"colour {col} is already used beside {gid} by {user}"
    return None


def launched_by_partner(s: KorsarState, player: str, g: Galleon) -> bool:
    """In a team, ``g`` is the galleon the first teammate put to sea in the turn just before the
    second teammate ``player``'s: the one case where the admiral may go beside a galleon its
    player does not own."""
    return bool(s.teams) and s.last_launched == g.id and s.is_second_teammate(player) and g.owner == s.partner(player)


def check_order(s: KorsarState, player: str, order: object) -> tuple[str, str, str]:
    if player not in s.players:
        raise OrderError(f"{player!r} does not play in this match")
    action, card, gid = parse_order(order)
    broken = violation(s, player, action, card, gid)
    if broken is not None:
        raise IllegalOrder(f"illegal order: {broken}")
    return action, card, gid


def legal_orders(s: KorsarState, player: str, limit: int = 0) -> list[dict[str, str]]:
    """Every distinct legal order of ``player`` (at most ``limit`` if it is not 0)."""
    if s.over or player != s.current_player:
        return []
    out: list[dict[str, str]] = []
    if s.pile:
        out.append({"action": "draw"})
    for card in C.sorted_cards(list(set(s.hands[player]))):
        if limit and len(out) >= limit:
            break
        if C.is_galleon(card):
            out.append({"action": "play", "card": card})
            continue
        for g in s.galleons:
            if violation(s, player, "play", card, g.id) is None:
                out.append({"action": "play", "card": card, "galleon": g.id})
        if not s.pile:
            out.append({"action": "discard", "card": card})
    return out[:limit] if limit else out


# -- doing things ----------------------------------------------------------------------


def _a_card(n: int) -> str:
    return "1 card" if n == 1 else f"{n} cards"


def describe_galleon(s: KorsarState, g: Galleon) -> str:
    return f"{g.id} ({g.owner}'s {g.card})"


def do_action(s: KorsarState, player: str, action: str, card: str, gid: str, events: list[Event], forced: bool = False) -> None:
    note = " (the only legal move)" if forced else ""
    s.last_beside = ""
    s.last_launched = ""
    if action == "draw":
        s.hands[player].append(s.pile.pop(0))
        events.append(Event("draw", f"{player} draws a card ({_a_card(len(s.pile))} left in the draw pile){note}", {"player": player, "pile": len(s.pile)}))
        if not s.pile:
            events.append(
                Event(
                    "pile-empty",
                    "the draw pile is empty: from now on a player may discard a card (never a galleon) instead of "
                    "playing it, and the game ends as soon as a player (a team) has no cards left",
                )
            )
        return
    s.hands[player].remove(card)
    if action == "discard":
        s.removed.append(card)
        events.append(Event("discard", f"{player} discards {card}{note}", {"player": player, "card": card}))
        return
    if C.is_galleon(card):
        new = Galleon(f"g{s.next_galleon}", player, card)
        s.next_galleon += 1
        s.galleons.append(new)
        s.last_launched = new.id
        events.append(
            Event("galleon", f"{player} puts {card} to sea as {new.id} (value {C.value(card)}){note}", {"player": player, "card": card, "galleon": new.id})
        )
        return
    g = s.galleon(gid)
    assert g is not None
    if C.is_personage(card):
        boss = personage(g)
        if boss is not None:
            old_player, old_card = boss
            g.beside[old_player].remove(old_card)
            if not g.beside[old_player]:
                del g.beside[old_player]
            s.removed.append(old_card)
            events.append(
                Event(
                    "chase",
                    f"{card} chases {old_player}'s {old_card} from {g.id}: it is discarded for good",
                    {"galleon": g.id, "card": old_card, "player": old_player},
                )
            )
    g.beside.setdefault(player, []).append(card)
    s.last_beside = g.id
    verb = "defends" if s.side(player) == s.side(g.owner) else "attacks"
    events.append(
        Event(
            "beside",
            f"{player} {verb} {describe_galleon(s, g)} with {card}{note}",
            {"player": player, "card": card, "galleon": g.id},
        )
    )


def _take(s: KorsarState, g: Galleon, side: str, events: list[Event], final: bool) -> None:
    holder = s.holder(side)
    s.galleons.remove(g)
    if s.last_beside == g.id:
        s.last_beside = ""
    if s.last_launched == g.id:
        s.last_launched = ""
    s.loot[holder].append(g.card)
    gone = [c for cs in g.beside.values() for c in cs]
    s.removed.extend(gone)
    who = holder if not s.teams else f"{holder} (for {' and '.join(s.members(side))})"
    when = "at the end of the game, " if final else ""
    if len(gone) == 1:
        extra = f"; the card beside it ({gone[0]}) leaves the game"
    else:
        extra = f"; the cards beside it ({', '.join(gone)}) leave the game" if gone else ""
    events.append(
        Event(
            "seize",
            f"{when}{who} seizes {describe_galleon(s, g)}, worth {C.value(g.card)}{extra}",
            {"player": holder, "galleon": g.id, "card": g.card, "removed": gone},
        )
    )


def begin_turn(s: KorsarState, events: list[Event]) -> None:
    """The seizing step at the start of the current player's turn."""
    player = s.current_player
    if s.teams and s.is_second_teammate(player):
        return  # only the first teammate seizes, for the team
    side = s.side(player)
    for g in list(s.galleons):
        if controller(s, g) == side:
            _take(s, g, side, events, final=False)


def empty_side(s: KorsarState) -> str:
    """A side with no cards in hand once the pile is empty (the game then ends), or ``""``."""
    if s.pile:
        return ""
    for side in s.sides():
        if all(not s.hands[m] for m in s.members(side)):
            return side
    return ""


def finish(s: KorsarState, side: str, events: list[Event]) -> None:
    who = " and ".join(s.members(side))
    has = "have" if len(s.members(side)) > 1 else "has"
    events.append(Event("end", f"the draw pile is empty and {who} {has} no cards left: the game ends", {"side": side}))
    for g in list(s.galleons):
        winner = controller(s, g)
        if winner is None:
            events.append(Event("stays", f"{describe_galleon(s, g)} stays on the table: equal strengths", {"galleon": g.id}))
        else:
            _take(s, g, winner, events, final=True)
    s.over = True
    sc = scores(s)
    best = max(sc.values())
    winners = [p for p in s.players if sc[p] == best]
    table = ", ".join(f"{p} {sc[p]}" for p in s.players)
    events.append(Event("score", f"scores: {table}; {' and '.join(winners)} win{'s' if len(winners) == 1 else ''}", {"scores": sc, "winners": winners}))


def end_turn(s: KorsarState, events: list[Event]) -> None:
    side = empty_side(s)
    if side:
        finish(s, side, events)
        return
    s.current = (s.current + 1) % len(s.players)
    s.turn += 1
    begin_turn(s, events)


def settle(s: KorsarState, events: list[Event]) -> None:
    """Take every turn that has only one possible outcome (a pass, a forced draw, a forced play)."""
    while not s.over:
        player = s.current_player
        orders = legal_orders(s, player, limit=2)
        if len(orders) >= 2:
            return
        if not orders:
            s.last_beside = ""
            s.last_launched = ""
            events.append(Event("pass", f"{player} has no cards and passes", {"player": player}))
        else:
            o = orders[0]
            do_action(s, player, o["action"], o.get("card", ""), o.get("galleon", ""), events, forced=True)
        end_turn(s, events)


# -- scores -----------------------------------------------------------------------------


def side_score(s: KorsarState, side: str) -> int:
    members = s.members(side)
    loot = sum(C.value(c) for m in members for c in s.loot[m])
    held = sum(C.value(c) for m in members for c in s.hands[m] if C.is_galleon(c))
    return loot - held


def scores(s: KorsarState) -> dict[str, int]:
    return {p: side_score(s, s.side(p)) for p in s.players}


# -- invariants -------------------------------------------------------------------------


def zones(s: KorsarState) -> Counter[str]:
    seen: Counter[str] = Counter()
    seen.update(s.pile)
    for cs in s.hands.values():
        seen.update(cs)
    for g in s.galleons:
        seen[g.card] += 1
        for cs in g.beside.values():
            seen.update(cs)
    for cs in s.loot.values():
        seen.update(cs)
    seen.update(s.removed)
    return seen


def table_invariants(s: KorsarState) -> None:
    """Cards conserved and the table possible under the rules (``AssertionError`` otherwise)."""
    seen = zones(s)
    extra, missing = seen - C.ALL_CARDS, C.ALL_CARDS - seen
    assert not extra and not missing, (
        "cards not conserved: "
        + "; ".join(
            [f"{n} copies too many of {c} (the game has {C.COPIES.get(c, 0)})" for c, n in sorted(extra.items())]
            + [f"{n} {c} missing" for c, n in sorted(missing.items())]
        )
    )
    assert set(s.hands) == set(s.players) and set(s.loot) == set(s.players), "hands and loot must be the players'"
    assert 0 <= s.current < len(s.players), "no current player"
    assert s.turn >= 1, "turn numbers start at 1"
    ids = [g.id for g in s.galleons]
    assert len(set(ids)) == len(ids), f"galleon ids repeated: {ids}"
    for g in s.galleons:
        assert GALLEON_ID.fullmatch(g.id), f"{g.id!r} is not a galleon id (g1, g2, ...)"
        assert int(g.id[1:]) < s.next_galleon, f"galleon id {g.id} is not below the next galleon number {s.next_galleon}"
        assert C.is_galleon(g.card), f"{g.id} is {g.card}, not a galleon"
        assert g.owner in s.players, f"{g.id}'s owner {g.owner} does not play"
        bosses = [c for cs in g.beside.values() for c in cs if C.is_personage(c)]
        assert len(bosses) <= 1, f"{g.id}: {' and '.join(bosses)} beside it, but a new captain or admiral discards the old one"
        used: dict[str, str] = {}
        for p, cs in g.beside.items():
            assert p in s.players, f"{g.id}: {p} does not play"
            assert cs, f"{g.id}: {p} has an empty list of cards beside it"
            side = s.side(p)
            col = side_colour(s, g, side)
            for c in cs:
                assert not C.is_galleon(c), f"{g.id}: {c} beside a galleon (galleons go in front of their owner)"
                if C.is_admiral(c):
                    assert side == s.side(g.owner), (
                        f"{g.id}: the admiral beside it must be its owner's ({g.owner})"
                        + (" or their teammate's" if s.teams else "") + f", not {p}'s")
                elif C.is_captain(c):
                    assert col == C.colour(c), f"{g.id}: {p}'s {c} needs a {C.colour(c)} pirate of {p}'s side beside it"
                else:
                    assert C.colour(c) == col, f"{g.id}: {p}'s side mixes colours {col} and {C.colour(c)}"
            if col:
                prev = used.setdefault(col, side)
                assert prev == side, f"{g.id}: colour {col} is used by two sides ({prev} and {side})"
        # the cards beside a galleon are in the order played: a captain follows a pirate of its
        # colour of its side (a teammate's counts)
        opened: set[tuple[str, str]] = set()
        for p, cs in g.beside.items():
            side = s.side(p)
            for c in cs:
                if C.is_pirate(c):
                    opened.add((side, C.colour(c)))
                elif C.is_captain(c):
                    assert (side, C.colour(c)) in opened, (
                        f"{g.id}: {p}'s {c} is listed before any {C.colour(c)} pirate of "
                        f"{'their team' if s.teams else p} (the cards beside a galleon are listed in the order played)")
    for p, cs in s.loot.items():
        assert all(C.is_galleon(c) for c in cs), f"{p}'s loot holds {[c for c in cs if not C.is_galleon(c)]}: only galleons are loot"
    if s.last_beside:
        assert s.galleon(s.last_beside) is not None, f"last_beside {s.last_beside} is not on the table"
    if s.last_launched:
        new = s.galleon(s.last_launched)
        assert new is not None, f"last_launched {s.last_launched} is not on the table"
        assert not s.last_beside, "last_launched and last_beside: the previous turn did one thing only"
        if not s.over:
            before = s.players[(s.current - 1) % len(s.players)]
            assert new.owner == before, (
                f"last_launched {new.id} is {new.owner}'s, but the previous turn was {before}'s")
            assert not new.beside, f"last_launched {new.id} has cards beside it: it was put to sea in the previous turn"


def invariants(s: KorsarState) -> None:
    table_invariants(s)
    if not s.over:
        assert not empty_side(s), "the draw pile is empty and a side has no cards: the game should be over"
        if not (s.teams and s.is_second_teammate(s.current_player)):
            side = s.side(s.current_player)
            assert all(controller(s, g) != side for g in s.galleons), "the current player has not seized"
