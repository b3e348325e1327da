"""Bots at a blind table through the real CLI (issue 20, "Bots"): a bot seat's cards are sealed
by both dealers to the moderator, who runs the bot, and the log says so; the moderator opens the
bot's hand and no human's; the co-dealer seals nothing to the moderator for a seat the public
record does not call a bot; ``verify`` chooses every bot order again from the audited cards."""

from __future__ import annotations

import copy
import os
import re
from collections import Counter

from blind_checks import verified_with_bot_seat
from koryo_pbm_games.koryo.cards import CARD_IDS
from test_cli_bymail import make_keys


def _new(cli, folder, lines, *extra):
    cli.ok("new", folder, "--as", "mod", "--blind", "--co-dealer", f"carl={lines['carl']}",
           "--player", f"alice={lines['alice']}", "--bot", "cat=heuristic", *extra)


def _step(cli, folder, stop=None) -> dict:
    """One round trip: the co-dealer or alice answers what the game waits for, the moderator
    resolves (its bot plays cat's seat). Nothing when the game is over or waits for ``stop``."""
    status = cli.ok("status", folder, "--json").json
    if status["decision"] in (None, stop):
        return status
    if status["missing"] == ["carl"]:
        cli.ok("co-deal", folder, "--as", "carl")
    elif "alice" in status["missing"]:
        cli.ok("orders", folder, "--as", "alice", "-o", cli.cwd / "o-alice.toml")
        cli.ok("submit", cli.cwd / "o-alice.toml", "--as", "alice", "--game", folder)
    cli.ok("resolve", folder, "--as", "mod")
    return status


def _ids(value) -> list[str]:
    out: list[str] = []
    if isinstance(value, dict):
        for v in value.values():
            out += _ids(v)
    elif isinstance(value, list):
        for v in value:
            out += _ids(v)
    elif isinstance(value, str) and value in CARD_IDS:
        out.append(value)
    return out


def test_a_bot_seat_at_a_blind_table_is_open_to_the_moderator_alone_and_verify_replays_its_bot(cli):
    lines = make_keys(cli, ["alice", "carl"])
    _new(cli, "g", lines)
    for _ in range(3):  # the key, round 1's deal
        _step(cli, "g", stop="r1-orders")
    log = cli.ok("log", "g").out
    assert "cat is a bot seat: mod and carl seal its cards to the moderator, who runs its bot and sees its hand" in log
    status = cli.ok("status", "g", "--json").json
    assert status["decision"] == "r1-orders" and status["missing"] == ["alice"]
    # the moderator's key opens the bot's hand (checked shares of both dealers), not alice's
    shown = cli.ok("inspect", "g", "--as", "mod", "--json").json
    parts = {p["part"]: p["data"] for p in shown["opened"]}
    assert "alice" not in parts and "alice" in shown["not_opened"]
    assert len(parts["cat"]["cards"]) == 10
    alice = cli.ok("show", "g", "--as", "alice", "--json").json["cards"]
    assert len(alice) == 10 and not set(alice) & set(parts["cat"]["cards"])
    # every card id in the moderator's part is accounted for by the public part (the catalogue)
    from koryo_pbm.store import gamefile

    public = gamefile.read_game(cli.cwd / "g" / "game.toml").public
    extra = Counter(_ids({k: v for k, v in parts.items() if k != "cat"})) - Counter(_ids(public))
    assert not extra, extra
    # alice's key opens her hand and not the bot's
    mine = {p["part"]: p["data"] for p in cli.ok("inspect", "g", "--as", "alice", "--json").json["opened"]}
    assert set(mine) == {"alice"} and mine["alice"]["cards"] == alice
    # the game goes on to its end with the bot playing cat's seat, and verify chooses its orders again
    for _ in range(120):
        if _step(cli, "g")["decision"] is None:
            break
    log = cli.ok("log", "g").out
    played = log.count("the heuristic bot played cat's seat")
    assert played >= 8  # every round's orders, and its action turns with a choice
    checks = verified_with_bot_seat(cli, "g", "cat", played)
    assert checks["blind"].startswith("8 decks shuffled by mod and carl")
    # each deck is kept once: the co-dealer's published answers refer to it by its digest, and
    # verify puts it back before it checks the co-dealer's signature
    from koryo_pbm.store import gamefile
    from koryo_pbm.store.keyring import find_identity

    doc = gamefile.read_game(cli.cwd / "g" / "game.toml")
    deal = next(o for o in doc.replay["orders"] if o["player"] == "carl" and o["decision"] == "r1-deal")
    assert 'output = "sha256:' in deal["orders"]
    assert doc.public["blind"]["decks"][0]["outputs"][1] not in deal["orders"]
    os.environ["KORYO_PBM_HOME"] = str(cli.home)
    try:
        mod = find_identity("mod")
    finally:
        os.environ.pop("KORYO_PBM_HOME", None)
    bad = copy.deepcopy(doc)  # the answer made to refer to another deck of the record
    other = bad.public["blind"]["decks"][1]["outputs"][1]
    item = next(o for o in bad.replay["orders"] if o["player"] == "carl" and o["decision"] == "r1-deal")
    import hashlib

    item["orders"] = re.sub(r'output = "sha256:[0-9a-f]{64}"',
                            f'output = "sha256:{hashlib.sha256(other.encode()).hexdigest()}"', item["orders"])
    (cli.cwd / "bad").mkdir()
    gamefile.write_game(cli.cwd / "bad" / "game.toml", bad, mod)
    r = cli.fails("verify", "bad", "--json", home=cli.home / "fresh")
    failed = next(c for c in r.json["checks"] if not c["ok"])
    assert failed["check"] == "orders" and "(carl for r1-deal) is not what carl signed" in failed["detail"], failed


