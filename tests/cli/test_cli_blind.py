"""The blind table through the real CLI (issue 20): ``new --blind --co-dealer``, ``co-deal``, a
complete blind 3-player Koryo game by shared folder with the moderator holding a seat (dora is
the moderator's own player key), and what the moderator's and the co-dealer's keys can open at
every version of it."""

from __future__ import annotations

import base64
import contextlib
import io
import json
import os
import re
import shutil
import sys
import tomllib
from pathlib import Path

import pytest
from blind_checks import card_values, pairs
from test_cli_bymail import make_keys

from koryo_pbm.cli.main import main

SEATS = ["alice", "bob", "dora"]  # dora: the moderator's own player key
HERE = Path(__file__).resolve().parent


class Runner:
    """``koryo-pbm ARGS`` in-process, for a module-scoped game (the ``cli`` fixture is per test)."""

    def __init__(self, home: Path, cwd: Path):
        self.home, self.cwd = home, cwd

    def __call__(self, *args):
        out, err = io.StringIO(), io.StringIO()
        old_home, old_cwd = os.environ.get("KORYO_PBM_HOME"), os.getcwd()
        os.environ["KORYO_PBM_HOME"] = str(self.home)
        os.chdir(self.cwd)
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = main([str(a) for a in args])
        finally:
            os.chdir(old_cwd)
            if old_home is None:
                os.environ.pop("KORYO_PBM_HOME", None)
            else:
                os.environ["KORYO_PBM_HOME"] = old_home
        return code, out.getvalue(), err.getvalue()

    def ok(self, *args) -> str:
        code, out, err = self(*args)
        assert code == 0, f"koryo-pbm {' '.join(map(str, args))} failed ({code}): {err}"
        return out

    def json(self, *args):
        return json.loads(self.ok(*args, "--json"))

    def fails(self, *args) -> str:
        code, out, err = self(*args)
        assert code != 0, f"koryo-pbm {' '.join(map(str, args))} should have failed: {out}"
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
        return err


def _card_ids(value):
    """How many times each Koryo card id appears as a text value anywhere in ``value``."""
    from koryo_pbm_games.koryo.cards import CARD_IDS

    return card_values(value, CARD_IDS)


def what_key_opens(run, doc, identity) -> list:
    """Everything ``identity`` can open in ``doc``, as ``koryo-pbm inspect --as`` opens it (every
    sealed part tried with the key), and each blob inside those that opens with it too (the
    co-dealer's shares sealed to players: none may)."""
    from koryo_pbm.blind import shares_info
    from koryo_pbm.crypto.seal import open_sealed
    from koryo_pbm.errors import TamperedError

    shown = run.json("inspect", "g", "--as", identity.name)
    assert shown["version"] == doc.version and shown["opened"], shown
    opened = [part["data"] for part in shown["opened"]]
    for data in opened:
        carl = data.get("state", {}).get("carl", {})
        for deck, by_player in carl.items():
            for player, blob in by_player.items():
                with pytest.raises(TamperedError):
                    open_sealed(identity, base64.b64decode(blob), shares_info(doc.game_id, deck, player))
    return opened


