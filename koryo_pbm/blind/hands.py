"""The hidden cards a key opens: a player's hand (every share checked), a bot seat's, an absent
player's opened for the bot under ``--missed bot`` (the request, and what anyone checks of it)."""

from __future__ import annotations

import base64
import dataclasses
import json
from collections.abc import Mapping, Sequence
from typing import Any

from koryo_pbm.crypto import blind as cb
from koryo_pbm.engine.contract import Game
from koryo_pbm.errors import FormatError, GameError

from .dealing import Dealing, first_feed
from .record import (
    DEAL,
    PUBLIC_KEY,
    RULES_KEY,
    DealState,
    _card_at,
    _dealer_keys,
    _guarded,
    _mod_key,
    _opened_slots,
    _record,
    _slot,
    _table_of,
    check_proofs,
    open_info,
    open_note,
    shares_info,
)


def open_hand(public: Mapping[str, Any], private: Mapping[str, Any], game_id: str, player: str,
              identity: Any, game: Game | None = None) -> dict[str, str]:
    """A player's hidden cards, opened: every share checked (the moderator's in the player's
    part, the co-dealer's sealed to the player by the co-dealer). ``BlindCheckError`` names the
    dealer and the slot of the first share that does not check."""
    return open_hand_shares(public, private, game_id, player, identity, game)[0]


@_guarded
def open_hand_shares(public: Mapping[str, Any], private: Mapping[str, Any], game_id: str, player: str,
                     identity: Any, game: Game | None = None) -> tuple[dict[str, str], dict[str, str]]:
    """:func:`open_hand`, and the co-dealer's share of each card (what a play that shows its card
    gives). A partner's cards are opened too: each share is bound to the slot's recipient. Every
    shuffle of the decks up to the last one opened is proven first (:func:`check_proofs`), the
    first deck's input checked against the catalogue of ``game``'s rules when it is given."""
    from koryo_pbm.crypto.seal import open_sealed

    part = private.get(PUBLIC_KEY)
    rec = public.get(PUBLIC_KEY)
    if not isinstance(part, Mapping) or not isinstance(rec, Mapping) or not part.get("mod"):
        return {}, {}
    st = DealState(game_id, tuple(rec["seats"]), (rec["dealers"][0], rec["dealers"][1]), keys=dict(rec["keys"]),
                   decks=list(rec["decks"]), version=2 if rec.get("version") == 2 else 1,
                   options=dict(rec.get("options", {})))
    if isinstance(game, Dealing) and st.decks and list(st.decks[0]["input"]) != first_feed(game, st):
        raise cb.BlindCheckError("the first deck of the record is not the game's cards in catalogue order")
    keys = _dealer_keys(st)
    # every shuffle proven before a card of it is used (each deck's input holds the earlier decks')
    upto = max((i for i, d in enumerate(st.decks) for s in part.get("mod", {}) if s.rpartition(":")[0] == d["id"]),
               default=-1)
    for d in st.decks[:upto + 1]:
        check_proofs(st, d)
    mod, carl = st.dealers
    theirs: dict[str, str] = {}
    for deck_id, blob in part.get("carl", {}).items():
        raw = open_sealed(identity, base64.b64decode(blob), shares_info(game_id, deck_id, player),
                          f"{carl}'s shares of {cb.deck_name(deck_id)}")
        try:
            theirs.update(json.loads(raw))
        except ValueError:
            raise cb.BlindCheckError(f"{carl}'s shares of {cb.deck_name(deck_id)} for {player} are malformed") from None
    table = _table_of(tuple(next((d["input"] for d in st.decks), [])))
    cards = {}
    for s, mine in part.get("mod", {}).items():
        if s not in theirs:
            raise cb.BlindCheckError(f"{carl} gave no share of {s} (dealt to {player})")
        deck_id, _, pos = s.rpartition(":")
        dealt = (_record(st, deck_id) or {}).get("recipients") or []
        slot = _slot(st, s, dealt[int(pos)] if int(pos) < len(dealt) and dealt[int(pos)] else player)
        try:
            shares = [cb.Share.from_bytes(mod, base64.b64decode(mine)), cb.Share.from_bytes(carl, base64.b64decode(theirs[s]))]
        except (FormatError, ValueError) as exc:
            raise cb.BlindCheckError(f"a share of {s} is malformed ({exc})") from None
        cards[s] = cb.open_card(slot, _card_at(st, s), keys, shares, table)
    return cards, {s: theirs[s] for s in cards}