def test_the_co_dealer_seals_nothing_to_the_moderator_for_a_seat_the_record_does_not_call_a_bot(cli):
    """A moderator who re-signs the file with cat's seat (the moderator's key) no longer a bot
    seat in the public record and policy: the co-dealer refuses to deal, in one line, sends
    nothing; and a file that says it is no bot seat fails verify's deal check."""
    from koryo_pbm.store import gamefile
    from koryo_pbm.store.keyring import find_identity

    lines = make_keys(cli, ["alice", "carl"])
    _new(cli, "g", lines)
    _step(cli, "g")  # the key: r1-deal waits for the co-dealer
    assert cli.ok("status", "g", "--json").json["decision"] == "r1-deal"
    os.environ["KORYO_PBM_HOME"] = str(cli.home)
    try:
        mod = find_identity("mod")
    finally:
        os.environ.pop("KORYO_PBM_HOME", None)
    path = cli.cwd / "g" / "game.toml"
    doc = gamefile.read_game(path)
    for what in ("record", "policy"):
        bad = copy.deepcopy(doc)
        if what == "record":
            bad.public["blind"].pop("bots")
        else:
            bad.service.pop("bots")
        folder = cli.cwd / f"bad-{what}"
        (folder / "inbox").mkdir(parents=True)
        gamefile.write_game(folder / "game.toml", bad, mod)
        # another machine of the co-dealer's (no memory of the true file)
        r = cli.fails("co-deal", folder, "--key", cli.home / "keys" / "carl.key", home=cli.home / f"other-{what}")
        assert ("cat's seat holds the moderator's key, but the game's public record does not say it is a bot seat"
                in r.err), r.err
        assert not list((folder / "inbox").iterdir())
    # the honest file: the co-dealer deals, cat's shares sealed to the moderator
    cli.ok("co-deal", "g", "--as", "carl")


