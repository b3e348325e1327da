"""The game file: round trip, signature over exact bytes, validation, sealed parts, the log."""

from __future__ import annotations

import base64
import contextlib
import copy
import hashlib
import tomllib

import pytest
import tomli_w
from hypothesis import given, settings
from hypothesis import strategies as st

from koryo_pbm.crypto.keys import Identity
from koryo_pbm.crypto.sign import sign
from koryo_pbm.errors import FormatError, KoryoPbmError, NotForYou, StorageError, TamperedError
from koryo_pbm.store import gamedoc, gamefile, gamelog, gameparts, playercopy, tomltext
from koryo_pbm.store.gamedoc import ZERO_HASH, GameDoc, check_seed, seed_commitment
from koryo_pbm.store.gamefile import decode, encode, read_game, write_game
from koryo_pbm.store.gamelog import append_log, verify_log
from koryo_pbm.store.gameparts import open_part, seal_part

pytestmark = pytest.mark.real_fsync  # the store's writes fsync, as in every koryo-pbm process (see conftest._unsynced_session)

SALT = "5a" * 32


@pytest.fixture(scope="module")
def keys():
    return {n: Identity.generate(n) for n in ("mod", "alice", "bob", "eve")}


def make_doc(keys, version=3) -> GameDoc:
    doc = GameDoc(
        game_id="koryo-0a1b2c3d4e",
        game="koryo",
        version=version,
        moderator=keys["mod"].public,
        seed_commitment=seed_commitment("the seed", SALT),
        players={"bob": keys["bob"].public, "alice": keys["alice"].public},  # seat order, not sorted
        decision={"id": "r2-orders", "kind": "orders", "waiting_for": ["bob", "alice"], "received": ["alice"]},
        public={"round": 2, "table": {"alice": [1, 2], "bob": []}, "note": "naïve ✓ \"quoted\"\n"},
    )
    append_log(doc, "r1-orders", ["alice plays 2 cards face down"], ["a" * 64, "b" * 64])
    append_log(doc, "r1-bonus", ["bob scores"], ["c" * 64])
    for name, key in doc.players.items():
        doc.sealed[name] = seal_part(doc, name, key, {"hand": [1, 5, 7], "name": name})
    doc.sealed["moderator"] = seal_part(doc, "moderator", doc.moderator, {"seed": "the seed", "orders": {}})
    return doc


@pytest.fixture(scope="module")
def sample(keys) -> bytes:
    return encode(make_doc(keys), keys["mod"])


def resign(keys, top: dict, key: str = "mod") -> bytes:
    body = tomli_w.dumps(top).encode()
    sig = sign(keys[key], "game-file", playercopy.signed_message(body))
    return body + f'signature = "{base64.b64encode(sig).decode()}"\n'.encode()


def sample_top(sample: bytes) -> dict:
    return tomllib.loads(sample.decode().rsplit("signature = ", 1)[0])


def test_round_trip(keys, sample):
    doc = make_doc(keys)
    back = decode(sample, expected_moderator=keys["mod"].public)
    assert back.game_id == doc.game_id and back.version == 3
    assert list(back.players) == ["bob", "alice"]
    assert back.players == doc.players and back.moderator == doc.moderator
    assert back.decision == doc.decision
    assert back.public == doc.public
    assert back.log == doc.log
    assert list(back.sealed) == ["bob", "alice", "moderator"]
    assert open_part(back, "alice", keys["alice"]) == {"hand": [1, 5, 7], "name": "alice"}
    assert open_part(back, "moderator", keys["mod"])["seed"] == "the seed"
    text = sample.decode()
    assert text.startswith('format = "koryo-pbm-game/v4"\n')
    assert text.splitlines()[-1].startswith('signature = "')
    assert "[players]" in text and "[[log]]" in text and "[sealed.alice]" in text
    assert "hand" not in text
    # encoding is deterministic (signatures are deterministic, parts are reused)
    assert encode(back, keys["mod"]) == sample


def test_game_over_has_no_decision(keys):
    doc = make_doc(keys)
    doc.decision = None
    back = decode(encode(doc, keys["mod"]))
    assert back.decision is None


def test_file_round_trip(tmp_path, keys, sample):
    path = tmp_path / "game.toml"
    with pytest.raises(StorageError, match="no game file at"):
        read_game(path)
    doc = make_doc(keys)
    write_game(path, doc, keys["mod"])
    assert path.read_bytes() == encode(doc, keys["mod"])
    assert read_game(path, expected_moderator=keys["mod"].public) == doc
    path.write_bytes(sample.replace(b"round = 2", b"round = 3"))
    with pytest.raises(TamperedError, match=f"game file {path}"):
        read_game(path)


def test_every_byte_flip_refused(sample):
    for data in (sample, playercopy.player_copy(sample)):
        for i in range(len(data)):
            bad = bytearray(data)
            bad[i] ^= 0x01
            with pytest.raises(KoryoPbmError):
                decode(bytes(bad))


