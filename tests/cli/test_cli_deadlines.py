"""Issue 11, items 1, 3 and 6 (``new --bot``): deadlines, missed orders, abandoned seats and bot
seats, through the real command line with real keys. The time comes from ``KORYO_PBM_NOW``."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from test_cli_bymail import make_keys

from koryo_pbm import match
from koryo_pbm.crypto.keys import load_identity
from koryo_pbm.store import gameparts

START = "2026-11-24T18:00Z"


def at(monkeypatch, when: str | datetime) -> None:
    if isinstance(when, datetime):
        when = when.strftime("%Y-%m-%dT%H:%MZ")
    monkeypatch.setenv("KORYO_PBM_NOW", when)


def stamp(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)


def new(cli, lines, names=("alice", "bob", "carol"), extra=(), folder="g", seed="deadlines"):
    args = ["new", folder, "--as", "mod", "--seed", seed, *extra]
    for n in names:
        args += ["--player", f"{n}={lines[n]}"]
    return cli.ok(*args), cli.cwd / folder


def answer(cli, folder, players):
    """Each of ``players`` submits the template order for the pending decision."""
    status = cli.ok("status", folder, "--json").json
    for p in players:
        if p in status["missing"]:
            orders = cli.cwd / f"{status['decision']}-{p}.toml"
            cli.ok("orders", folder, "--as", p, "-o", orders)
            cli.ok("submit", orders, "--as", p, "--game", folder)


# -- item 1: deadlines -----------------------------------------------------------------------------


def test_deadline_is_public_in_new_status_show_and_log(cli, monkeypatch):
    at(monkeypatch, START)
    lines = make_keys(cli, ["alice", "bob", "carol"])
    r, folder = new(cli, lines, extra=["--deadline", "3d", "--deadline", "action=1d"])
    assert "deadline 2026-11-27 18:00 UTC (in 3 days)" in r.out.splitlines()
    assert "missed orders: the game waits" in r.out
    at(monkeypatch, "2026-11-25T15:00Z")
    status = cli.ok("status", folder)
    assert "  deadline 2026-11-27 18:00 UTC (in 2 days 3 h)" in status.out.splitlines()
    assert "  time to answer: 3d, action 1d" in status.out.splitlines()
    j = cli.ok("status", folder, "--json").json
    assert j["deadline"] == "2026-11-27T18:00:00Z" and j["deadline_passed"] is False
    assert j["service"] == {"deadlines": {"default": "3d", "action": "1d"}}
    show = cli.ok("show", folder, "--as", "alice")
    assert "deadline 2026-11-27 18:00 UTC (in 2 days 3 h)" in show.out.splitlines()
    assert cli.ok("show", folder, "--json").json["deadline"] == "2026-11-27T18:00:00Z"
    log = cli.ok("log", folder)
    assert log.out.splitlines()[-1] == "deadline 2026-11-27 18:00 UTC (in 2 days 3 h)"
    at(monkeypatch, "2026-11-28T18:00Z")
    assert "  deadline 2026-11-27 18:00 UTC (passed 1 day ago)" in cli.ok("status", folder).out.splitlines()
    assert cli.ok("status", folder, "--json").json["deadline_passed"] is True
    # the game file holds it, signed: a player's copy says the same
    doc = match.load_doc(folder / "game.toml")
    assert doc.decision["deadline"] == "2026-11-27T18:00:00Z"


def test_deadline_per_decision_kind_counts_from_the_resolve_that_opens_it(cli, monkeypatch):
    at(monkeypatch, START)
    lines = make_keys(cli, ["alice", "bob", "carol"])
    _, folder = new(cli, lines, extra=["--deadline", "orders=2d", "--deadline", "12h"])
    assert cli.ok("status", folder, "--json").json["deadline"] == "2026-11-26T18:00:00Z"
    answer(cli, folder, ["alice", "bob", "carol"])
    at(monkeypatch, "2026-11-25T09:30Z")
    cli.ok("resolve", folder, "--as", "mod")
    j = cli.ok("status", folder, "--json").json
    kind = j["kind"]
    expected = "2026-11-27T09:30:00Z" if kind == "orders" else "2026-11-25T21:30:00Z"
    assert j["deadline"] == expected, j


def test_moderator_extends_the_deadline_and_the_log_says_so(cli, monkeypatch):
    at(monkeypatch, START)
    lines = make_keys(cli, ["alice", "bob", "carol"])
    _, folder = new(cli, lines, extra=["--deadline", "3d"])
    r = cli.ok("deadline", folder, "--as", "mod", "+1d")
    assert r.out.splitlines()[0] == "the moderator extended the deadline of r1-orders to 2026-11-28 18:00 UTC"
    assert cli.ok("status", folder, "--json").json["deadline"] == "2026-11-28T18:00:00Z"
    r = cli.ok("deadline", folder, "--as", "mod", "2026-12-01T12:00Z", "--json")
    assert r.json["deadline"] == "2026-12-01T12:00:00Z" and r.json["version"] == 3
    log = cli.ok("log", folder).out
    assert "the moderator extended the deadline of r1-orders to 2026-11-28 18:00 UTC" in log
    assert "the moderator extended the deadline of r1-orders to 2026-12-01 12:00 UTC" in log
    # orders still go to the same decision, which resolves as before
    answer(cli, folder, ["alice", "bob", "carol"])
    cli.ok("resolve", folder, "--as", "mod")
    assert cli.ok("status", folder, "--json").json["decision"] != "r1-orders"


def test_extending_a_passed_deadline_counts_from_now(cli, monkeypatch):
    at(monkeypatch, START)
    lines = make_keys(cli, ["alice", "bob", "carol"])
    _, folder = new(cli, lines, extra=["--deadline", "1d"])
    at(monkeypatch, "2026-11-28T09:15Z")
    r = cli.ok("deadline", folder, "--as", "mod", "+12h")
    assert r.out.startswith("the moderator extended the deadline of r1-orders to 2026-11-28 21:15 UTC")


def test_an_absurd_clock_is_refused_in_one_line(cli, monkeypatch):
    at(monkeypatch, START)
    lines = make_keys(cli, ["alice", "bob", "carol"])
    _, folder = new(cli, lines, extra=["--deadline", "1d"])
    monkeypatch.setenv("KORYO_PBM_NOW", "9999-12-31T23:59Z")
    r = cli.fails("status", folder)
    assert "KORYO_PBM_NOW must be between the years 2000 and 9000" in r.err
    monkeypatch.setenv("KORYO_PBM_NOW", "yesterday")
    r = cli.fails("resolve", folder, "--as", "mod")
    assert "KORYO_PBM_NOW must be a UTC time like 2026-11-27T18:00Z" in r.err


def test_a_game_without_deadline_gets_one_from_the_moderator(cli, monkeypatch):
    at(monkeypatch, START)
    lines = make_keys(cli, ["alice", "bob", "carol"])
    r, folder = new(cli, lines)
    assert "deadline" not in r.out
    assert cli.ok("status", folder, "--json").json["deadline"] is None
    r = cli.ok("deadline", folder, "--as", "mod", "+2d")
    assert r.out.startswith("the moderator set the deadline of r1-orders to 2026-11-26 18:00 UTC")


@pytest.mark.parametrize("when,reason", [
    ("2026-11-20T10:00Z", "the new deadline 2026-11-20 10:00 UTC is in the past (it is 2026-11-24 18:00 UTC)"),
    ("+0d", "the extension cannot be zero"),
    ("-1d", "the extension cannot be negative"),
    ("+200d", "the extension is '200d', over the limit of 90 days"),
    ("+soon", "the extension must be like 30m, 12h, 3d, 1w or 1d12h"),
    ("tomorrow", "the new deadline must be a UTC time like 2026-11-27T18:00Z"),
    ("2027-06-01T10:00Z", "is more than 90 days away"),
])
def test_deadline_refuses_bad_times_in_one_line_and_changes_nothing(cli, monkeypatch, when, reason):
    at(monkeypatch, START)
    lines = make_keys(cli, ["alice", "bob", "carol"])
    _, folder = new(cli, lines, extra=["--deadline", "3d"])
    before = (folder / "game.toml").read_bytes()
    r = cli.fails("deadline", folder, "--as", "mod", "--", when)
    assert r.err.startswith("koryo-pbm: error: ") and reason in r.err and r.err.count("\n") == 1
    assert (folder / "game.toml").read_bytes() == before


def test_only_the_moderator_sets_a_deadline(cli, monkeypatch):
    at(monkeypatch, START)
    lines = make_keys(cli, ["alice", "bob", "carol"])
    _, folder = new(cli, lines, extra=["--deadline", "3d"])
    before = (folder / "game.toml").read_bytes()
    r = cli.fails("deadline", folder, "--as", "alice", "+1d")
    assert "is not the moderator of game" in r.err
    assert (folder / "game.toml").read_bytes() == before


@pytest.mark.parametrize("args,reason", [
    (["--deadline", "0h"], "the deadline '0h' cannot be zero"),
    (["--deadline", "-3d"], "the deadline '-3d' cannot be negative"),
    (["--deadline", "100d"], "over the limit of 90 days"),
    (["--deadline", "3 days"], "must be like 30m, 12h, 3d, 1w or 1d12h"),
    (["--deadline", "3d", "--deadline", "3d"], "--deadline gives every decision two durations"),
    (["--deadline", "turn=3d"], "Koryo has no decisions of kind 'turn' (its kinds: orders, action, discard)"),
    (["--missed", "bot"], "--missed bot, --grace and --remind need a deadline"),
    (["--deadline", "3d", "--abandon-after", "2"], "--abandon-after counts the orders the bot played"),
    (["--deadline", "3d", "--missed", "bot", "--abandon-after", "0"], "--abandon-after takes a number"),
    (["--deadline", "3d", "--missed", "bot", "--bot-level", "expert"], "Koryo has no bot level 'expert'"),
    (["--deadline", "3d", "--grace", "-1h"], "--grace cannot be negative"),
    (["--bot", "dave=genius"], "Koryo has no bot level 'genius'"),
    (["--bot", "dave"], "--bot takes NAME=LEVEL"),
    (["--bot", "carol=random"], "carol is given a key and a bot"),
])
def test_new_refuses_a_bad_policy_in_one_line(cli, monkeypatch, args, reason):
    at(monkeypatch, START)
    lines = make_keys(cli, ["alice", "bob", "carol"])
    argv = ["new", "g", "--as", "mod", *args]
    for n in ("alice", "bob", "carol"):
        argv += ["--player", f"{n}={lines[n]}"]
    r = cli.fails(*argv)
    assert reason in r.err and r.err.count("\n") == 1, r.err
    assert not (cli.cwd / "g").exists()


# -- item 3: missed orders ---------------------------------------------------------------------------


def test_missed_wait_the_game_waits_after_the_deadline(cli, monkeypatch):
    at(monkeypatch, START)
    lines = make_keys(cli, ["alice", "bob", "carol"])
    _, folder = new(cli, lines, extra=["--deadline", "1d"])
    answer(cli, folder, ["alice", "carol"])
    at(monkeypatch, "2026-12-05T18:00Z")
    r = cli.ok("resolve", folder, "--as", "mod")
    assert "decision r1-orders, version " in r.out and ": waiting for bob (alice, carol answered)" in r.out
    assert "deadline 2026-11-25 18:00 UTC (passed 10 days ago)" in r.out
    j = cli.ok("status", folder, "--json").json
    assert j["decision"] == "r1-orders" and j["missing"] == ["bob"]


def test_missed_bot_a_whole_game_finishes_when_one_player_never_answers(cli, monkeypatch):
    at(monkeypatch, START)
    lines = make_keys(cli, ["alice", "bob", "carol"])
    r, folder = new(cli, lines, extra=["--deadline", "1d", "--grace", "2h", "--missed", "bot"])
    assert "missed orders: the heuristic bot plays once the deadline and a grace period of 2h have passed" in r.out
    now = datetime(2026, 11, 24, 18, 0, tzinfo=UTC)
    steps = 0
    while True:
        status = cli.ok("status", folder, "--json").json
        if status["over"]:
            break
        answer(cli, folder, ["alice", "carol"])
        if "bob" in status["missing"]:
            deadline = stamp(status["deadline"])
            at(monkeypatch, deadline + timedelta(hours=1))  # the deadline passed, the grace not
            cli.ok("resolve", folder, "--as", "mod")
            assert cli.ok("status", folder, "--json").json["decision"] == status["decision"]
            now = deadline + timedelta(hours=2)
            at(monkeypatch, now)
        r = cli.ok("resolve", folder, "--as", "mod")
        if "bob" in status["waiting_for"]:
            assert "bob missed the deadline: the heuristic bot played for them" in r.out
        steps += 1
        assert steps < 300
    log = cli.ok("log", folder).out
    assert log.count("bob missed the deadline: the heuristic bot played for them") >= 8
    assert "alice missed" not in log and "carol missed" not in log
    show = cli.ok("show", folder, "--json").json
    assert set(show["scores"]) == {"alice", "bob", "carol"}
    # the public count of missed decisions is in the file, but no abandonment without --abandon-after
    doc = match.load_doc(folder / "game.toml")
    assert doc.service["missed_in_row"]["bob"] >= 8 and "abandoned" not in doc.service


def test_abandon_after_n_missed_decisions_the_bot_plays_at_once(cli, monkeypatch):
    at(monkeypatch, START)
    lines = make_keys(cli, ["alice", "bob", "carol"])
    _, folder = new(cli, lines, extra=["--deadline", "1d", "--missed", "bot", "--bot-level", "random",
                                        "--abandon-after", "2"])
    for n in (1, 2):
        status = cli.ok("status", folder, "--json").json
        answer(cli, folder, [p for p in status["missing"] if p != "bob"])
        if "bob" not in status["waiting_for"]:
            cli.ok("resolve", folder, "--as", "mod")
            continue
        at(monkeypatch, stamp(status["deadline"]))
        r = cli.ok("resolve", folder, "--as", "mod")
        assert "bob missed the deadline: the random bot played for them" in r.out
        if n == 1:
            assert cli.ok("status", folder, "--json").json["service"]["missed_in_row"] == {"bob": 1}
    assert ("bob missed 2 decisions in a row: the seat is abandoned; the random bot plays it until a "
            "substitute takes it over") in r.out
    j = cli.ok("status", folder, "--json").json
    assert j["service"]["abandoned"] == ["bob"] and "missed_in_row" not in j["service"]
    assert "  bob's seat is abandoned: the random bot plays it" in cli.ok("status", folder).out.splitlines()
    # from now on bob's seat is played as soon as the others are in, long before the deadline
    for _ in range(3):
        status = cli.ok("status", folder, "--json").json
        if status["over"]:
            break
        assert "bob" not in status["missing"]
        if "bob" in status["waiting_for"]:
            assert status["bot_plays"] == ["bob"]
        answer(cli, folder, [p for p in status["missing"]])
        r = cli.ok("resolve", folder, "--as", "mod")
        if "bob" in status["waiting_for"]:
            assert "bob's seat is abandoned: the random bot played for them" in r.out
    # a substitute taking the seat over clears the flag (what `replace` calls)
    doc = match.load_doc(folder / "game.toml")
    assert match.unabandon(doc, "bob") is True and doc.service.get("abandoned") is None
    assert match.unabandon(doc, "bob") is False


def test_a_failing_bot_is_replaced_by_a_random_legal_order_and_the_log_says_so(cli, monkeypatch):
    from koryo_pbm.engine.registry import find_game

    at(monkeypatch, START)
    lines = make_keys(cli, ["alice", "bob", "carol"])
    _, folder = new(cli, lines, extra=["--deadline", "1d", "--missed", "bot"])
    game = type(find_game("koryo"))

    def broken(self, *args, **kw):
        raise RuntimeError("alice holds the secret card")

    monkeypatch.setattr(game, "bot_order", broken)
    answer(cli, folder, ["alice", "carol"])
    at(monkeypatch, "2026-11-25T18:00Z")
    r = cli.ok("resolve", folder, "--as", "mod")
    line = r.out.splitlines()[1]
    assert "bob missed the deadline: the heuristic bot played for them (deadline " in line
    assert line.endswith(", resolved at 2026-11-25T18:00:00Z) (the heuristic bot failed; a random legal order stood in)")
    assert "secret" not in cli.ok("log", folder).out  # why it failed is not made public


# -- item 6: bot seats -------------------------------------------------------------------------------


def test_new_bot_seat_is_played_by_the_moderator_from_its_own_view(cli, monkeypatch):
    at(monkeypatch, START)
    lines = make_keys(cli, ["alice", "bob"])
    r, folder = new(cli, lines, names=("alice", "bob"), extra=["--bot", "carol=heuristic"])
    assert "carol is a bot seat (heuristic)" in r.out
    status = cli.ok("status", folder)
    assert "  the bot plays at resolve: carol" in status.out.splitlines()
    assert "  missing: alice, bob" in status.out.splitlines()
    j = cli.ok("status", folder, "--json").json
    assert j["waiting_for"] == ["alice", "bob", "carol"] and j["bot_plays"] == ["carol"]
    # nobody holds carol's key: her part is sealed to the moderator, who cannot play it by hand
    doc = match.load_doc(folder / "game.toml")
    assert doc.players["carol"] == doc.moderator
    r = cli.fails("orders", folder, "--as", "mod")
    assert "is not the key of any player" in r.err
    steps = 0
    while not cli.ok("status", folder, "--json").json["over"]:
        status = cli.ok("status", folder, "--json").json
        assert "carol" not in status["missing"]
        answer(cli, folder, ["alice", "bob"])
        r = cli.ok("resolve", folder, "--as", "mod")
        if "carol" in status["waiting_for"]:
            assert "the heuristic bot played carol's seat" in r.out
        steps += 1
        assert steps < 300
    assert "carol" in cli.ok("show", folder, "--json").json["scores"]


def test_bot_seat_keeps_its_place_with_player_bot(cli, monkeypatch):
    at(monkeypatch, START)
    lines = make_keys(cli, ["alice", "bob"])
    cli.ok("new", "g", "--as", "mod", "--seed", "s", "--player", f"alice={lines['alice']}", "--player", "carol=bot",
           "--player", f"bob={lines['bob']}", "--bot", "carol=random")
    assert list(match.load_doc(cli.cwd / "g" / "game.toml").players) == ["alice", "carol", "bob"]
    r = cli.fails("new", "h", "--as", "mod", "--player", f"alice={lines['alice']}", "--player", "carol=bot",
                  "--player", f"bob={lines['bob']}")
    assert "--player carol=bot needs --bot carol=LEVEL" in r.err


def test_a_bot_sees_only_its_seats_view(cli, monkeypatch):
    """The order the bot plays for a seat is exactly the one it chooses from that seat's own
    public and private parts: what the others hold cannot change it."""
    from koryo_pbm.engine import bots
    from koryo_pbm.engine.registry import find_game

    at(monkeypatch, START)
    lines = make_keys(cli, ["alice", "bob"])
    _, folder = new(cli, lines, names=("alice", "bob"), extra=["--bot", "carol=heuristic"])
    doc = match.load_doc(folder / "game.toml")
    mod = load_identity(cli.home / "keys" / "mod.key")
    _, private = match.open_private(doc, load_identity(cli.home / "keys" / "alice.key"))
    carol_private = gameparts.open_part(doc, "carol", mod)
    game = find_game("koryo")
    expected = bots.choose_from_view(game, doc.public, carol_private, "carol", "heuristic",
                                     seed=f"{doc.game_id}:r1-orders:carol")
    answer(cli, folder, ["alice", "bob"])
    cli.ok("resolve", folder, "--as", "mod")
    after = match.load_doc(folder / "game.toml")
    events = after.log[0]["events"]
    cards = expected.order["play"]
    assert f"carol plays {len(cards)} card{'s' if len(cards) != 1 else ''} face down" in events
    revealed = [e for e in events if e.startswith("carol reveals ")]
    assert revealed and revealed[0].startswith(f"carol reveals {cards[0]}" + (f" ×{len(cards)}" if len(cards) > 1 else ""))
    assert private  # alice's part opened: the file is a real game


def test_korsar_game_with_a_seat_abandoned_after_one_missed_turn_finishes(cli, monkeypatch):
    at(monkeypatch, START)
    lines = make_keys(cli, ["alice", "bob", "carol"])
    r, _ = new(cli, lines, extra=["--game", "korsar", "--deadline", "turn=1d", "--missed", "bot",
                                  "--bot-level", "random", "--abandon-after", "1"])
    assert "a seat that misses 1 decision in a row is abandoned" in r.out
    folder = cli.cwd / "g"
    steps = 0
    while True:
        status = cli.ok("status", folder, "--json").json
        if status["over"]:
            break
        if "bob" in status["missing"]:
            at(monkeypatch, stamp(status["deadline"]))
            r = cli.ok("resolve", folder, "--as", "mod")
            assert "bob missed the deadline: the random bot played for them" in r.out
            assert ("bob missed 1 decision in a row: the seat is abandoned; the random bot plays it until a "
                    "substitute takes it over") in r.out
        else:
            answer(cli, folder, status["missing"])
            cli.ok("resolve", folder, "--as", "mod")
        steps += 1
        assert steps < 400
    log = cli.ok("log", folder).out
    assert log.count("bob missed the deadline") == 1
    assert log.count("bob's seat is abandoned: the random bot played for them") >= 3
    assert cli.ok("status", folder, "--json").json["service"]["abandoned"] == ["bob"]


def test_the_picture_shows_the_deadline_as_people_read_it(cli, monkeypatch):
    at(monkeypatch, START)
    lines = make_keys(cli, ["alice", "bob", "carol"])
    _, folder = new(cli, lines, extra=["--deadline", "3d"])
    page = cli.cwd / "table.html"
    cli.ok("show", folder, "--html", page)
    text = page.read_text(encoding="utf-8")
    assert "answer by 2026-11-27 18:00 UTC" in text
    assert 'data-deadline="2026-11-27 18:00 UTC"' in text
    image = cli.cwd / "table.svg"
    cli.ok("show", folder, "--svg", image)
    svg = image.read_text(encoding="utf-8")
    assert 'data-deadline="2026-11-27 18:00 UTC"' in svg
    words = " ".join(re.findall(r">([^<>]+)</text>", svg))  # the SVG wraps its lines
    assert "answer by 2026-11-27 18:00 UTC" in words


def test_orders_submitted_before_the_deadline_moved_still_count(cli, monkeypatch):
    """Moving a deadline logs an entry (a new head of the history) but resolves nothing: an
    envelope that answered the file before the move answers the same decision and counts."""
    at(monkeypatch, START)
    lines = make_keys(cli, ["alice", "bob", "carol"])
    _, folder = new(cli, lines, extra=["--deadline", "3d"])
    answer(cli, folder, ["alice"])
    cli.ok("deadline", folder, "--as", "mod", "+1d")
    cli.ok("deadline", folder, "--as", "mod", "+1d")
    answer(cli, folder, ["bob", "carol"])
    r = cli.ok("resolve", folder, "--as", "mod", "--json")
    assert r.json["applied"][0]["decision"] == "r1-orders"
    assert not [e for e in r.json["envelopes"] if e["status"] == "rejected"]


def test_a_substitute_takes_over_an_abandoned_seat_and_the_bot_stops_playing_it(cli, monkeypatch):
    at(monkeypatch, START)
    lines = make_keys(cli, ["alice", "bob", "carol", "erin"])
    _, folder = new(cli, lines, names=("alice", "bob", "carol"),
                    extra=["--deadline", "1d", "--missed", "bot", "--abandon-after", "1"])
    status = cli.ok("status", folder, "--json").json
    answer(cli, folder, ["alice", "carol"])
    at(monkeypatch, stamp(status["deadline"]))
    assert "the seat is abandoned" in cli.ok("resolve", folder, "--as", "mod").out
    assert cli.ok("status", folder, "--json").json["service"]["abandoned"] == ["bob"]

    r = cli.ok("replace", folder, "--as", "mod", f"bob={lines['erin']}")
    assert "bob's seat in game" in r.out
    status = cli.ok("status", folder, "--json").json
    assert "abandoned" not in status.get("service", {}) and "bob" not in status.get("bot_plays", [])
    for _ in range(6):  # up to the next decision that waits for bob's seat
        status = cli.ok("status", folder, "--json").json
        answer(cli, folder, [p for p in status["missing"] if p != "bob"])
        r = cli.ok("resolve", folder, "--as", "mod")
        if "bob" in status["waiting_for"]:
            break
    else:
        raise AssertionError("no decision waited for bob's seat")
    assert "bot played" not in r.out  # the game waits for the substitute now
    assert cli.ok("status", folder, "--json").json["missing"] == ["bob"]
    orders = cli.cwd / "erin.toml"
    cli.ok("orders", folder, "--as", "erin", "-o", orders)
    cli.ok("submit", orders, "--as", "erin", "--game", folder)
    assert f"resolved {status['decision']}" in cli.ok("resolve", folder, "--as", "mod").out


def test_a_person_takes_over_a_bot_seat(cli, monkeypatch):
    at(monkeypatch, START)
    lines = make_keys(cli, ["alice", "bob", "erin"])
    _, folder = new(cli, lines, names=("alice", "bob"), extra=["--bot", "carol=random"])
    assert cli.ok("status", folder, "--json").json["service"]["bots"] == {"carol": "random"}
    cli.ok("replace", folder, "--as", "mod", f"carol={lines['erin']}")
    status = cli.ok("status", folder, "--json").json
    assert "bots" not in status.get("service", {}) and "carol" in status["missing"]
    answer(cli, folder, ["alice", "bob"])
    cli.ok("resolve", folder, "--as", "mod")
    assert cli.ok("status", folder, "--json").json["missing"] == ["carol"]  # nobody plays it but erin
    hand = cli.ok("show", folder, "--as", "erin", "--json").json
    assert hand["decision"] == status["decision"] and len(hand["hand"]) > 0
