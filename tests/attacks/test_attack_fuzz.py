"""Bad input through the real entry point, ``koryo_pbm.cli.main.main``.

Each target gets random bytes, wrong types, unknown keys, huge sizes, deep nesting and odd
Unicode. Every case must end in exit 0 (the input happened to be valid) or in exactly one line
``koryo-pbm: error: ...`` and a non-zero exit; an exception escaping ``main`` fails the test.
The game file, the inbox and the archive are compared before and after: a refused input never
changes or loses anything.

The number of cases per target is fixed (``derandomize=True``, ``max_examples``) and asserted
at the end of each test: see ``CASES``.
"""

from __future__ import annotations

import shutil
import string

import tomli_w
from attack_kit import (
    PLAYERS4,
    Arena,
    assert_refused,
    body_of,
    envelope_files,
    folder_snapshot,
    game_id_of,
    head_of,
    identity,
    parse_envelope,
    sign_game,
)
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

CASES = {  # target -> number of generated cases
    "orders (submit)": 300,
    "orders inside signed envelopes (resolve)": 200,
    "positions (new --position)": 150,
    "envelope files (resolve, inbox)": 300,
    "mail files (resolve --mail)": 200,
    "game files, unsigned (show/status/resolve)": 300,
    "game files, signed by a stranger (show/status/orders/resolve)": 200,
    "key files (--key)": 200,
    "public key lines (new --player)": 100,
}
TRIED: dict[str, int] = {k: 0 for k in CASES}


def fuzz(target: str):
    return settings(max_examples=CASES[target], derandomize=True, database=None, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much])


# -- strategies ---------------------------------------------------------------------------------

ODD = st.sampled_from([
    "", " ", "\x00", "\t", "\r\n", "\u202e", "\u200b", "\ufeff", "\U0001F600", "e\u0301", "\u0130",
    "ﬁ", "Ａ", "\\", '"', "'''", "\"\"\"", "#", "=", "[", "]", "{", "}", ".", "\x7f", "\u2028", "ᚠ",
    "koryo-pbm: error: ", "-----BEGIN KORYO-PBM ENVELOPE-----", "A" * 5000,
])
TEXT = st.one_of(st.text(max_size=40), ODD, st.text(alphabet=string.printable, max_size=40))
KEY = st.one_of(st.sampled_from(["game", "decision", "play", "steps", "discard", "action", "card", "galleon",
                                 "do", "player", "players", "round", "phase", "first", "turn", "tables"]),
                TEXT)
SCALAR = st.one_of(
    TEXT, st.booleans(), st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=True, allow_infinity=True), st.datetimes(), st.dates(), st.times(),
    st.sampled_from(["merchant", "senator", "barbarian", "spy", "priest", "reveal", "draw", "play", "galleon"]),
)
VALUE = st.recursive(SCALAR, lambda inner: st.one_of(st.lists(inner, max_size=5),
                                                     st.dictionaries(KEY, inner, max_size=5)), max_leaves=20)


def toml_text(table: dict) -> str | None:
    try:
        return tomli_w.dumps(table)
    except Exception:
        return None


@st.composite
def nested(draw) -> str:
    depth = draw(st.sampled_from([1, 10, 100, 400, 1000, 5000, 20000]))
    key = draw(st.sampled_from(["play", "a", "steps", "players"]))
    kind = draw(st.sampled_from(["array", "table", "mixed"]))
    if kind == "array":
        return f"{key} = " + "[" * depth + "]" * depth + "\n"
    if kind == "table":
        return f"{key} = " + "{a = " * depth + "1" + "}" * depth + "\n"
    return f"{key} = " + "[{a = " * depth + "1" + "}]" * depth + "\n"