def test_other_flips_and_cuts_refused(sample):
    for i in range(0, len(sample), 7):
        bad = bytearray(sample)
        bad[i] ^= 0x80
        with pytest.raises(KoryoPbmError):
            decode(bytes(bad))
    for cut in (0, 1, 10, len(sample) // 2, len(sample) - 1, len(sample) - 2):
        with pytest.raises(KoryoPbmError):
            decode(sample[:cut])
    with pytest.raises(KoryoPbmError):
        decode(sample + b"\n")
    # line endings turned into CRLF (a mail client, an editor): still the signed file
    assert decode(sample.replace(b"\n", b"\r\n")) == decode(sample)
    with pytest.raises(KoryoPbmError, match="carriage return that is not part of a line ending"):
        decode(sample.replace(b"\n", b"\r\n", 3).replace(b"\n", b"\r", 1))


def test_wrong_moderator_key(keys, sample):
    with pytest.raises(TamperedError, match="signed by a different moderator key"):
        decode(sample, expected_moderator=keys["eve"].public)
    # eve replaces the moderator key by hers and re-signs: only pinning the key catches it
    top = sample_top(sample)
    top["moderator"] = keys["eve"].public.line()
    top["sealed"]["moderator"]["recipient"] = keys["eve"].public.fingerprint()
    forged = resign(keys, top, key="eve")
    decode(forged)
    with pytest.raises(TamperedError, match="different moderator"):
        decode(forged, expected_moderator=keys["mod"].public)
    # signed by eve but naming the real moderator
    with pytest.raises(TamperedError, match="does not verify"):
        decode(resign(keys, sample_top(sample), key="eve"))


def test_encode_refuses_other_key(keys):
    with pytest.raises(NotForYou, match="not the moderator"):
        encode(make_doc(keys), keys["eve"])


def test_signature_domain_separated(keys, sample):
    # a signature made for another purpose over the same bytes does not verify
    top = sample_top(sample)
    body = tomli_w.dumps(top).encode()
    sig = sign(keys["mod"], "envelope", body)
    with pytest.raises(TamperedError):
        decode(body + f'signature = "{base64.b64encode(sig).decode()}"\n'.encode())


def test_first_line_and_format(keys, sample):
    with pytest.raises(FormatError, match="not a koryo-pbm game file"):
        decode(b"hello\n")
    with pytest.raises(FormatError, match="unsupported format"):
        decode(sample.replace(b"koryo-pbm-game/v4", b"koryo-pbm-game/v5", 1))
    with pytest.raises(FormatError, match=r"has format koryo-pbm-game/v1 \(made before the fair deal\); this "
                                          r"koryo-pbm reads koryo-pbm-game/v4, koryo-pbm-game/v3 and "
                                          r"koryo-pbm-game/v2 only"):
        decode(sample.replace(b"koryo-pbm-game/v4", b"koryo-pbm-game/v1", 1))
    with pytest.raises(FormatError, match="larger than"):
        decode(b"x" * (gamedoc.MAX_GAME_FILE + 1))
    not_utf8 = gamefile_body(sample).replace(b"round = 2", b"round = 2 #\xff", 1)
    with pytest.raises(TamperedError, match="does not verify"):  # the signature is checked first
        decode(not_utf8 + sample[len(gamefile_body(sample)):])
    with pytest.raises(FormatError, match="not UTF-8"):  # signed so by the moderator's own key
        decode(not_utf8 + b'signature = "' + base64.b64encode(sign(keys["mod"], "game-file", playercopy.signed_message(not_utf8)))
               + b'"\n')



def test_a_game_in_progress_of_format_v2_or_v3_is_read_and_written_on_as_v4(keys, sample):
    """v2, v3 and v4 differ only in a finished game's published orders (v2) and in what the
    signature covers (v4: the digested form): a v2 or v3 file in progress, signed over its bytes as
    they are, is read, and its next version is written as v4; published orders of the other format
    are refused."""
    for form in ("koryo-pbm-game/v2", "koryo-pbm-game/v3"):
        top = sample_top(sample)
        top["format"] = form
        old_file = resign(keys, top)
        assert playercopy.signed_message(gamefile_body(old_file)) == gamefile_body(old_file)
        doc = decode(old_file, expected_moderator=keys["mod"].public)
        assert doc.version == 3 and encode(doc, keys["mod"]).startswith(b'format = "koryo-pbm-game/v4"\n')
        assert open_part(doc, "moderator", keys["mod"])["seed"] == "the seed"
        # a file of an earlier format has no player copy: it is mailed whole, and is its own identity
        assert playercopy.player_copy(old_file) == old_file
        assert playercopy.file_identity(old_file) == "sha256:" + hashlib.sha256(old_file).hexdigest()
    signed = {"decision": "r1-orders", "player": "bob", "answers": "a" * 64, "submitted": "2026-11-25T10:00:00Z",
              "nonce": "b" * 32, "digest": "c" * 64, "orders": "x", "inner": "AA=="}
    old = {"decision": "r1-orders", "player": "bob", "envelope": "-----BEGIN", "orders": "x", "inner": "AA=="}
    for form, item in (("koryo-pbm-game/v2", signed), ("koryo-pbm-game/v3", old)):
        over = {**sample_top(sample), "format": form, "seed": "the seed", "salt": SALT, "replay": {"orders": [item]}}
        over.pop("decision")
        over = {k: over[k] for k in gamedoc.TOP_KEYS if k in over}
        with pytest.raises(FormatError, match=f"the file says format {form} but its published orders are not"):
            decode(resign(keys, over))


def test_a_player_copy_verifies_with_the_same_signature_and_is_the_same_version(keys, sample):
    """Issue 18: the player copy is the file with the moderator's part (which no player can open)
    replaced by its digest, and the same signature line: it reads as the same document but for
    that part, every player's part opens, it pins as the same file, and the moderator's part
    does not open from it."""
    copy_ = playercopy.player_copy(sample)
    assert len(copy_) < len(sample) and copy_.splitlines()[-1] == sample.splitlines()[-1]
    assert playercopy.player_copy(copy_) == copy_
    whole, player = decode(sample), decode(copy_, expected_moderator=keys["mod"].public)
    data = whole.sealed["moderator"]["data"]
    assert player.sealed["moderator"] == {"recipient": keys["mod"].public.fingerprint(),
                                          "digest": "sha256:" + hashlib.sha256(data.encode()).hexdigest()}
    assert player.replace(sealed={**player.sealed, "moderator": whole.sealed["moderator"]}) == whole
    assert playercopy.is_player_copy(player) and not playercopy.is_player_copy(whole)
    assert open_part(player, "alice", keys["alice"]) == {"hand": [1, 5, 7], "name": "alice"}
    assert playercopy.file_identity(copy_) == playercopy.file_identity(sample) == playercopy.file_identity(
        sample.replace(b"\n", b"\r\n"))
    with pytest.raises(FormatError, match=r"^this game file is a player copy of game koryo-0a1b2c3d4e \(version 3\): "
                                          "it holds the moderator's part only as its digest"):
        open_part(player, "moderator", keys["mod"])
    with pytest.raises(FormatError, match="is a player copy"):  # never signed as a new version
        encode(player, keys["mod"])
    assert gamefile.decode_header(copy_).version == 3


def test_a_player_copy_with_its_digest_or_the_moderators_part_changed_is_refused(keys, sample):
    copy_ = playercopy.player_copy(sample)
    digest = decode(copy_).sealed["moderator"]["digest"].encode()
    other = digest[:-1] + (b"0" if digest[-1:] != b"0" else b"1")
    with pytest.raises(TamperedError, match="does not verify"):
        decode(copy_.replace(digest, other))
    with pytest.raises(TamperedError, match="does not verify"):
        gamefile.decode_header(copy_.replace(digest, other))
    # another moderator's part of the same size put in its place (one sealed for the same slot anew)
    doc = make_doc(keys)
    forged = seal_part(doc, "moderator", doc.moderator, {"seed": "the seed", "orders": {"x": 1}})
    data = decode(sample).sealed["moderator"]["data"].encode()
    swapped = forged["data"].encode()
    with pytest.raises(TamperedError, match="does not verify"):
        decode(sample.replace(data, swapped))
    # the part dropped from a file altogether: the signature covers its digest
    with pytest.raises(KoryoPbmError):
        decode(copy_.replace(b'digest = "' + digest + b'"\n', b""))


def test_the_moderators_part_of_a_v4_file_is_its_last_table_and_a_v3_file_has_no_player_copy(keys, sample):
    """A v4 file signed with its moderator's part elsewhere than last (not what koryo-pbm writes,
    and not a form whose digest the signature could cover) and a v3 file with the digest form
    are refused, each in a line naming why."""
    top = sample_top(sample)
    top["sealed"] = {"moderator": top["sealed"]["moderator"], **{k: v for k, v in top["sealed"].items()
                                                                  if k != "moderator"}}
    with pytest.raises(FormatError, match="must be the last table"):
        decode(resign(keys, top))
    top = sample_top(playercopy.player_copy(sample))
    top["format"] = "koryo-pbm-game/v3"
    with pytest.raises(FormatError, match="koryo-pbm-game/v3 has no player copies"):
        decode(resign(keys, top))


def test_a_finished_game_of_format_v3_is_read_as_it_was(keys):
    """A game finished (and signed) by the koryo-pbm before v4 (``data/finished-v3.toml``): read,
    with its signature over its bytes as they are; its player copy is itself."""
    from pathlib import Path

    data = (Path(__file__).parent / "data" / "finished-v3.toml").read_bytes()
    assert data.startswith(b'format = "koryo-pbm-game/v3"\n')
    doc = decode(data)
    assert doc.decision is None and doc.replay is not None and not playercopy.is_player_copy(doc)
    assert playercopy.player_copy(data) == data
    flipped = bytearray(data)
    flipped[data.index(b"[sealed.moderator]") + 60] ^= 1  # inside the moderator's part
    with pytest.raises(TamperedError, match="does not verify"):
        decode(bytes(flipped))


def gamefile_body(data: bytes) -> bytes:
    return data[: data.rfind(b"\n", 0, len(data) - 1) + 1]


def test_the_signature_is_checked_before_the_body_is_parsed(keys, sample, monkeypatch):
    """A forged file (bad signature) is refused without parsing its body; its header alone
    (``decode_header``) gives the game, version and moderator without a parse either."""
    import koryo_pbm.store.gamefile as gf

    parsed = []
    real_loads = gf.tomllib.loads
    monkeypatch.setattr(gf.tomllib, "loads", lambda text: parsed.append(len(text)) or real_loads(text))
    body = gamefile_body(sample)
    forged = body + b"[public.padding]\nx = 1\n" + sample[len(body):]
    with pytest.raises(TamperedError, match="does not verify"):
        decode(forged)
    assert max(parsed) < 4096  # only the header was parsed
    parsed.clear()
    header = gf.decode_header(sample)
    assert (header.game_id, header.version, header.moderator) == ("koryo-0a1b2c3d4e", 3, keys["mod"].public)
    assert max(parsed) < 4096
    with pytest.raises(TamperedError, match="different moderator"):
        gf.decode_header(sample, expected_moderator=keys["eve"].public)
    with pytest.raises(FormatError, match="no header"):
        gf.decode_header(b'format = "koryo-pbm-game/v2"\n' + b"# x\n" * 20000 + sample[len(body):])


@pytest.mark.parametrize(
    "mutate,match",
    [
        (lambda t: t.update(extra=1), "unknown field 'extra'"),
        (lambda t: t.pop("public"), "has no 'public'"),
        (lambda t: t.update(version="3"), "'version'"),
        (lambda t: t.update(version=-1), "'version'"),
        (lambda t: t.update(game_id="bad id"), "'game_id'"),
        (lambda t: t.update(seed_commitment="md5:00"), "'seed_commitment'"),
        (lambda t: t["players"].update(carol="nope"), "players.carol"),
        (lambda t: t["players"].update({"moderator": t["moderator"]}), "cannot be a player"),
        (lambda t: t["players"].update({"../x": t["moderator"]}), "invalid player name"),
        (lambda t: t.update(players=[]), "'players'"),
        (lambda t: t["decision"].update(deadline="x"), "'decision.deadline' must be a UTC time"),
        (lambda t: t["decision"].update(timeout="3d"), "unknown field 'timeout'"),
        (lambda t: t.update(service={"deadlines": {"default": "0m"}}), "cannot be zero"),
        (lambda t: t.update(service={"missed": "ignore"}), "'service.missed' must be 'wait' or 'bot'"),
        (lambda t: t.update(service={"abandoned": ["zed"]}), "'service.abandoned' names 'zed'"),
        (lambda t: t.update(service={"holiday": "1w"}), "'service' has an unknown field 'holiday'"),
        (lambda t: t["decision"].pop("kind"), "has no 'kind'"),
        (lambda t: t["decision"].update(waiting_for=["zed"]), "waiting_for"),
        (lambda t: t["decision"].update(received=["alice", "alice"]), "twice"),
        (lambda t: t["decision"].update(waiting_for=["bob"]), "does not wait for"),
        (lambda t: t.update(decision=[1]), "'decision'"),
        (lambda t: t.update(public=[1]), "'public'"),
        (lambda t: t.update(log={}), "'log'"),
        (lambda t: t["log"][0].update(extra=1), "unknown field"),
        (lambda t: t["log"][0].update(seq="1"), "'seq'"),
        (lambda t: t["log"][0].update(accepted=["x"]), "accepted"),
        (lambda t: t["log"][0]["events"].append({"kind": "k", "text": "x"}), "sentences"),
        (lambda t: t["log"][0]["events"].append(1), "sentences"),
        (lambda t: t.update(seed="the seed", salt=SALT), "only once the game is over"),
        (lambda t: t.update(seed="the seed"), "published together"),
        (lambda t: t.update(deal="dice"), "'deal'"),
        (lambda t: t.pop("deal"), "has no 'deal'"),
        (lambda t: t.update(contributions={"bob": "0" * 64, "alice": "1" * 64}), "joined game"),
        (lambda t: t.update(deal="joined", contributions={"alice": "0" * 64, "bob": "1" * 64}), "seat order"),
        (lambda t: t.update(deal="joined", contributions={"bob": "0" * 64, "alice": "x"}), "64 hex"),
        (lambda t: t.update(replay={"orders": []}), "only once the game is over"),
        (lambda t: t["sealed"].update(carol={"recipient": "0" * 16, "data": "AAAA"}), "sealed.carol"),
        (lambda t: t["sealed"]["alice"].update(recipient=t["sealed"]["bob"]["recipient"]), "not to the key"),
        (lambda t: t["sealed"]["alice"].update(data="!!"), "base64"),
        (lambda t: t["sealed"]["alice"].update(data=""), "empty"),
        (lambda t: t["sealed"]["alice"].update(extra="x"), "unknown field"),
        (lambda t: t.update(sealed={"alice": 1}), "'sealed'"),
    ],
)
def test_validation_of_signed_content(keys, sample, mutate, match):
    top = sample_top(sample)
    mutate(top)
    with pytest.raises(FormatError, match=match):
        decode(resign(keys, top))


def test_log_chain(keys, sample):
    doc = make_doc(keys)
    verify_log(doc)
    assert doc.log[0]["prev"] == ZERO_HASH
    assert doc.log[1]["prev"] == doc.log[0]["hash"]
    assert doc.log[1]["seq"] == 2 and doc.log[1]["version"] == 3

    def broken(change):
        top = sample_top(sample)
        change(top["log"])
        return resign(keys, top)

    cases = [
        lambda log: log[0]["events"].__setitem__(0, "alice plays 3 cards face down"),
        lambda log: log[0].update(accepted=["d" * 64]),
        lambda log: log.pop(0),
        lambda log: log.reverse(),
        lambda log: log[1].update(prev=ZERO_HASH),
        lambda log: log[0].update(version=9),
    ]
    for change in cases:
        with pytest.raises(TamperedError, match="log"):
            decode(broken(change))
    # rewriting an entry and its hash still breaks the next link
    top = sample_top(sample)
    top["log"][0]["decision"] = "r9-orders"
    top["log"][0]["hash"] = gamelog._entry_hash(top["log"][0])
    with pytest.raises(TamperedError, match="chain is broken"):
        decode(resign(keys, top))


def test_append_log_refuses_unstorable_values(keys):
    doc = make_doc(keys)
    with pytest.raises(FormatError):
        append_log(doc, "r3", [None], [])
    with pytest.raises(FormatError):
        append_log(doc, "r3", [{"kind": "x", "text": "t"}], [])
    with pytest.raises(FormatError):
        append_log(doc, "r3", [], ["not a digest"])
    assert len(doc.log) == 2
    entry = append_log(doc, "r3", ["carol passes"], [])
    assert entry["events"] == ["carol passes"]
    verify_log(decode(encode(doc, keys["mod"])))


def test_the_seed_is_published_only_at_the_end_and_must_match_its_commitment(keys):
    doc = make_doc(keys)
    doc.decision = None
    doc.seed = "another seed"
    with pytest.raises(FormatError, match="'seed' and 'salt' are published together"):
        encode(doc, keys["mod"])
    doc.salt = SALT
    with pytest.raises(TamperedError, match="does not match the seed commitment"):
        encode(doc, keys["mod"])
    doc.seed_commitment = gamedoc.seed_commitment("another seed", SALT)
    assert decode(encode(doc, keys["mod"])).seed == "another seed"
    doc.salt = "5b" * 32  # the right seed with another salt is not what was committed to
    with pytest.raises(TamperedError, match="does not match the seed commitment"):
        encode(doc, keys["mod"])


def test_open_part_errors(keys, sample):
    doc = decode(sample)
    with pytest.raises(NotForYou, match=r"the part 'alice' is sealed to another key \(fingerprint [0-9a-f]{16}\); you are"):
        open_part(doc, "alice", keys["bob"])
    with pytest.raises(FormatError, match="no sealed part 'carol'"):
        open_part(doc, "carol", keys["alice"])


def test_part_cannot_be_moved(keys):
    # to another version
    doc = make_doc(keys, version=3)
    later = copy.deepcopy(doc)
    later.version = 4
    with pytest.raises(TamperedError, match="sealed part 'alice'"):
        open_part(later, "alice", keys["alice"])
    # to another game
    other = copy.deepcopy(doc)
    other.game_id = "koryo-ffffffffff"
    with pytest.raises(TamperedError):
        open_part(other, "alice", keys["alice"])
    # to another seat held by the same key
    doc.players["alice2"] = keys["alice"].public
    doc.sealed["alice2"] = dict(doc.sealed["alice"])
    with pytest.raises(TamperedError):
        open_part(doc, "alice2", keys["alice"])
    # damaged blob
    blob = bytearray(base64.b64decode(doc.sealed["bob"]["data"]))
    blob[-1] ^= 1
    doc.sealed["bob"] = {"recipient": doc.sealed["bob"]["recipient"], "data": base64.b64encode(bytes(blob)).decode()}
    with pytest.raises(TamperedError):
        open_part(doc, "bob", keys["bob"])


def test_the_moderators_part_sealed_by_this_process_opens_as_it_opens_anew_and_only_so(keys):
    """Issue 19: the moderator's part this process sealed is given without opening it again, for
    that very text, version and key: what it holds is what a fresh process opens; moved to another
    version or game, damaged, relabelled for another key, it is refused as ever."""
    doc = make_doc(keys, version=3)
    assert gameparts._SEALED.parts[doc.game_id][1:3] == (gameparts.part_info(doc.game_id, 3, "moderator",
                                                        keys["mod"].public.fingerprint()), keys["mod"].public)
    kept = open_part(doc, "moderator", keys["mod"])
    parts, size = dict(gameparts._SEALED.parts), gameparts._SEALED.size
    gameparts._SEALED.parts.clear()
    try:
        assert open_part(doc, "moderator", keys["mod"]) == kept == {"seed": "the seed", "orders": {}}
    finally:
        gameparts._SEALED.parts.update(parts)
        gameparts._SEALED.size = size
    for change in ({"version": 4}, {"game_id": "koryo-ffffffffff"}):
        with pytest.raises(TamperedError, match="sealed part 'moderator'"):
            open_part(doc.replace(**change), "moderator", keys["mod"])
    data = doc.sealed["moderator"]["data"]
    damaged = data[:10] + ("A" if data[10] != "A" else "B") + data[11:]
    with pytest.raises(TamperedError):
        open_part(doc.replace(sealed={**doc.sealed, "moderator": {**doc.sealed["moderator"], "data": damaged}}),
                  "moderator", keys["mod"])
    eve = doc.replace(moderator=keys["eve"].public, sealed={**doc.sealed, "moderator": {
        "recipient": keys["eve"].public.fingerprint(), "data": data}})
    with pytest.raises(TamperedError):
        open_part(eve, "moderator", keys["eve"])


@pytest.mark.parametrize("inside,match", [(b"= not json", "valid data"), (b"[1, 2]", "a table"),
                                          (b"\xff\xfe", "valid data")])
def test_part_with_bad_data_inside(keys, inside, match):
    from koryo_pbm.crypto.seal import seal

    doc = make_doc(keys)
    fpr = keys["alice"].public.fingerprint()
    blob = seal(keys["alice"].public, inside, gameparts.part_info(doc.game_id, doc.version, "alice", fpr))
    doc.sealed["alice"] = {"recipient": fpr, "data": base64.b64encode(blob).decode()}
    with pytest.raises(FormatError, match=match):
        open_part(doc, "alice", keys["alice"])


def test_seed_commitment():
    c = seed_commitment("abc", SALT)
    assert c.startswith("sha256:") and len(c) == 71
    assert check_seed(c, "abc", SALT) and not check_seed(c, "abd", SALT) and not check_seed(c, "abc", "00" * 32)
    # salted: the commitment to a guessable seed is not the hash of the seed
    import hashlib

    assert c != "sha256:" + hashlib.sha256(b"abc").hexdigest()
    with pytest.raises(FormatError, match="salt"):
        seed_commitment("abc", "not hex")


def test_encode_validates(keys):
    doc = make_doc(keys)
    doc.public = {"x": None}
    with pytest.raises(FormatError, match="public"):
        encode(doc, keys["mod"])
    doc = make_doc(keys)
    doc.decision = {"id": "r", "kind": "orders", "waiting_for": ["nobody"], "received": []}
    with pytest.raises(FormatError):
        encode(doc, keys["mod"])


@settings(max_examples=150)
@given(st.binary(max_size=400))
def test_fuzz_decode_bytes(data):
    with contextlib.suppress(KoryoPbmError):
        decode(data)


@settings(max_examples=150)
@given(st.text(max_size=400))
def test_fuzz_decode_after_first_line(text):
    with contextlib.suppress(KoryoPbmError):
        decode(('format = "koryo-pbm-game/v2"\n' + text).encode("utf-8", "surrogatepass"))


_toml_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 2**64) | st.text(max_size=8) | st.floats(allow_nan=False),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)


