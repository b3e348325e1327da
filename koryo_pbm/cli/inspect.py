"""``koryo-pbm inspect``: everything a key can open in a game file, opened and printed by name.

The game file is read as ``show`` reads it (the moderator's signature checked, the memory of
games seen honoured); then the key is tried on every sealed part the file holds, whatever its
name and whatever recipient the file names for it (:func:`koryo_pbm.store.gameparts.open_every_part`),
so that a part of a new kind, or one sealed to another key than its label says, is shown too.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from koryo_pbm.cli.common import echo_json, identity_options, load_identity, remember, warn_conflict_copies


@click.command("inspect")
@click.argument("target", required=False, metavar="[DIR|FILE]")
@identity_options(role="moderator's, a player's or anyone")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def command(target: str | None, as_name: str | None, key_file: Path | None, as_json: bool) -> None:
    """Everything the key of NAME (--as NAME, or --key FILE) can open in the game in DIR or FILE
    (default: here), opened and printed by name, and nothing else: what that key sees.

    Every sealed part of the file is tried, not only the one the file names for NAME: a
    player sees their own part (hand, face-down cards, the menu of their choices while the game
    waits for them); the moderator sees the moderator's part, which holds the whole state of an
    open game (every hand), and the parts of bot seats. A key that opens nothing is told so
    (exit status 0)."""
    from koryo_pbm import match
    from koryo_pbm.store.folder import game_paths
    from koryo_pbm.store.gamedoc import MODERATOR_PART
    from koryo_pbm.store.gameparts import open_every_part
    from koryo_pbm.store.playercopy import is_player_copy

    folder, path = game_paths(target)
    doc = match.load_doc(path)
    remember(doc)
    warn_conflict_copies(folder, path)
    identity = load_identity(as_name, key_file, doc=doc)
    mine = identity.public.fingerprint()
    holders: dict[str, list[str]] = {doc.moderator.fingerprint(): ["moderator"]}
    for seat, key in doc.players.items():
        holders.setdefault(key.fingerprint(), []).append(seat)
    roles = holders.get(mine, [])
    opened, closed = open_every_part(doc, identity)
    copy = is_player_copy(doc)  # the moderator's part is there as its digest alone: nothing to open
    parts = len(doc.sealed) - (1 if copy else 0)
    for p in opened:  # a sealed menu is kept deflated (koryo_pbm.choices): shown inflated
        if isinstance(p.data.get("menu"), str):
            from koryo_pbm.choices import decode_menu

            menu = decode_menu(p.data["menu"])
            if menu is not None:
                p.data["menu"] = menu
    if doc.deal == "blind":  # a seat's part this key opens: its hidden cards, if the key opens their shares
        _open_blind_cards(doc, opened, identity)
    from koryo_pbm.printable import json_safe, printable

    raw_who = identity.name if as_name is not None else str(key_file)
    who = printable(raw_who)
    others = ", ".join(printable(name) for name in closed)
    if as_json:
        echo_json({
            "game_id": doc.game_id, "game": doc.game, "version": doc.version,
            "moderator": doc.moderator.fingerprint(),
            "key": {"name": raw_who, "fingerprint": mine, "holds": roles},
            "opened": [{"part": p.name, "recipient": p.recipient, "recipient_holds": _holds(holders, p.recipient),
                        "labelled_yours": p.labelled_mine, "data": p.data} for p in opened],
            "not_opened": closed, "player_copy": copy,
        })
        return
    click.echo(f"game {doc.game_id} ({doc.game}), version {doc.version}, signed by moderator "
               f"{doc.moderator.fingerprint()}")
    click.echo(f"the key of {who} ({mine}): {_describe_roles(doc, roles)}")
    if copy:
        click.echo("this is a player copy: the moderator's part is in it only as its digest")
    if not opened:
        click.echo(f"nothing in this file opens with {who}'s key: its {_count(len(closed), 'sealed part')} "
                   f"({others or 'none'}) are sealed to other keys")
        return
    click.echo(f"it opens {len(opened)} of the file's {_count(parts, 'sealed part')}"
               + (f"; sealed to other keys: {others}" if closed else ""))
    for p in opened:
        to = _key_of(_holds(holders, p.recipient))
        what = "the moderator's part" if p.name == MODERATOR_PART else f"{printable(p.name)}'s part"
        click.echo("")
        click.echo(f"[sealed.{_toml_key(p.name)}]: {what}, sealed to {to} ({p.recipient})")
        if not p.labelled_mine:
            click.echo(f"  note: the file names {p.recipient} as its recipient, yet it opens with this key")
        click.echo(json_safe(json.dumps(p.data, indent=2, ensure_ascii=False)))


def _holds(holders: dict[str, list[str]], fingerprint: str) -> list[str]:
    return holders.get(fingerprint, [])


def _key_of(holds: list[str]) -> str:
    from koryo_pbm.printable import printable

    if "moderator" in holds:
        return "the moderator's key"
    return f"{printable(holds[0])}'s key" if holds else "a key this game does not name"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _describe_roles(doc: Any, roles: list[str]) -> str:
    if not roles:
        return f"neither the moderator's nor a player's key of game {doc.game_id}"
    seats = [r for r in roles if r != "moderator"]
    parts = []
    if "moderator" in roles:
        parts.append("the moderator")
        if seats:
            parts.append("holding the bot seat" + ("s " if len(seats) > 1 else " ") + ", ".join(seats))
    else:
        parts.append("the key of seat" + ("s " if len(seats) > 1 else " ") + ", ".join(seats))
    return ", ".join(parts)


def _toml_key(name: str) -> str:
    """``name`` as a TOML key, quoted when it is not bare (``"carl:alice:round-3"``)."""
    from koryo_pbm.printable import printable

    if name and all(c.isascii() and (c.isalnum() or c in "_-") for c in name):
        return name
    return json.dumps(printable(name))


def _open_blind_cards(doc: Any, opened: list[Any], identity: Any) -> None:
    """At a blind table a seat's part holds the dealers' shares, not cards: a seat's part
    whose co-dealer shares open with this key too (the player's own; a bot seat's, for the
    moderator) gets its cards, opened and checked, under ``cards``."""
    from koryo_pbm import blind
    from koryo_pbm.errors import KoryoPbmError

    for p in opened:
        if p.name in doc.players and isinstance(p.data.get(blind.PUBLIC_KEY), dict):
            try:
                cards = blind.open_hand(doc.public, p.data, doc.game_id, p.name, identity)
            except KoryoPbmError:
                continue  # the co-dealer's shares are sealed to another key: no card opens
            if cards:
                p.data["cards"] = cards