def documents(head: dict) -> st.SearchStrategy[bytes]:
    """Bytes of a file that should hold a TOML document: random bytes, random text, structured
    TOML (with ``head``'s keys now and then), deep nesting, huge sizes."""
    structured = st.builds(
        lambda base, extra, keep: toml_text({**{k: v for k, v in base.items() if keep}, **extra}),
        st.just(head), st.dictionaries(KEY, VALUE, max_size=6), st.booleans(),
    ).filter(lambda t: t is not None).map(lambda t: t.encode("utf-8", "surrogatepass"))
    with_head = st.builds(lambda body: toml_text(head).encode() + body,
                          st.one_of(nested().map(str.encode), st.binary(max_size=200),
                                    st.text(max_size=200).map(lambda t: t.encode("utf-8", "surrogatepass"))))
    huge = st.builds(lambda n, c: toml_text(head).encode() + b"x = \"" + c * n + b"\"\n",
                     st.sampled_from([60_000, 70_000, 300_000, 2_000_000]), st.sampled_from([b"a", "é".encode()]))
    return st.one_of(
        st.binary(max_size=3000),
        st.text(max_size=500).map(lambda t: t.encode("utf-8", "surrogatepass")),
        structured, structured, with_head, nested().map(str.encode), huge,
    )


# -- helpers ----------------------------------------------------------------------------------


def check(r, tried: str) -> bool:
    """Exit 0, or a one-line refusal. True when refused."""
    TRIED[tried] += 1
    if r.code == 0:
        return False
    assert_refused(r)
    return True


def done(target: str) -> None:
    assert TRIED[target] >= CASES[target], (target, TRIED[target])


# -- orders ------------------------------------------------------------------------------------


def test_fuzz_orders_files(world, tmp_path):
    target = "orders (submit)"
    arena = Arena(world, tmp_path / "a")
    folder = arena.game(world.g4_v1)
    head = {"game": game_id_of(world.g4_v1), "decision": "r1-orders"}
    orders = arena.cwd / "orders.toml"
    out = arena.cwd / "out.envelope"

    @fuzz(target)
    @given(documents(head), st.sampled_from(["inbox", "out", "stdin"]), st.sampled_from(PLAYERS4))
    def case(data, how, player):
        before = folder_snapshot(folder)
        orders.write_bytes(data)
        out.unlink(missing_ok=True)
        if how == "stdin":
            text = data.decode("utf-8", "replace")
            r = arena("submit", "-", "--as", player, "--game", folder, "--out", out, stdin=text)
        elif how == "out":
            r = arena("submit", orders, "--as", player, "--game", folder, "--out", out)
        else:
            r = arena("submit", orders, "--as", player, "--game", folder)
        refused = check(r, target)
        if refused:
            assert folder_snapshot(folder) == before
            assert not out.exists()
        else:  # a valid order: it is in the inbox (or written out), nothing else changed
            for name in (folder / "inbox").iterdir():
                name.unlink()
            assert folder_snapshot(folder) == before

    case()
    done(target)


def test_fuzz_orders_inside_signed_envelopes(world, tmp_path):
    """A player (with a real key) seals hostile orders: resolve rejects them, alone."""
    from koryo_pbm.crypto.envelope import make_envelope
    from koryo_pbm.errors import FormatError

    target = "orders inside signed envelopes (resolve)"
    arena = Arena(world, tmp_path / "a")
    folder = arena.game(world.g4_v1)
    gid = game_id_of(world.g4_v1)
    keys = {p: identity(world, p) for p in PLAYERS4}
    mod = identity(world, "mod").public
    game_file = folder / "game.toml"
    answers = head_of(world.g4_v1)

    @fuzz(target)
    @given(documents({"game": gid, "decision": "r1-orders"}), st.sampled_from(PLAYERS4), st.integers(0, 10**6))
    def case(data, player, n):
        text = data.decode("utf-8", "replace")
        try:
            env = make_envelope(keys[player], mod, game_id=gid, decision="r1-orders", player=player,
                                orders_text=text, submitted="2026-01-02T03:04:05Z",
                                answers=answers)
        except FormatError:  # larger than an envelope may hold: the player's program refuses
            assume(False)
        before = game_file.read_bytes()
        n_files = len(envelope_files(folder))
        (folder / "inbox" / f"x{n}.envelope").write_text(env.armor())
        r = arena("resolve", folder, "--as", "mod", "--json")
        refused = check(r, target)
        assert len(envelope_files(folder)) == n_files + 1  # archived, not lost
        assert not list((folder / "inbox").iterdir())
        if refused:
            assert r.code == 3
            assert game_file.read_bytes() == before
        else:  # a valid order was held: put the game back for the next case
            game_file.write_bytes(before)

    case()
    done(target)


