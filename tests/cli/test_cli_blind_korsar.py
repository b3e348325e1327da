"""A blind Korsar team game through the real CLI (issue 20): ``new --blind --game korsar`` with
teams, played to the end by shared folder with ``co-deal`` (the moderator holds dora's seat),
what the moderator's and the co-dealer's keys open (``inspect``) at every version, ``verify``'s
audit, and cheats: a false play claim, a wrong share from the co-dealer."""

from __future__ import annotations

import base64
import os
from collections import Counter

import pytest
from blind_checks import card_values, pairs, verified_with_bot_seat
from test_cli_blind import Runner, _carl_sends
from test_cli_bymail import make_keys

SEATS = ["alice", "bob", "dora", "erin"]  # teams alice+bob and dora+erin; dora: the moderator's own key


def _korsar_ids(value) -> Counter:
    """How many times each Korsar card id appears as a text value anywhere in ``value``."""
    from koryo_pbm_games.korsar.cards import COPIES

    return card_values(value, COPIES)


def _order_file(run, root, doc, p) -> object:
    """The player's orders file as ``koryo-pbm orders`` writes it: a play with its card's share
    when one is legal (so hands empty fast, and the game is short), else the draw."""
    path = root / f"o-{p}.toml"
    run.ok("orders", "g", "--as", p, "-o", path)
    return path


@pytest.fixture(scope="module")
def korsar_game(tmp_path_factory):
    from koryo_pbm.blind import shares_info
    from koryo_pbm.crypto.seal import open_sealed
    from koryo_pbm.errors import TamperedError
    from koryo_pbm.store import gamefile
    from koryo_pbm.store.gameparts import open_every_part
    from koryo_pbm.store.keyring import find_identity

    root = tmp_path_factory.mktemp("blindkorsar")
    run = Runner(root / "home", root)
    lines = {name: run.ok("keygen", name).strip() for name in ["mod", *SEATS, "carl"]}
    run.ok("new", "g", "--game", "korsar", "--as", "mod", "--blind", "--co-dealer", f"carl={lines['carl']}",
           *[x for n in SEATS for x in ("--player", f"{n}={lines[n]}")], "--team", "alice,bob", "--team", "dora,erin",
           "--first", "alice")
    os.environ["KORYO_PBM_HOME"] = str(root / "home")
    try:
        dealers = [find_identity("mod"), find_identity("carl")]
    finally:
        os.environ.pop("KORYO_PBM_HOME", None)
    versions, decisions, plays, partners, opened, hands, sealed_tried = [], [], 0, {}, [], [], 0
    for _ in range(300):
        path = root / "g" / "game.toml"
        versions.append(path.read_bytes())
        doc = gamefile.read_game(path)
        # what each dealer's key opens in this version, as `inspect` opens it (every sealed part tried)
        opened.append({d.name: [p.data for p in open_every_part(doc, d)[0]] for d in dealers})
        for d in dealers:  # and the co-dealer's shares kept inside, sealed to players: none opens
            for data in opened[-1][d.name]:
                for box, by_player in data.get("state", {}).get("carl", {}).items():
                    for player, blob in by_player.items():
                        if not player:
                            continue  # the slots the box gives (public: the rules' record)
                        with pytest.raises(TamperedError):
                            open_sealed(d, base64.b64decode(blob), shares_info(doc.game_id, box, player))
                        sealed_tried += 1
        hands.append((doc.public.get("rules", {}).get("hands", {}), _korsar_ids(doc.public)))
        decisions.append(doc.decision and (doc.decision["id"], list(doc.decision["waiting_for"])))
        if doc.decision is None:
            break
        if doc.decision["id"] == "t1-alice":  # dealt: what each player's key shows
            partners = {p: run.json("show", "g", "--as", p)["cards"] for p in SEATS}
            partners["hands"] = doc.public["rules"]["hands"]
        if doc.decision["waiting_for"] == ["carl"]:
            run.ok("co-deal", "g", "--as", "carl")
        else:
            for p in doc.decision["waiting_for"]:
                orders = _order_file(run, root, doc, p)
                plays += "share" in orders.read_text()
                run.ok("submit", orders, "--as", p, "--game", "g")
        run.ok("resolve", "g", "--as", "mod")
    else:
        raise AssertionError("the blind Korsar game did not end")
    return {"run": run, "root": root, "versions": versions, "decisions": decisions, "lines": lines, "plays": plays,
            "partners": partners, "opened": opened, "hands": hands,
            "sealed_tried": sealed_tried}


