"""Several judges for one community: ``serve --shard K/N`` serves the games whose id falls in
shard K of N, and ``serve --sieve N`` writes the Sieve rules (RFC 5228, for dovecot's Pigeonhole)
with which the mail server files each game's mail into the IMAP folder ``shard-K`` its judge
reads. The rules match the game's tag in the subject, as the judge writes it in every mail
(``[koryo-pbm friday]``) and players' mail programs keep it in their replies; mail without a known
tag goes to shard 1's folder. A judge that finds mail for another shard's game in its folder
moves it to that shard's folder, unanswered (see ``Judge._handle``).

A game's shard is a stable hash of its game id (the first 8 bytes of its SHA-256, modulo N), so
every judge and the rules agree without being told.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from koryo_pbm.errors import KoryoPbmError, UsageError

FOLDER = "shard-{k}"  # the IMAP folder of shard k (1 to N)
MAX_SHARDS = 64


def shard_of(game_id: str, n: int) -> int:
    """The shard (1 to ``n``) serving game ``game_id``."""
    return int.from_bytes(hashlib.sha256(game_id.encode("utf-8")).digest()[:8], "big") % n + 1


def parse(text: str) -> tuple[int, int]:
    """``K/N`` as ``(K, N)``; a one-line reason when it is not one."""
    k, sep, n = text.partition("/")
    if not (sep and k.isdigit() and n.isdigit() and 1 <= int(k) <= int(n) <= MAX_SHARDS):
        raise UsageError(f"--shard takes K/N, shard K of N (1 <= K <= N <= {MAX_SHARDS}), not {text!r}")
    return int(k), int(n)


def sieve(root: Path, n: int) -> str:
    """The Sieve script filing the mail of each game under ``root`` into its shard's folder."""
    from koryo_pbm.store import gamefile
    from koryo_pbm.store.folder import GAME_FILE

    if not 1 <= n <= MAX_SHARDS:
        raise UsageError(f"--sieve takes the number of shards, 1 to {MAX_SHARDS}")
    root = Path(root)
    folders = [root] if (root / GAME_FILE).is_file() else [
        root / name for name in sorted(os.listdir(root)) if not name.startswith(".") and (root / name / GAME_FILE).is_file()]
    tags: dict[int, list[str]] = {k: [] for k in range(1, n + 1)}
    for folder in folders:
        try:
            header = gamefile.read_header(folder / GAME_FILE)
        except KoryoPbmError:
            continue  # not a game this can read: no rule (its mail goes to shard 1, which says so)
        if re.fullmatch(r"[A-Za-z0-9_.:+-]{1,64}", folder.name):  # (a tag the judge reads in a subject)
            tags[shard_of(header.game_id, n)].append(folder.name)
    lines = ['require ["fileinto", "mailbox"];',
             f"# koryo-pbm serve --sieve {n}: the games under {root.name or root}, each filed into its shard's folder",
             "# (made again when games are added: a game without a rule is filed into shard 1's folder, and moved on)"]
    for k, names in tags.items():
        if names:
            subjects = ", ".join(f'"[koryo-pbm {name}]"' for name in names)
            lines.append(f'if header :contains "subject" [{subjects}] {{ fileinto :create "{FOLDER.format(k=k)}"; stop; }}')
    lines.append(f'fileinto :create "{FOLDER.format(k=1)}";')
    return "\n".join(lines) + "\n"