@settings(max_examples=200)
@given(st.data())
def test_fuzz_signed_but_malformed(keys, sample, data):
    """Validly signed files with random field values: accepted or a KoryoPbmError, never a crash."""
    top = sample_top(sample)
    paths = [("game_id",), ("game",), ("version",), ("seed_commitment",), ("players", "alice"), ("decision",),
             ("decision", "id"), ("decision", "received"), ("public",), ("log",), ("log", 0), ("log", 0, "events"),
             ("log", 0, "seq"), ("sealed",), ("sealed", "bob"), ("sealed", "bob", "data"), ("players",)]
    path = data.draw(st.sampled_from(paths))
    value = data.draw(_toml_values)
    target = top
    for p in path[:-1]:
        target = target[p]
    target[path[-1]] = value
    try:
        blob = resign(keys, top)
    except (TypeError, ValueError):
        return  # tomli_w cannot write it (None, huge int): not a file anyone can sign
    with contextlib.suppress(KoryoPbmError):
        decode(blob)


def test_deeply_nested_toml_refused(keys):
    deep = b'format = "koryo-pbm-game/v2"\npublic = ' + b"[" * 50000 + b"\n"
    sig = base64.b64encode(b"\0" * 64).decode().encode()
    with pytest.raises(FormatError, match="no header"):  # 50,000 brackets: no header at all
        decode(deep + b'signature = "' + sig + b'"\n')
    deep = b'format = "koryo-pbm-game/v2"\npublic = ' + b"[" * 5000 + b"\n[x]\n"
    with pytest.raises(FormatError, match="malformed header"):  # a deep header: one line, no traceback
        decode(deep + b'signature = "' + sig + b'"\n')


