"""An open game's files, made with fixed keys, ids, seeds and salts, written as text with every
sealed part opened (HPKE's ephemeral keys are the only randomness left, and are left out): the
blind table must leave open games byte for byte what they were. ``python
tests/open_game_golden.py > tests/open-game-golden.txt`` writes the reference (made with the code
before the blind table; written again when resolve stopped sealing menus into the parts, the one
difference)."""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from unittest import mock


def open_game_text() -> str:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

    from koryo_pbm import match
    from koryo_pbm.crypto.keys import Identity
    from koryo_pbm.engine.registry import find_game
    from koryo_pbm.store import gamefile, gameparts

    def ident(name: str, k: int) -> Identity:
        return Identity(name, Ed25519PrivateKey.from_private_bytes(bytes([k]) * 32),
                        X25519PrivateKey.from_private_bytes(bytes([k + 100]) * 32))

    mod = ident("mod", 1)
    seats = {n: ident(n, i + 2) for i, n in enumerate(["alice", "bob", "carol"])}
    out = []
    game = find_game("koryo")
    now = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    for deal in ("seed", "joined"):
        with mock.patch("koryo_pbm.crypto.commit.new_salt", return_value="ab" * 32), \
                mock.patch("koryo_pbm.crypto.commit.new_secret", return_value="cd" * 32):
            doc, _ = match.create(game, mod, {n: i.public for n, i in seats.items()},
                                      seed="golden" if deal == "seed" else None, game_id=f"koryo-golden-{deal}",
                                      emails={"alice": "alice@example.org"}, now=now)
        body = gamefile.encode(doc, mod).decode()
        lines = [ln for ln in body.splitlines() if not ln.startswith("data = ") and not ln.startswith("signature = ")]
        out.append("\n".join(lines))
        for name, key in [("moderator", mod), *seats.items()]:
            out.append(f"[{deal}: {name}'s part opened]")
            out.append(json.dumps(gameparts.open_part(doc, name, key), sort_keys=True))
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.stdout.write(open_game_text())