def test_a_blind_korsar_team_game_is_played_to_the_end_by_shared_folder(korsar_game):
    decisions, run = korsar_game["decisions"], korsar_game["run"]
    ids = [d[0] for d in decisions if d]
    assert ids[:3] == ["keys", "deal", "t1-alice"] and ids[-2:] == ["end-reveal", "end"] and decisions[-1] is None
    carl_asked = [d[0] for d in decisions if d and d[1] == ["carl"]]
    gives = [x for x in carl_asked if x.endswith("-give")]
    assert carl_asked == ["keys", "deal", *gives, "end-reveal", "end"] and len(gives) > 10
    assert korsar_game["plays"] > 10  # plays with their share, as `orders` wrote them
    shown = run.ok("show", "g")
    assert "Korsar at a blind table: dealers mod and carl" in shown and "scores:" in shown
    assert "blind table: dealers mod and carl" in run.ok("status", "g")
    # teammates see each other's cards (both dealers' shares sealed to both); the others do not
    seen, hands = korsar_game["partners"], korsar_game["partners"]["hands"]
    for me, partner in (("alice", "bob"), ("bob", "alice"), ("dora", "erin"), ("erin", "dora")):
        assert set(seen[me]) == set(hands[me]) | set(hands[partner]) and len(seen[me]) == 12
    assert seen["alice"]["deck:0"] == seen["bob"]["deck:0"]  # alice's first card, as bob sees it


