"""Pathological mail: resolve --mail reads a message only if its raw bytes pass a one-pass
structure check (header blocks, number of parts and boundaries) and its parts nest at most
``MAX_DEPTH`` deep. Each attack is one error item with a one-line reason, the envelopes of the
other messages still counted; the email parser never sees the attacking message.
The cost of a 20,000-part mail, before and after, is in benchmarks/bench_hostile.py."""

from __future__ import annotations

import email

import pytest
from attack_kit import PLAYERS4, assert_refused

from koryo_pbm.transport import mail


def _multipart(n_parts: int, boundary: str = "b0") -> bytes:
    head = f'From: eve@example.org\nSubject: hi\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="{boundary}"\n\n'
    part = f"--{boundary}\nContent-Type: text/plain\n\nx\n"
    return (head + part * n_parts + f"--{boundary}--\n").encode()


def _nested(depth: int, inner: str = "x") -> bytes:
    body = f"Content-Type: text/plain\n\n{inner}\n"
    for level in range(depth, 0, -1):
        body = (f'Content-Type: multipart/mixed; boundary="n{level}"\n\n--n{level}\n{body}--n{level}--\n')
    return ("From: eve@example.org\nMIME-Version: 1.0\n" + body).encode()


ATTACKS = {
    "20,000 parts": (_multipart(20_000), "more than 200 parts"),
    "a 1 MiB header line": (b"From: eve\nX-Junk: " + b"a" * (1 << 20) + b"\n\nbody\n", "header is larger than 65536"),
    "33 boundaries": (b"".join(f'X-B: boundary="q{i}"\n'.encode() for i in range(33)) + b"\nbody\n",
                      "more than 32 multipart boundaries"),
    "nested 9 deep": (_nested(mail.MAX_DEPTH + 1), "nested 9 deep"),
    "parts' headers over 256 KiB": (
        _multipart(1).replace(b"--b0\nContent-Type: text/plain\n", b"".join(
            b"--b0\nContent-Type: text/plain\nX-Pad: " + b"p" * 60_000 + b"\n\nx\n" for _ in range(5)) +
            b"--b0\nContent-Type: text/plain\n"), "headers are larger than 262144"),
}


@pytest.mark.parametrize("name", list(ATTACKS))
def test_pathological_mail_is_one_error_and_not_parsed(arena, world, monkeypatch, name):
    data, reason = ATTACKS[name]
    folder = arena.game(world.g4_v1, "g", {f"r1-orders--{p}.envelope": world.env4[p] for p in PLAYERS4[:3]})
    maildir = arena.cwd / "Maildir"
    for sub in ("new", "cur", "tmp"):
        (maildir / sub).mkdir(parents=True)
    (maildir / "new" / "1.attack").write_bytes(data)
    (maildir / "new" / "2.dave").write_bytes(
        b"From: dave@example.org\nSubject: orders\n\n" + world.env4["dave"].encode())
    parsed = []
    real = email.message_from_bytes
    monkeypatch.setattr(email, "message_from_bytes", lambda b, **kw: parsed.append(len(b)) or real(b, **kw))
    r = arena("resolve", folder, "--as", "mod", "--mail", maildir)
    line = assert_refused(r, code=3)
    assert "1 envelope(s) rejected" in line
    assert reason in r.err and "1.attack" in r.err
    assert len([ln for ln in r.err.splitlines() if "1.attack" in ln]) == 1  # one line
    assert "resolved r1-orders" in r.out  # dave's envelope in the other message counted
    if name != "nested 9 deep":  # the others are refused before the parser sees them
        assert len(data) not in parsed


def test_a_mail_within_the_bounds_is_read(tmp_path, world):
    """Nested 8 deep, 200 parts: read, the envelope inside found."""
    path = tmp_path / "ok.eml"
    path.write_bytes(_nested(mail.MAX_DEPTH, world.env4["alice"]))
    found = mail.envelopes_from_mail(path)
    assert [getattr(f, "player", None) for _, f in found] == ["alice"]
    path.write_bytes(_multipart(mail.MAX_PARTS).replace(b"\nx\n", b"\n" + world.env4["bob"].encode() + b"\n", 1))
    found = mail.envelopes_from_mail(path)
    assert [getattr(f, "player", None) for _, f in found] == ["bob"]