@pytest.fixture(scope="module")
def blind_game(tmp_path_factory):
    """A complete blind 3-player Koryo game by shared folder; at every version, what the
    moderator's key and the co-dealer's key open (``koryo-pbm inspect``) is checked against
    every hidden card."""
    from koryo_pbm.store import gamefile
    from koryo_pbm.store.keyring import find_identity

    root = tmp_path_factory.mktemp("blind")
    run = Runner(root / "home", root)
    lines = {}
    for name in ["mod", *SEATS, "carl"]:
        lines[name] = run.ok("keygen", name).strip()
    run.ok("new", "g", "--as", "mod", "--blind", "--co-dealer", f"carl={lines['carl']}",
           *[x for n in SEATS for x in ("--player", f"{n}={lines[n]}")])
    os.environ["KORYO_PBM_HOME"] = str(root / "home")
    try:
        mod, carl = find_identity("mod"), find_identity("carl")
    finally:
        os.environ.pop("KORYO_PBM_HOME", None)
    record = {"versions": 0, "hidden_seen": 0, "statuses": [], "shows": {}, "co_deal_messages": 0}

    def check_version() -> None:
        doc = gamefile.read_game(root / "g" / "game.toml")
        hidden = {}
        for p in SEATS:
            view = run.json("show", "g", "--as", p)
            hidden.update(view["cards"])
            assert set(view["cards"]) <= {s for s in view["cards"]}
        revealed = {r["slot"] for r in doc.public["blind"]["reveals"]}
        assert not (set(hidden) & revealed)
        public_ids = _card_ids(doc.public)
        for identity in (mod, carl):
            opened = what_key_opens(run, doc, identity)
            leaked = [(k, v) for k, v in pairs(opened) if isinstance(k, str) and k in hidden and v == hidden[k]]
            assert not leaked, f"{identity.name} can open {leaked[:3]} at version {doc.version}"
            # every card id in what the key opens is accounted for by the public part of the version
            extra = _card_ids(opened) - public_ids
            assert not extra, f"{identity.name} can open card ids {dict(extra)} the public part does not hold"
        record["versions"] += 1
        record["hidden_seen"] += len(hidden)

    check_version()
    for _ in range(400):
        status = run.json("status", "g")
        record["statuses"].append(status)
        if status["decision"] is None:
            break
        if status["missing"] == ["carl"]:
            run.ok("co-deal", "g", "--as", "carl")
            record["co_deal_messages"] += 1
        else:
            for p in status["missing"]:
                orders = root / f"o-{p}.toml"
                run.ok("orders", "g", "--as", p, "-o", orders)
                run.ok("submit", orders, "--as", p, "--game", "g")
        run.ok("resolve", "g", "--as", "mod")
        check_version()
    else:
        raise AssertionError("the blind game did not end")
    record["run"], record["root"], record["lines"] = run, root, lines
    return record


def test_a_blind_koryo_game_is_played_to_the_end_and_neither_dealer_key_opens_a_hidden_card(blind_game):
    statuses = blind_game["statuses"]
    # the co-dealer is awaited like a player: first its key, then each deck, each reveal, the end
    assert statuses[0]["decision"] == "keys" and statuses[0]["missing"] == ["carl"]
    assert statuses[0]["dealers"] == ["mod", "carl"]
    decks = [s["decision"] for s in statuses if s["decision"] and s["decision"].endswith("-deal")]
    assert decks == [f"r{r}-deal" for r in range(1, 9)]
    assert statuses[-2]["decision"] == "end" and statuses[-1]["over"]
    assert blind_game["co_deal_messages"] == sum(1 for s in statuses if s["missing"] == ["carl"])
    # every version was checked, and there were hidden cards to look for in most
    assert blind_game["versions"] == len(statuses)
    assert blind_game["hidden_seen"] > 100
    run = blind_game["run"]
    out = run.ok("status", "g")
    assert "blind table: dealers mod and carl" in out
    shown = run.ok("show", "g")
    assert "blind table: dealers mod and carl" in shown and "game over" in shown
    doc = tomllib.loads((blind_game["root"] / "g" / "game.toml").read_text())
    assert doc["deal"] == "blind" and "seed" in doc
    assert set(doc["public"]["blind"]["published"]) == {"mod", "carl"}