# -- positions ---------------------------------------------------------------------------------


def test_fuzz_position_files(world, tmp_path):
    target = "positions (new --position)"
    arena = Arena(world, tmp_path / "a")
    pos = arena.cwd / "position.toml"
    head = {"game": "koryo", "players": ["alice", "bob"], "round": 1, "phase": "orders", "first": "alice"}
    counter = iter(range(10**9))

    @fuzz(target)
    @given(documents(head), st.sampled_from(["koryo", "korsar"]))
    def case(data, game):
        pos.write_bytes(data)
        target_dir = arena.cwd / f"new-{next(counter)}"
        r = arena("new", target_dir, "--game", game, "--as", "mod", "--position", pos,
                  "--player", f"alice={world.lines['alice']}", "--player", f"bob={world.lines['bob']}")
        if check(r, target):
            assert not target_dir.exists()
        else:
            assert (target_dir / "game.toml").is_file()

    case()
    done(target)


# -- envelopes ---------------------------------------------------------------------------------

B64 = st.text(alphabet=string.ascii_letters + string.digits + "+/=", min_size=0, max_size=400)


@st.composite
def armoured(draw, real: str) -> bytes:
    """Text that looks like an envelope: the real one's frame with random header fields and
    bodies, quoting, CRLF, several blocks."""
    lines = real.splitlines()
    header = lines[1:9]
    body = lines[10:-1]
    kind = draw(st.sampled_from(["header", "body", "lines", "quote", "blocks", "swap"]))
    if kind == "header":
        i = draw(st.integers(0, 7))
        key = header[i].split(": ")[0]
        header = [*header[:i], f"{draw(st.one_of(st.just(key), TEXT))}: {draw(TEXT)}", *header[i + 1:]]
    elif kind == "body":
        body = [draw(B64) for _ in range(draw(st.integers(0, 30)))]
    elif kind == "lines":
        all_lines = [*header, "", *body]
        i = draw(st.integers(0, len(all_lines) - 1))
        op = draw(st.sampled_from(["del", "dup", "ins"]))
        if op == "del":
            del all_lines[i]
        elif op == "dup":
            all_lines.insert(i, all_lines[i])
        else:
            all_lines.insert(i, draw(TEXT))
        header, body = all_lines, []
    elif kind == "swap":
        i, j = draw(st.integers(0, 7)), draw(st.integers(0, 7))
        header = list(header)
        header[i], header[j] = header[j], header[i]
    text_lines = [lines[0], *header, *([""] if kind != "lines" else []), *body, lines[-1]]
    if kind == "quote":
        prefix = draw(st.sampled_from(["> ", ">>", " > > ", "\t"]))
        cut = draw(st.integers(0, len(text_lines)))
        text_lines = [prefix + ln if k < cut else ln for k, ln in enumerate(text_lines)]
    text = "\n".join(text_lines) + "\n"
    if kind == "blocks":
        text = text * draw(st.integers(2, 3))
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    return text.encode("utf-8", "surrogatepass")


def _is_the_real_envelope(data: bytes, digest: str) -> bool:
    """True if ``data`` still holds the genuine envelope (the armour tolerates quoting, CRLF)."""
    from koryo_pbm.crypto.envelope import scan_armored

    return any(getattr(e, "digest", None) == digest for e in scan_armored(data.decode("utf-8", "replace")))


def test_fuzz_envelope_files_in_the_inbox(world, tmp_path):
    target = "envelope files (resolve, inbox)"
    arena = Arena(world, tmp_path / "a")
    folder = arena.game(world.g4_v1)
    game_file = folder / "game.toml"
    before = game_file.read_bytes()
    real_digest = parse_envelope(world.env4["alice"]).digest
    names = st.sampled_from(["r1-orders--alice.envelope", "x.envelope", "a (conflicted copy 2026-01-02).envelope",
                             "b.sync-conflict-20260102-123456-ABCDEFG.envelope", "X.ENVELOPE", "é.envelope"])
    counter = iter(range(10**9))

    @fuzz(target)
    @given(st.one_of(st.binary(max_size=3000), armoured(world.env4["alice"]),
                     st.sampled_from([1, 300 * 1024]).map(lambda n: b"A" * n)), names)
    def case(data, name):
        assume(not _is_the_real_envelope(data, real_digest))
        n = next(counter)
        n_files = len(envelope_files(folder))
        (folder / "inbox" / f"{n}-{name}").write_bytes(data)
        r = arena("resolve", folder, "--as", "mod", "--json")
        refused = check(r, target)
        assert refused and r.code == 3, r.err
        assert game_file.read_bytes() == before
        assert not list((folder / "inbox").iterdir())
        assert len(envelope_files(folder)) == n_files + 1

    case()
    done(target)


