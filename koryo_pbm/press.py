"""Press between the players of a game: who may write to whom (the game's ``press`` policy), the
keys a press is sealed to, reading one, and delivering one into a shared folder's ``press/NAME/``.

The game's ``[service] press`` says what press it allows: ``private`` (the default: to any other
players), ``public`` (only to all players at once), ``none``. A bot seat (it has the moderator's
key) never receives press: sealing to it would let the moderator read it. Press never enters the
game file: the public log holds no press.
"""

from __future__ import annotations

from pathlib import Path

from koryo_pbm.crypto.keys import Identity, PublicIdentity
from koryo_pbm.crypto.press import Press, make_press
from koryo_pbm.errors import FormatError, KoryoPbmError, StorageError, UsageError
from koryo_pbm.store.gamedoc import GameDoc

PRESS_DIR = "press"
MAX_FOLDER_PRESS = 1000  # press files one recipient's folder may hold before delivery is refused


class PressRefused(UsageError):
    """A press the game does not allow (a player not in the game, press disabled...)."""


def policy(doc: GameDoc) -> str:
    from koryo_pbm.deadlines import policy_of

    return policy_of(doc.service, list(doc.players)).press or "private"


def _readers(doc: GameDoc, sender: str) -> list[str]:
    """Every player a press from ``sender`` can go to (not the sender, not a bot seat)."""
    return [n for n, k in doc.players.items() if n != sender and k != doc.moderator]


def recipients(doc: GameDoc, sender: str, to: str) -> dict[str, PublicIdentity]:
    """The recipients ``to`` names (``bob``, ``bob,carol`` or ``all``) with their keys, checked
    against the game and its press policy (``PressRefused``)."""
    allowed = policy(doc)
    if allowed == "none":
        raise PressRefused(f"game {doc.game_id} allows no press (new --press none)")
    readers = _readers(doc, sender)
    names = [n.strip() for n in to.split(",") if n.strip()]
    if not names:
        raise PressRefused("--to names nobody: give player names (bob,carol) or all")
    if names == ["all"]:
        names = readers
        if not names:
            raise PressRefused("there is no other player to write to")
    for n in names:
        if n == sender:
            raise PressRefused("press goes to other players, not to yourself")
        if n not in doc.players:
            raise PressRefused(f"{n[:64]} is not a player of game {doc.game_id} (the players are "
                               f"{', '.join(doc.players)}); nothing was sent")
        if n not in readers:
            raise PressRefused(f"{n} is a bot seat: it reads no press; nothing was sent")
    if len(set(names)) != len(names):
        raise PressRefused("--to names a player twice")
    if allowed == "public" and sorted(names) != sorted(readers):
        raise PressRefused(f"game {doc.game_id} allows only public press (new --press public): send it --to all")
    return {n: doc.players[n] for n in names}


def write(doc: GameDoc, identity: Identity, to: str, text: str, *, sent: str) -> Press:
    from koryo_pbm import match

    sender = match.player_name(doc, identity)
    return make_press(identity, game_id=doc.game_id, sender=sender, to=recipients(doc, sender, to), text=text,
                      sent=sent)


def check(doc: GameDoc, press: Press) -> None:
    """What the relay checks before passing a press on: its game, its sender's signature with the
    game's key of that seat, recipients who are players with the keys it was sealed to, and the
    game's press policy (``PressRefused``, ``TamperedError``)."""
    if press.game_id != doc.game_id:
        raise PressRefused(f"the press is for game {press.game_id}, not {doc.game_id}")
    sender = press.sender_name
    if sender not in doc.players or doc.players[sender] == doc.moderator:
        raise PressRefused(f"the press is from {sender[:64]}, who is not a player of game {doc.game_id}")
    press.verify(doc.players[sender])
    keys = recipients(doc, sender, ",".join(press.recipients))
    sealed_to = press.header["recipients"].split(",")
    for (name, key), fingerprint in zip(keys.items(), sealed_to, strict=True):
        if key.fingerprint() != fingerprint:
            raise PressRefused(f"the press is sealed to a key that is not {name}'s in game {doc.game_id}")


def read(doc: GameDoc, identity: Identity, press: Press) -> tuple[str, str]:
    """``(sender, text)`` of ``press`` for the player holding ``identity``."""
    from koryo_pbm import match

    if press.game_id != doc.game_id:
        raise FormatError(f"the press is for game {press.game_id}, not for game {doc.game_id}")
    me = match.player_name(doc, identity)
    sender = press.sender_name
    if sender not in doc.players:
        raise FormatError(f"the press is from {sender[:64]}, who is not a player of game {doc.game_id}")
    return sender, press.open(identity, me, doc.players[sender])


def file_name(press: Press) -> str:
    stamp = press.sent.replace(":", "").replace("-", "")[:15]
    return f"{stamp}-{press.sender_name}-{press.digest[:12]}.press"


def deliver(folder: Path, press: Press) -> list[Path]:
    """Write ``press`` into ``folder/press/NAME/`` of each recipient (atomically; the same press
    twice is one file)."""
    from koryo_pbm.store.atomic import write_atomic

    written = []
    data = press.armor().encode("ascii")
    for name in press.recipients:
        box = folder / PRESS_DIR / name
        try:
            box.mkdir(parents=True, exist_ok=True)
            if sum(1 for _ in box.iterdir()) >= MAX_FOLDER_PRESS:
                raise StorageError(f"{box} holds {MAX_FOLDER_PRESS} press files already: nothing was delivered")
            path = box / file_name(press)
            if not path.exists():
                write_atomic(path, data)
        except OSError as exc:
            raise StorageError(f"cannot deliver press into {box}: {exc.strerror or exc}") from None
        written.append(path)
    return written


def parse_any(text: str, what: str) -> list[Press]:
    """Every press in ``text`` (a press file or a saved mail's text); ``FormatError`` when there
    is none or one is broken."""
    from koryo_pbm.crypto.press import scan_press

    found = scan_press(text)
    for item in found:
        if isinstance(item, KoryoPbmError):
            raise FormatError(f"{what}: {item}")
    if not found:
        raise FormatError(f"{what} holds no press (a block starting -----BEGIN KORYO-PBM PRESS-----)")
    return [p for p in found if isinstance(p, Press)]