def test_missed_bot_opens_the_absent_players_hand_to_the_moderator_only_past_the_deadline(cli, monkeypatch):
    """--missed bot at a blind table: alice misses r1-orders; once its deadline has passed the
    moderator asks the dealers to open her hand (logged, checked by the co-dealer against the
    public policy and its own clock), the bot plays it, and verify checks the opening; a file
    whose policy did not allow it fails verify."""
    from koryo_pbm.store import gamefile
    from koryo_pbm.store.keyring import find_identity

    monkeypatch.setenv("KORYO_PBM_NOW", "2026-11-27T10:00:00Z")
    lines = make_keys(cli, ["alice", "bob", "carl"])
    cli.ok("new", "g", "--as", "mod", "--blind", "--co-dealer", f"carl={lines['carl']}", "--player",
           f"alice={lines['alice']}", "--player", f"bob={lines['bob']}", "--deadline", "1h",
           "--missed", "bot", "--grace", "0m")

    def answer(status, *who):
        if status["missing"] == ["carl"]:
            cli.ok("co-deal", "g", "--as", "carl")
        for p in who:
            if p in status["missing"]:
                cli.ok("orders", "g", "--as", p, "-o", cli.cwd / f"o-{p}.toml")
                cli.ok("submit", cli.cwd / f"o-{p}.toml", "--as", p, "--game", "g")
        cli.ok("resolve", "g", "--as", "mod")

    for _ in range(3):
        status = cli.ok("status", "g", "--json").json
        if status["decision"] == "r1-orders":
            break
        answer(status)
    assert status["decision"] == "r1-orders" and status["deadline"] == "2026-11-27T11:00:00Z"
    answer(status, "bob")  # alice does not answer; before the deadline nothing is opened
    assert "opened" not in gamefile.read_game(cli.cwd / "g" / "game.toml").public["blind"]
    # the co-dealer refuses to open a hand before the deadline by its own clock, even if asked
    monkeypatch.setenv("KORYO_PBM_NOW", "2026-11-27T11:30:00Z")
    cli.ok("resolve", "g", "--as", "mod")
    log = cli.ok("log", "g").out
    assert ("alice missed the deadline of r1-orders: the dealers open alice's hand to the moderator for the bot "
            "(deadline 2026-11-27T11:00:00Z, grace 0m, resolved at 2026-11-27T11:30:00Z)") in log
    status = cli.ok("status", "g", "--json").json
    assert status["decision"] == "r1-orders-open" and status["missing"] == ["carl"]
    monkeypatch.setenv("KORYO_PBM_NOW", "2026-11-27T10:30:00Z")
    r = cli.fails("co-deal", "g", "--as", "carl")
    assert "have not passed by the co-dealer's clock" in r.err, r.err
    # a co-dealer late past its own deadline is awaited (no bot answers for a dealer)
    monkeypatch.setenv("KORYO_PBM_NOW", "2026-11-27T13:00:00Z")
    before = (cli.cwd / "g" / "game.toml").read_bytes()
    assert cli.ok("resolve", "g", "--as", "mod", "--json").json["written"] is False
    assert (cli.cwd / "g" / "game.toml").read_bytes() == before
    cli.ok("co-deal", "g", "--as", "carl")
    # the moderator opens alice's hand (both dealers' shares, checked) and its bot plays it
    cli.ok("resolve", "g", "--as", "mod")
    log = cli.ok("log", "g").out
    assert "alice's hand opened to the moderator for the bot: carl sealed its shares of alice's 10 hidden cards" in log
    assert ("alice missed the deadline: the heuristic bot played for them (deadline 2026-11-27T11:00:00Z, grace 0m, "
            "resolved at 2026-11-27T13:00:00Z)") in log
    doc = gamefile.read_game(cli.cwd / "g" / "game.toml")
    assert [o["player"] for o in doc.public["blind"]["opened"]] == ["alice"]
    # bob's hand was never opened: the moderator's key opens no part of his, nor his shares
    shown = cli.ok("inspect", "g", "--as", "mod", "--json").json
    assert {p["part"] for p in shown["opened"]} == {"moderator"}
    for _ in range(150):  # both play on time to the end
        status = cli.ok("status", "g", "--json").json
        if status["decision"] is None:
            break
        answer(status, "alice", "bob")
    report = cli.ok("verify", "g", "--json").json
    assert report["ok"], report
    checks = {c["check"]: c["detail"] for c in report["checks"]}
    assert "1 absent player's hand opened to the moderator for the bot" in checks["blind"]
    assert "1 after a missed deadline and its grace" in checks["replay"]
    # the same file, its policy made to say missed orders wait: verify names the opened hand
    os.environ["KORYO_PBM_HOME"] = str(cli.home)
    try:
        mod = find_identity("mod")
    finally:
        os.environ.pop("KORYO_PBM_HOME", None)
    bad = copy.deepcopy(gamefile.read_game(cli.cwd / "g" / "game.toml"))
    bad.service["missed"] = "wait"
    (cli.cwd / "bad").mkdir()
    gamefile.write_game(cli.cwd / "bad" / "game.toml", bad, mod)
    r = cli.fails("verify", "bad", "--json", home=cli.home / "fresh")
    failed = next(c for c in r.json["checks"] if not c["ok"])
    assert failed["check"] == "blind" and "alice's hand may not be opened to the moderator at r1-orders" in \
        failed["detail"] and "the moderator opened a hand it may not see" in failed["detail"], failed