def test_a_file_read_twice_is_parsed_once_and_changed_bytes_are_checked_again(keys, tmp_path, monkeypatch):
    doc = make_doc(keys)
    path = tmp_path / "game.toml"
    write_game(path, doc, keys["mod"])
    gamefile._recent.clear()
    calls = []
    real = gamefile.decode
    monkeypatch.setattr(gamefile, "decode", lambda data, **kw: calls.append(1) or real(data, **kw))
    first, second = read_game(path), read_game(path)
    assert first == second == real(path.read_bytes()) and len(calls) == 1
    first.public["round"] = 99  # each reader gets its own tables
    assert read_game(path).public["round"] == 2
    # The bytes decide: a file changed on disk is parsed (and refused) whatever was remembered.
    data = bytearray(path.read_bytes())
    data[data.index(b"round = 2")] ^= 1
    path.write_bytes(bytes(data))
    with pytest.raises(TamperedError):
        read_game(path)
    # A pinned moderator key is checked on remembered documents too.
    write_game(path, doc, keys["mod"])
    read_game(path)
    with pytest.raises(TamperedError, match="different moderator"):
        read_game(path, expected_moderator=keys["alice"].public)


_TEXT = st.text(alphabet=st.one_of(st.characters(codec=None), st.sampled_from('"\\\x7f\u2028\ud800\t')))
_VALUES = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(-2**62, 2**62), st.floats(allow_nan=False),
                                 _TEXT),
                       lambda inner: st.one_of(st.lists(inner, max_size=4), st.tuples(inner, inner),
                                               st.dictionaries(st.one_of(_TEXT, st.integers(0, 3)), inner, max_size=4)),
                       max_leaves=20)


