"""The co-dealer's answer at a blind table: its signed envelope for the pending decision of a game
file, made from the public file alone (:mod:`koryo_pbm.blind` holds the co-dealer's steps,
:func:`~koryo_pbm.blind.co_deal`). Used by ``koryo-pbm co-deal`` and the co-dealer's judge
(:mod:`koryo_pbm.judge.codealer`)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from koryo_pbm.blind import CoDealt, _guarded, bot_policy, co_deal, co_dealer_of
from koryo_pbm.crypto.envelope import make_envelope
from koryo_pbm.errors import NotForYou
from koryo_pbm.match.orders import canonical_orders
from koryo_pbm.match.views import check_own_order, game_of
from koryo_pbm.store import inbox
from koryo_pbm.store.gamelog import head


@_guarded
def answer(doc: Any, folder: Any, identity: Any, *, submitted: str) -> CoDealt:
    """The co-dealer's signed envelope (sealed to the moderator) for the pending decision of the
    game file ``doc`` whose folder is ``folder``, or why there is nothing to do: the game does
    not wait for it, or its answer is in the inbox or received already (answering twice would
    count nothing more). ``NotForYou`` for a key that is not the co-dealer's."""
    carl = co_dealer_of(doc)
    if doc.players[carl] != identity.public:
        raise NotForYou(f"key {identity.name!r} is not the co-dealer of game {doc.game_id} (the co-dealer is {carl})")
    decision = doc.decision
    if decision is None or decision.get("waiting_for") != [carl]:
        waits = "nobody (the game is over)" if decision is None else ", ".join(decision.get("waiting_for", []))
        return CoDealt(carl, None, why=f"game {doc.game_id} waits for {waits}")
    if carl in decision.get("received", []):
        return CoDealt(carl, None, why=f"the moderator has received {carl}'s answer to {decision['id']}")
    for item in inbox.list_inbox(folder) if inbox.inbox_dir(folder).is_dir() else ():
        env = item.envelope
        if not isinstance(env, Exception) and env.player == carl and env.decision == decision["id"] \
                and env.game_id == doc.game_id:
            return CoDealt(carl, None, why=f"{carl}'s answer to {decision['id']} is in the inbox already")
    game = game_of(doc)
    now = datetime.fromisoformat(submitted.replace("Z", "+00:00"))  # the co-dealer's clock
    body = co_deal(game, doc.public, {n: k for n, k in doc.players.items() if n != carl}, identity,
                   decision["id"], doc.log, moderator=doc.moderator, bot_policy=bot_policy(doc),
                   service=doc.service, now=now)
    text = canonical_orders(doc.game_id, decision["id"], body)
    check_own_order(doc, game, carl, {}, text, source=f"{carl}'s answer to {decision['id']}")
    envelope = make_envelope(identity, doc.moderator, game_id=doc.game_id, decision=decision["id"],
                             answers=head(doc), player=carl, orders_text=text, submitted=submitted)
    return CoDealt(carl, decision["id"], envelope)