def test_the_co_dealer_answering_twice_or_for_another_game_is_refused_in_one_line(blind_game, tmp_path):
    run, root = blind_game["run"], blind_game["root"]
    # a copy of the co-dealer's first envelope put back in the inbox: a duplicate, nothing counted
    archived = sorted((root / "g" / "archive").rglob("keys--carl*"))
    assert archived
    before = (root / "g" / "game.toml").read_bytes()
    shutil.copy(archived[0], root / "g" / "inbox" / "again.envelope")
    out = run.json("resolve", "g", "--as", "mod")
    assert [(e["status"], e["reason"]) for e in out["envelopes"]] == [("duplicate", "already counted")]
    assert out["written"] is False and (root / "g" / "game.toml").read_bytes() == before
    # the co-dealer's answer for another game (both wait for its key): refused, nothing counted
    lines = blind_game["lines"]
    for folder in ("h1", "h2"):
        run.ok("new", folder, "--as", "mod", "--blind", "--co-dealer", f"carl={lines['carl']}",
               *[x for n in SEATS for x in ("--player", f"{n}={lines[n]}")])
    run.ok("co-deal", "h1", "--as", "carl")
    inboxed = sorted((root / "h1" / "inbox").iterdir())
    again = run.ok("co-deal", "h1", "--as", "carl")  # twice before the moderator resolves: nothing sent
    assert again.startswith("nothing to do: carl's answer to keys is in the inbox already")
    assert sorted((root / "h1" / "inbox").iterdir()) == inboxed and len(inboxed) == 1
    assert "your move: koryo-pbm co-deal h1 --as carl" in run.ok("show", "h1", "--as", "carl")
    assert "koryo-pbm co-deal" in run.fails("orders", "h1", "--as", "carl")
    for env in (root / "h1" / "inbox").iterdir():
        shutil.move(env, root / "h2" / "inbox" / env.name)
    before = (root / "h2" / "game.toml").read_bytes()
    code, text, err = run("resolve", "h2", "--as", "mod", "--json")
    assert code != 0 and len(err.strip().splitlines()) == 1 and "rejected" in err
    out = json.loads(text)
    assert [e["status"] for e in out["envelopes"]] == ["rejected"]
    assert out["envelopes"][0]["reason"].startswith("for game koryo-")
    assert (root / "h2" / "game.toml").read_bytes() == before
    # co-deal on a finished game: nothing to do
    assert "nothing to do" in run.ok("co-deal", "g", "--as", "carl")
    # co-deal with a key that is not the co-dealer's
    err = run.fails("co-deal", "g", "--as", "alice")
    assert "not the co-dealer" in err


def test_new_blind_refuses_in_one_line(cli):
    lines = make_keys(cli, ["alice", "bob", "carl"])
    base = ["new", "g", "--as", "mod", "--player", f"alice={lines['alice']}", "--player", f"bob={lines['bob']}"]
    cases = [
        (["--blind", "--co-dealer", f"carl={lines['alice']}"], "the co-dealer's key is alice's key"),
        (["--blind", "--co-dealer", f"carl={lines['mod']}"], "the co-dealer's key is the moderator's own key"),
        (["--blind", "--co-dealer", f"carl={lines['carl']}", "--game", "korsar", "--team", "alice,bob"],
         "2 players play Korsar alone"),  # Korsar's blind rules check its options as the open rules do
        (["--blind", "--co-dealer", f"carl={lines['carl']}", "--seed", "x"], "a blind game takes no --seed"),
        (["--blind", "--co-dealer", f"carl={lines['carl']}", "--position", "p.toml"], "cannot start from --position"),
        (["--blind", "--co-dealer", f"carl={lines['carl']}", "--abandon-after", "2"],  # before "needs --missed bot"
         "a blind game has no abandoned seats yet (--abandon-after)"),
        (["--blind"], "needs both --blind and --co-dealer"),
        (["--blind", "--co-dealer", f"alice={lines['carl']}"], "is a player's or the moderator's"),
    ]
    for extra, said in cases:
        r = cli.fails(*base, *extra)
        assert said in r.err, (extra, r.err)
        assert not (cli.cwd / "g").exists()


def test_open_games_are_byte_for_byte_what_they_were():
    """An open game made with fixed keys, ids, seeds and salts, every sealed part opened: the
    same text as the code before the blind table made (tests/open-game-golden.txt; its two format
    lines say v4 since player copies, the only difference the new format made to it)."""
    sys.path.insert(0, str(HERE.parent))
    try:
        from open_game_golden import open_game_text
    finally:
        sys.path.pop(0)
    assert open_game_text() == (HERE.parent / "open-game-golden.txt").read_text()


def test_verify_audits_the_blind_table_and_plays_the_ordinary_rules_on_the_real_cards(blind_game):
    run = blind_game["run"]
    report = run.json("verify", "g")
    checks = {c["check"]: c for c in report["checks"]}
    assert report["ok"] and report["fair_proof"], report
    assert checks["deal"]["detail"].startswith("dealt at a blind table by mod and carl")
    detail = checks["blind"]["detail"]
    assert detail.startswith("8 decks shuffled by mod and carl, ") and "recomputed from the dealers' published" in detail
    assert "the ordinary rules on the real cards give the same" in detail


