"""Write ``interop.json``: byte-compatibility vectors for the player page, made by the Python code.

The page's own tests (``player-page/test/*.test.mjs``, ``node --test``) read them and check that
the JavaScript side signs, seals, opens, pads, hashes and reads key files byte for byte as the
Python side does; ``tests/test_player_page.py`` checks every vector against the Python code of
today, so a change of format on either side fails a test (then run
``python tests/vectors/make_vectors.py`` and commit what it writes).

The keys of the byte-level vectors come from a seeded generator; the game files are real games
made by the command line (fresh keys, a fresh game id) at every run.
"""

from __future__ import annotations

import json
import os
import random
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "interop.json"


def _fixed_urandom(seed: str):
    rng = random.Random(seed)
    return lambda n: bytes(rng.getrandbits(8) for _ in range(n))


def make() -> dict:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

    from koryo_pbm.crypto import envelope as E
    from koryo_pbm.crypto import keys as K
    from koryo_pbm.crypto.seal import seal
    from koryo_pbm.crypto.sign import sign
    from koryo_pbm.store import gameparts, playercopy

    rng = random.Random("koryo-pbm interop vectors")

    def ident(name: str) -> K.Identity:
        return K.Identity(name, Ed25519PrivateKey.from_private_bytes(rng.randbytes(32)),
                          X25519PrivateKey.from_private_bytes(rng.randbytes(32)))

    alice, mod = ident("alice"), ident("mod")
    v1_text = K._encode_secret(alice, None).decode("ascii")
    real_urandom = K.os.urandom
    K.os.urandom = _fixed_urandom("key file v2")  # the salt and nonce of the v2 key file below
    try:
        v2_text = K._encode_secret(alice, b"correct horse").decode("ascii")
    finally:
        K.os.urandom = real_urandom
    lines = dict(line.split(": ", 1) for line in v2_text.splitlines()[1:])
    data = bytes(range(200))
    info = gameparts.part_info("g-1", 7, "alice", alice.public.fingerprint())
    plaintext = b'{"hand":["red-2"]}' + b" " * 14
    header = {"format": E.FORMAT, "game_id": "g-1", "decision": "d3", "answers": "ab" * 32, "player": "alice",
              "submitted": "2026-11-25T19:00:00.123Z", "nonce": "0f" * 16,
              "moderator": mod.public.fingerprint(), "sender": alice.public.fingerprint()}
    orders = 'game = "g-1"\ndecision = "d3"\naction = "draw"\n'
    hb = E.header_bytes(header)
    return {
        "alice": {"key_v1": v1_text, "line": alice.public.line(), "fingerprint": alice.public.fingerprint(),
                  "key_v2": v2_text, "passphrase": "correct horse", "salt": lines["salt"], "nonce": lines["nonce"]},
        "moderator": {"line": mod.public.line(), "fingerprint": mod.public.fingerprint()},
        "signature": {"context": "game-file", "data": data.hex(),
                      "message": __import__("koryo_pbm.crypto.sign", fromlist=["x"]).signed_message("game-file", data).hex(),
                      "signature": sign(alice, "game-file", data).hex()},
        "part": {"info": info.hex(), "plaintext": plaintext.hex(),
                 "blob": seal(alice.public, plaintext, info).hex()},
        "envelope": {"header": header, "header_bytes": hb.hex(), "orders": orders,
                     "padded": E.pad(orders.encode()).hex(),
                     "inner": sign(alice, E.INNER_CONTEXT, hb + orders.encode()).hex(),
                     "seal_info": (E.SEAL_INFO_PREFIX + hb).hex(),
                     "armored": E.make_envelope(alice, mod.public, game_id="g-1", decision="d3",
                                                answers="sha256:" + "ab" * 32, player="alice",
                                                orders_text=orders, submitted=header["submitted"],
                                                nonce=header["nonce"]).armor()},
        "canonical_json": {"value": {"b": [1, "é\n\"x\u0001"], "a": {"z": True, "y": None}},
                           "text": gameparts.compact_json({"a": {"y": None, "z": True}, "b": [1, "é\n\"x\u0001"]})},
        "games": _games(),
        # a game finished in format v3 (signed over its bytes as they are): read still, its own identity
        "old_games": [{"file": v3, "identity": playercopy.file_identity(v3.encode("utf-8"))}
                      for v3 in [(HERE.parent / "store" / "data" / "finished-v3.toml").read_text(encoding="utf-8")]],
        # a menu that inflates beyond choices.MENU_LIMIT (5 MiB of spaces): both sides refuse it
        "menu_bomb": _deflated(b" " * (5 * 1024 * 1024)),
    }


def _deflated(raw: bytes) -> str:
    import base64
    import zlib

    squeeze = zlib.compressobj(9, zlib.DEFLATED, -15)
    return base64.b64encode(squeeze.compress(raw) + squeeze.flush()).decode("ascii")


def _games() -> list[dict]:
    """Real game files of a 4-player Korsar team game: at the join (no log yet) and after it."""
    from koryo_pbm import match
    from koryo_pbm.cli.main import main
    from koryo_pbm.crypto.keys import load_identity
    from koryo_pbm.store import gamefile as G
    from koryo_pbm.store import gamelog, gameparts, playercopy

    out = []
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        os.environ["KORYO_PBM_HOME"] = str(home)
        os.environ.pop("KORYO_PBM_PASSPHRASE", None)
        for name in ("mod", "alice", "bob", "carol", "dave"):
            assert main(["keygen", name, "--json"]) == 0
        keys = home / "keys"
        players = [f"--player={p}={keys / (p + '.pub')}" for p in ("alice", "bob", "carol", "dave")]
        folder = Path(tmp) / "g"
        assert main(["new", str(folder), "--game", "korsar", "--as", "mod", *players, "--team", "alice,bob",
                     "--team", "carol,dave"]) == 0
        for step in range(2):
            data = (folder / "game.toml").read_bytes()
            doc = G.decode(data)
            assert doc.decision is not None
            seat = doc.decision["waiting_for"][0]  # a player with a menu
            me = load_identity(keys / f"{seat}.key")
            out.append({"file": data.decode("utf-8"), "copy": playercopy.player_copy(data).decode("utf-8"),
                        "identity": playercopy.file_identity(data), "head": gamelog.head(doc), "version": doc.version,
                        "seat": seat, "key": (keys / f"{seat}.key").read_text(), "part": gameparts.open_part(doc, seat, me),
                        "menu": match.open_menu(doc, me)})
            if step == 0:
                for p in ("alice", "bob", "carol", "dave"):
                    menu = match.open_menu(doc, load_identity(keys / f"{p}.key"))
                    assert menu is not None
                    text = menu["orders"][0].replace('contribution = "' + "0" * 64, 'contribution = "' + os.urandom(32).hex())
                    (folder / "o.toml").write_text(text)
                    assert main(["submit", str(folder / "o.toml"), "--game", str(folder), "--key", str(keys / f"{p}.key")]) == 0
                assert main(["resolve", str(folder), "--as", "mod"]) == 0
    return out


if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parents[1]))
    OUT.write_text(json.dumps(make(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {OUT}")
