"""Which mails a player gets when the game moves on, and when the player page goes with them.

The game's ``--state-mail`` (its ``[service]`` table's ``state_mail``) chooses:

* ``act`` (the default, ``""`` in the file): a player gets a state mail when they must act, their
  first one when the game starts, and the last one at game over; never "nothing is needed from
  you now". What happened meanwhile is in their next state mail (it tells everything since the
  last one they got). Answers to their own mail, press and reminders come as before.
* ``every`` (``turn``, its old name): also a short text to the others at every move (the
  behaviour before ``act``);
* ``all``: ``game.toml`` to every player at every move.

The player page (:data:`koryo_pbm.judge.messages.PLAYER_PAGE_NAME`, 155 KB) is attached once per
address and release: with the invitation, or the first mail a player gets from the judge, or on
request (the mail command ``resend page``). The judge remembers in its rate-limit memory
(:meth:`koryo_pbm.judge.limits.Limits.first`, name ``player-page``, the page's digest for the
game) which addresses had this page; later mails say where to get it again.
"""

from __future__ import annotations

from typing import Any

from koryo_pbm.judge.limits import Limits
from koryo_pbm.judge.messages import GameInfo, waiting

PAGE = "player-page"


def mode_of(doc: Any) -> str:
    """The game's state-mail mode: ``act``, ``every`` or ``all``."""
    from koryo_pbm import deadlines

    mode = deadlines.policy_of(doc.service, list(doc.players)).state_mail
    return {"": "act", "turn": "every"}.get(mode, mode)


def wants_state_mail(mode: str, info: GameInfo, player: str, last: int) -> bool:
    """Whether ``player``, last mailed the state of version ``last`` (0: never), gets a state mail
    of the version ``info`` tells (one that moved the game on, or their first)."""
    if mode != "act":
        return True
    return last == 0 or info.decision is None or player in waiting(info)


def _release() -> str:
    from koryo_pbm.assets import player_page_sha256

    return player_page_sha256()[:16]


def page_due(limits: Limits, address: str) -> bool:
    """Whether ``address`` never had this release's player page from this judge."""
    return not limits.seen(PAGE, game=_release(), key=address.casefold())


def page_sent(limits: Limits, address: str) -> None:
    """Remember that the page of this release went to ``address`` (once it is queued)."""
    limits.first(PAGE, game=_release(), key=address.casefold())
