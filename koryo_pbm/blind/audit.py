"""The audit of a finished blind game (``verify``): every deck, deal and reveal recomputed from
the dealers' published secrets, then the ordinary rules run on the real cards."""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from typing import Any

from koryo_pbm.crypto import blind as cb
from koryo_pbm.engine.contract import Decision, Event, Game, Order, blind_hook
from koryo_pbm.errors import FormatError, GameError, KoryoPbmError

from .dealing import Dealing
from .record import (
    PUBLIC_KEY,
    DealState,
    _dealer_keys,
    _deck,
    _guarded,
    _input_deck,
    _slot,
    check_proofs,
)

# -- the audit at the end (verify) -------------------------------------------------------------


def start_replay(game: Game, public: Mapping[str, Any], seats: Sequence[str], deal_seed: str,
                 first: str | None) -> DealState:
    """The first state of a finished blind game, for ``verify``'s replay: the moderator's
    secrets derived again from the published seed."""
    assert isinstance(game, Dealing)
    rec = public.get(PUBLIC_KEY)
    if not isinstance(rec, Mapping) or not isinstance(rec.get("dealers"), list) or len(rec["dealers"]) != 2:
        raise FormatError("the public part of this blind game has no blind table")
    options = rec.get("options") or None
    st = game.start(str(rec["game_id"]), list(seats), (str(rec["dealers"][0]), str(rec["dealers"][1])),
                    str(rec.get("signer", "")), deal_seed, first, options if isinstance(options, Mapping) else None,
                    bots=[str(b) for b in rec.get("bots", ())], version=2 if rec.get("version") == 2 else 1)
    # the moderator's published proofs: the replay checks them instead of making new ones
    st.known = {str(d["id"]): str(d["proofs"][0]) for d in rec.get("decks", ())
                if isinstance(d, Mapping) and isinstance(d.get("proofs"), list) and d["proofs"]}
    return st


@_guarded
def audit_decks(game: Game, public: Mapping[str, Any]) -> tuple[Any, ...]:
    """The cryptographic part of :func:`audit_game`: every deck, deal and reveal of the public
    record recomputed from the dealers' published secrets (``BlindCheckError`` names the first
    thing that does not check). What :func:`audited_cards` and :func:`audit_game` read."""
    assert isinstance(game, Dealing)
    st = game.from_view(public, {}, "")
    gid = st.game_id
    missing = [d for d in st.dealers if d not in st.published]
    if missing:
        raise cb.BlindCheckError(f"{missing[0]} did not publish its key share")
    try:
        secrets = [cb.DealerSecrets(d, base64.b64decode(st.published[d]["key"]),
                                    {k: base64.b64decode(v) for k, v in st.published[d]["seeds"].items()})
                   for d in st.dealers]
        keys = _dealer_keys(st)
        opts = [dict(st.options)] if st.options else []
        first_feed = game.rules.deck_input(game.rules.setup(list(st.seats), st.seats[0], *opts))[1]
        if not st.decks or st.decks[0]["input"] != first_feed:
            raise cb.BlindCheckError("the first deck is not the game's cards in catalogue order")
        records = []
        for rec in st.decks:
            if len(rec["outputs"]) != len(st.dealers):
                raise cb.BlindCheckError(f"{cb.deck_name(rec['id'])} has {len(rec['outputs'])} shuffles, not one per dealer")
            check_proofs(st, rec)  # version 2: each dealer's proof of its shuffle
            records.append(cb.DeckRecord(rec["id"], _input_deck(st, rec["input"]),
                                         tuple(_deck(o) for o in rec["outputs"])))
        deals = [cb.Deal(cb.Slot(gid, rec["id"], pos, r), ()) for rec in st.decks
                 for pos, r in enumerate(rec.get("recipients", [])) if r]
        reveals = [cb.Reveal(_slot(st, r["slot"], r["player"]), r["card"],
                             tuple(cb.Share.from_bytes(d, base64.b64decode(r["shares"][d])) for d in st.dealers))
                   for r in st.reveals]
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise FormatError(f"the blind table's record is malformed ({exc})") from None
    result = cb.audit(gid, keys, cb.CardTable(first_feed), records, deals, reveals, secrets)
    return st, result, records, deals, reveals, first_feed


def audited_cards(audited: tuple[Any, ...]) -> dict[str, str]:
    """Slot -> card id of every card of the game, from :func:`audit_decks`."""
    return {f"{deck}:{pos}": card for deck, cards in audited[1].decks.items() for pos, card in enumerate(cards)}


@_guarded
def audit_game(game: Game, public: Mapping[str, Any], answers: Sequence[tuple[Decision, Mapping[str, Order]]],
               events: Sequence[Event], audited: tuple[Any, ...] | None = None) -> str:
    """The blind table of a finished game audited from its public record: every deck recomputed
    from the dealers' published key shares and seeds, every deal and reveal checked
    (:func:`koryo_pbm.crypto.blind.audit`), then the game's ordinary rules run on the real cards
    must give the events the blind rules gave (``answers``: the players' decisions and orders,
    ``events``: every event of the replay). ``BlindCheckError``/``GameError`` name the first
    thing that does not check; returns what was checked, in one line."""
    assert isinstance(game, Dealing)
    st, result, records, deals, reveals, _ = audited or audit_decks(game, public)
    dealt = dict(game.rules.dealt(st.rules))
    for rec in st.decks:
        if rec.get("recipients") != list(dealt.get(rec["id"], ())):
            raise cb.BlindCheckError(f"{cb.deck_name(rec['id'])} is dealt to other players than the rules deal it to")
    first = next((e.data.get("first") for e in events if e.kind == "blind" and "first" in e.data), None)
    played = [e for e in events if e.kind != "blind"]
    what = (f"{len(records)} deck{'s' if len(records) != 1 else ''} shuffled by {' and '.join(st.dealers)}, {len(deals)} cards dealt and "
            f"{len(reveals)} revealed: every one recomputed from the dealers' published key shares and seeds"
            + ("; every shuffle's proof checked" if st.version >= 2 else ""))
    if any(e.kind == "void" for e in played):
        return what + "; a face-down play broke the orders rule (discarded, see the rules' Blind table)"
    try:
        open_events, outcome = game.rules.replay_open(list(st.seats), str(first), result.decks, answers,
                                                      *([dict(st.options)] if st.options else []))
    except KoryoPbmError as exc:
        raise GameError(f"the ordinary rules cannot be played on the real cards: {exc}") from None
    text = blind_hook(game.rules, "event_text") or (lambda t: t)  # rules where a move forced by a hidden hand is asked
    said = [text(e.text) for e in played]
    rules = [text(e.text) for e in open_events]
    if said != rules:
        at = next((i for i, (a, b) in enumerate(zip(said, rules, strict=False)) if a != b), min(len(said), len(rules)))
        raise GameError(f"the game says {said[at] if at < len(said) else '(nothing)'!r} where the ordinary rules on "
                        f"the real cards give {rules[at] if at < len(rules) else '(nothing)'!r}")
    if outcome != game.rules.outcome(st.rules):
        raise GameError("the ordinary rules on the real cards give other scores")
    return what + f"; the ordinary rules on the real cards give the same {len(rules)} events and scores"
