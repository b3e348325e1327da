"""Press envelopes (koryo_pbm/crypto/press.py): sealed to each recipient, signed by the sender,
sizes by bucket only, every change refused."""

from __future__ import annotations

import pytest

from koryo_pbm.crypto.keys import Identity
from koryo_pbm.crypto.press import MAX_TEXT, Press, make_press, scan_press
from koryo_pbm.errors import FormatError, KoryoPbmError, NotForYou, TamperedError

ALICE, BOB, CAROL, MOD = (Identity.generate(n) for n in ("alice", "bob", "carol", "mod"))


def press(text: str = "Truce in the east?", to=("bob", "carol")) -> Press:
    keys = {"bob": BOB.public, "carol": CAROL.public}
    return make_press(ALICE, game_id="koryo-0123456789", sender="alice", to={n: keys[n] for n in to}, text=text,
                      sent="2026-11-25T19:00:00Z")


def read_back(armored: str) -> Press:
    (p,) = scan_press(armored)
    assert isinstance(p, Press)
    return p


def test_each_recipient_opens_their_copy_and_nobody_else_can():
    p = read_back(press().armor())
    assert p.open(BOB, "bob", ALICE.public) == "Truce in the east?"
    assert p.open(CAROL, "carol", ALICE.public) == "Truce in the east?"
    with pytest.raises(NotForYou):
        p.open(MOD, "mod", ALICE.public)
    for who, name in ((MOD, "bob"), (CAROL, "bob"), (BOB, "carol")):  # another key in a recipient's place
        with pytest.raises(KoryoPbmError):
            p.open(who, name, ALICE.public)
    with pytest.raises(TamperedError):  # not alice's signature
        p.open(BOB, "bob", CAROL.public)


def test_sizes_say_only_the_bucket():
    sizes = {n: len(press("x" * n, to=("bob",)).armor()) for n in (1, 500, 1020, 1021, 2000, 4000, MAX_TEXT)}
    assert sizes[1] == sizes[500] == sizes[1020] < sizes[1021] == sizes[2000] < sizes[4000] < sizes[MAX_TEXT]
    with pytest.raises(FormatError, match="more than the 16000"):
        press("x" * (MAX_TEXT + 1))


def test_a_changed_or_cut_press_is_refused():
    armored = press().armor()
    lines = armored.splitlines()
    body = next(i for i, line in enumerate(lines) if line == "") + 1
    flipped = lines[body][:10] + ("A" if lines[body][10] != "A" else "B") + lines[body][11:]
    changed = read_back("\n".join([*lines[:body], flipped, *lines[body + 1:]]))
    with pytest.raises(TamperedError):
        changed.verify(ALICE.public)
    for edit in (armored.replace("to: bob,carol", "to: carol,bob"), armored.replace("from: alice", "from: dave")):
        p = read_back(edit)
        with pytest.raises(KoryoPbmError):
            p.open(BOB, "bob", ALICE.public)
    (cut,) = scan_press("\n".join(lines[:body + 1] + lines[body + 2:]))
    assert isinstance(cut, FormatError)
    (unended,) = scan_press("\n".join(lines[:-1]))
    assert isinstance(unended, FormatError) and "END" in str(unended)
    quoted = "".join(f"> {line}\n" for line in lines)
    assert read_back(quoted).open(BOB, "bob", ALICE.public) == "Truce in the east?"