# -- attacks through the game file ---------------------------------------------------------------


def _blind2(cli, folder):
    """A blind 2-player game (alice, bob) with the co-dealer carl, after its key."""
    lines = make_keys(cli, ["alice", "bob", "carl"])
    cli.ok("new", folder, "--as", "mod", "--blind", "--co-dealer", f"carl={lines['carl']}",
           "--player", f"alice={lines['alice']}", "--player", f"bob={lines['bob']}")
    cli.ok("co-deal", folder, "--as", "carl")
    cli.ok("resolve", folder, "--as", "mod")
    return lines


def _carl_sends(cli, folder, body_of):
    """The co-dealer's honest answer to the pending decision, changed by ``body_of``, signed and
    sealed by the co-dealer into the inbox (a co-dealer running modified software)."""
    from koryo_pbm import blind, match
    from koryo_pbm.cli.submit import utc_now
    from koryo_pbm.crypto.envelope import make_envelope
    from koryo_pbm.store import gamefile, gamelog, inbox
    from koryo_pbm.store.keyring import find_identity

    os.environ["KORYO_PBM_HOME"] = str(cli.home)
    carl = find_identity("carl")
    path = cli.cwd / folder / "game.toml"
    doc = gamefile.read_game(path)
    game = match.game_of(doc)
    honest = blind.co_deal(game, doc.public, {n: k for n, k in doc.players.items() if n != "carl"}, carl,
                           doc.decision["id"], doc.log)
    body = body_of(honest, doc, carl)
    text = match.canonical_orders(doc.game_id, doc.decision["id"], body)
    # modified software: signed and sealed without the check co-deal makes first
    envelope = make_envelope(carl, doc.moderator, game_id=doc.game_id, decision=doc.decision["id"],
                             answers=gamelog.head(doc), player="carl", orders_text=text, submitted=utc_now())
    inbox.drop(cli.cwd / folder, envelope)
    return path.read_bytes()


def _play_until(cli, folder, stop, players=("alice", "bob")):
    for _ in range(300):
        status = cli.ok("status", folder, "--json").json
        if stop(status):
            return status
        if status["missing"] == ["carl"]:
            cli.ok("co-deal", folder, "--as", "carl")
        else:
            for p in status["missing"]:
                orders = cli.cwd / f"o-{p}.toml"
                cli.ok("orders", folder, "--as", p, "-o", orders)
                cli.ok("submit", orders, "--as", p, "--game", folder)
        cli.ok("resolve", folder, "--as", "mod")
    raise AssertionError("never reached")


def test_a_wrong_share_sealed_to_a_player_is_named_when_the_player_opens_the_hand(cli):
    import json as _json

    from koryo_pbm.blind import shares_info
    from koryo_pbm.crypto.seal import open_sealed, seal
    from koryo_pbm.store.keyring import find_identity

    _blind2(cli, "w")

    def swap_two_of_alices(honest, doc, carl):
        alice = find_identity("alice")  # the test plays both sides to build the bad blob
        deck = honest["deck"]
        raw = open_sealed(alice, base64.b64decode(honest["shares"]["alice"]), shares_info(doc.game_id, deck, "alice"))
        shares = _json.loads(raw)
        a, b = sorted(shares)[:2]
        shares[a], shares[b] = shares[b], shares[a]  # each a true share, of another card
        blob = seal(doc.players["alice"], _json.dumps(shares).encode(), shares_info(doc.game_id, deck, "alice"))
        return {**honest, "shares": {**honest["shares"], "alice": base64.b64encode(blob).decode()}}

    _carl_sends(cli, "w", swap_two_of_alices)
    cli.ok("resolve", "w", "--as", "mod")  # the moderator cannot open carl's shares: it counts them
    r = cli.fails("show", "w", "--as", "alice")
    assert "carl's share of card" in r.err and "of deck round-1 (dealt to alice) does not check" in r.err
    assert cli.ok("show", "w", "--as", "bob", "--json").json["cards"]  # bob's are fine