def test_at_every_version_neither_dealer_key_opens_a_hidden_card(korsar_game):
    """Every card of a finished Korsar game is shown (played, or in a hand at the end): from the
    public reveals, the card at every slot. At every version, what the moderator's and the
    co-dealer's keys open (``inspect``'s every sealed part) holds no hidden slot with its card,
    and no card id the public part lacks; ``inspect --as`` through the CLI opens the same."""
    import tomllib

    run, root = korsar_game["run"], korsar_game["root"]
    final = tomllib.loads(korsar_game["versions"][-1].decode())
    deck = {r["slot"]: r["card"] for r in final["public"]["blind"]["reveals"]}
    assert len(deck) == 78
    hidden_seen = []  # how many hidden cards each version holds: the dealt hands, then fewer
    for opened, (hands, public_ids) in zip(korsar_game["opened"], korsar_game["hands"], strict=True):
        hidden = {x: deck[x] for cs in hands.values() for x in cs if ":" in x}
        hidden_seen.append(len(hidden))
        for name in ("mod", "carl"):
            leaked = [(k, v) for k, v in pairs(opened[name]) if isinstance(k, str) and hidden.get(k) == v]
            assert not leaked, f"{name} opens {leaked[:3]}"
            assert not _korsar_ids(opened[name]) - public_ids, name
    # checked where it matters, whatever the random deal makes the game's length: the four dealt
    # hands of six (a draw may add one before the first play), then a hidden card at most versions
    assert next(n for n in hidden_seen if n) == 4 * 6 and sum(n > 0 for n in hidden_seen) > len(hidden_seen) // 2
    assert korsar_game["sealed_tried"] > 50
    folder = root / "v"
    folder.mkdir()
    for i in (2, len(korsar_game["versions"]) // 2):  # the CLI shows the same, at a few versions
        (folder / "game.toml").write_bytes(korsar_game["versions"][i])
        for name in ("mod", "carl"):
            shown = run.json("inspect", "v", "--as", name)
            assert [p["data"] for p in shown["opened"]] == korsar_game["opened"][i][name]


def test_verify_audits_the_blind_korsar_game(korsar_game):
    report = korsar_game["run"].json("verify", "g")
    checks = {c["check"]: c for c in report["checks"]}
    assert report["ok"] and report["fair_proof"], report
    assert checks["blind"]["detail"].startswith("1 deck shuffled by mod and carl, 78 cards dealt and 78 revealed")
    assert "the ordinary rules on the real cards give the same" in checks["blind"]["detail"]
    # Korsar's one deck (named deck) is "the deck" in the log, which verify replayed line for line
    final = korsar_game["versions"][-1]
    assert b"'mod and carl shuffled the deck in turn (78 cards)'" in final and b"shuffled deck deck" not in final


def test_a_blind_korsar_game_logged_as_shuffled_deck_deck_still_verifies(cli):
    """A 2-player blind Korsar game played to the end by the code before "the deck", its log
    saying "mod and carl shuffled deck deck in turn" (data/finished-blind-korsar-deck-deck.toml.gz,
    as that code wrote and signed it): verify replays it clean, the old line standing for the new."""
    import gzip
    from pathlib import Path

    data = gzip.decompress((Path(__file__).resolve().parents[1] / "store" / "data" /
                            "finished-blind-korsar-deck-deck.toml.gz").read_bytes())
    assert b"'mod and carl shuffled deck deck in turn (78 cards)'" in data and b"shuffled the deck" not in data
    (cli.cwd / "old").mkdir()
    (cli.cwd / "old" / "game.toml").write_bytes(data)
    report = cli.ok("verify", "old", "--json").json
    assert report["ok"] and report["fair_proof"], report
    checks = {c["check"]: c for c in report["checks"]}
    assert checks["replay"]["ok"] and checks["blind"]["detail"].startswith("1 deck shuffled by mod and carl, 78 cards")


def test_the_co_dealer_deals_no_deck_the_log_says_was_shuffled_in_either_wording(cli):
    """The co-dealer gives the shares of a deck once: a log saying the deck was shuffled, as this
    code or the code before writes it, makes its answer to the deal a one-line refusal."""
    from koryo_pbm import blind, match
    from koryo_pbm.errors import GameError
    from koryo_pbm.store import gamefile
    from koryo_pbm.store.keyring import find_identity

    lines = make_keys(cli, ["alice", "bob", "carl"])
    cli.ok("new", "d", "--game", "korsar", "--as", "mod", "--blind", "--co-dealer", f"carl={lines['carl']}",
           "--player", f"alice={lines['alice']}", "--player", f"bob={lines['bob']}")
    cli.ok("co-deal", "d", "--as", "carl")
    cli.ok("resolve", "d", "--as", "mod")
    doc = gamefile.read_game(cli.cwd / "d" / "game.toml")
    assert doc.decision["id"] == "deal"
    os.environ["KORYO_PBM_HOME"] = str(cli.home)
    carl = find_identity("carl")
    players = {n: k for n, k in doc.players.items() if n != "carl"}
    game = match.game_of(doc)
    assert "output" in blind.co_deal(game, doc.public, players, carl, "deal", doc.log)  # the honest answer
    for line in ("mod and carl shuffled the deck in turn (78 cards)", "mod and carl shuffled deck deck in turn (78 cards)"):
        log = [*doc.log, {**doc.log[-1], "events": [line]}]
        with pytest.raises(GameError, match="^the deck was dealt before: no share is given twice$"):
            blind.co_deal(game, doc.public, players, carl, "deal", log)


def _blind_korsar2(cli, folder):
    """A blind 2-player Korsar game (alice first), dealt: the co-dealer's key and deck answered."""
    lines = make_keys(cli, ["alice", "bob", "carl"])
    cli.ok("new", folder, "--game", "korsar", "--as", "mod", "--blind", "--co-dealer", f"carl={lines['carl']}",
           "--player", f"alice={lines['alice']}", "--player", f"bob={lines['bob']}", "--first", "alice")
    for _ in range(2):
        cli.ok("co-deal", folder, "--as", "carl")
        cli.ok("resolve", folder, "--as", "mod")


def test_a_false_play_claim_is_refused_like_an_illegal_order(cli):
    import tomllib

    _blind_korsar2(cli, "f")
    cli.ok("show", "f", "--as", "alice")
    cli.ok("orders", "f", "--as", "alice", "-o", "o.toml")
    written = (cli.cwd / "o.toml").read_text()
    honest = tomllib.loads(written)
    cards = cli.ok("show", "f", "--as", "alice", "--json").json["cards"]
    slot = sorted(cards)[0]
    # the share of each card is listed in the orders file's comments: alice's true share of slot
    share = next(line.split(" = ")[1].strip() for line in written.splitlines() if line.startswith(f"#   {slot} = "))
    other = next(c for c in ("galleon-8", "galleon-7", "galleon-6") if c not in cards.values())
    lie = {"game": honest["game"], "decision": honest["decision"], "action": "play", "slot": slot, "card": other,
           "share": share}
    text = "".join(f'{k} = "{v}"\n' for k, v in lie.items())
    (cli.cwd / "lie.toml").write_text(text)
    r = cli.fails("submit", "lie.toml", "--as", "alice", "--game", "f")
    assert "illegal order" in r.err and f"not {other}" in r.err
    # sent by modified software all the same: the moderator refuses it, nothing counted
    from koryo_pbm import match
    from koryo_pbm.cli.submit import utc_now
    from koryo_pbm.crypto.envelope import make_envelope
    from koryo_pbm.store import gamefile, gamelog, inbox
    from koryo_pbm.store.keyring import find_identity

    os.environ["KORYO_PBM_HOME"] = str(cli.home)
    path = cli.cwd / "f" / "game.toml"
    doc = gamefile.read_game(path)
    body = match.parse_orders(text)[2]
    envelope = make_envelope(find_identity("alice"), doc.moderator, game_id=doc.game_id, decision=doc.decision["id"],
                             answers=gamelog.head(doc), player="alice",
                             orders_text=match.canonical_orders(doc.game_id, doc.decision["id"], body), submitted=utc_now())
    inbox.drop(cli.cwd / "f", envelope)
    before = path.read_bytes()
    r = cli("resolve", "f", "--as", "mod", "--json")
    assert r.code != 0 and len(r.err.strip().splitlines()) == 1
    reason = r.json["envelopes"][0]["reason"]
    assert r.json["envelopes"][0]["status"] == "rejected" and "the dealers' shares open it to another card" in reason
    assert path.read_bytes() == before


def test_a_wrong_share_of_a_drawn_card_is_named_when_the_drawer_opens_the_hand(cli):
    import json

    from koryo_pbm.blind import shares_info
    from koryo_pbm.crypto import blind as cb
    from koryo_pbm.crypto.seal import seal

    _blind_korsar2(cli, "w")
    for p in ("alice", "bob"):  # both draw: the dealers give both cards before alice's turn
        (cli.cwd / "d.toml").write_text(f'game = "{cli.ok("status", "w", "--json").json["id"]}"\n'
                                        f'decision = "{cli.ok("status", "w", "--json").json["decision"]}"\n'
                                        'action = "draw"\n')
        cli.ok("submit", "d.toml", "--as", p, "--game", "w")
        cli.ok("resolve", "w", "--as", "mod")
    assert cli.ok("status", "w", "--json").json["decision"] == "t3-give"

    def wrong_key(honest, doc, carl):
        from koryo_pbm.blind import _card_at, _slot
        from koryo_pbm.match import game_of

        st = game_of(doc).from_view(doc.public, {}, "carl")
        fake = cb.KeyShare.generate()  # a share made with another key, sealed to alice
        share = cb.decryption_share(_slot(st, "deck:12", "alice"), _card_at(st, "deck:12"), "carl", fake)
        box = f"deck@{doc.decision['id']}"
        blob = seal(doc.players["alice"], json.dumps({"deck:12": base64.b64encode(share.to_bytes()).decode()}).encode(),
                    shares_info(doc.game_id, box, "alice"))
        return {**honest, "shares": {**honest["shares"], "alice": base64.b64encode(blob).decode()}}

    _carl_sends(cli, "w", wrong_key)
    cli.ok("resolve", "w", "--as", "mod")  # the moderator cannot open carl's sealed shares: it counts them
    r = cli.fails("show", "w", "--as", "alice")
    assert "carl's share of card 12 of the deck (dealt to alice) does not check" in r.err
    assert cli.ok("show", "w", "--as", "bob", "--json").json["cards"]["deck:13"]  # bob's drawn card is fine


def test_a_give_signing_another_record_of_whom_the_cards_went_to_is_refused_at_once(cli):
    from koryo_pbm.crypto.sign import sign

    _blind_korsar2(cli, "s")
    for p in ("alice", "bob"):
        status = cli.ok("status", "s", "--json").json
        (cli.cwd / "d.toml").write_text(f'game = "{status["id"]}"\ndecision = "{status["decision"]}"\naction = "draw"\n')
        cli.ok("submit", "d.toml", "--as", p, "--game", "s")
        cli.ok("resolve", "s", "--as", "mod")

    def other_record(honest, doc, carl):
        from koryo_pbm import blind
        from koryo_pbm.match import game_of

        st = game_of(doc).from_view(doc.public, {}, "carl")
        dealt = list(st.rules.dealt["deck"])
        dealt[12], dealt[13] = dealt[13], dealt[12]  # alice's draw said to be bob's, and bob's alice's
        signed = sign(carl, blind._DEALT_CONTEXT, blind._dealt_bytes(doc.game_id, "deck", blind._final(st, "deck"), dealt))
        return {**honest, "signature": base64.b64encode(signed).decode()}

    before = _carl_sends(cli, "s", other_record)
    r = cli("resolve", "s", "--as", "mod", "--json")
    assert r.code != 0 and len(r.err.strip().splitlines()) == 1
    assert r.json["envelopes"][0]["status"] == "rejected"
    assert "signature of whom the deck is dealt to" in r.json["envelopes"][0]["reason"]
    assert (cli.cwd / "s" / "game.toml").read_bytes() == before  # nothing counted: the game waits for carl


def test_a_blind_korsar_game_takes_bot_seats_but_refuses_missed_bot(cli):
    """Korsar's bot seats play at a blind table; ``--missed bot`` does not yet (an absent hand
    opened to the moderator carries no co-dealer share for a play): ``new`` refuses it in one
    line and writes nothing, rather than a game that would stop at the bot's turn."""
    lines = {n: cli.ok("keygen", n).out.strip() for n in ["mod", "alice", "bob", "carl"]}
    blind = ["--game", "korsar", "--as", "mod", "--blind", "--co-dealer", f"carl={lines['carl']}",
             "--player", f"alice={lines['alice']}", "--player", f"bob={lines['bob']}"]
    for extra in (["--deadline", "1h", "--missed", "bot"], ["--deadline", "1h", "--missed", "bot", "--bot-level", "random"],
                  ["--bot", "cat=random", "--deadline", "1h", "--missed", "bot"],
                  ["--missed", "bot"]):  # the blind table's reason first, not the missing deadline's
        r = cli.fails("new", "g", *blind, *extra)
        assert r.err == ("koryo-pbm: error: Korsar has no --missed bot at a blind table yet (its bot seats, --bot, "
                         "can play)\n"), r.err
        assert not (cli.cwd / "g").exists()
    r = cli.fails("new", "g", *blind, "--bot", "cat=expert")
    assert "expert" in r.err and len(r.err.strip().splitlines()) == 1 and not (cli.cwd / "g").exists()
    # a player is never a bot seat's partner at a blind table: the moderator would see their cards
    dealers = blind[:7]  # game, moderator, dealers
    four = [*dealers, "--player", f"alice={lines['alice']}", "--player", "cat=bot", "--player", f"bob={lines['bob']}",
            "--player", "dog=bot", "--bot", "cat=random", "--bot", "dog=random"]
    r = cli.fails("new", "g", *four, "--team", "alice,cat", "--team", "bob,dog")
    assert r.err == ("koryo-pbm: error: alice is the partner of bot seat cat: at a blind table the moderator, who runs "
                     "the bot, would see alice's cards (seat both partners as bots, or neither)\n"), r.err
    assert not (cli.cwd / "g").exists()
    cli.ok("new", "bots", *dealers, "--player", f"alice={lines['alice']}", "--player", f"bob={lines['bob']}",
           "--bot", "cat=random", "--bot", "dog=random", "--team", "alice,bob", "--team", "cat,dog")
    # a bot seat at either level is made; an open Korsar game keeps --missed bot
    for level in ("random", "heuristic"):
        out = cli.ok("new", level, *blind, "--bot", f"cat={level}", "--deadline", "1h").out
        assert "blind table: dealers mod and carl" in out
    cli.ok("new", "open", "--game", "korsar", "--as", "mod", "--player", f"alice={lines['alice']}",
           "--bot", "cat=random", "--deadline", "1h", "--missed", "bot")


def test_a_blind_korsar_bot_seat_plays_to_the_end_open_to_the_moderator_alone_and_verify_replays_it(cli):
    """Two players and cat, the moderator's heuristic bot, by shared folder to the end: both
    dealers seal cat's cards (its deal and every draw the co-dealer gives) to the moderator,
    whose key opens cat's hand and no player's; the bot's plays carry the co-dealer's share the
    moderator opened; ``verify`` chooses every bot order again from the audited cards."""
    lines = {n: cli.ok("keygen", n).out.strip() for n in ["mod", "alice", "bob", "carl"]}
    cli.ok("new", "g", "--game", "korsar", "--as", "mod", "--blind", "--co-dealer", f"carl={lines['carl']}",
           "--player", f"alice={lines['alice']}", "--player", f"bob={lines['bob']}", "--bot", "cat=heuristic",
           "--first", "alice")
    import copy
    import os

    from koryo_pbm.store import gamefile
    from koryo_pbm.store.keyring import find_identity

    os.environ["KORYO_PBM_HOME"] = str(cli.home)
    try:
        mod = find_identity("mod")
    finally:
        os.environ.pop("KORYO_PBM_HOME", None)
    checked = tampered = 0
    for _ in range(400):
        status = cli.ok("status", "g", "--json").json
        if status["decision"] is None:
            break
        if status["missing"] == ["carl"]:
            doc = gamefile.read_game(cli.cwd / "g" / "game.toml")
            rules = doc.public.get("rules") or {"give": []}  # none before the keys
            if not tampered and any(rules["dealt"]["deck"][int(x.partition(":")[2])] == "cat" for x in rules["give"]):
                # a give of a card cat drew, from a file re-signed with cat no bot seat in the record:
                # the co-dealer (another machine of its, no memory of the true file) seals nothing
                bad = copy.deepcopy(doc)
                bad.public["blind"].pop("bots")
                (cli.cwd / "bad-give" / "inbox").mkdir(parents=True)
                gamefile.write_game(cli.cwd / "bad-give" / "game.toml", bad, mod)
                r = cli.fails("co-deal", cli.cwd / "bad-give", "--key", cli.home / "keys" / "carl.key",
                              home=cli.home / "other")
                assert ("cat's seat holds the moderator's key, but the game's public record does not say it is a bot "
                        "seat" in r.err) and len(r.err.strip().splitlines()) == 1, r.err
                assert not list((cli.cwd / "bad-give" / "inbox").iterdir())
                tampered += 1
            cli.ok("co-deal", "g", "--as", "carl")
        else:
            for p in status["missing"]:
                cli.ok("orders", "g", "--as", p, "-o", cli.cwd / f"o-{p}.toml")
                cli.ok("submit", cli.cwd / f"o-{p}.toml", "--as", p, "--game", "g")
        if status["decision"].startswith("t") and status["missing"] != ["carl"] and checked < 3:
            # what the moderator's key opens: cat's hand (each share checked), no player's
            doc = gamefile.read_game(cli.cwd / "g" / "game.toml")
            hands = doc.public["rules"]["hands"]
            shown = cli.ok("inspect", "g", "--as", "mod", "--json").json
            parts = {p["part"]: p["data"] for p in shown["opened"]}
            assert "alice" not in parts and "bob" not in parts
            assert {"alice", "bob"} <= set(shown["not_opened"])
            assert set(parts["cat"]["cards"]) == {x for x in hands["cat"] if ":" in x} and hands["cat"]
            alice = cli.ok("show", "g", "--as", "alice", "--json").json["cards"]
            assert not set(alice) & set(parts["cat"]["cards"])
            checked += 1
        cli.ok("resolve", "g", "--as", "mod")
    else:
        raise AssertionError("the blind Korsar game with a bot seat did not end")
    assert checked == 3 and tampered == 1
    log = cli.ok("log", "g").out
    assert "cat is a bot seat: mod and carl seal its cards to the moderator, who runs its bot and sees its hand" in log
    played = log.count("the heuristic bot played cat's seat")
    assert played >= 5
    doc = gamefile.read_game(cli.cwd / "g" / "game.toml")
    import re

    bot_plays = [int(m[1]) for o in doc.replay["orders"] if o["player"] == "cat" and "share = " in o["orders"]
                 for m in [re.search(r'^slot = "deck:(\d+)"$', o["orders"], re.M)] if m]
    # cat's plays, each checked with the co-dealer's share the moderator opened: cards dealt, and
    # cards cat drew (the co-dealer's give sealed them to the moderator, the bot seat's key)
    assert min(bot_plays) < 18 <= max(bot_plays), bot_plays
    verified_with_bot_seat(cli, "g", "cat", played)
    # a bot order changed in the record and the file signed again (cat draws where its bot played a
    # card): verify's replay of the bot names the decision
    bad = copy.deepcopy(doc)
    item = next(o for o in bad.replay["orders"] if o["player"] == "cat" and 'action = "play"' in o["orders"])
    item["orders"] = re.sub(r'(?ms)^action = .*', 'action = "draw"\n', item["orders"])
    (cli.cwd / "bad").mkdir()
    gamefile.write_game(cli.cwd / "bad" / "game.toml", bad, mod)
    r = cli.fails("verify", "bad", "--json", home=cli.home / "fresh")
    failed = next(c for c in r.json["checks"] if not c["ok"])
    assert failed["check"] == "bots" and f"({item['decision']})" in failed["detail"], failed
    assert "the moderator did not play the bot's order" in failed["detail"] and '"share":"' in failed["detail"]