def _room_reference(value):
    """gameparts._room as it was written first: every text measured by encoding it."""
    if isinstance(value, str):
        inner = len(gameparts.compact_json(value).encode("utf-8")) - 2
        return 2 + max(1, -(-inner // gameparts.TEXT_QUANTUM)) * gameparts.TEXT_QUANTUM
    if value is None or isinstance(value, bool):
        return 5
    if isinstance(value, (int, float)):
        return max(gameparts.NUMBER_ROOM, len(gameparts.compact_json(value)))
    if isinstance(value, dict):
        return 2 + max(0, len(value) - 1) + sum(_room_reference(k) + 1 + _room_reference(v) for k, v in value.items())
    return 2 + max(0, len(value) - 1) + sum(_room_reference(v) for v in value)


@settings(max_examples=300)
@given(_VALUES)
def test_the_fast_paths_of_plain_and_room_give_what_the_general_code_gives(value):
    """Issue 19: ``_plain`` and ``_room`` take a fast path for plain values; the same copies, the
    same padded sizes and the same refusals (naming the same place) as the general code."""
    def outcome(f, *args):
        try:
            return "ok", f(*args)
        except (FormatError, UnicodeEncodeError, ValueError, TypeError) as exc:
            return type(exc).__name__, str(exc)
    fast, slow = outcome(gamedoc._plain, value, "x"), outcome(gamedoc._plain_slow, value, "x")
    assert fast == slow
    if fast[0] == "ok":
        assert outcome(gameparts._room, fast[1]) == outcome(_room_reference, fast[1])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.text(min_size=0, max_size=40) | st.sampled_from(
    ["it's", "'''", "a\nb", "\nlead", "tail\n", "x" * 16 + "'", "tab\there" * 3, "crlf\r\nline" * 2,
     "naïve ✓ " * 4, "ends with '''", "\u2028 line separator " * 2]), min_size=1, max_size=6))
