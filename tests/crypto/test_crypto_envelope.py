"""Envelopes: round trip, armour through email, tampering, wrong keys, fuzzing."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from koryo_pbm.crypto.envelope import (
    BEGIN,
    END,
    FIELDS,
    MAX_ARMORED,
    Envelope,
    make_envelope,
    pad,
    parse_armored,
    parse_one,
    scan_armored,
)
from koryo_pbm.crypto.keys import Identity
from koryo_pbm.errors import FormatError, KoryoPbmError, NotForYou, TamperedError

ORDERS = '[orders]\nplay = "3 red"\nnote = "naïve café ✓"\n'
WHEN = "2026-01-02T03:04:05Z"
ANSWERS = "sha256:" + "ab" * 32


@pytest.fixture(scope="module")
def keys():
    return {name: Identity.generate(name) for name in ("alice", "bob", "mod", "mod2")}


@pytest.fixture(scope="module")
def env(keys):
    return make_envelope(
        keys["alice"], keys["mod"].public, game_id="g-1234", decision="r1-orders", player="alice",
        orders_text=ORDERS, submitted=WHEN, answers=ANSWERS,
    )


def test_round_trip(keys, env):
    assert env.game_id == "g-1234" and env.decision == "r1-orders" and env.player == "alice"
    assert env.submitted == WHEN
    assert env.moderator == keys["mod"].public.fingerprint()
    assert env.sender == keys["alice"].public.fingerprint()
    assert len(env.nonce) == 32 and len(env.digest) == 64
    text = env.armor()
    assert text.startswith(BEGIN + "\n") and text.rstrip().endswith(END)
    assert all(len(line) <= 76 for line in text.splitlines())
    assert "3 red" not in text
    [back] = parse_armored(text)
    assert back == env and back.digest == env.digest
    back.verify(keys["alice"].public)
    assert back.open(keys["mod"], keys["alice"].public) == ORDERS
    assert parse_one(text) == env


def test_fresh_nonce_and_explicit_nonce(keys, env):
    other = make_envelope(
        keys["alice"], keys["mod"].public, game_id="g-1234", decision="r1-orders", player="alice",
        orders_text=ORDERS, submitted=WHEN, answers=ANSWERS,
    )
    assert other.nonce != env.nonce and other.digest != env.digest
    fixed = make_envelope(
        keys["alice"], keys["mod"].public, game_id="g", decision="d", player="alice", answers=ANSWERS,
        orders_text="", submitted="2026-01-02T03:04:05+00:00", nonce="0" * 32,
    )
    assert fixed.nonce == "0" * 32
    assert fixed.open(keys["mod"], keys["alice"].public) == ""


@pytest.mark.parametrize(
    "field,value",
    [("game_id", "bad id"), ("decision", ""), ("player", "a\nb"), ("submitted", "yesterday"),
     ("nonce", "xyz"), ("game_id", "x" * 65), ("submitted", "2026-01-02T03:04:05+02:00"),
     ("answers", "sha256:" + "ab" * 31), ("answers", "AB" * 32)],
)
def test_make_envelope_validates(keys, field, value):
    kw = dict(game_id="g", decision="d", player="alice", submitted=WHEN, nonce=None, answers=ANSWERS)
    kw[field] = value
    with pytest.raises(FormatError, match=field):
        make_envelope(keys["alice"], keys["mod"].public, orders_text="", **kw)


def test_orders_size_limit(keys):
    with pytest.raises(FormatError, match="larger than"):
        make_envelope(keys["alice"], keys["mod"].public, game_id="g", decision="d", player="alice",
                      orders_text="x" * 200_000, submitted=WHEN, answers=ANSWERS)


def test_armour_through_email(keys, env):
    text = env.armor()
    quoted = "\r\n".join("> " + line + "   " for line in text.splitlines())
    mail = f"Hi,\r\n\r\nOn Monday alice wrote:\r\n{quoted}\r\n\r\nthanks\r\n"
    [back] = parse_armored(mail)
    assert back == env
    double = "\n".join(">> " + line if line else ">>" for line in text.splitlines())
    assert parse_armored("intro\n" + double) == [env]
    nested = "\n".join("> > " + line for line in text.splitlines())
    assert parse_armored(nested) == [env]
    indented = "\n".join("    " + line for line in text.splitlines())
    assert parse_armored(indented) == [env]
    # blank lines of the quote left unquoted
    loose = "\n".join("> " + line if line else "" for line in text.splitlines())
    assert parse_armored(loose) == [env]
    # quoting without the space after '>'
    tight = "\n".join(">" + line for line in text.splitlines())
    assert parse_armored(tight) == [env]


def test_several_blocks_and_bad_ones(keys, env):
    other = make_envelope(keys["bob"], keys["mod"].public, game_id="g-1234", decision="r1-orders",
                          player="bob", orders_text="x = 1\n", submitted=WHEN, answers=ANSWERS)
    broken = env.armor().replace("player: alice", "player alice")
    text = "a\n" + env.armor() + "\nb\n" + broken + "c\n" + other.armor() + BEGIN + "\nformat: x\n"
    items = scan_armored(text)
    assert len(items) == 4
    assert items[0] == env and items[2] == other
    assert isinstance(items[1], FormatError) and "key: value" in str(items[1])
    assert isinstance(items[3], FormatError)
    with pytest.raises(FormatError):
        parse_armored(text)
    assert parse_armored("no envelope here") == []
    with pytest.raises(FormatError, match="holds 0 envelopes"):
        parse_one("nothing")
    with pytest.raises(FormatError, match="holds 2 envelopes"):
        parse_one(env.armor() + other.armor())


def test_quoting_change_is_an_error(env):
    lines = env.armor().splitlines()
    text = "\n".join("> " + line if i != 5 else line for i, line in enumerate(lines))
    [item] = scan_armored(text)
    assert isinstance(item, FormatError)


@pytest.mark.parametrize(
    "mutate,match",
    [
        (lambda t: t.replace("format: koryo-pbm-envelope/v2", "format: koryo-pbm-envelope/v3"), "unsupported envelope format"),
        (lambda t: t.replace("format: koryo-pbm-envelope/v2", "format: koryo-pbm-envelope/v1"),
         "envelope format koryo-pbm-envelope/v1 is no longer read .* submit the orders again"),
        (lambda t: t.replace("answers: ", "answers: sha256:"), "envelope field 'answers' has an invalid value"),
        (lambda t: t.replace("sender:", "colour: red\nsender:"), "unknown envelope header field 'colour'"),
        (lambda t: t.replace("nonce:", "xnonce:"), "unknown"),
        (lambda t: t.replace("game_id: g-1234\n", ""), "missing"),
        (lambda t: t.replace("player: alice\n", "").replace("decision:", "player: alice\ndecision:"), "out of order"),
        (lambda t: t.replace("player: alice\n", "player: alice\nplayer: alice\n"), "twice"),
        (lambda t: t.split("\n\n")[0] + "\n" + END + "\n", "no body"),
        (lambda t: t.replace(END, ""), "no '-----END"),
        (lambda t: t.replace("\n\n", "\n\n!!!!\n"), "not base64"),
        # one character in the middle of the second body line (the lines are checked joined)
        (lambda t: t[:t.index("\n\n") + 100] + "*" + t[t.index("\n\n") + 101:], "envelope body is not base64"),
        (lambda t: t.replace("\n\n", "\n\nAAA\n"), "base64"),
    ],
)
def test_malformed_blocks(env, mutate, match):
    with pytest.raises(FormatError, match=match):
        parse_armored(mutate(env.armor()))


def test_size_limit(env):
    lines = env.armor().splitlines()
    huge = lines[:10] + ["A" * 64] * (MAX_ARMORED // 64 + 10) + lines[10:]
    [item] = scan_armored("\n".join(huge))
    assert isinstance(item, FormatError) and "larger than" in str(item)
    # scanning continues after an oversized block
    items = scan_armored("\n".join(huge) + "\n" + env.armor())
    assert items[-1] == env


def test_every_decoded_byte_flip_refused(keys, env):
    raw = env.ciphertext + env.signature
    for i in range(len(raw)):
        bad = bytearray(raw)
        bad[i] ^= 0x01
        forged = Envelope(dict(env.header), bytes(bad[:-64]), bytes(bad[-64:]))
        [back] = parse_armored(forged.armor())
        with pytest.raises(TamperedError):
            back.verify(keys["alice"].public)
        with pytest.raises(TamperedError):
            back.open(keys["mod"], keys["alice"].public)


def test_every_header_char_flip_refused(keys, env):
    text = env.armor()
    start = text.index("\n") + 1
    end = text.index("\n\n")
    for i in range(start, end):
        if text[i] == "\n":
            continue
        for repl in {chr(ord(text[i]) ^ 1), "0", "a"} - {text[i]}:
            bad = text[:i] + repl + text[i + 1 :]
            try:
                envs = parse_armored(bad)
            except FormatError:
                continue
            assert len(envs) == 1
            with pytest.raises((TamperedError, NotForYou)):
                envs[0].open(keys["mod"], keys["alice"].public)
            with pytest.raises(TamperedError):
                envs[0].verify(keys["alice"].public)


def test_every_body_char_flip_refused(keys, env):
    text = env.armor()
    start = text.index("\n\n") + 2
    end = text.index(END)
    for i in range(start, end, 3):
        if text[i] == "\n":
            continue
        bad = text[:i] + ("B" if text[i] != "B" else "C") + text[i + 1 :]
        try:
            [back] = parse_armored(bad)
        except FormatError:
            continue
        with pytest.raises(TamperedError):
            back.open(keys["mod"], keys["alice"].public)


def test_wrong_moderator_is_not_for_you(keys, env):
    with pytest.raises(NotForYou, match="sealed to another moderator key"):
        env.open(keys["mod2"], keys["alice"].public)


def test_wrong_player_key_is_tampered(keys, env):
    with pytest.raises(TamperedError, match="not by the player's key"):
        env.verify(keys["bob"].public)
    with pytest.raises(TamperedError):
        env.open(keys["mod"], keys["bob"].public)


def test_forged_sender_header_does_not_help(keys, env):
    # bob re-signs alice's ciphertext under a header claiming his key: the inner signature
    # (alice's, sealed inside) no longer matches the header, and the sealing info differs.
    from koryo_pbm.crypto.envelope import OUTER_CONTEXT, header_bytes
    from koryo_pbm.crypto.sign import sign

    header = dict(env.header, player="bob", sender=keys["bob"].public.fingerprint())
    sig = sign(keys["bob"], OUTER_CONTEXT, header_bytes(header) + env.ciphertext)
    forged = Envelope(header, env.ciphertext, sig)
    forged.verify(keys["bob"].public)  # the outer signature is bob's own
    with pytest.raises(TamperedError):
        forged.open(keys["mod"], keys["bob"].public)


def test_inner_signature_checked(keys):
    # a ciphertext sealed correctly but carrying a signature by another key inside
    from koryo_pbm.crypto.envelope import INNER_CONTEXT, OUTER_CONTEXT, SEAL_INFO_PREFIX, header_bytes
    from koryo_pbm.crypto.seal import seal
    from koryo_pbm.crypto.sign import sign

    header = {
        "format": "koryo-pbm-envelope/v2", "game_id": "g", "decision": "d", "answers": "ab" * 32, "player": "alice",
        "submitted": WHEN, "nonce": "1" * 32, "moderator": keys["mod"].public.fingerprint(),
        "sender": keys["alice"].public.fingerprint(),
    }
    hb = header_bytes(header)
    inner = sign(keys["bob"], INNER_CONTEXT, hb + b"x")
    ct = seal(keys["mod"].public, inner + pad(b"x"), SEAL_INFO_PREFIX + hb)
    env = Envelope(header, ct, sign(keys["alice"], OUTER_CONTEXT, hb + ct))
    with pytest.raises(TamperedError, match="inner signature"):
        env.open(keys["mod"], keys["alice"].public)


@pytest.mark.parametrize("block", [
    b"\x00\x00\x00\x01x" + bytes(1018),  # one byte short of the block
    b"\x00\x00\x00\x01x" + bytes(1019) + bytes(1024),  # a block too many
    b"\x00\x00\x00\x01x" + b"\x01" + bytes(1018),  # padding that is not zero
    b"\x00\x00\x04\x00x" + bytes(1019),  # a length beyond the block
    b"x",  # no length at all
])
def test_orders_padded_otherwise_are_refused(keys, block):
    """Only the padding ``pad`` makes opens: a moderator's tool never reads orders out of
    anything else, even under a valid inner signature."""
    from koryo_pbm.crypto.envelope import INNER_CONTEXT, OUTER_CONTEXT, SEAL_INFO_PREFIX, header_bytes
    from koryo_pbm.crypto.seal import seal
    from koryo_pbm.crypto.sign import sign

    header = {
        "format": "koryo-pbm-envelope/v2", "game_id": "g", "decision": "d", "answers": "ab" * 32, "player": "alice",
        "submitted": WHEN, "nonce": "1" * 32, "moderator": keys["mod"].public.fingerprint(),
        "sender": keys["alice"].public.fingerprint(),
    }
    hb = header_bytes(header)
    inner = sign(keys["alice"], INNER_CONTEXT, hb + b"x")
    ct = seal(keys["mod"].public, inner + block, SEAL_INFO_PREFIX + hb)
    env = Envelope(header, ct, sign(keys["alice"], OUTER_CONTEXT, hb + ct))
    with pytest.raises(FormatError, match="padded wrongly"):
        env.open(keys["mod"], keys["alice"].public)
    ct = seal(keys["mod"].public, inner + pad(b"x"), SEAL_INFO_PREFIX + hb)
    assert Envelope(header, ct, sign(keys["alice"], OUTER_CONTEXT, hb + ct)).open(keys["mod"], keys["alice"].public) == "x"


def test_every_order_up_to_the_block_seals_to_one_size(keys):
    sizes = {len(make_envelope(keys["alice"], keys["mod"].public, game_id="g", decision="d", player="alice",
                               answers=ANSWERS, orders_text="x" * n, submitted=WHEN).ciphertext)
             for n in (0, 1, 100, 1019, 1020)}
    assert sizes == {48 + 64 + 1024}
    assert len(make_envelope(keys["alice"], keys["mod"].public, game_id="g", decision="d", player="alice",
                             answers=ANSWERS, orders_text="x" * 1021, submitted=WHEN).ciphertext) == 48 + 64 + 2048


def test_header_order_is_fixed():
    assert FIELDS[0] == "format" and len(FIELDS) == 9


@settings(max_examples=200)
@given(st.text(max_size=600))
def test_fuzz_parse_armored_text(text):
    with contextlib.suppress(KoryoPbmError):
        parse_armored(text)


@settings(max_examples=200)
@given(st.data())
def test_fuzz_mutated_armour(keys, env, data):
    text = env.armor()
    pos = data.draw(st.integers(0, len(text) - 1))
    junk = data.draw(st.text(max_size=5))
    cut = data.draw(st.integers(0, 3))
    mutated = text[:pos] + junk + text[pos + cut :]
    try:
        envs = parse_armored(mutated)
    except KoryoPbmError:
        return
    for e in envs:
        if e.digest == env.digest:
            continue  # only whitespace or line breaks changed: the same envelope
        with pytest.raises(KoryoPbmError):
            e.open(keys["mod"], keys["alice"].public)