def test_a_cheating_co_dealer_is_refused_at_once_or_named_by_verify(cli):
    from unittest import mock

    from koryo_pbm.crypto import blind as cb

    _blind2(cli, "x")
    _play_until(cli, "x", lambda s: "-reveal-" in str(s["decision"]))

    def wrong_share(honest, doc, carl):
        fake = cb.KeyShare.generate()  # a share made with another key
        slot = sorted(honest["shares"])[0]
        from koryo_pbm.blind import Dealing, _card_at, _slot
        from koryo_pbm.match import game_of

        st = game_of(doc).from_view(doc.public, {}, "carl")
        assert isinstance(game_of(doc), Dealing)
        player = doc.decision["id"].rpartition("-")[2]
        share = cb.decryption_share(_slot(st, slot, player), _card_at(st, slot), "carl", fake)
        return {"shares": {**honest["shares"], slot: base64.b64encode(share.to_bytes()).decode()}}

    def wrong_card(honest, doc, carl):
        from koryo_pbm.blind import _card_at, _slot
        from koryo_pbm.match import game_of
        from koryo_pbm.store.keyring import find_identity

        st = game_of(doc).from_view(doc.public, {}, "carl")
        slot = sorted(honest["shares"])[0]
        deck, _, pos = slot.rpartition(":")
        other = f"{deck}:{(int(pos) + 1) % 40}"  # carl's true share, of the card next to it
        key = cb.derived_key_share(bytes(find_identity("carl").sign_key.private_bytes_raw()), doc.game_id, "carl")
        player = doc.decision["id"].rpartition("-")[2]
        share = cb.decryption_share(_slot(st, other, player), _card_at(st, other), "carl", key)
        return {"shares": {**honest["shares"], slot: base64.b64encode(share.to_bytes()).decode()}}

    for cheat, said in ((wrong_share, "carl's share of card"), (wrong_card, "does not check")):
        before = _carl_sends(cli, "x", cheat)
        r = cli("resolve", "x", "--as", "mod", "--json")
        assert r.code != 0 and len(r.err.strip().splitlines()) == 1
        envelopes = r.json["envelopes"]
        assert [e["status"] for e in envelopes] == ["rejected"] and said in envelopes[0]["reason"], envelopes
        assert (cli.cwd / "x" / "game.toml").read_bytes() == before  # nothing counted, the game waits

    # carl's shuffle of the last deck duplicates cards (no proof at the time: verify names it).
    # Its first half is replaced by copies of its second: duplicating one card could copy a card
    # of the same kind (Koryo has many), which leaves the deck's cards as they were (verify then
    # names the seed instead); two halves of a 55-card deck holding the same cards is negligible.
    real = cb.shuffle

    def duplicating(deck, joint, seed, *, game_id, deck_id, dealer):
        out = real(deck, joint, seed, game_id=game_id, deck_id=deck_id, dealer=dealer)
        half = len(out) // 2
        return (*out[half:2 * half], *out[half:]) if deck_id == "round-8" and dealer == "carl" else out

    _play_until(cli, "x", lambda s: s["decision"] == "r8-deal")
    with mock.patch.object(cb, "shuffle", duplicating):
        cli.ok("co-deal", "x", "--as", "carl")
    cli.ok("resolve", "x", "--as", "mod")
    _play_until(cli, "x", lambda s: s["decision"] == "end")
    # its published key share must be its own: another is refused at once
    before = _carl_sends(cli, "x", lambda honest, doc, carl: {
        **honest, "key": base64.b64encode(cb.KeyShare.generate().secret).decode()})
    r = cli("resolve", "x", "--as", "mod", "--json")
    assert r.code != 0 and "published key share does not match its public key" in r.json["envelopes"][0]["reason"]
    assert (cli.cwd / "x" / "game.toml").read_bytes() == before
    _play_until(cli, "x", lambda s: s["decision"] is None)
    r = cli("verify", "x", "--json")
    assert r.code != 0
    failed = [c for c in r.json["checks"] if not c["ok"]]
    assert failed[0]["check"] == "blind"
    assert failed[0]["detail"].startswith("carl's shuffle of deck round-8 drops ") and " and adds " in failed[0]["detail"]


