"""The co-dealer: its answer to each decision that waits for it (:func:`co_deal`), computed from
the signed game file and checked against what it can check itself (its signed envelope for a
game file: :func:`koryo_pbm.match.codealer.answer`)."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from koryo_pbm.crypto import blind as cb
from koryo_pbm.engine.contract import Game, blind_hook
from koryo_pbm.errors import FormatError, GameError, KoryoPbmError

from .dealing import Dealing, first_feed, proves_end
from .hands import check_open_claim
from .record import (
    _DEALT_CONTEXT,
    DEAL,
    END,
    KEYS,
    PUBLIC_KEY,
    TURN_UP,
    DealState,
    _b64,
    _card_at,
    _check_dealt_signature,
    _dealer_keys,
    _dealt_bytes,
    _dealt_to,
    _deck,
    _first_player,
    _guarded,
    _input_deck,
    _joint,
    _opened_slots,
    _record,
    _slot,
    _table_of,
    carl_seed,
    check_proof,
    co_dealer_key,
    new_co_dealer_keys,
    open_info,
    shares_info,
    shuffle_proof,
    shuffled_deck,
)


@_guarded
def co_deal(game: Game, doc_public: Mapping[str, Any], players: Mapping[str, Any], identity: Any,
            decision_id: str, log: Sequence[Mapping[str, Any]] = (), *, moderator: Any = None,
            bot_policy: Collection[str] = (), service: Mapping[str, Any] | None = None,
            now: Any = None, end_proven: bool = False) -> dict[str, Any]:
    """The co-dealer's answer to the pending decision, computed from the public game file and
    its own signed record in it: the cards it gives shares of are those the public rules deal
    now (a deck never dealt before, by the record and the ``log``) or reveal now (slots its
    signed record dealt to the player whose action turn it is, never revealed before, named face
    down by that player's own signed order, :func:`check_claim`); its secrets and a last reveal
    of the hands only once the end is proven (``end_proven``: :func:`answer` replayed the game
    from the moderator's published seed and signed orders first).
    ``players``: seat -> public key (the co-dealer seals each player's shares to it).
    ``moderator``: the moderator's key; a seat holding it is a bot seat, whose shares go to the
    moderator only if the public record (``bots``) and the public policy (``bot_policy``, the
    file's ``[service]``) both say the seat is a bot (:func:`check_bot_seats`)."""
    from koryo_pbm.crypto.seal import seal

    assert isinstance(game, Dealing)
    st = game.from_view(doc_public, {}, identity.name)
    carl = st.co_dealer
    d = game.pending(st)
    if d is None or d.kind != DEAL or d.players != (carl,):
        waits = "nobody (the game is over)" if d is None else ", ".join(d.players)
        raise GameError(f"game {st.game_id} does not wait for the co-dealer {carl} (it waits for {waits})")
    if d.id != decision_id:
        raise GameError(f"the game file's decision is {decision_id}, but its public state is at {d.id}")
    if d.id == KEYS:
        if st.version < 2:
            raise GameError(f"game {st.game_id} was started by an earlier koryo-pbm: this co-dealer does not deal it")
        return new_co_dealer_keys(st, identity)
    secret, key = co_dealer_key(st, identity)
    if st.opening:
        return _open_answer(game, st, key, players, moderator, service, now, log)
    if proves_end(game, st) and not end_proven:
        raise GameError(f"the end of game {st.game_id} is not proven (the moderator's seed, salt and signed orders "
                        f"replayed): {carl} opens no card")
    if d.id == END:
        if game.rules.pending(st.rules) is not None:
            raise GameError("the game is not over: the co-dealer's secrets stay secret")
        return {"key": _b64(key.secret), "seeds": {r["id"]: _b64(_seed_of(st, secret, r)) for r in st.decks}}
    rd = game.rules.pending(st.rules)
    if rd is not None and rd.kind == "deal":
        deck_id, feed = game.rules.deck_input(st.rules)
        rec = _record(st, deck_id)
        if rec is None or len(rec["outputs"]) != 1 or rec["input"] != feed:
            raise GameError(f"{cb.deck_name(deck_id)} is not as the rules put it together, shuffled once by {st.dealers[0]}")
        if st.decks[0] is rec and feed != first_feed(game, st):
            raise GameError(f"{cb.deck_name(deck_id)}, the first deck, is not the game's cards in catalogue order")
        if deck_id in game.rules.dealt(st.rules) or any(
                shuffled_deck(str(e)) == deck_id for entry in log for e in entry.get("events", ())):
            raise GameError(f"{cb.deck_name(deck_id)} was dealt before: no share is given twice")
        # the moderator's shuffle, checked on the input the co-dealer computes itself
        mine = _input_deck(st, feed)
        if len(_deck(rec["outputs"][0])) != len(mine):
            raise GameError(f"{st.dealers[0]}'s shuffle of {cb.deck_name(deck_id)} has the wrong size")
        check_proof(st, deck_id, st.dealers[0], mine, _deck(rec["outputs"][0]), (rec.get("proofs") or [None])[0])
        dealt = game._dealt_now(st)
        seed = carl_seed(st, secret, deck_id, mine, _deck(rec["outputs"][0]), dealt)
        output = cb.shuffle(_deck(rec["outputs"][0]), _joint(st), seed, game_id=st.game_id, deck_id=deck_id, dealer=carl)
        check_bot_seats(st, players, {r for r in dealt if r}, moderator, bot_policy)
        shares: dict[str, dict[str, str]] = {}
        for pos, recipient in enumerate(dealt):
            if recipient:
                share = cb.decryption_share(cb.Slot(st.game_id, deck_id, pos, recipient), output[pos], carl, key)
                for viewer in game._viewers(st, recipient):  # a partner who sees the cards too
                    shares.setdefault(viewer, {})[f"{deck_id}:{pos}"] = _b64(share.to_bytes())
        sealed = {r: _b64(seal(players[r], json.dumps(v, sort_keys=True).encode(), shares_info(st.game_id, deck_id, r)))
                  for r, v in shares.items()}
        from koryo_pbm.crypto.sign import sign

        signature = sign(identity, _DEALT_CONTEXT, _dealt_bytes(st.game_id, deck_id, output, dealt))
        return {"deck": deck_id, "output": _b64(cb.deck_to_bytes(output)),
                "proof": shuffle_proof(st, deck_id, carl, _deck(rec["outputs"][0]), output, seed), "recipients": dealt,
                "shares": sealed, "signature": _b64(signature)}
    if rd is not None and rd.kind == "give":
        return _co_give(game, st, players, identity, key, decision_id, moderator, bot_policy)
    if rd is not None and rd.kind == TURN_UP:
        return _co_turn_up(game, st, key, players, moderator, log)
    # a reveal: only face-down slots of the player whose action turn it is, dealt to them by
    # the co-dealer's own signed record (not the moderator's word), named by the player's own
    # signed order, never revealed before (at the end, proven above: the slots left in hands,
    # each dealt by that record to somebody)
    player = game._revealer(st)
    shown = {r["slot"] for r in st.reveals}
    slots = game.rules.revealing(st.rules)
    if player:
        check_claim(game, st, player, slots, players, moderator, log)
    out = {}
    for s in slots:
        owner = _dealt_to(st, s, carl)
        if (player and owner != player) or not owner:
            raise GameError(f"{s} was not dealt to {player or 'anybody'}: no share of it")
        if s in shown:
            raise GameError(f"{s} was revealed before: no share of it is given twice")
        share = cb.decryption_share(_slot(st, s, owner), _card_at(st, s), carl, key)
        out[s] = _b64(share.to_bytes())
    return {"shares": out}


def _co_turn_up(game: Dealing, st: DealState, key: cb.KeyShare, players: Mapping[str, Any], moderator: Any,
                log: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The co-dealer's shares of cards turned up for everybody, public, bound to the recipient
    :data:`~koryo_pbm.crypto.blind.PUBLIC`: only once the rules, replayed by the co-dealer from
    every player's signed order, turn up exactly these slots now (:func:`check_turn_up`), and only
    of slots its own signed record dealt to nobody, never shown before."""
    carl = st.co_dealer
    slots = game.rules.revealing(st.rules)
    check_turn_up(game, st, slots, players, moderator, log)
    shown = {r["slot"] for r in st.reveals}
    out = {}
    for s in slots:
        if _dealt_to(st, s, carl) or s in shown:
            raise GameError(f"{s} is not a card {carl} dealt to nobody and never showed: it is not turned up")
        share = cb.decryption_share(_slot(st, s, cb.PUBLIC), _card_at(st, s), carl, key)
        out[s] = _b64(share.to_bytes())
    return {"shares": out}


_FIRST = re.compile(r"; (\S+) is first player \(")


def check_turn_up(game: Dealing, st: DealState, slots: Sequence[str], players: Mapping[str, Any], moderator: Any,
                  log: Sequence[Mapping[str, Any]]) -> None:
    """Before it turns ``slots`` up: the co-dealer replays the blind rules from their setup with
    every player's order, each signed by the player and counted by the log (published by the
    moderator in the record, ``signed``), and every card shown so far (the record's reveals, both
    shares checked); the rules must ask this turn-up of these slots, in the state the file says.
    The moderator's public state alone opens nothing. ``GameError`` in one line."""
    said = f"{', '.join(slots)} not turned up:"
    if moderator is None:
        raise GameError(f"{said} the co-dealer checks the orders shown against the moderator's key, not given")
    rules, keys, table = game.rules, _dealer_keys(st), _table_of(tuple(game._catalogue(st)))
    shown = {str(r["slot"]): r for r in st.reveals}
    by_decision: dict[str, dict[str, Any]] = {}
    for item in st.signed:
        if not isinstance(item, Mapping) or not isinstance(item.get("decision"), str):
            raise GameError(f"{said} an order shown is malformed")
        player = str(item.get("player"))
        body = _signed_order(st, item, player, item["decision"], players, moderator, log, said)
        by_decision.setdefault(item["decision"], {})[player] = body
    opts = [dict(st.options)] if st.options else []
    named = (_FIRST.search(str(e)) for entry in log if entry.get("decision") == KEYS for e in entry.get("events", ()))
    first = next((m[1] for m in named if m and m[1] in st.seats), None) or _first_player(st)  # as the log says
    state = rules.setup(list(st.seats), first, *opts)
    for _ in range(10_000):
        d = rules.pending(state)
        if d is None:
            break
        if d.kind in ("deal", "give"):
            state, _ev = rules.apply(state, {})
        elif d.kind in ("reveal", TURN_UP):
            wanted = rules.revealing(state)
            if not all(x in shown for x in wanted):
                break
            cards = []
            for x in wanted:
                r = shown[x]
                try:
                    at = _slot(st, x, str(r["player"]))
                    cb.check_reveal(at, _card_at(st, x), keys, [cb.Share.from_bytes(dl, base64.b64decode(
                        r["shares"][dl])) for dl in st.dealers], table, str(r["card"]))
                except (FormatError, cb.BlindCheckError, KeyError, TypeError, ValueError) as exc:
                    raise GameError(f"{said} the card shown at {x} does not check ({str(exc)[:80]})") from None
                cards.append(str(r["card"]))
            state, _ev = rules.apply(state, {d.players[0] if d.players else "": {"cards": cards}})
        else:
            orders = by_decision.pop(d.id, None)
            if orders is None:
                break
            if set(orders) != set(d.players):
                raise GameError(f"{said} the orders shown for {d.id} are not one of each of {', '.join(d.players)}")
            try:
                state, _ev = rules.apply(state, orders)
            except KoryoPbmError as exc:
                raise GameError(f"{said} the orders shown for {d.id} do not play ({str(exc)[:80]})") from None
    d = rules.pending(state)
    if d is None or d.kind != TURN_UP or list(rules.revealing(state)) != list(slots):
        where = "the end" if d is None else d.id
        raise GameError(f"{said} the rules replayed from the signed orders shown are at {where}, not at this turn-up")
    if by_decision:
        raise GameError(f"{said} an order shown is for {sorted(by_decision)[0]}, which the replayed rules do not reach")
    if rules.dump_state(state) != rules.dump_state(st.rules):
        raise GameError(f"{said} the file's rules state is not the one replayed from the signed orders shown")


def _co_give(game: Dealing, st: DealState, players: Mapping[str, Any], identity: Any, key: cb.KeyShare,
             decision_id: str, moderator: Any = None, bot_policy: Collection[str] = ()) -> dict[str, Any]:
    """The co-dealer's answer to a ``give`` (cards drawn one by one): its shares of the slots drawn,
    sealed to the drawer and a partner (a bot seat's to the moderator, when the public record and
    policy say it is one: :func:`check_bot_seats`). It checks that its own signed record had dealt
    none of them, that they are the top of the pile by that record (the positions not given yet,
    lowest first, in the order drawn), and that the rules' record changes by exactly those slots.
    Who drew them is the moderator's word: a fork at a seat's own turn (a draw in place of its real
    play) gets that seat the top card; the co-dealer's pins (:mod:`koryo_pbm.pinning`, on the
    machine it answers from) refuse the second history."""
    from koryo_pbm.crypto.seal import seal
    from koryo_pbm.crypto.sign import sign

    carl = st.co_dealer
    slots = game.rules.giving(st.rules)  # type: ignore[attr-defined]
    deck_id = slots[0].rpartition(":")[0]
    rec = _record(st, deck_id)
    if rec is None or len(rec["outputs"]) != 2 or "recipients" not in rec:
        raise GameError(f"{cb.deck_name(deck_id)} was not dealt by {carl}")
    final = _deck(rec["outputs"][1])
    _check_dealt_signature(st, deck_id, final, rec["recipients"], base64.b64decode(rec["signature"]))
    dealt = list(game.rules.dealt(st.rules)[deck_id])
    check_bot_seats(st, players, {dealt[int(s.rpartition(":")[2])] for s in slots
                                  if s.rpartition(":")[2].isdigit() and int(s.rpartition(":")[2]) < len(dealt)}
                    - {""}, moderator, bot_policy)
    shares: dict[str, dict[str, str]] = {}
    for s in slots:
        sd, _, at = s.rpartition(":")
        if sd != deck_id or rec["recipients"][int(at)] or not dealt[int(at)]:
            raise GameError(f"{s} was given before, or is not drawn: no share of it is given twice")
        recipient = dealt[int(at)]
        share = cb.decryption_share(_slot(st, s, recipient), final[int(at)], carl, key)
        for viewer in game._viewers(st, recipient):
            shares.setdefault(viewer, {})[s] = _b64(share.to_bytes())
    changed = [i for i, (a, b) in enumerate(zip(rec["recipients"], dealt, strict=True)) if a != b]
    if changed != sorted(int(s.rpartition(":")[2]) for s in slots):
        raise GameError(f"the rules' list of whom {cb.deck_name(deck_id)} is dealt to changes more than the cards drawn")
    # the pile is drawn top first: the positions its own signed record has not given yet, in order
    # (a forked file that says a seat drew a card from inside the pile gets nothing)
    top = [i for i, r in enumerate(rec["recipients"]) if not r][:len(slots)]
    if [int(s.rpartition(":")[2]) for s in slots] != top:
        raise GameError(f"{', '.join(slots)} {'is' if len(slots) == 1 else 'are'} not the top of the draw pile by "
                        f"{carl}'s own signed record of {cb.deck_name(deck_id)} (next: "
                        f"{', '.join(f'{deck_id}:{i}' for i in top) or 'none'}): no share of {'it' if len(slots) == 1 else 'them'}")
    box = f"{deck_id}@{decision_id}"
    sealed = {r: _b64(seal(players[r], json.dumps(v, sort_keys=True).encode(), shares_info(st.game_id, box, r)))
              for r, v in shares.items()}
    signature = sign(identity, _DEALT_CONTEXT, _dealt_bytes(st.game_id, deck_id, final, dealt))
    return {"deck": deck_id, "shares": sealed, "signature": _b64(signature)}


# -- the co-dealer's step on a game file (co-deal, serve --as the co-dealer) -------------------


@dataclass
class CoDealt:
    """What the co-dealer did with a game file: ``envelope`` is its answer (``None``: nothing to
    do, and ``why`` says so)."""

    co_dealer: str
    decision: str | None
    envelope: Any = None
    why: str = ""


def co_dealer_of(doc: Any) -> str:
    """The co-dealer's seat of a blind game file (``GameError`` for any other game)."""
    if doc.deal != "blind":
        raise GameError(f"game {doc.game_id} is not a blind game: it has no co-dealer")
    record = doc.public.get(PUBLIC_KEY) if isinstance(doc.public, Mapping) else None
    dealers = record.get("dealers") if isinstance(record, Mapping) else None
    if not isinstance(dealers, list) or len(dealers) != 2 or dealers[1] not in doc.players:
        raise FormatError(f"game {doc.game_id} names no co-dealer seat")
    return str(dealers[1])


def bot_policy(doc: Any) -> list[str]:
    """The bot seats the file's public policy (``[service]``) names."""
    from koryo_pbm import deadlines

    return list(deadlines.policy_of(doc.service, list(doc.players)).bots)


def check_bot_seats(st: DealState, players: Mapping[str, Any], recipients: Collection[str], moderator: Any,
                    policy_bots: Collection[str]) -> None:
    """The co-dealer's check before it seals shares: a recipient whose seat holds the
    moderator's key gets its shares (so the moderator sees those cards) only when the game's
    public record and its public policy both say the seat is a bot. ``GameError`` otherwise."""
    for r in sorted(recipients):
        key = players.get(r)
        if moderator is not None and key == moderator and not (r in st.bots and r in policy_bots):
            raise GameError(f"{r}'s seat holds the moderator's key, but the game's public record does not say it "
                            f"is a bot seat: no share of {r}'s cards is sealed to the moderator")


def _open_answer(game: Dealing, st: DealState, key: cb.KeyShare, players: Mapping[str, Any], moderator: Any,
                 service: Mapping[str, Any] | None, now: Any, log: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The co-dealer's shares of each absent player's hidden cards, sealed to the moderator,
    after it checked the request against the public policy, its own clock and its own signed
    record of whom each card was dealt to."""
    from koryo_pbm import deadlines
    from koryo_pbm.crypto.seal import seal

    if moderator is None or now is None:
        raise GameError("opening a hand needs the moderator's key and the co-dealer's clock")
    policy = deadlines.policy_of(service, [*players, st.co_dealer])
    op = st.opening
    deadline = deadlines.parse_stamp(op.get("deadline"), what="the claimed deadline")
    resolved = deadlines.parse_stamp(op.get("resolved"), what="the claimed time of the resolve")
    if now < deadline + policy.grace_period():
        raise GameError(f"the deadline of {op['decision']} and its grace have not passed by the co-dealer's clock "
                        f"({deadlines.stamp(now)}): no hand is opened")
    from koryo_pbm.match.notes import MOVED_NOTE

    moved = [m["when"] for entry in log for m in (MOVED_NOTE.fullmatch(str(e)) for e in entry.get("events", ()))
             if m and m["decision"] == op["decision"]]
    if moved and moved[-1] != deadlines.human(deadline):
        raise GameError(f"the claimed deadline of {op['decision']} is not the one the log last set ({moved[-1]}): "
                        "no hand is opened")
    if op.get("grace") != (policy.grace or "0m"):
        raise GameError(f"the claimed grace of {op['decision']} is not the policy's: no hand is opened")
    carl = st.co_dealer
    shown = {r["slot"] for r in st.reveals}
    out = {}
    for p in op["players"]:
        check_open_claim(game, st, policy, op["decision"], p, deadline, resolved, moderator, players.get(p))
        mine = {}
        for s in game._hidden_slots(st, p):
            if _dealt_to(st, s, carl) != p or s in shown:
                raise GameError(f"{s} is not a hidden card {carl} dealt to {p}: no share of it")
            share = cb.decryption_share(_slot(st, s, p), _card_at(st, s), carl, key)
            mine[s] = _b64(share.to_bytes())
        out[p] = _b64(seal(moderator, json.dumps(mine, sort_keys=True).encode(),
                           open_info(st.game_id, op["decision"], p)))
    return {"shares": out}


def _seed_of(st: DealState, secret: bytes, rec: Mapping[str, Any]) -> bytes:
    """The co-dealer's seed of the deck record ``rec``, derived again as it shuffled it."""
    before = _deck(rec["outputs"][0])
    return carl_seed(st, secret, rec["id"], _input_deck(st, rec["input"]), before, rec.get("dealt", rec["recipients"]))


def _signed_recipients(st: DealState, slots: Sequence[str], carl: str) -> dict[str, list[str]]:
    """Deck id -> whom each position was dealt to, for the decks of ``slots``, from the record the
    co-dealer signed itself (each signature checked): what it judges a hand of one by."""
    out: dict[str, list[str]] = {}
    for s in slots:
        deck_id = s.rpartition(":")[0]
        if deck_id in out:
            continue
        rec = _record(st, deck_id)
        if rec is None or len(rec["outputs"]) != 2 or "recipients" not in rec:
            raise GameError(f"{s}: {cb.deck_name(deck_id)} was not dealt by {carl}")
        _check_dealt_signature(st, deck_id, _deck(rec["outputs"][1]), rec["recipients"],
                               base64.b64decode(rec["signature"]))
        out[deck_id] = [str(r) for r in rec["recipients"]]
    return out


def check_claim(game: Dealing, st: DealState, player: str, slots: Sequence[str], players: Mapping[str, Any],
                moderator: Any, log: Sequence[Mapping[str, Any]]) -> None:
    """Before it reveals ``player``'s face-down ``slots``: the order that placed them, signed by
    the player (published by the moderator in the record, ``claim``), counted by the log for
    that decision, names exactly these slots. A bot seat's cards (the moderator sees them anyway)
    or of a hand opened to the moderator for the bot need none; nor do cards the rules placed
    alone, judged by the game (``placed_alone``) from the co-dealer's own signed record of whom
    each deck was dealt to (a hand of one: the only card of that deck dealt to the player), never
    from the moderator's state or log. ``GameError`` in one line naming what does not check;
    nothing is given."""
    carl = st.co_dealer
    placing = blind_hook(game.rules, "placing")
    if player in st.bots or placing is None or set(slots) <= set(_opened_slots(st, player)):
        return  # the moderator sees these cards already (a bot seat's, a hand opened for the bot)
    decision = placing(st.rules, player)
    said = f"{player}'s face-down cards ({', '.join(slots)}) are not revealed:"
    claim = st.claim
    if moderator is None:
        raise GameError(f"{said} the co-dealer checks the order shown against the moderator's key, not given")
    if not claim:
        alone = blind_hook(game.rules, "placed_alone")
        if alone is not None and alone(_signed_recipients(st, slots, carl), player, list(slots)):
            return  # the co-dealer's own signed record shows the rules placed them alone
        raise GameError(f"{said} the moderator shows no order of {player}'s that placed them, and the co-dealer's "
                        f"record of the deal does not show the rules placed them alone")
    body = _signed_order(st, claim, player, decision, players, moderator, log, said)
    named = body.get("facedown") if isinstance(body, Mapping) else None
    if not isinstance(named, list) or sorted(map(str, named)) != sorted(slots) or len(named) != len(slots):
        raise GameError(f"{said} {player}'s signed order names other slots face down")


def _signed_order(st: DealState, claim: Mapping[str, Any], player: str, decision: str, players: Mapping[str, Any],
                  moderator: Any, log: Sequence[Mapping[str, Any]], said: str) -> Any:
    """The body of ``player``'s order for ``decision`` as the moderator published it (``claim``):
    signed by the seat's key of today, for this game and decision, counted by the ``log``.
    ``GameError`` beginning with ``said`` otherwise."""
    from koryo_pbm.crypto.envelope import check_inner, signed_header
    from koryo_pbm.match.orders import parse_orders

    entries = [e for e in log if e.get("decision") == decision and e.get("accepted") is not None]
    try:
        if claim.get("player") != player or claim.get("decision") != decision:
            raise GameError(f"the order shown is {claim.get('player')}'s for {claim.get('decision')}, not "
                            f"{player}'s for {decision}")
        if "key" in claim:
            raise GameError(f"the order shown is signed by a former key of {player}'s seat")
        if player not in players or player == st.co_dealer:
            raise GameError(f"the order shown is {player[:40]}'s, who holds no seat of the game")
        key = players[player]
        header = signed_header(game_id=st.game_id, decision=decision, answers=str(claim["answers"]), player=player,
                               submitted=str(claim["submitted"]), nonce=str(claim["nonce"]),
                               moderator=moderator.fingerprint(), sender=key.fingerprint())
        check_inner(header, str(claim["orders"]), base64.b64decode(str(claim["inner"]), validate=True), key)
        game_id, decision_id, body = parse_orders(str(claim["orders"]), source=f"{player}'s order")
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise GameError(f"{said} the order shown as {player}'s is malformed ({type(exc).__name__})") from None
    except KoryoPbmError as exc:
        raise GameError(f"{said} {exc}") from None
    if (game_id, decision_id) != (st.game_id, decision):
        raise GameError(f"{said} the order shown is for {decision_id} of game {game_id}")
    if not any(claim.get("digest") in e["accepted"] for e in entries):
        raise GameError(f"{said} the log does not count the order shown as {player}'s for {decision}")
    return body
