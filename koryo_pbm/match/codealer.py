"""The co-dealer's answer at a blind table: its signed envelope for the pending decision of a game
file, made from the public file alone (:mod:`koryo_pbm.blind` holds the co-dealer's steps,
:func:`~koryo_pbm.blind.co_deal`). Used by ``koryo-pbm co-deal`` and the co-dealer's judge
(:mod:`koryo_pbm.judge.codealer`)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from koryo_pbm.blind import CoDealt, bot_policy, co_deal, co_dealer_of, proves_end
from koryo_pbm.blind.record import _guarded
from koryo_pbm.crypto.envelope import make_envelope
from koryo_pbm.errors import NotForYou
from koryo_pbm.match.orders import canonical_orders
from koryo_pbm.match.views import check_own_order, game_of
from koryo_pbm.store import inbox
from koryo_pbm.store.gamelog import head
from koryo_pbm.verify import check_end


@_guarded
def answer(doc: Any, folder: Any, identity: Any, *, submitted: str) -> CoDealt:
    """The co-dealer's signed envelope (sealed to the moderator) for the pending decision of the
    game file ``doc`` whose folder is ``folder``, or why there is nothing to do: the game does
    not wait for it, or its answer is in the inbox or received already (answering twice would
    count nothing more). ``NotForYou`` for a key that is not the co-dealer's. Before it opens cards
    because the game is over (its key share and seeds, a last reveal of the hands), the end is
    proven: :func:`koryo_pbm.verify.check_end` replays the game from the moderator's published
    seed, salt and signed orders."""
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
    ending = proves_end(game, game.from_view(doc.public, {}, carl))
    if ending:  # the end proven first: the game replayed from the moderator's published seed and orders
        check_end(doc)  # GameError in one line: nothing is released, the game waits
    body = co_deal(game, doc.public, {n: k for n, k in doc.players.items() if n != carl}, identity,
                   decision["id"], doc.log, moderator=doc.moderator, bot_policy=bot_policy(doc),
                   service=doc.service, now=now, end_proven=ending)
    text = canonical_orders(doc.game_id, decision["id"], body)
    check_own_order(doc, game, carl, {}, text, source=f"{carl}'s answer to {decision['id']}")
    envelope = make_envelope(identity, doc.moderator, game_id=doc.game_id, decision=decision["id"],
                             answers=head(doc), player=carl, orders_text=text, submitted=submitted)
    return CoDealt(carl, decision["id"], envelope)