def test_verify_names_a_false_reveal_and_published_key_shares_that_do_not_match(blind_game):
    """The finished file's public record changed (a false claim of a revealed card, a published
    key share that is not the dealer's): the audit names it."""
    import copy

    from koryo_pbm import blind, match
    from koryo_pbm.errors import KoryoPbmError
    from koryo_pbm.store import gamefile

    doc = gamefile.read_game(blind_game["root"] / "g" / "game.toml")
    game = match.game_of(doc)
    base = doc.public

    def audit(public):
        with pytest.raises(KoryoPbmError) as caught:
            blind.audit_game(game, public, [], [])
        return str(caught.value)

    false = copy.deepcopy(base)
    rev = false["blind"]["reveals"][0]
    rev["card"] = "omniscient" if rev["card"] != "omniscient" else "merchant"
    assert "is shown as" in audit(false) and "its shares open it to another card" in audit(false)
    wrong = copy.deepcopy(base)
    wrong["blind"]["published"]["carl"]["key"] = wrong["blind"]["published"]["mod"]["key"]
    assert audit(wrong) == "carl's published key share does not match its public key"
    other = copy.deepcopy(base)  # a reveal moved to a slot dealt to someone else
    other["blind"]["reveals"][0]["player"] = next(p for p in SEATS if p != rev["player"])
    assert "that card was not dealt to" in audit(other)


def test_demo_blind_plays_a_blind_game_in_one_command_and_verify_audits_it(cli):
    r = cli.ok("demo", "--blind", "--players", "2", "--dir", "d")
    assert "shuffled deck round-1 in turn" in r.out
    assert "verify: ok; the blind table: 8 decks shuffled by moderator and co-dealer" in r.out
    assert "the ordinary rules on the real cards give the same" in r.out
    top = tomllib.loads((cli.cwd / "d" / "game.toml").read_text())
    assert top["deal"] == "blind" and list(top["players"]) == ["alice", "bob", "co-dealer"]


def test_the_co_dealer_is_awaited_with_a_deadline_like_a_player(cli):
    lines = make_keys(cli, ["alice", "bob", "carl"])
    cli.ok("new", "g", "--as", "mod", "--blind", "--co-dealer", f"carl={lines['carl']}", "--deadline", "deal=1h",
           "--deadline", "orders=2d", "--player", f"alice={lines['alice']}", "--player", f"bob={lines['bob']}")
    status = cli.ok("status", "g", "--json").json
    assert status["decision"] == "keys" and status["missing"] == ["carl"] and status["deadline"]
    assert status["service"]["deadlines"] == {"deal": "1h", "orders": "2d"}
    assert "waiting for carl" in cli.ok("status", "g").out
    # a name of no seat is told who the players are, and the co-dealer apart from them
    r = cli.fails("show", "g", "--as", "nobody")
    assert "(the players are alice, bob; the co-dealer is carl)" in r.err, r.err