@_guarded
def check_turned_up(public: Mapping[str, Any], game: Game | None = None) -> dict[str, str]:
    """Every card of the public record turned up for everybody, checked as anyone can (a player's
    tools, before they show the table): the shuffles of its deck proven, both dealers' shares
    (bound to the recipient :data:`~koryo_pbm.crypto.blind.PUBLIC`) checked and opening to the
    card claimed. Returns slot -> card; ``BlindCheckError`` names the first that does not check."""
    rec = public.get(PUBLIC_KEY) if isinstance(public, Mapping) else None
    if not isinstance(rec, Mapping):
        return {}
    turned = [r for r in rec.get("reveals", []) if r["player"] == cb.PUBLIC]
    if not turned:
        return {}
    st = DealState(str(rec["game_id"]), tuple(rec["seats"]), (rec["dealers"][0], rec["dealers"][1]),
                   keys=dict(rec["keys"]), decks=list(rec["decks"]), version=2 if rec.get("version") == 2 else 1,
                   options=dict(rec.get("options", {})))
    if isinstance(game, Dealing) and st.decks and list(st.decks[0]["input"]) != first_feed(game, st):
        raise cb.BlindCheckError("the first deck of the record is not the game's cards in catalogue order")
    decks = {str(r["slot"]).rpartition(":")[0] for r in turned}
    upto = max(i for i, d in enumerate(st.decks) if d["id"] in decks)
    for d in st.decks[:upto + 1]:
        check_proofs(st, d)
    keys, table = _dealer_keys(st), _table_of(tuple(st.decks[0]["input"]))
    out = {}
    for r in turned:
        s = str(r["slot"])
        shares = [cb.Share.from_bytes(d, base64.b64decode(r["shares"][d])) for d in st.dealers]
        cb.check_reveal(_slot(st, s, cb.PUBLIC), _card_at(st, s), keys, shares, table, str(r["card"]))
        out[s] = str(r["card"])
    return out


def bot_cards(game: Game, state: Any, player: str, identity: Any) -> tuple[dict[str, str], dict[str, str]]:
    """The hidden cards of ``player`` the key ``identity`` opens (the moderator: a bot seat's,
    whose shares both dealers sealed to it), every share checked; and the co-dealer's share of
    each (what a play that shows its card gives; none for an absent player's hand opened for the bot)."""
    assert isinstance(game, Dealing)
    if player not in state.bots and player in state.peeks:  # an absent player's hand, opened for the bot
        return open_peek(game, state, player, identity), {}
    cards, shares = open_hand_shares(game.public(state), game.private(state, player), state.game_id, player, identity,
                                     game)
    return dict(cards), dict(shares)


def revealed_shares(public: Mapping[str, Any]) -> dict[str, str]:
    """Slot -> the co-dealer's share published with each card revealed (a play that shows its card gives the
    one its order gave): what ``verify`` gives a bot seat's replayed choice."""
    rec = public.get(PUBLIC_KEY) if isinstance(public, Mapping) else None
    if not isinstance(rec, Mapping) or not isinstance(rec.get("dealers"), list) or len(rec["dealers"]) != 2:
        return {}
    carl = rec["dealers"][1]
    return {str(r["slot"]): str(r["shares"][carl]) for r in rec.get("reveals", [])
            if isinstance(r, Mapping) and isinstance(r.get("shares"), Mapping) and carl in r["shares"]}


def choose_bot(game: Game, state: Any, player: str, level: str, cards: Mapping[str, str], *, seed: Any,
               limit: float | None = None, shares: Mapping[str, str] | None = None) -> Any:
    """The bot's choice for ``player`` from the public table and ``cards`` (the player's hidden
    cards, opened): what the moderator's bot plays, and what ``verify`` chooses again from the
    audited cards (``limit`` ``None``: no time limit). ``shares``: the co-dealer's share of each
    card (a play that shows its card gives its share)."""
    import math

    from koryo_pbm.engine import bots

    private = {**game.private(state, player), "cards": dict(cards), **({"shares": dict(shares)} if shares else {})}
    return bots.choose_from_view(game, game.public(state), private, player, level, seed=seed,
                                 limit=math.inf if limit is None else limit)


def hidden_slots(game: Game, state: Any, player: str) -> list[str]:
    """The slots of ``player``'s hidden cards (hand and face down) in ``state``."""
    assert isinstance(game, Dealing)
    return game._hidden_slots(state, player)


def with_public(raw_state: Mapping[str, Any], public: Mapping[str, Any]) -> dict[str, Any]:
    """The moderator's state of a blind game as :meth:`Dealing.load_state` reads it: its own part
    with the public record and rules' state of the same file (a file written before the state
    left them out holds them itself)."""
    if PUBLIC_KEY in raw_state or not isinstance(public, Mapping):
        return dict(raw_state)
    return {**raw_state, **{k: public[k] for k in (PUBLIC_KEY, RULES_KEY) if k in public}}


