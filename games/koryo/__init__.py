"""Koryo, exactly by the rulebook (``shared/rules/koryo.md`` is the specification).

Shipped as ``koryo_pbm_games.koryo``; the entry point ``koryo`` names :class:`KoryoGame`.

Design
------
The state (:class:`~.state.KoryoState`) is a small mutable object of count arrays (11 card
ids per pile, see :mod:`.cards`); ``apply`` copies it once (short lists, no ``deepcopy``) and
changes the copy, so the input is never mutated. The copy shares the generator until the
round-end shuffle, which gives the new state its own copy first. The only randomness is the seeded
:class:`~koryo_pbm.engine.rng.Rng` stored in the state: the first player (when not given) is
drawn first, then the 55 cards are shuffled; at each round end the discard pile is added to
what is left of the deck and the whole deck is shuffled. After round 8 nothing is reshuffled.
Shuffles are exact Fisher–Yates shuffles that read several swaps from one generator draw
(:func:`.rules.shuffle`), which keeps random play fast.

Decisions
---------
``r{r}-orders`` (kind ``orders``, every player whose hand holds two cards or more, at once),
``r{r}-action-{player}`` (``action``), ``r{r}-discard-{player}`` (``discard``).

What "only one possible outcome" means here (spec, last section), read literally:

* **Action turn** — automatic exactly when no revealed event has a legal target and there is
  no Spy theft with two or more possible victims. Then the engine plays: reveal (each event
  without a legal target has no effect, logged "alice's barbarian has no effect (no legal
  target)"), Banker (if the power is held and the bank is not empty), Priest (if held and an
  event is in front of the player; it destroys a Barbarian before a Lobbying — both cost −1,
  so "any event"), Spy (if held, on the only opponent with a token). Revealing only adds the
  player's own cards and no power moves a character, so the targets of the events and the Spy
  power are those of the tables right after the reveal, and the victims (opponents with
  tokens) cannot change during such a turn.
* **End-phase discard** — automatic when the player is not over the limit, or when exactly
  one multiset of characters is a minimal legal discard (e.g. all characters must go, or
  only one character id is on the table). The Senator bonus is judged on the table left.
* **Order phase** — a hand of exactly one card has one outcome (at least one card is played
  from a non-empty hand), so that card is played by the engine and its owner is not asked;
  the decision waits only for the players holding two cards or more, and their orders are
  resolved together with the forced plays (the events read alike: "carol plays 1 card face
  down", in seat order). Empty hands play nothing. When no hand holds two cards or more, the
  whole phase is taken by the engine. (This replaces an earlier reading that still asked a
  player holding a single card.)

Orders
------
``{"play": [...]}``; ``{"steps": [...]}`` (see :mod:`.orders`); ``{"discard": [...]}``.
The steps run in the order written: the reveal, then one step per revealed event (its effect:
a target, or declined) in any order, with the powers before, between or after them (the
rulebook: "before, after or while revealing"). An event left without a step has no effect
only if it has no legal target when the steps are done; else its step is required. A Priest
destroying a revealed event before its step does not take its effect away: the effect belongs
to the reveal (a reading; declining gives the same outcomes either way).
A Banker step with an empty bank is refused (the steps are exactly what happens, and that
step would do nothing). A Lobbying swap may name the same card id on both sides (legal, no
effect). ``[[x, a], [y, b]]`` and ``[[y, b], [x, a]]`` are the same swap.

Positions
---------
See :mod:`.positions`. Loading a position takes the one-outcome decisions at once (so
``pending`` is a real decision): a position whose first action turn is automatic is loaded
with that turn already played (its events are not reported). A position may also say
``turn = "bob"`` in the actions or end phase, so every state ``apply`` returns can be dumped
and loaded back.

Views
-----
``from_view`` keeps the other players' hands and face-down cards, the deck and the discard
pile as sizes only (:class:`~.state.Hidden`); such a state serves ``check``,
``random_order``, ``describe_choices`` and ``pending``, but not ``apply``.
"""

from .game import KoryoGame

__all__ = ["KoryoGame"]
