"""GOPS at a blind table through the real CLI (issue 33, item 5): the prize deck shuffled by both
dealers and dealt to nobody, each prize turned up for everybody by both dealers' public shares
(bound to the recipient ``*``), checked by the moderator, each player's tools and ``verify``; the
co-dealer turns a card up only when the rules, replayed from every player's signed order, turn
it up now."""

from __future__ import annotations

import shutil

import pytest
from test_cli_blind import _carl_sends
from test_cli_blind_trust import _identity
from test_cli_bymail import make_keys

from koryo_pbm import match
from koryo_pbm.crypto import blind as cb
from koryo_pbm.store import gamefile, inbox


def _new(cli, folder="g"):
    lines = make_keys(cli, ["alice", "bob", "carl"])
    cli.ok("new", folder, "--game", "gops", "--as", "mod", "--blind", "--co-dealer", f"carl={lines['carl']}",
           "--player", f"alice={lines['alice']}", "--player", f"bob={lines['bob']}")
    return lines


def _step(cli, folder="g"):
    """One step of the game: the co-dealer's answer, or both players' bids (``orders``'s example),
    then the moderator's resolve. Returns the decision that was answered."""
    status = cli.ok("status", folder, "--json").json
    if status["missing"] == ["carl"]:
        cli.ok("co-deal", folder, "--as", "carl")
    else:
        for p in status["missing"]:
            orders = cli.cwd / f"o-{p}.toml"
            cli.ok("orders", folder, "--as", p, "-o", orders)
            cli.ok("submit", orders, "--as", p, "--game", folder)
    cli.ok("resolve", folder, "--as", "mod")
    return status["decision"]


def _play_to(cli, decision, folder="g"):
    for _ in range(60):
        if cli.ok("status", folder, "--json").json["decision"] == decision:
            return gamefile.read_game(cli.cwd / folder / "game.toml")
        _step(cli, folder)
    raise AssertionError(f"{decision} never reached")


@pytest.fixture(scope="module")
def gops_game(tmp_path_factory):
    from test_cli_blind import Runner

    root = tmp_path_factory.mktemp("blindgops")
    run = Runner(root / "home", root)
    lines = {name: run.ok("keygen", name).strip() for name in ("mod", "alice", "bob", "carl")}
    run.ok("new", "g", "--game", "gops", "--as", "mod", "--blind", "--co-dealer", f"carl={lines['carl']}",
           "--player", f"alice={lines['alice']}", "--player", f"bob={lines['bob']}")
    decisions, shown = [], []
    for _ in range(60):
        status = run.json("status", "g")
        decisions.append(status["decision"])
        if status["decision"] is None:
            break
        if status["missing"] == ["carl"]:
            run.ok("co-deal", "g", "--as", "carl")
        else:
            for p in status["missing"]:
                run.ok("orders", "g", "--as", p, "-o", root / f"o-{p}.toml")
                run.ok("submit", root / f"o-{p}.toml", "--as", p, "--game", "g")
            shown.append(run.ok("show", "g", "--as", "alice"))
        run.ok("resolve", "g", "--as", "mod")
    return {"run": run, "root": root, "decisions": decisions, "shown": shown}


def test_a_blind_gops_game_turns_up_every_prize_in_public_and_is_played_to_the_end(gops_game):
    decisions = gops_game["decisions"]
    rounds = [x for n in range(1, 13) for x in (f"r{n}-turn-up", f"r{n}-bid")]
    assert decisions == ["keys", "deal", *rounds, "r13-turn-up", "end", None]
    doc = gamefile.read_game(gops_game["root"] / "g" / "game.toml")
    turned = doc.public["blind"]["reveals"]
    assert [r["slot"] for r in turned] == [f"deck:{i}" for i in range(13)] and {r["player"] for r in turned} == {"*"}
    assert sorted(r["card"] for r in turned) == sorted(f"p{v}" for v in range(1, 14))
    assert doc.public["blind"]["decks"][0]["recipients"] == [""] * 13  # dealt to nobody
    first = turned[0]["card"]
    assert f"on the table {first}" in gops_game["shown"][0]  # alice's tools show the prize turned up
    log = gops_game["run"].ok("log", "g")
    assert "mod and carl shuffled the deck in turn (13 cards)" in log and f"round 1: {first} is turned up" in log


