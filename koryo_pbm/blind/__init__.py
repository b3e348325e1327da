"""The blind table in a game (``new --blind``, see ``docs/blind-table.md``). It knows no game.

:class:`Dealing` is a game seen through its blind rules (:meth:`Game.blind_rules`) with the two
dealers' steps put in as decisions of kind ``deal`` that wait for the co-dealer, as
:class:`koryo_pbm.fair.Joining` puts the join in front of a game: resolve, status, deadlines and
the judge treat the co-dealer like an awaited player (it holds a seat of the game file, after
the players', with no cards). The co-dealer's answers are envelopes like any player's.

* The moderator's secrets (its ElGamal key share, the seed of each of its shuffles, the nonces
  of its proofs) are derived from the game's committed deal seed (each shuffle seed also from
  the digest of the deck it shuffles), so its steps are computed in :meth:`Dealing.apply`
  itself and ``verify`` replays them exactly once the seed is published.
* The co-dealer draws a per-game secret from the OS, sealed to itself and signed in its ``keys``
  answer (:func:`record.co_dealer_key` recovers it from the game file on any machine holding its
  key); its key share derives from it, each shuffle seed from it and the digests of what it
  shuffles. It publishes its key share and seeds when the end is proven (the decision ``end``).
* Every shuffle is proven when it is made (Terelius-Wikström, :mod:`koryo_pbm.crypto.shuffle`):
  the next dealer, each player's tools and ``verify`` check the proofs before using a deck.
* Decisions: ``keys`` (the co-dealer's public key share and proof); ``rN-deal`` (the moderator
  has shuffled the deck the rules put together; the co-dealer shuffles it again, and seals its
  decryption shares of the positions dealt to each player to that player); ``rN-reveal-P``
  (the co-dealer's shares of P's face-down cards at P's action turn, public: everyone opens
  them with the moderator's; given only with P's own signed order naming the slots);
  ``end`` (the co-dealer's key share and seeds, given only once the end is proven: the
  moderator publishes its seed, salt and every signed order first and the co-dealer replays).

What each party holds: a player's sealed part has the moderator's shares of the player's own
hidden cards and the co-dealer's, sealed by the co-dealer to the player (the moderator cannot
open them); :func:`open_hand` checks every share and opens the cards. The moderator's part
holds the blind rules' state (slots, never a hidden card id) and its derived secrets.

The modules: :mod:`.record` (the state, keys, secrets, decks, proofs, the co-dealer's signed
record, the public log lines), :mod:`.dealing` (:class:`Dealing`: the dealers' steps as
decisions), :mod:`.codealer` (the co-dealer's answers and what it checks first), :mod:`.hands`
(the cards a key opens; ``--missed bot``), :mod:`.audit` (``verify``'s audit).
"""

from koryo_pbm.errors import KoryoPbmError

from .audit import audit_decks, audit_game, audited_cards, start_replay
from .codealer import CoDealt, bot_policy, check_bot_seats, check_claim, check_turn_up, co_deal, co_dealer_of
from .dealing import Dealing, claim_wanted, proves_end, turn_up_wanted, with_claim, with_signed
from .hands import (
                    bot_cards,
                    check_open_claim,
                    check_turned_up,
                    choose_bot,
                    hidden_slots,
                    needs_opening,
                    open_hand,
                    open_hand_shares,
                    open_peek,
                    opened_for,
                    request_open,
                    revealed_shares,
                    with_public,
)
from .record import (
                    _DEALT_CONTEXT,
                    DEAL,
                    END,
                    KEYS,
                    ONE_DECK,
                    OPEN_NOTE,
                    PUBLIC_KEY,
                    SHUFFLED_NOTE,
                    DealState,
                    _card_at,
                    _dealer_keys,
                    _dealt_bytes,
                    _final,
                    _input_deck,
                    _joint,
                    _slot,
                    _table_of,
                    bot_seat_text,
                    check_proof,
                    check_proofs,
                    co_dealer_secret,
                    expand_decks,
                    in_todays_words,
                    open_info,
                    open_note,
                    opened_text,
                    refer_decks,
                    shares_info,
                    shuffle_proof,
                    shuffled_deck,
                    shuffled_text,
)

__all__ = [
                    "DEAL",
                    "END",
                    "KEYS",
                    "ONE_DECK",
                    "OPEN_NOTE",
                    "PUBLIC_KEY",
                    "SHUFFLED_NOTE",
                    "_DEALT_CONTEXT",
                    "CoDealt",
                    "DealState",
                    "Dealing",
                    "KoryoPbmError",
                    "_card_at",
                    "_dealer_keys",
                    "_dealt_bytes",
                    "_final",
                    "_input_deck",
                    "_joint",
                    "_slot",
                    "_table_of",
                    "audit_decks",
                    "audit_game",
                    "audited_cards",
                    "bot_cards",
                    "bot_policy",
                    "bot_seat_text",
                    "check_bot_seats",
                    "check_claim",
                    "check_open_claim",
                    "check_proof",
                    "check_proofs",
                    "check_turn_up",
                    "check_turned_up",
                    "choose_bot",
                    "claim_wanted",
                    "co_deal",
                    "co_dealer_of",
                    "co_dealer_secret",
                    "expand_decks",
                    "hidden_slots",
                    "in_todays_words",
                    "needs_opening",
                    "open_hand",
                    "open_hand_shares",
                    "open_info",
                    "open_note",
                    "open_peek",
                    "opened_for",
                    "opened_text",
                    "proves_end",
                    "refer_decks",
                    "request_open",
                    "revealed_shares",
                    "shares_info",
                    "shuffle_proof",
                    "shuffled_deck",
                    "shuffled_text",
                    "start_replay",
                    "turn_up_wanted",
                    "with_claim",
                    "with_public",
                    "with_signed",
]