@st.composite
def mails(draw, real: str) -> bytes:
    kind = draw(st.sampled_from(["bytes", "mbox", "mime", "armour", "html"]))
    if kind == "bytes":
        return draw(st.binary(max_size=3000))
    if kind == "mbox":
        return b"From " + draw(st.binary(max_size=2000))
    armour = draw(armoured(real)).decode("utf-8", "replace")
    if kind == "armour":
        return ("Subject: orders\n\n" + armour).encode("utf-8", "surrogatepass")
    cte = draw(st.sampled_from(["base64", "quoted-printable", "7bit", "8bit", "x-unknown", "base64"]))
    charset = draw(st.sampled_from(["utf-8", "latin-1", "x-no-such-charset", "utf-16", ""]))
    payload = draw(st.one_of(st.binary(max_size=500), st.just(armour.encode("utf-8", "replace"))))
    if kind == "html":
        payload = b"<html><body><pre>" + payload + b"</pre></body></html>"
    ctype = "text/html" if kind == "html" else draw(st.sampled_from(["text/plain", "application/octet-stream",
                                                                    "multipart/mixed", "message/rfc822"]))
    cs = f'; charset="{charset}"' if charset else ""
    head = (f"From: a@example.org\nMIME-Version: 1.0\nContent-Type: {ctype}{cs}\n"
            f"Content-Transfer-Encoding: {cte}\n\n").encode()
    return head + payload


def test_fuzz_mail_files(world, tmp_path):
    target = "mail files (resolve --mail)"
    arena = Arena(world, tmp_path / "a")
    folder = arena.game(world.g4_v1)
    before = folder_snapshot(folder)
    mail = arena.cwd / "mail.eml"
    real_digest = parse_envelope(world.env4["alice"]).digest
    from koryo_pbm.transport.mail import envelopes_from_mail

    @fuzz(target)
    @given(mails(world.env4["alice"]))
    def case(data):
        mail.write_bytes(data)
        found = envelopes_from_mail(mail)
        assume(not any(getattr(e, "digest", None) == real_digest for _, e in found))
        r = arena("resolve", folder, "--as", "mod", "--mail", mail, "--json")
        refused = check(r, target)
        if not refused:  # nothing found in that mail: nothing to refuse
            assert r.json["envelopes"] == []
        assert folder_snapshot(folder) == before

    case()
    done(target)


# -- game files --------------------------------------------------------------------------------


@st.composite
def damaged(draw, data: bytes) -> bytes:
    kind = draw(st.sampled_from(["bytes", "splice", "lines", "truncate", "append", "toml"]))
    if kind == "bytes":
        return draw(st.binary(max_size=6000))
    if kind == "splice":
        i = draw(st.integers(0, len(data)))
        j = draw(st.integers(i, min(len(data), i + 200)))
        return data[:i] + draw(st.binary(max_size=50)) + data[j:]
    if kind == "truncate":
        return data[: draw(st.integers(0, len(data) - 1))]
    if kind == "append":
        return data + draw(st.binary(min_size=1, max_size=100))
    if kind == "toml":
        return b'format = "koryo-pbm-game/v1"\n' + draw(documents({})) + b'signature = "' + b"A" * 86 + b'=="\n'
    lines = data.split(b"\n")
    i, j = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
    op = draw(st.sampled_from(["del", "dup", "swap"]))
    if op == "del":
        del lines[i]
    elif op == "dup":
        lines.insert(i, lines[j])
    else:
        lines[i], lines[j] = lines[j], lines[i]
    return b"\n".join(lines)