def test_the_strings_of_the_log_read_back_whatever_form_they_are_written_in(keys, texts):
    """Long strings of the log are written as TOML literal strings where TOML allows it (speed):
    any text, apostrophes, line breaks and control characters included, reads back the same."""
    doc = make_doc(keys)
    append_log(doc, "r2-orders", texts, ["d" * 64])
    data = encode(doc, keys["mod"])
    back = decode(data)
    assert back.log == doc.log
    assert [e["events"] for e in back.log][-1] == texts
    assert decode(encode(back, keys["mod"])) == back


def _reference_text(doc: GameDoc) -> str:
    """The TOML of ``doc`` as every earlier version of ``encode`` wrote it: the whole file through
    tomli_w with the long strings of the sealed parts, the log and the replay marked, then each
    marker swapped for its literal string by a pattern."""
    import re

    top = gamefile._to_toml(doc)
    blobs: list[str] = []

    def mark(value: str) -> str:
        blobs.append(value)
        return f"@feedf00d-{len(blobs) - 1}@"

    for part in top["sealed"].values():
        part["data"] = mark(part["data"])
    top["log"] = tomltext._literals(top["log"], mark)
    if "replay" in top:
        top["replay"] = tomltext._literals(top["replay"], mark)
    return re.sub('"@feedf00d-([0-9]+)@"', lambda m: (lambda v: f"'''{v}'''" if "\n" in v else f"'{v}'")(
        blobs[int(m.group(1))]), tomli_w.dumps(top))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.text(max_size=30) | st.sampled_from(["it's long enough, isn't it", "a\nb" * 8, ""]),
                         max_size=3), min_size=1, max_size=4),
       st.lists(st.booleans(), min_size=4, max_size=4),
       st.none() | st.integers(8, 15).map(lambda n: {"orders": [  # (texts under 16 characters are not marked)
           {"decision": "r" * n, "player": "bob", "bot": "b" * 15, "orders": "the orders of a bot"}]}))
