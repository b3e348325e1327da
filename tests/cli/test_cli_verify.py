"""`koryo-pbm verify` (issue 9, item 5): an honest game verifies clean; a dishonest moderator is
caught, each trick with its one-line reason. The tests play the dishonest moderator: they read
the finished game file with the moderator's key, change it, sign it again and write it back."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import pytest
from test_cli_bymail import make_keys, play_template_orders
from test_cli_fair import new

from koryo_pbm.crypto.keys import load_identity
from koryo_pbm.store import gamedoc, gamefile, gamelog, playercopy

PLAYERS = ["alice", "bob", "carol"]


@pytest.fixture(scope="module")
def _finished_once(tmp_path_factory) -> dict:
    """Where the first test that asks for ``finished`` keeps a copy of it (keyring and folder)."""
    return {}


@pytest.fixture
def finished(cli, _finished_once, tmp_path_factory):
    """A 3-player Koryo game, joined and played to its end through the CLI. The game is played
    once for the module, by the first test that asks; every later test gets a copy of the keyring
    and the game folder (every byte, mode and time) in its own folders: each one still starts from
    a game the CLI played to the end, and changes only its own copy."""
    snap = _finished_once.get("snap")
    if snap is None:
        lines = make_keys(cli, PLAYERS)
        new(cli, lines)
        play_template_orders(cli, cli.cwd / "g")
        snap = tmp_path_factory.mktemp("finished")
        shutil.copytree(cli.home, snap / "home", symlinks=True)
        shutil.copytree(cli.cwd, snap / "work", symlinks=True)
        _finished_once["snap"] = snap
    else:
        shutil.copytree(snap / "home", cli.home, symlinks=True)
        shutil.copytree(snap / "work", cli.cwd, symlinks=True, dirs_exist_ok=True)
    return cli.cwd / "g"


def rewrite(cli, folder, change) -> None:
    """The dishonest moderator: ``change(doc)`` on the game file, then sign it again (with its
    own program: koryo-pbm's writer would refuse some of these files)."""
    import base64

    import tomli_w

    from koryo_pbm.crypto.sign import sign

    path = folder / "game.toml"
    mod = load_identity(cli.home / "keys" / "mod.key")
    doc = gamefile.decode(path.read_bytes())
    change(doc)
    body = tomli_w.dumps(gamefile._to_toml(doc)).encode("utf-8")
    signature = base64.b64encode(sign(mod, gamedoc.SIGN_CONTEXT, playercopy.signed_message(body))).decode("ascii")
    path.write_bytes(body + f'signature = "{signature}"\n'.encode("ascii"))


def relog(doc, entries) -> None:
    """A new, intact hash chain over ``entries`` (the moderator rewrites the log)."""
    doc.log = []
    for e in entries:
        gamelog.append_log(doc, e["decision"], e["events"], e["accepted"])
        doc.log[-1]["version"] = e["version"]
        doc.log[-1]["hash"] = gamelog._entry_hash(doc.log[-1])
    # versions were kept; the chain is recomputed over them
    prev = gamedoc.ZERO_HASH
    for e in doc.log:
        e["prev"] = prev
        e["hash"] = gamelog._entry_hash(e)
        prev = e["hash"]


def refused(cli, folder, reason: str, *extra) -> str:
    r = cli.fails("verify", folder, *extra, code=1)
    assert r.err.count("\n") == 1 and reason in r.err, r.err
    return r.out


def test_an_honest_joined_game_verifies_clean_for_anyone_and_for_each_player(cli, finished):
    r = cli.ok("verify", "g")
    lines = r.out.splitlines()
    assert [ln.split()[1] for ln in lines[:-1]] == ["file", "over", "seed", "deal", "orders", "replay", "end"]
    assert all(ln.startswith("ok ") for ln in lines[:-1])
    assert "no single party chose it" in r.out
    assert lines[-1] == "verdict: the game verifies"
    for p in PLAYERS:
        mine = cli.ok("verify", "g", "--as", p, "--json").json
        assert mine["ok"] and mine["fair_proof"] and mine["checks"][-1]["check"] == "submitted"
        assert "is the one the log counted" in mine["checks"][-1]["detail"]
    top = tomllib.loads((finished / "game.toml").read_text())
    assert len(top["seed"]) == 64 and len(top["salt"]) == 64 and top["replay"]["orders"]
    # The orders are published as sealed: without the orders files' comments (a player's notes).
    assert not any("#" in o["orders"] for o in top["replay"]["orders"])


# A joined 4-player Korsar team game played to the end verifies for a player: tested with the game
# of tests/cli/test_cli_korsar.py::test_a_team_game_played_to_the_end_through_envelopes (one game for both).


def test_a_game_dealt_from_the_moderators_seed_verifies_but_is_not_fair_proof(cli):
    lines = make_keys(cli, ["alice", "bob"])
    new(cli, lines, "g", "--seed", "friday", "--first", "bob", names=["alice", "bob"])
    play_template_orders(cli, cli.cwd / "g")
    out = cli.ok("verify", "g").out
    assert "the deal was chosen by the moderator (a seed given at `new`): not fair-proof" in out
    assert out.splitlines()[-1] == "verdict: the game verifies (but its deal was chosen by the moderator: not fair-proof)"
    assert cli.ok("verify", "g", "--json").json["fair_proof"] is False


def test_a_game_not_over_is_refused_with_a_reason(cli):
    lines = make_keys(cli, PLAYERS)
    new(cli, lines)
    out = refused(cli, "g", "does not verify: the game is not over")
    assert out.splitlines()[-1].startswith("FAIL  over")


def test_a_rewritten_resigned_log_is_caught(cli, finished):
    def change(doc):
        entries = [dict(e) for e in doc.log]
        entries[2] = {**entries[2], "events": ["alice scores 40 points", *entries[2]["events"][1:]]}
        relog(doc, entries)
    rewrite(cli, finished, change)
    # the file itself is well signed and its chain holds: a player who saw the honest end catches
    # the rewrite at once (the pinned head); verify, from the file alone, says what was rewritten
    assert "the moderator signed two different histories" in cli.fails("show", "g").err
    refused(cli, "g", "records 'alice scores 40 points' where the rules replayed give")


def test_a_dropped_order_is_caught(cli, finished):
    rewrite(cli, finished, lambda doc: doc.replay["orders"].pop(7))
    refused(cli, "g", "that is not published: an order was dropped or the log was rewritten")


def test_an_altered_order_is_caught(cli, finished):
    def change(doc):
        item = doc.replay["orders"][5]
        item["orders"] = item["orders"].replace('decision = "', '# changed\ndecision = "')
    rewrite(cli, finished, change)
    refused(cli, "g", "is not what")


def test_a_replaced_order_and_log_entry_are_caught(cli, finished):
    """The moderator swaps the published order for another envelope of the same player (and
    rewrites the log's digest to match): it is not the decision the game waited for."""
    def change(doc):
        orders = doc.replay["orders"]
        a = next(i for i, o in enumerate(orders) if o["player"] == "alice" and o["decision"] == "r1-orders")
        b = next(i for i, o in enumerate(orders) if o["player"] == "alice" and o["decision"] == "r2-orders")
        orders[a] = {**orders[b], "decision": "r1-orders"}
    rewrite(cli, finished, change)
    refused(cli, "g", "is not what alice signed: the orders published for alice for r1-orders are not the ones")


def test_a_seed_changed_after_the_commitment_is_caught(cli, finished):
    rewrite(cli, finished, lambda doc: setattr(doc, "seed_commitment", gamedoc.seed_commitment("x", doc.salt)))
    r = cli.fails("verify", "g")  # the file itself refuses to be read: one line, the reason
    assert "the published seed does not match the seed commitment made at the start" in r.err
    assert r.err.count("\n") == 1


def test_a_rigged_deal_recommitted_and_resigned_is_caught(cli, finished):
    def change(doc):
        doc.seed = "rigged"
        doc.seed_commitment = gamedoc.seed_commitment("rigged", doc.salt)
    rewrite(cli, finished, change)
    refused(cli, "g", "alice joined under another seed commitment than the file's")


def test_a_rigged_deal_of_a_seed_game_is_caught_by_the_replay(cli):
    lines = make_keys(cli, ["alice", "bob"])
    new(cli, lines, "g", "--seed", "honest", names=["alice", "bob"])
    play_template_orders(cli, cli.cwd / "g")

    def change(doc):
        doc.seed = "rigged"
        doc.seed_commitment = gamedoc.seed_commitment("rigged", doc.salt)
    rewrite(cli, cli.cwd / "g", change)
    # the other deal shows as orders the replayed hands cannot play, as other events, or as fewer
    # (a logged line the rules do not give): the deal depends on the random game id, so each can come
    r = cli.fails("verify", "g", code=1)
    assert r.err.count("\n") == 1 and "does not verify: log entry " in r.err, r.err
    assert ("the deal or an earlier decision is not what the log says" in r.err
            or "the log was rewritten or the deal is not the committed one" in r.err), r.err


def test_a_secret_changed_after_the_players_joined_is_caught(cli, monkeypatch):
    """The moderator waits for every contribution, then picks its secret (it could try many
    until the deal suits it) and writes a new commitment before dealing: the players' signed
    join orders name the commitment they joined under.

    A player who saw the first file refuses the changed one at once (the pin), and koryo-pbm's
    resolve refuses the joins (they answer the first file's history); a dishonest moderator runs
    a program of its own that skips that check, before players who never looked: verify, from
    the finished file alone, still catches it."""
    from koryo_pbm.match import resolution  # where resolve looks up answerable_heads
    from koryo_pbm.store.gameparts import open_part, seal_part

    class Anything:
        def __contains__(self, item):
            return True

    lines = make_keys(cli, PLAYERS)
    new(cli, lines)
    cli.join("g", resolve=False)
    path = cli.cwd / "g" / "game.toml"
    mod = load_identity(cli.home / "keys" / "mod.key")
    doc = gamefile.decode(path.read_bytes())
    secret = open_part(doc, "moderator", mod)
    secret["seed"] = secret["state"]["join"]["seed"] = "chosen after seeing every contribution"
    doc.seed_commitment = gamedoc.seed_commitment(secret["seed"], secret["salt"])
    doc.sealed["moderator"] = seal_part(doc, "moderator", mod.public, secret)
    path.write_bytes(gamefile.encode(doc, mod))
    assert "the moderator signed two different histories" in cli.fails("status", "g").err
    shutil.rmtree(cli.home / "seen")  # players (and a moderator's machine) that never looked at the first file
    shutil.rmtree(cli.home / "pinned")
    r = cli("resolve", "g", "--as", "mod")
    assert r.code == 3 and "the player was shown another file" in r.out + r.err
    for name in PLAYERS:  # the joins are in the archive now: back into the inbox
        for env in (cli.cwd / "g" / "archive").rglob(f"join--{name}*.envelope"):
            shutil.copy(env, cli.cwd / "g" / "inbox" / env.name)
    monkeypatch.setattr(resolution, "answerable_heads", lambda doc: Anything())
    cli.ok("resolve", "g", "--as", "mod")
    play_template_orders(cli, cli.cwd / "g")
    refused(cli, "g", "alice joined under another seed commitment than the file's: the moderator's secret was "
                      "changed after the players joined")


def test_changed_contributions_are_caught(cli, finished):
    def change(doc):
        doc.contributions = {**doc.contributions, "bob": "0" * 64}
    rewrite(cli, finished, change)
    refused(cli, "g", "the contribution published for bob is not the one bob signed")


def test_a_wrong_final_score_is_caught(cli, finished):
    def change(doc):  # carol gets 5 more tokens at the end: 5 more points
        tokens = doc.public["tokens"]
        doc.public = {**doc.public, "tokens": [t + 5 if i == 2 else t for i, t in enumerate(tokens)]
                      if isinstance(tokens, list) else {**tokens, "carol": tokens["carol"] + 5}}
    rewrite(cli, finished, change)
    refused(cli, "g", "the final scores in the file (")


def test_a_position_passed_off_as_a_dealt_game_is_caught(cli):
    lines = make_keys(cli, ["alice", "bob"])
    new(cli, lines, "g", "--seed", "pos", names=["alice", "bob"])
    cli.ok("position", "--from", "g", "--as", "mod", "-o", "start.toml")
    new(cli, lines, "p", "--position", "start.toml", names=["alice", "bob"])
    assert "a position the moderator chose (--position): not fair-proof" in cli.ok("status", "p").out
    play_template_orders(cli, cli.cwd / "p")
    assert "(a position): not fair-proof" in cli.ok("verify", "p").out

    def change(doc):
        doc.deal = "joined"
        doc.contributions = {"alice": "1" * 64, "bob": "2" * 64}
        doc.replay = {k: v for k, v in doc.replay.items() if k != "position"}
    rewrite(cli, cli.cwd / "p", change)
    refused(cli, "p", "the file says the players joined, but not every player's signed join order is published")


def test_the_withdrawn_order_attack_is_told_by_show_and_caught_by_verify(cli):
    """An attacker with access to the shared folder keeps alice's first envelope for a decision,
    and when she replaces it, puts the old one back: the log counts her withdrawn orders."""
    lines = make_keys(cli, ["alice", "bob"])
    new(cli, lines, names=["alice", "bob"])
    cli.join("g")
    g = cli.cwd / "g"
    status = cli.ok("status", "g", "--json").json
    decision = status["decision"]
    cli.ok("orders", "g", "--as", "alice", "-o", "a1.toml")
    cli.ok("submit", "a1.toml", "--as", "alice", "--game", "g")
    stolen = next((g / "inbox").iterdir())
    shutil.copy(stolen, cli.cwd / "kept.envelope")
    # alice submits again (a later envelope replaces the first in the inbox)
    cli.ok("submit", "a1.toml", "--as", "alice", "--game", "g")
    # the attacker swaps the old envelope back in
    shutil.copy(cli.cwd / "kept.envelope", stolen)
    cli.ok("orders", "g", "--as", "bob", "-o", "b1.toml")
    cli.ok("submit", "b1.toml", "--as", "bob", "--game", "g")
    cli.ok("resolve", "g", "--as", "mod")
    r = cli.ok("show", "g", "--as", "alice")
    assert (f"koryo-pbm: warning: the log counted an older envelope of alice for {decision} than the last one this "
            "machine submitted") in r.err
    assert cli.ok("show", "g", "--as", "alice", "--json").json["withdrawn"]
    assert "warning" not in cli.ok("show", "g", "--as", "bob").err
    play_template_orders(cli, g)
    cli.ok("verify", "g")  # for anyone else, the game is consistent
    out = refused(cli, "g", f"the log counted an older envelope of alice for {decision} than the last one", "--as",
                  "alice")
    assert out.splitlines()[-1].startswith("FAIL  submitted")
    cli.ok("verify", "g", "--as", "bob")

    # The moderator covers it up: the published order (the withdrawn one, as alice signed it)
    # now names the digest of her later envelope, and so does the log. For anyone else the game
    # is still consistent; alice's machine knows when that envelope was signed, and the orders
    # published with its digest were signed at another time.
    import json

    doc = gamefile.decode((g / "game.toml").read_bytes())
    records = [json.loads(line) for line in (cli.home / "submitted" / doc.game_id).read_text().splitlines()]
    last = [r for r in records if r["player"] == "alice" and r["decision"] == decision][-1]

    def cover_up(doc):
        item = next(o for o in doc.replay["orders"] if o["player"] == "alice" and o["decision"] == decision)
        old, item["digest"] = item["digest"], last["digest"]
        relog(doc, [{**e, "accepted": [last["digest"] if d == old else d for d in e["accepted"]]} for e in doc.log])
    rewrite(cli, g, cover_up)
    cli.ok("verify", "g")
    out = refused(cli, "g", f"the orders published for alice for {decision} were signed at", "--as", "alice")
    assert out.splitlines()[-1].startswith("FAIL  submitted")


def test_a_finished_four_player_game_file_is_small_and_verifies(cli):
    """Issue 19: the published orders are what the players signed, not their whole sealed
    envelopes, and the moderator's part keeps no room for held orders once the game is over: a
    finished 4-player Koryo game file fits in 64 KiB (it was some 140 KB)."""
    cli.ok("demo", "--players", "4", "--seed", "small", "--dir", "d")
    text = (cli.cwd / "d" / "game.toml").read_text()
    assert len(text.encode()) <= 64 * 1024 and text.startswith('format = "koryo-pbm-game/v4"\n')
    assert "envelope" not in tomllib.loads(text)["replay"]["orders"][0]
    assert cli.ok("verify", "d").out.splitlines()[-1] == "verdict: the game verifies"


def test_a_game_finished_in_format_v2_still_verifies(cli):
    """A game file of format v2 (published orders as whole envelopes), finished before v3: it is
    read, told and verified as before."""
    src = Path(__file__).resolve().parents[1] / "store" / "data" / "finished-v2.toml"
    (cli.cwd / "v2").mkdir()
    shutil.copy(src, cli.cwd / "v2" / "game.toml")
    assert cli.ok("verify", "v2").out.splitlines()[-1].startswith("verdict: the game verifies")
    assert "the game is over" in cli.ok("status", "v2").out


def test_a_game_finished_in_format_v3_still_verifies_and_its_player_copy_too(cli, finished):
    """Issue 18: a game finished in format v3 (signed over its bytes as they are, before player
    copies) is read, told and verified as before; the final file the judge mails now (the player
    copy, without the moderator's part) verifies as the whole file does, and with its digest
    changed it does not."""
    src = Path(__file__).resolve().parents[1] / "store" / "data" / "finished-v3.toml"
    (cli.cwd / "v3").mkdir()
    shutil.copy(src, cli.cwd / "v3" / "game.toml")
    assert cli.ok("verify", "v3").out.splitlines()[-1] == "verdict: the game verifies"
    assert "the game is over" in cli.ok("status", "v3").out
    whole = (finished / "game.toml").read_bytes()
    assert whole.startswith(b'format = "koryo-pbm-game/v4"\n')
    (cli.cwd / "copy").mkdir()
    copy = playercopy.player_copy(whole)
    (cli.cwd / "copy" / "game.toml").write_bytes(copy)
    assert len(copy) < len(whole)
    assert cli.ok("verify", "copy").out == cli.ok("verify", "g").out
    assert cli.ok("verify", "copy", "--as", "alice").out.splitlines()[-1] == "verdict: the game verifies"
    at = copy.index(b'digest = "sha256:') + 20
    (cli.cwd / "copy" / "game.toml").write_bytes(copy[:at] + (b"1" if copy[at:at + 1] != b"1" else b"2")
                                                 + copy[at + 1:])
    assert "does not verify" in cli.fails("verify", "copy", code=1).err


def test_verify_bad_input(cli, finished):
    cli.fails("verify", "nowhere", code=None)
    r = cli.fails("verify", "g", "--as", "nobody")
    assert "Traceback" not in r.err
    (cli.cwd / "junk.toml").write_text("hello\n")
    assert "not a koryo-pbm game file" in cli.fails("verify", "junk.toml").err
    before = (finished / "game.toml").read_bytes()
    cli.ok("verify", "g")
    assert (finished / "game.toml").read_bytes() == before  # verify changes nothing


def test_a_joined_game_with_a_bot_seat_a_missed_deadline_a_moved_deadline_and_a_substitute_verifies(cli, monkeypatch):
    """Everything the service adds to a game is in its public history and replays: the joins
    (the bot seat's too), orders the bot played (a bot seat's, a missed one's), a deadline
    moved, a seat taken over (the former key's orders stay checkable with that key)."""
    from datetime import datetime, timedelta

    def at(when: datetime) -> None:
        monkeypatch.setenv("KORYO_PBM_NOW", when.strftime("%Y-%m-%dT%H:%MZ"))

    now = datetime(2026, 11, 24, 18, 0)
    at(now)
    lines = make_keys(cli, ["alice", "bob", "erin"])
    cli.ok("new", "g", "--as", "mod", "--player", f"alice={lines['alice']}", "--player", f"bob={lines['bob']}",
           "--bot", "carol=heuristic", "--deadline", "1d", "--missed", "bot")
    cli.join("g")
    assert cli.ok("status", "g", "--json").json["deal"] == "joined"
    cli.ok("deadline", "g", "--as", "mod", "+1d")  # a moved deadline: logged, resolves nothing
    # bob misses the first decision that waits for him: the bot plays it after the deadline
    status = cli.ok("status", "g", "--json").json
    for p in status["missing"]:
        if p != "bob":
            orders = cli.cwd / f"{status['decision']}-{p}.toml"
            cli.ok("orders", "g", "--as", p, "-o", orders)
            cli.ok("submit", orders, "--as", p, "--game", "g")
    now += timedelta(days=3)
    at(now)
    assert "bob missed the deadline" in cli.ok("resolve", "g", "--as", "mod").out
    cli.ok("replace", "g", "--as", "mod", f"bob={lines['erin']}")
    keys = {"alice": "alice", "bob": "erin"}
    for _ in range(200):  # to the end
        status = cli.ok("status", "g", "--json").json
        if status["decision"] is None:
            break
        for p in status["missing"]:
            orders = cli.cwd / f"{status['decision']}-{p}.toml"
            cli.ok("orders", "g", "--as", keys[p], "-o", orders)
            cli.ok("submit", orders, "--as", keys[p], "--game", "g")
        cli.ok("resolve", "g", "--as", "mod")
    r = cli.ok("verify", "g")
    # carol's contribution to the deal is the bot's, chosen again by verify: nobody's word (issue 17, item 2)
    assert r.out.splitlines()[-1] == "verdict: the game verifies", r.out
    replay = tomllib.loads((cli.cwd / "g" / "game.toml").read_text())["replay"]["orders"]
    assert any(o.get("bot") == "heuristic" and o["player"] == "carol" for o in replay)
    assert any("bot" in o and o["player"] == "bob" for o in replay)  # bob's missed decision
    assert any(o["player"] == "bob" and "key" in o for o in replay)  # bob's join, with bob's own key
    # the bot's orders the moderator published are part of the replay too: one dropped is caught
    def change(doc):
        item = next(o for o in doc.replay["orders"] if o.get("bot") and o["decision"] != "join")
        doc.replay["orders"] = [o for o in doc.replay["orders"] if o is not item]
    rewrite(cli, cli.cwd / "g", change)
    refused(cli, "g", "that is not published: an order was dropped")


def test_a_bot_seat_s_contribution_is_chosen_again_so_the_game_is_fair_proof(cli):
    """A joined game with a bot seat: the bot's join contribution comes from public values and
    verify chooses it again (a moderator trying contributions is caught, see
    test_cli_bots_verified.py), so it is nobody's word: the game is fair-proof; verify counts the
    orders players signed apart from the bot's."""
    lines = make_keys(cli, ["alice", "bob"])
    new(cli, lines, "b", "--bot", "carol=random", names=["alice", "bob"])
    play_template_orders(cli, cli.cwd / "b")
    r = cli.ok("verify", "b", "--json").json
    assert r["ok"] and r["fair_proof"] is True and r["not_fair_proof"] is None
    deal = next(c for c in r["checks"] if c["check"] == "deal")["detail"]
    assert "no single party chose it" in deal
    assert next(c for c in r["checks"] if c["check"] == "bots")["ok"]
    published = tomllib.loads((cli.cwd / "b" / "game.toml").read_text())["replay"]["orders"]
    bots = sum(1 for o in published if "bot" in o)
    assert bots and bots < len(published)
    orders = next(c for c in r["checks"] if c["check"] == "orders")["detail"]
    assert orders == (f"every order a player made is signed by that player ({len(published) - bots} envelopes); "
                      f"{bots} orders the moderator's bot played (for a bot seat, an abandoned seat or a missed "
                      "deadline), which no player signed")
    out = cli.ok("verify", "b").out
    assert out.splitlines()[-1] == "verdict: the game verifies"


# -- missed-deadline claims (issue 17, item 3) ---------------------------------------------------


def _at(monkeypatch, when) -> None:
    monkeypatch.setenv("KORYO_PBM_NOW", when.strftime("%Y-%m-%dT%H:%MZ"))


def _to_bob(cli, folder="g") -> dict:
    """Answer every decision (template orders) until one waits for bob; its status."""
    for _ in range(100):
        status = cli.ok("status", folder, "--json").json
        if "bob" in status["missing"]:
            return status
        for p in status["missing"]:
            orders = cli.cwd / f"{status['decision']}-{p}.toml"
            cli.ok("orders", folder, "--as", p, "-o", orders)
            cli.ok("submit", orders, "--as", p, "--game", folder)
        cli.ok("resolve", folder, "--as", "mod")
    raise AssertionError("no decision waited for bob")


def _receipt(cli, envelope, received: str, signer: str = "mod"):
    from koryo_pbm.crypto.receipt import make_receipt

    r = make_receipt(load_identity(cli.home / "keys" / f"{signer}.key"), game_id=envelope.game_id,
                     decision=envelope.decision, player=envelope.player, envelope=envelope.digest,
                     submitted=envelope.submitted, replaces=None, received=received)
    path = cli.cwd / f"receipt-{signer}.txt"
    path.write_text("Your receipt, signed by the moderator: keep this mail.\n\n" + r.armor())
    return path


def test_an_order_dropped_where_the_bot_may_play_is_named_on_its_player_s_machine(cli, monkeypatch):
    """A game with a deadline and --missed bot. bob submits in time; the moderator drops his
    envelope and resolves once the deadline and its grace have passed: the log says bob missed
    the deadline and the bot played, which the policy allows, so verify passes for anyone. On
    bob's machine, verify --as bob names the decision: his order was replaced by the bot's, and
    the receipt the moderator signed for it proves it was in on time."""
    from datetime import datetime, timedelta

    from koryo_pbm.crypto.envelope import parse_one

    now = datetime(2030, 3, 1, 18, 0)
    _at(monkeypatch, now)
    lines = make_keys(cli, ["alice", "bob", "eve"])
    cli.ok("new", "g", "--as", "mod", "--seed", "s", "--player", f"alice={lines['alice']}",
           "--player", f"bob={lines['bob']}", "--deadline", "1d", "--grace", "2h", "--missed", "bot")
    status = _to_bob(cli)
    decision = status["decision"]
    for p in status["missing"]:
        orders = cli.cwd / f"{decision}-{p}.toml"
        cli.ok("orders", "g", "--as", p, "-o", orders)
        cli.ok("submit", orders, "--as", p, "--game", "g")
    [dropped] = [f for f in (cli.cwd / "g" / "inbox").iterdir() if "bob" in f.name]
    envelope = parse_one(dropped.read_text(), "bob's envelope")
    dropped.unlink()  # the dishonest moderator
    deadline = cli.ok("status", "g", "--json").json["deadline"]
    _at(monkeypatch, now + timedelta(days=2))
    assert "bob missed the deadline" in cli.ok("resolve", "g", "--as", "mod").out
    play_template_orders(cli, cli.cwd / "g")
    log = [e for e in tomllib.loads((cli.cwd / "g" / "game.toml").read_text())["log"] if e["decision"] == decision]
    note = log[-1]["events"][0]
    resolved = (now + timedelta(days=2)).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert note == (f"bob missed the deadline: the heuristic bot played for them (deadline {deadline}, grace 2h, "
                    f"resolved at {resolved})")
    # anyone: the claim fits the policy and its times
    out = cli.ok("verify", "g").out
    assert "each of the bot's 1 orders was allowed by the game's public policy then (0 for bot seats, 0 for " \
           "abandoned seats, 1 after a missed deadline and its grace)" in out
    # bob's machine: this machine's record of what it submitted
    said = (f"bob's order for {decision} was replaced by the bot's (the log says bob missed the deadline; "
            f"resolved at {resolved}), but ")
    r = cli.fails("verify", "g", "--as", "bob", code=1)
    assert r.err == (f"koryo-pbm: error: game {envelope.game_id} does not verify: {said}this machine submitted it at "
                     f"{envelope.submitted}; no receipt of it is given here (verify --receipt FILE), so only you know "
                     "it was sent in time\n")
    # with the receipt the moderator signed when the envelope came in: the proof
    good = _receipt(cli, envelope, now.strftime("%Y-%m-%dT%H:%M:%SZ"))
    r = cli.fails("verify", "g", "--as", "bob", "--receipt", good, code=1)
    assert r.err == (f"koryo-pbm: error: game {envelope.game_id} does not verify: {said}the moderator's receipt for "
                     f"envelope {envelope.digest[:16]} (received {now.strftime('%Y-%m-%dT%H:%M:%SZ')}) proves it was "
                     "in on time\n")
    # a receipt of another key proves nothing: refused, in one line
    forged = _receipt(cli, envelope, now.strftime("%Y-%m-%dT%H:%M:%SZ"), signer="eve")
    r = cli.fails("verify", "g", "--as", "bob", "--receipt", forged)
    assert "is signed by key" in r.err and "not by the moderator of game" in r.err and r.err.count("\n") == 1
    assert "needs --as" in cli.fails("verify", "g", "--receipt", good, code=2).err
    # alice's machine record holds nothing of bob's: alice verifies clean
    assert cli.ok("verify", "g", "--as", "alice").out.splitlines()[-1].startswith("verdict: the game verifies")


def test_a_dropped_order_passed_off_as_a_missed_deadline_fails_verify(cli, monkeypatch):
    """A game with no deadline, whose missed orders wait. The moderator drops bob's signed
    order and, with a program of its own (koryo-pbm told that the bot plays for bob), logs
    "bob missed the deadline: the heuristic bot played for them". verify, from the file alone,
    fails naming the decision (it passed before); on bob's machine verify --as bob fails too."""
    from koryo_pbm.match import resolution

    lines = make_keys(cli, ["alice", "bob"])
    new(cli, lines, "g", "--seed", "s", names=["alice", "bob"])
    status = _to_bob(cli)
    decision = status["decision"]
    for p in status["missing"]:
        orders = cli.cwd / f"{decision}-{p}.toml"
        cli.ok("orders", "g", "--as", p, "-o", orders)
        cli.ok("submit", orders, "--as", p, "--game", "g")
    [dropped] = [f for f in (cli.cwd / "g" / "inbox").iterdir() if "bob" in f.name]
    dropped.unlink()

    def dishonest(policy, decision, held, deadline, now):
        if "bob" not in decision.players or "bob" in held:
            return None if any(p not in held for p in decision.players) else {}
        return None if any(p not in held for p in decision.players if p != "bob") else {"bob": ("heuristic", "missed")}

    with monkeypatch.context() as m:
        m.setattr(resolution, "_bot_players", dishonest)
        assert "bob missed the deadline: the heuristic bot played for them" in cli.ok("resolve", "g", "--as", "mod").out
    play_template_orders(cli, cli.cwd / "g")
    i = next(n for n, e in enumerate(tomllib.loads((cli.cwd / "g" / "game.toml").read_text())["log"], 1)
             if e["decision"] == decision)
    reason = (f"log entry {i} ({decision}) says bob missed the deadline and the bot played for them, but missed "
              "orders wait in this game (its policy is not --missed bot): bob's order may have been dropped")
    out = refused(cli, "g", reason)
    assert out.splitlines()[-1].startswith("FAIL  bots")
    refused(cli, "g", reason, "--as", "bob")