def needs_opening(game: Game, state: Any, player: str) -> bool:
    """Whether the moderator's bot needs ``player``'s hand opened first: the seat holds hidden
    cards that are neither a bot seat's nor opened to the moderator already."""
    assert isinstance(game, Dealing)
    if player in state.bots:
        return False
    return bool(set(game._hidden_slots(state, player)) - set(_opened_slots(state, player)))


def opened_for(state: Any, decision_id: str) -> dict[str, str]:
    """Player -> the deadline their hand was opened at, for the bot to play ``decision_id``."""
    return {str(o["player"]): str(o.get("deadline", "")) for o in getattr(state, "opened", ())
            if o.get("decision") == decision_id}


def request_open(game: Game, state: Any, decision_id: str, players: Sequence[str], deadline: str, grace: str,
                 resolved: str) -> tuple[Any, list[str]]:
    """The moderator's request to open the hands of ``players``, absent at ``decision_id`` past
    its deadline and grace under a ``--missed bot`` policy: the new state (the co-dealer's
    answer is awaited, decision ``<decision>-open``) and the public log lines."""
    assert isinstance(game, Dealing)
    d = game.pending(state)
    if d is None or d.id != decision_id or d.kind == DEAL or not set(players) <= set(d.players):
        raise GameError(f"no hand is opened at {decision_id} now")
    new = dataclasses.replace(state, opening={"decision": decision_id, "players": list(players),
                                              "deadline": deadline, "grace": grace, "resolved": resolved})
    return new, [open_note(p, decision_id, deadline, grace, resolved) for p in players]


def check_open_claim(game: Game, state: Any, policy: Any, decision_id: str, player: str, deadline: Any,
                     resolved: Any, moderator: Any = None, key: Any = None) -> None:
    """What anyone can check of a request to open ``player``'s hand at ``decision_id`` (the
    co-dealer before it answers, ``verify`` after): the public policy lets the bot play missed
    orders of that decision's kind, the deadline and its grace had passed when it was resolved,
    the player is asked by the decision, holds a seat of their own (not a bot seat) and hidden
    cards not opened before. ``GameError`` naming what does not hold."""
    assert isinstance(game, Dealing)
    rd = game.rules.pending(state.rules) if state.rules is not None else None
    said = f"{player}'s hand may not be opened to the moderator at {decision_id}:"
    if policy.missed != "bot":
        raise GameError(f"{said} the game's public policy is not --missed bot")
    if rd is None or rd.id != decision_id or player not in rd.players:
        raise GameError(f"{said} the decision does not wait for {player}")
    if policy.duration(rd.kind) is None:
        raise GameError(f"{said} the policy gives its {rd.kind} decisions no deadline")
    if player in state.bots or player in policy.bots or (moderator is not None and key == moderator):
        raise GameError(f"{said} it is a bot seat")
    if deadline is None or resolved is None or resolved < deadline + policy.grace_period():
        raise GameError(f"{said} its deadline and grace ({policy.grace or 'none'}) had not passed")
    if not needs_opening(game, state, player):
        raise GameError(f"{said} it holds no hidden card that is not open to the moderator already")


def open_peek(game: Game, state: Any, player: str, identity: Any) -> dict[str, str]:
    """The hidden cards of absent ``player`` opened to the moderator (``identity``) for the bot:
    the co-dealer's shares sealed to it, and its own; every share checked."""
    from koryo_pbm.crypto.seal import open_sealed

    assert isinstance(game, Dealing)
    st = state
    mod, carl = st.dealers
    last = next((o for o in reversed(st.opened) if o.get("player") == player), None)
    if last is None or player not in st.peeks:
        raise GameError(f"{player}'s hand is not opened to the moderator")
    raw = open_sealed(identity, base64.b64decode(st.peeks[player]), open_info(st.game_id, last["decision"], player),
                      f"{carl}'s shares of {player}'s hand")
    try:
        theirs = json.loads(raw)
    except ValueError:
        raise cb.BlindCheckError(f"{carl}'s shares of {player}'s hand are malformed") from None
    keys = _dealer_keys(st)
    table = cb.CardTable(game._catalogue(st))
    key, nonces = _mod_key(st)
    cards = {}
    for s in game._hidden_slots(st, player):
        if s not in theirs:
            raise cb.BlindCheckError(f"{carl} gave no share of {s} (dealt to {player})")
        slot = _slot(st, s, player)
        mine = cb.decryption_share(slot, _card_at(st, s), mod, key, nonce_key=nonces)
        cards[s] = cb.open_card(slot, _card_at(st, s), keys, [mine, cb.Share.from_bytes(carl, base64.b64decode(theirs[s]))],
                                table)
    return cards