def test_verify_checks_every_turn_up_and_plays_the_ordinary_rules_on_the_audited_prizes(gops_game):
    report = gops_game["run"].json("verify", "g")
    assert report["ok"], report
    blind_check = next(c["detail"] for c in report["checks"] if c["check"] == "blind")
    assert "0 cards dealt and 13 revealed" in blind_check and "every shuffle's proof checked" in blind_check
    # 13 prizes turned up, 13 rounds' bids and their awards or ties, the end
    assert "the ordinary rules on the real cards give the same 40 events and scores" in blind_check


def test_a_forged_turn_up_share_is_refused_in_one_line_nothing_counted(cli):
    """The co-dealer (modified software) answers a turn-up with its share of another position, or
    with the share of the right card bound to a player instead of to everybody: the moderator
    refuses it at once, in one line, and the game waits."""
    _new(cli)
    doc = _play_to(cli, "r2-turn-up")
    carl = _identity(cli, "carl")

    def forged(honest, doc, me):
        game = match.game_of(doc)
        st = game.from_view(doc.public, {}, "carl")
        from koryo_pbm.blind import record

        _, key = record.co_dealer_key(st, me)
        wrong = cb.decryption_share(cb.Slot(doc.game_id, "deck", 1, "alice"), record._card_at(st, "deck:1"), "carl", key)
        return {"shares": {"deck:1": record._b64(wrong.to_bytes())}}

    before = _carl_sends(cli, "g", forged)
    r = cli("resolve", "g", "--as", "mod", "--json")
    reason = r.json["envelopes"][0]["reason"]
    assert r.code != 0 and "\n" not in reason, reason
    assert "carl's share of card 1 of the deck (turned up in public) does not check" in reason
    assert (cli.cwd / "g" / "game.toml").read_bytes() == before
    assert carl.name == "carl" and doc.decision["id"] == "r2-turn-up"


def test_a_forged_turn_up_in_the_public_record_is_named_by_the_players_tools(cli):
    """A moderator that signs a version whose public record shows a turned-up prize as another
    card: alice's tools refuse to show the game, in one line naming the slot."""
    _new(cli)
    doc = _play_to(cli, "r1-bid")
    mod = _identity(cli, "mod")
    rec = doc.public["blind"]
    real = rec["reveals"][0]["card"]
    other = next(f"p{v}" for v in range(1, 14) if f"p{v}" != real)
    fake = doc.replace(public={**doc.public, "blind": {
        **rec, "reveals": [{**rec["reveals"][0], "card": other}]}})
    gamefile.write_game(cli.cwd / "g" / "game.toml", fake, mod)
    fresh = cli.home.parent / "fresh"  # alice's key, in a home that has not pinned the real version
    shutil.copytree(cli.home / "keys", fresh / "keys")
    r = cli("show", "g", "--as", "alice", home=fresh)
    assert r.code != 0 and "Traceback" not in r.err and r.err.count("\n") == 1, r.err
    assert f"card 0 of the deck (turned up in public) is shown as {other} but its shares open it to another card" in r.err


@pytest.mark.parametrize("how", ["early", "orders-dropped"])
def test_the_co_dealer_turns_up_nothing_on_the_moderators_word(cli, how):
    """The moderator signs a version that asks the co-dealer to turn up a prize the rules do not
    turn up yet: its public rules state moved on to round 5 after one round ("early"), or the real
    turn-up of round 2 without the players' signed orders ("orders-dropped"). The co-dealer
    replays the rules from the signed orders shown, refuses in one line, and sends nothing."""
    _new(cli)
    doc = _play_to(cli, "r2-turn-up")
    mod = _identity(cli, "mod")
    game = match.game_of(doc)
    rec = dict(doc.public["blind"])
    assert len(rec["signed"]) == 2  # alice's and bob's bids of round 1, as they signed them
    decision = doc.decision
    if how == "early":
        rules = game.rules.load_state(doc.public["rules"])
        rules.deck = rules.deck[3:]
        rules.round = 4
        for p in rules.hands:
            rules.hands[p] = rules.hands[p][3:]
        public = {**doc.public, "rules": game.rules.dump_state(rules)}
        decision = {**decision, "id": "r5-turn-up"}
    else:
        public = {**doc.public, "blind": {k: v for k, v in rec.items() if k != "signed"}}
    fake = doc.replace(version=doc.version + 1, public=public, decision=decision)
    gamefile.write_game(cli.cwd / "g" / "game.toml", fake, mod)
    r = cli("co-deal", "g", "--as", "carl")
    assert r.code != 0 and "Traceback" not in r.err and r.err.count("\n") == 1, r.err
    assert "not turned up: the rules replayed from the signed orders shown are at r" in r.err
    assert not inbox.inbox_dir(cli.cwd / "g").is_dir() or not inbox.list_inbox(cli.cwd / "g")