def test_serve_as_the_co_dealer_answers_by_shared_folder_beside_the_moderators_judge(cli):
    """Two judges on one ROOT of shared folders: the moderator's resolves, the co-dealer's
    (``serve ROOT --as carl``) answers every decision waiting for it; the players submit."""
    lines = make_keys(cli, ["alice", "bob", "carl"])
    (cli.cwd / "root").mkdir()
    cli.ok("new", "root/g", "--as", "mod", "--blind", "--co-dealer", f"carl={lines['carl']}",
           "--player", f"alice={lines['alice']}", "--player", f"bob={lines['bob']}")
    seen = []
    for _ in range(60):
        status = cli.ok("status", "root/g", "--json").json
        seen.append(status["decision"])
        if status["decision"] == "r2-orders":
            break
        if status["missing"] == ["carl"]:
            r = cli.ok("serve", "root", "--as", "carl", "--once")
            assert f"co-dealer carl: answered {status['decision']} of game" in r.err
        else:
            for p in status["missing"]:
                cli.ok("orders", "root/g", "--as", p, "-o", cli.cwd / f"o-{p}.toml")
                cli.ok("submit", cli.cwd / f"o-{p}.toml", "--as", p, "--game", "root/g")
        cli.ok("serve", "root", "--as", "mod", "--once")
    assert seen[:2] == ["keys", "r1-deal"] and "r2-deal" in seen and seen[-1] == "r2-orders"
    assert any("-reveal-" in str(d) for d in seen)
    assert cli.ok("serve", "root", "--as", "carl", "--once").err == ""  # the players are awaited: nothing to do
    # a picture with alice's cards is hers alone; the public one has none of them
    cards = cli.ok("show", "root/g", "--as", "alice", "--json").json["cards"]
    assert len(cards) in (9, 10)  # round 2: 9 cards, one more with the broadcaster power
    # the text view names each card of alice's hand with its value, as an open game's does
    told = cli.ok("show", "root/g", "--as", "alice").out
    slot, card = sorted(cards.items())[0]
    hand = next(line for line in told.splitlines() if line.startswith("your hand (alice): "))
    assert re.search(rf"{re.escape(slot)} {card} \((\d|event, -1)\)", hand) and "your face-down cards: " in told, told
    assert "keep it to yourself" in cli.ok("show", "root/g", "--as", "alice", "--html", cli.cwd / "a.html").out
    assert "fine to share" in cli.ok("show", "root/g", "--html", cli.cwd / "p.html").out
    public = (cli.cwd / "p.html").read_text()
    assert not any(f"{slot} {card}" in public for slot, card in cards.items())
    assert any(f"{slot} {card}" in (cli.cwd / "a.html").read_text() for slot, card in cards.items())
    for sub in ("new", "cur", "tmp"):
        (cli.cwd / "mail" / sub).mkdir(parents=True)
    # with mail options the co-dealer answers the mail it gets (none here), not the shared folders
    before = sorted(p.relative_to(cli.cwd) for p in (cli.cwd / "root").rglob("*"))
    cli.ok("serve", "root", "--as", "carl", "--once", "--maildir", cli.cwd / "mail", "--sendmail", "/bin/true",
           "--from", "carl@example.org")
    assert sorted(p.relative_to(cli.cwd) for p in (cli.cwd / "root").rglob("*")) == before
    r = cli.fails("serve", "root", "--as", "carl", "--once", "--maildir", cli.cwd / "mail", "--from", "carl@example.org")
    assert "--smtp URL or --sendmail PATH" in r.err


def test_a_malformed_blind_record_signed_by_the_moderator_gives_one_line(blind_game):
    """A moderator's file whose blind table is damaged (a deck without its shuffles, a reveal
    without its shares, a key that is not base64): show and co-deal give at most one line, never
    a traceback, and verify fails."""
    import copy

    from koryo_pbm.store import gamefile
    from koryo_pbm.store.keyring import find_identity

    root = blind_game["root"]
    os.environ["KORYO_PBM_HOME"] = str(root / "home")
    try:
        mod = find_identity("mod")
    finally:
        os.environ.pop("KORYO_PBM_HOME", None)
    doc = gamefile.read_game(root / "g" / "game.toml")
    fresh = Runner(root / "home2", root)  # another machine: no memory of the true file
    for n, damage in enumerate([lambda b: b["decks"][0].pop("outputs"),
                                lambda b: b["reveals"][0].pop("shares"),
                                lambda b: b["keys"]["carl"].update(point="not base64!")]):
        bad = copy.deepcopy(doc)
        damage(bad.public["blind"])
        folder = root / f"bad{n}"
        (folder / "inbox").mkdir(parents=True)
        gamefile.write_game(folder / "game.toml", bad, mod)
        for args in (("show", folder, "--key", root / "home" / "keys" / "alice.key"),
                     ("verify", folder),
                     ("co-deal", folder, "--key", root / "home" / "keys" / "carl.key")):
            code, out, err = fresh(*args)
            assert "Traceback" not in err and len(err.strip().splitlines()) <= 1, (args, err)
            if args[0] == "verify":
                assert code != 0, (out, err)