def test_fuzz_game_files(world, tmp_path):
    target = "game files, unsigned (show/status/resolve)"
    arena = Arena(world, tmp_path / "a")
    folder = arena.game(world.g4_v2)
    path = folder / "game.toml"
    commands = [("show", folder), ("show", folder, "--as", "bob", "--json"), ("status", folder, "--json"),
                ("resolve", folder, "--as", "mod")]

    @fuzz(target)
    @given(st.one_of(damaged(world.g4_v2), damaged(world.g4_v1)), st.sampled_from(commands))
    def case(data, cmd):
        assume(data not in (world.g4_v1, world.g4_v2))
        path.write_bytes(data)
        r = arena(*cmd)
        assert check(r, target), "a damaged game file was accepted"
        assert path.read_bytes() == data

    case()
    done(target)


def _mutate(draw, value, depth=0):
    """A random change somewhere inside a parsed TOML document."""
    if isinstance(value, dict) and value and depth < 6 and draw(st.integers(0, 3)):
        key = draw(st.sampled_from(sorted(value)))
        out = dict(value)
        op = draw(st.sampled_from(["deeper", "deeper", "deeper", "drop", "add"]))
        if op == "drop":
            del out[key]
        elif op == "add":
            out[draw(KEY)] = draw(VALUE)
        else:
            out[key] = _mutate(draw, value[key], depth + 1)
        return out
    if isinstance(value, list) and value and depth < 6 and draw(st.integers(0, 3)):
        i = draw(st.integers(0, len(value) - 1))
        out = list(value)
        op = draw(st.sampled_from(["deeper", "deeper", "drop", "dup"]))
        if op == "drop":
            del out[i]
        elif op == "dup":
            out.append(out[i])
        else:
            out[i] = _mutate(draw, value[i], depth + 1)
        return out
    return draw(VALUE)


def _game_of_eve(world, tmp_path):
    """An arena and a 4-player game file that eve made and signed as its moderator."""
    arena = Arena(world, tmp_path / "a")
    eve_game = arena.cwd / "eve"
    args = ["new", eve_game, "--key", arena.key("eve"), "--seed", "eve"]
    for p in PLAYERS4:
        args += ["--player", f"{p}={world.lines[p]}"]
    arena.ok(*args)
    return arena, (eve_game / "game.toml").read_bytes()


def test_fuzz_game_files_signed_by_a_stranger(world, tmp_path):
    """Eve signs well-formed game files with hostile content: the checks after the signature
    (and the game's own view of the public state) must hold on their own."""
    import tomllib

    target = "game files, signed by a stranger (show/status/orders/resolve)"
    arena, base = _game_of_eve(world, tmp_path)
    doc = tomllib.loads(body_of(base).decode())
    eve = identity(world, "eve")
    folder = arena.game(base, name="g")
    path = folder / "game.toml"
    commands = [("show", folder), ("show", folder, "--as", "alice"), ("show", folder, "--as", "carol", "--json"),
                ("status", folder), ("orders", folder, "--as", "bob"),
                ("resolve", folder, "--key", arena.key("eve"))]

    @fuzz(target)
    @given(st.data(), st.sampled_from(commands))
    def case(data, cmd):
        key = data.draw(st.sampled_from(sorted(k for k in doc if k not in ("format", "moderator"))))
        mutated = dict(doc)
        for _ in range(data.draw(st.integers(1, 3))):
            mutated[key] = _mutate(data.draw, mutated[key], 1)
        text = toml_text(mutated)
        assume(text is not None)
        signed = sign_game(text.encode("utf-8", "surrogatepass"), eve)
        path.write_bytes(signed)
        shutil.rmtree(arena.home / "seen", ignore_errors=True)
        r = arena(*cmd)
        check(r, target)
        if cmd[0] != "resolve" or r.code != 0:
            assert path.read_bytes() == signed

    case()
    done(target)


# -- keys ---------------------------------------------------------------------------------------