def test_a_file_is_written_as_the_whole_file_through_tomli_w_would_be_whatever_its_log_holds(keys, events, digests,
                                                                                               replay):
    """Issue 19: ``encode`` writes each log entry once and keeps its text for the versions after
    (empty ones, ones with no event and nothing accepted, with any text), and checks sealed
    base64 without decoding it: every file is byte for byte what tomli_w writes of the whole
    file, the first time and again, and reads back the same. (A replayed order of a bot is
    written inline when it fits in 100 characters as tomli_w measures it, with its marker: the
    markers after the log's are numbered as they were.)"""
    doc = make_doc(keys)
    for i, texts in enumerate(events):
        append_log(doc, f"r{i + 3}-orders", texts, ["e" * 64] if digests[i] else [])
    if replay is not None:
        doc.decision = None
        doc.replay = replay
    for _ in range(2):  # the second time from the entries kept
        data = encode(doc, keys["mod"])
        assert data.rsplit(b"signature = ", 1)[0].decode() == _reference_text(doc)
        assert decode(data).log == doc.log


@settings(max_examples=300)
@given(st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=", max_size=14)
       | st.binary(max_size=12).map(lambda b: base64.b64encode(b).decode()) | st.text(max_size=8))
def test_the_fast_check_of_base64_agrees_with_decoding_it(text):
    """Issue 19: a sealed part's base64 is checked without decoding it (``_canonical_b64``); it
    accepts exactly what decoding in strict mode and encoding again gives back unchanged, and
    what it refuses is refused as before, saying why."""
    import binascii

    try:
        decodes = base64.b64encode(binascii.a2b_base64(text, strict_mode=True)).decode() == text
    except (binascii.Error, ValueError):
        decodes = False
    assert gamedoc._canonical_b64(text) == decodes
    if decodes:
        assert gamedoc._b64(text, "x") == base64.b64decode(text)
    else:
        with pytest.raises(FormatError, match="^x: data is not"):
            gamedoc._b64(text, "x")


def test_pieces_of_a_file_kept_by_what_they_hold_are_never_those_of_other_values(keys):
    """Issue 19: the lines and tables of a file (the public state, the players) are kept by what
    they hold: values that read alike in JSON or as text (a time and its text, 1 and 1.0 and
    true, a list and a table) are different pieces, each written as tomli_w writes it."""
    from datetime import UTC, datetime

    when = datetime(2026, 11, 26, 6, 0, tzinfo=UTC)
    for public in ({"when": when}, {"when": when.isoformat()}, {"when": str(when)}, {"n": 1}, {"n": 1.0},
                   {"n": True}, {"n": "1"}, {"n": [1]}, {"n": {"1": 1}}, {"n": 1}, {"when": when}):
        doc = make_doc(keys)
        doc.public = public
        data = encode(doc, keys["mod"])
        assert data.rsplit(b"signature = ", 1)[0].decode() == _reference_text(doc)
        assert decode(data).public == public
