"""A match on disk: where the rules engine meets the game file.

A *game folder* holds ``game.toml`` (one signed file with the public state, each player's
sealed part and the moderator's sealed secrets), ``inbox/`` where envelopes arrive, and
``archive/`` where processed envelopes are kept. This module knows no particular game and no
command line: it turns a :class:`~koryo_pbm.engine.contract.Game` state into a
:class:`~koryo_pbm.store.gamedoc.GameDoc` and back, and it implements the moderator's resolve
and the player's view. Its modules, each named for what it holds:

    orders      orders files: parsing, the canonical text ``submit`` seals, reading files
    creation    a new match (create), the moderator's secrets, how a version is filled in
    views       opening a game file: the moderator's view, a player's seat and view
    seats       mail addresses changed, a seat taken over, a bot or abandoned seat given back
    notes       the log lines the match writes (deadlines moved, seats taken over, bots), as patterns
    policy      the service lines, deadlines, when and for whom the bot plays
    candidates  the envelopes a resolve found (Candidate) and what it did (Resolution)
    resolution  resolve: screen, open, hold, apply, publish at the end
    run         resolve on disk: lock, inbox and mail, write, archive (used by the
                ``resolve`` command, the judge and ``demo``)
    codealer    the co-dealer's answer at a blind table (used by ``co-deal`` and the
                co-dealer's judge)

Every name callers use is re-exported here: ``from koryo_pbm import match; match.resolve(...)``.

The moderator's sealed part holds::

    state   the game's whole state (game.dump_state), its seeded generator included; before
            a joined game is dealt, the join state (:mod:`koryo_pbm.fair`)
    seed    the moderator's secret seed (committed to in the file from the start)
    salt    the salt of that commitment
    setup   {first, options, position}: how the game was set up (each if given)
    orders  {player: {order, digest, submitted, envelope}} — valid orders received for the
            pending decision, held until everyone it waits for has answered; the part is padded
            as if each player had one of ``HELD_ROOM`` bytes, so its size does not tell how
            many are held, nor what they say
    played  every order counted so far, in a form whose size says nothing secret:
            for a player's, what ``replay`` will publish (decision, player, answers, submitted,
            nonce, digest, inner, key) with its orders padded to a multiple of 1 KiB and their
            ``length`` (before: {decision, player, envelope}, still read),
            {decision, player, bot, orders} for one the moderator's bot played (its level)
    emails  {player: address} — the players' mail addresses, for the judge (absent: none)
    former  {player: [public key line, ...]} — keys that held a seat before a substitute took
            it over (``replace``): their envelopes are refused by name (absent: none)

The public ``[service]`` table (:mod:`koryo_pbm.deadlines`) holds the deadline policy, the
bot seats and the abandoned ones; the pending decision's deadline is set here, when a version
that opens a new decision is written, from the ``now`` the caller passes (never a clock of
this module's own, never one in the rules). Bots play here too (:func:`resolve`): bot seats and
abandoned seats as soon as everyone else is in, missed orders once the deadline and its grace
period have passed, each from that player's view only.
Envelopes name the head of the history they answer (``gamelog.head``); resolve counts only
answers to this game's history at the pending decision.

The deal: a game created without a seed or a position begins with the join decision (see
:mod:`koryo_pbm.fair`); its deal is derived from the moderator's secret, every player's
contribution and the game id. At the end of the match the seed and salt are published in the
game file, with ``replay`` (setup and every accepted order, as the players signed them), so that
anyone can check the commitment and replay the match (``koryo-pbm verify``).
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

# Where each name lives: its module is imported on the first use of one of its names, so that a
# command imports what it uses (``show`` the views, not resolve and its bots; issue 19).
_WHERE: dict[str, str] = {
    "MAX_PER_DECISION": "candidates", "Candidate": "candidates", "Resolution": "candidates", "describe_candidates": "candidates",
    "HELD_ROOM": "creation", "MODERATOR_PART": "creation", "RESERVED_NAMES": "creation", "check_emails": "creation", "create": "creation", "new_game_id": "creation", "next_version": "creation", "_fill": "creation", "_secret": "creation",
    "ORDERS_LIMIT": "orders", "POSITION_LIMIT": "orders", "canonical_orders": "orders", "loads_toml": "orders", "parse_orders": "orders", "read_orders_file": "orders", "read_position": "orders",
    "BOT_NOTES": "notes", "SERVICE_ONLY": "notes", "is_service_entry": "notes", "bot_due": "policy", "deadline_of": "policy",  "set_deadline": "policy",
    "answerable_heads": "resolution", "held_size": "resolution", "publish_orders": "resolution", "resolve": "resolution",
    "Replacement": "seats", "replace_seat": "seats", "unabandon": "seats", "with_emails": "seats",
    "ModeratorView": "views", "Secrets": "views", "check_own_order": "views", "engine_view": "views", "full_view": "views", "game_of": "views", "load_doc": "views", "load_for_resolve": "views", "open_menu": "views", "open_moderator": "views", "open_private": "views", "player_name": "views", "player_state": "views", "require_moderator": "views",
    "gamefile": "koryo_pbm.store.gamefile",
}

if TYPE_CHECKING:
    from koryo_pbm.match.candidates import MAX_PER_DECISION, Candidate, Resolution, describe_candidates
    from koryo_pbm.match.creation import (
        HELD_ROOM,
        MODERATOR_PART,
        RESERVED_NAMES,
        check_emails,
        create,
        new_game_id,
        next_version,
    )
    from koryo_pbm.match.creation import _fill as _fill
    from koryo_pbm.match.creation import _secret as _secret
    from koryo_pbm.match.notes import BOT_NOTES, SERVICE_ONLY, is_service_entry
    from koryo_pbm.match.orders import (
        ORDERS_LIMIT,
        POSITION_LIMIT,
        canonical_orders,
        loads_toml,
        parse_orders,
        read_orders_file,
        read_position,
    )
    from koryo_pbm.match.policy import (
        bot_due,
        deadline_of,
        set_deadline,
    )
    from koryo_pbm.match.resolution import answerable_heads, held_size, publish_orders, resolve
    from koryo_pbm.match.seats import Replacement, replace_seat, unabandon, with_emails
    from koryo_pbm.match.views import (
        ModeratorView,
        Secrets,
        check_own_order,
        engine_view,
        full_view,
        game_of,
        load_doc,
        load_for_resolve,
        open_menu,
        open_moderator,
        open_private,
        player_name,
        player_state,
        require_moderator,
    )
    from koryo_pbm.store import gamefile as gamefile


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        if name.startswith("_") or name not in _MODULES:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        return import_module(f"{__name__}.{name}")  # a module of the package, e.g. match.resolution
    if module.startswith("koryo_pbm."):
        value = import_module(module)
    else:
        value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


_MODULES = ("orders", "creation", "views", "seats", "notes", "policy", "candidates", "resolution", "run",
            "codealer")


__all__ = [
    "BOT_NOTES", "HELD_ROOM", "MAX_PER_DECISION", "MODERATOR_PART", "ORDERS_LIMIT", "POSITION_LIMIT",
    "RESERVED_NAMES", "SERVICE_ONLY", "Candidate", "ModeratorView", "Replacement", "Resolution", "Secrets",
    "answerable_heads", "bot_due", "canonical_orders", "check_emails", "check_own_order", "create", "deadline_of",
    "describe_candidates", "engine_view", "full_view", "game_of", "held_size", "is_service_entry", "load_doc",
    "load_for_resolve", "loads_toml", "new_game_id", "next_version", "open_menu", "open_moderator", "open_private",
    "parse_orders", "player_name", "player_state", "publish_orders", "read_orders_file", "read_position",
    "replace_seat", "require_moderator", "resolve", "set_deadline", "unabandon", "with_emails",
]