@st.composite
def key_files(draw, real: bytes) -> bytes:
    kind = draw(st.sampled_from(["bytes", "splice", "pem", "header", "public"]))
    if kind == "bytes":
        return draw(st.binary(max_size=2000))
    if kind == "splice":
        i = draw(st.integers(0, len(real)))
        return real[:i] + draw(st.binary(max_size=20)) + real[i + draw(st.integers(0, 40)):]
    head = real.split(b"\n", 1)[0] + b"\n"
    if kind == "header":
        return draw(st.text(max_size=80)).encode("utf-8", "surrogatepass") + b"\n" + real.split(b"\n", 1)[1]
    if kind == "public":
        return draw(st.sampled_from([b"koryo-pbm-pub-v1:", b""])) + draw(B64).encode()
    blocks = []
    for _ in range(draw(st.integers(0, 3))):
        label = draw(st.sampled_from(["PRIVATE KEY", "ENCRYPTED PRIVATE KEY", "PUBLIC KEY", "RSA PRIVATE KEY"]))
        b64 = draw(B64)
        blocks.append(f"-----BEGIN {label}-----\n{b64}\n-----END {label}-----\n".encode())
    return head + b"".join(blocks)


def test_fuzz_key_files(world, tmp_path):
    target = "key files (--key)"
    arena = Arena(world, tmp_path / "a")
    folder = arena.game(world.g4_v1)
    before = folder_snapshot(folder)
    key = arena.cwd / "fuzz.key"
    real = arena.key("alice").read_bytes()

    @fuzz(target)
    @given(key_files(real), st.sampled_from(["show", "submit", "resolve"]), st.booleans())
    def case(data, cmd, passphrase):
        assume(data != real)
        key.write_bytes(data)
        key.chmod(0o600)
        env = {"KORYO_PBM_PASSPHRASE": "pw"} if passphrase else {}
        if cmd == "show":
            r = arena("show", folder, "--key", key, env=env)
        elif cmd == "submit":
            r = arena("submit", arena.cwd / "nothing.toml", "--key", key, "--game", folder, env=env)
        else:
            r = arena("resolve", folder, "--key", key, env=env)
        check(r, target)  # exit 0 only for a show with a key that is still a valid one
        assert r.code != 0 or cmd == "show"
        assert folder_snapshot(folder) == before

    (arena.cwd / "nothing.toml").write_text("")
    case()
    done(target)


def test_fuzz_public_key_lines(world, tmp_path):
    target = "public key lines (new --player)"
    arena = Arena(world, tmp_path / "a")
    counter = iter(range(10**9))
    good = world.lines["alice"]

    @fuzz(target)
    @given(st.one_of(TEXT, B64.map(lambda b: "koryo-pbm-pub-v1:" + b),
                     st.integers(0, len(good)).map(lambda i: good[:i]),
                     st.tuples(st.integers(17, len(good) - 1), st.characters()).map(
                         lambda t: good[: t[0]] + t[1] + good[t[0] + 1:])))
    def case(line):
        assume(line.strip().split(" ")[0] != good)
        target_dir = arena.cwd / f"n{next(counter)}"
        r = arena("new", target_dir, "--as", "mod", "--player", f"alice={line}",
                  "--player", f"bob={world.lines['bob']}")
        if check(r, target):
            assert not target_dir.exists()
        else:  # one character changed into another base64 digit: a different, valid key
            from koryo_pbm.crypto.keys import PublicIdentity

            assert PublicIdentity.parse(line) != PublicIdentity.parse(good)

    case()
    done(target)


def test_a_toml_date_where_the_public_state_wants_a_number_is_no_traceback(world, tmp_path):
    """A file signed by a stranger with a TOML date in its public state (found by the fuzzer
    above: ``show --json`` raised a TypeError): every command prints JSON with the date in its
    ISO form (``status``: no round, since the game reads none from it), or refuses in one line."""
    import datetime
    import json
    import tomllib

    arena, base = _game_of_eve(world, tmp_path)
    doc = tomllib.loads(body_of(base).decode())
    doc["public"]["round"] = datetime.date(2020, 1, 2)
    folder = arena.game(sign_game(tomli_w.dumps(doc).encode(), identity(world, "eve")), name="g")
    for cmd in [("show", folder, "--as", "carol", "--json"), ("show", folder, "--json"), ("status", folder, "--json")]:
        r = arena(*cmd)
        if r.code != 0:
            assert_refused(r)
        elif cmd[0] == "status":  # the round is what the game reads from the public part: none here
            assert json.loads(r.out)["round"] is None, r.out
        else:
            assert "2020-01-02" in json.dumps(json.loads(r.out)), cmd
