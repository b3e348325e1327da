"""Trust, round four (issue 29): nobody cheats a blind table during the game. Each attack of the
issue, tried as the attacker would (a moderator with its key and the code, a co-dealer running
modified software), is refused when it is made: the fake end, the copied ciphertexts, the
stacked hand, two inputs under one deck id, the first-player grind."""

from __future__ import annotations

import base64
import os

import pytest
from test_cli_blind import _blind2, _carl_sends
from test_cli_bymail import make_keys

from koryo_pbm import blind, match
from koryo_pbm.crypto import blind as cb
from koryo_pbm.store import gamefile, inbox
from koryo_pbm.store.keyring import find_identity


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _identity(cli, name):
    """``name``'s key from the test's home (the environment left as it was)."""
    old = os.environ.get("KORYO_PBM_HOME")
    os.environ["KORYO_PBM_HOME"] = str(cli.home)
    try:
        return find_identity(name)
    finally:
        if old is None:
            del os.environ["KORYO_PBM_HOME"]
        else:
            os.environ["KORYO_PBM_HOME"] = old


@pytest.mark.parametrize("published", [False, True], ids=["nothing-published", "real-seed-and-orders"])
def test_a_fake_end_signed_by_the_moderator_releases_nothing(cli, published):
    """The moderator signs a next version of the real file whose public rules state says the game
    is over, while cards are in hands; with its seed, salt and every real order published, or not.
    The co-dealer refuses in one line naming what did not check and sends nothing (before issue
    29 it answered with its key share, and the moderator opened every card with both)."""
    from koryo_pbm_games.koryo.state import OVER

    _blind2(cli, "g")
    cli.ok("co-deal", "g", "--as", "carl")
    cli.ok("resolve", "g", "--as", "mod")  # dealt: r1-orders waits for the players
    mod = _identity(cli, "mod")
    path = cli.cwd / "g" / "game.toml"
    doc = gamefile.read_game(path)
    assert doc.decision["id"] == "r1-orders"
    game = match.game_of(doc)
    rules = game.rules.load_state(doc.public["rules"])
    rules.k.phase = OVER  # "the game is over"
    assert game.rules.pending(rules) is None
    fake = doc.replace(version=doc.version + 1, public={**doc.public, "rules": game.rules.dump_state(rules)},
                       decision={**doc.decision, "id": "end", "waiting_for": ["carl"], "received": []})
    if published:  # the moderator's real seed, salt and every signed order so far
        from koryo_pbm.match.resolution import publish_orders

        mv = match.open_moderator(doc, mod)
        fake = fake.replace(seed=mv.secrets.seed, salt=mv.secrets.salt,
                            replay={**mv.secrets.setup, "orders": publish_orders(mv, mv.secrets.played)})
    gamefile.write_game(path, fake, mod)
    r = cli("co-deal", "g", "--as", "carl")
    assert r.code != 0 and "Traceback" not in r.err and r.err.count("\n") == 1, r.err
    assert f"the end of game {doc.game_id} is not proven" in r.err
    if published:
        assert "the replayed game waits for r1-orders, not for end" in r.err
    else:
        assert "has not published its seed, salt and every signed order" in r.err
    assert not inbox.inbox_dir(cli.cwd / "g").is_dir() or not inbox.list_inbox(cli.cwd / "g")  # nothing released


@pytest.mark.parametrize("cheat", ["copied", "stacked"])
def test_a_cheating_last_shuffle_is_caught_by_its_proof_at_the_shuffle(cli, cheat):
    """The co-dealer (the last shuffler, modified software) puts re-randomised copies of alice's
    ciphertexts into dave's slots (dave would hold alice's hand, every share checking), or fresh
    encryptions of one card into alice's slots (a stacked hand). Its proof of the shuffle does not
    check: the moderator refuses the answer at once, nothing counted (before issue 29 it was
    counted, and only an end-of-game audit could catch it)."""
    lines = make_keys(cli, ["alice", "dave", "carl"])
    cli.ok("new", "g", "--as", "mod", "--blind", "--co-dealer", f"carl={lines['carl']}",
           "--player", f"alice={lines['alice']}", "--player", f"dave={lines['dave']}")
    cli.ok("co-deal", "g", "--as", "carl")
    cli.ok("resolve", "g", "--as", "mod")
    doc = gamefile.read_game(cli.cwd / "g" / "game.toml")
    game = match.game_of(doc)
    dealt = game._dealt_now(game.from_view(doc.public, {}, "carl"))
    alice = [i for i, r in enumerate(dealt) if r == "alice"]
    dave = [i for i, r in enumerate(dealt) if r == "dave"]
    card = doc.public["blind"]["decks"][0]["input"][0]
    real = cb.shuffle

    def cheating(deck, joint, seed, *, game_id, deck_id, dealer):
        out = list(real(deck, joint, seed, game_id=game_id, deck_id=deck_id, dealer=dealer))
        if dealer != "carl":
            return tuple(out)
        for i, j in zip(dave if cheat == "copied" else alice, alice, strict=False):
            r = cb.KeyShare.generate().secret
            if cheat == "copied":  # alice's card j, under fresh randomness, at dave's position i
                out[i] = cb.Ciphertext(cb._add(out[j].c1, cb._base(r)), cb._add(out[j].c2, cb._mul(r, joint)))
            else:  # a fresh encryption of one card
                out[i] = cb.Ciphertext(cb._base(r), cb._add(cb.card_point(card), cb._mul(r, joint)))
        return tuple(out)

    from unittest import mock

    with mock.patch.object(cb, "shuffle", cheating):
        before = _carl_sends(cli, "g", lambda honest, doc, carl: honest)
    r = cli("resolve", "g", "--as", "mod", "--json")
    assert r.code != 0, r.out
    reason = r.json["envelopes"][0]["reason"]
    assert "carl's shuffle of deck round-1: the shuffle proof does not check" in reason and "\n" not in reason
    assert (cli.cwd / "g" / "game.toml").read_bytes() == before  # nothing counted, the game waits


def test_two_inputs_under_one_deck_id_give_the_co_dealers_permutation_nothing(cli):
    """A moderator forks its file at the deal and asks the co-dealer (with no records, as `co-deal`
    on another machine) to shuffle deck round-1 twice, on two proven shuffles of its own whose
    randomness it knows. Before issue 29 both answers used one permutation and one set of scalars,
    and the difference of their first components, matched against the moderator's own
    differences, gave away where every card went; now the seeds differ and nothing matches."""
    _blind2(cli, "g")
    carl = _identity(cli, "carl")
    doc = gamefile.read_game(cli.cwd / "g" / "game.toml")
    game = match.game_of(doc)
    st = game.from_view(doc.public, {}, "carl")
    record = doc.public["blind"]["decks"][0]
    source = blind._input_deck(st, record["input"])
    joint = blind._joint(st)
    players = {n: k for n, k in doc.players.items() if n != "carl"}

    def fork(seed: bytes):
        _, scalars = cb.shuffle_plan(seed, doc.game_id, "round-1", "mod", len(source))
        out = cb.shuffle(source, joint, seed, game_id=doc.game_id, deck_id="round-1", dealer="mod")
        mine = {**record, "outputs": [_b64(cb.deck_to_bytes(out))]}
        if "proofs" in record:  # the proof the moderator makes of its forked shuffle: it checks
            mine["proofs"] = [blind.record.shuffle_proof(st, "round-1", "mod", source, out, seed)]
        public = {**doc.public, "blind": {**doc.public["blind"], "decks": [mine]}}
        body = blind.co_deal(game, public, players, carl, "r1-deal", doc.log, moderator=doc.moderator)
        return scalars, cb.deck_from_bytes(base64.b64decode(body["output"]))

    a1, y1 = fork(os.urandom(32))
    a2, y2 = fork(os.urandom(32))
    from nacl import bindings

    differences = {cb._base(bindings.crypto_core_ed25519_scalar_sub(a2[k], a1[k])) for k in range(len(source))}
    given_away = sum(1 for i in range(len(source)) if cb._sub(y2[i].c1, y1[i].c1) in differences)
    assert given_away == 0  # before issue 29: all 55


def test_the_co_dealer_cannot_choose_the_first_player(cli):
    """A co-dealer grinding its key share (12 key answers, each with a fresh secret sealed to
    itself and signed, as a modified co-dealer could send) gets one first player: it is fixed by
    the moderator's committed key share before the co-dealer's exists (before issue 29 a hash of
    both shares: with 4 players, the co-dealer could pick among all 4)."""
    from koryo_pbm.crypto.seal import seal
    from koryo_pbm.crypto.sign import sign

    make_keys(cli, ["carl"])
    carl = _identity(cli, "carl")
    from koryo_pbm.engine.registry import find_game

    game = blind.Dealing(find_game("koryo"))
    st = game.start("grind", ["alice", "bob", "carol", "dave"], ("mod", "carl"), carl.public.line(), "s" * 64)
    firsts = set()
    for _ in range(12):
        pub = cb.publish_key("grind", "carl", cb.KeyShare.generate())
        answer = {"point": _b64(pub.public), "proof": _b64(pub.proof)}
        if getattr(st, "version", 1) >= 2:
            from koryo_pbm.blind.record import keys_bytes, own_info

            answer["sealed"] = _b64(seal(carl.public, os.urandom(32), own_info("grind", "carl")))
            answer["signature"] = _b64(sign(carl, "koryo-pbm blind keys v1", keys_bytes(
                "grind", "carl", answer["point"], answer["proof"], answer["sealed"])))
        _, events = game.apply(st, {"carl": answer})
        firsts.add(next(e.data["first"] for e in events if "first" in e.data))
    assert len(firsts) == 1, firsts


def test_a_players_tools_and_the_co_dealer_check_the_shuffles_before_using_a_deck(cli):
    """A moderator that publishes a deck whose proof does not check (here the co-dealer's proof in
    place of its own) has alice's tools refuse to open her hand, naming the shuffle; one that stacks the
    first deck consistently (the rules' state, the record's input, its shuffle and a proof that
    checks all made from another catalogue) has the co-dealer refuse to shuffle it: the first
    deck's input must be the game's cards in catalogue order, from the rules themselves."""
    _blind2(cli, "g")
    path = cli.cwd / "g" / "game.toml"
    doc = gamefile.read_game(path)
    game = match.game_of(doc)
    st = game.from_view(doc.public, {}, "carl")
    record = doc.public["blind"]["decks"][0]
    # the co-dealer and a stacked first deck, proven consistently
    rules = game.rules.load_state(doc.public["rules"])
    rules.feed = [record["input"][0]] * len(record["input"])  # every card the same
    stacked = blind._input_deck(st, rules.feed)
    seed = os.urandom(32)
    out = cb.shuffle(stacked, blind._joint(st), seed, game_id=doc.game_id, deck_id="round-1", dealer="mod")
    forged = {**record, "input": list(rules.feed), "outputs": [_b64(cb.deck_to_bytes(out))]}
    if "proofs" in record:
        forged["proofs"] = [blind.record.shuffle_proof(st, "round-1", "mod", stacked, out, seed)]
    public = {**doc.public, "rules": game.rules.dump_state(rules),
              "blind": {**doc.public["blind"], "decks": [forged]}}
    players = {n: k for n, k in doc.players.items() if n != "carl"}
    with pytest.raises(blind.KoryoPbmError, match="the first deck, is not the game's cards in catalogue order"):
        blind.co_deal(game, public, players, _identity(cli, "carl"), "r1-deal", doc.log, moderator=doc.moderator)
    # the honest deal; then the record as alice's tools read it, the moderator's proof replaced
    cli.ok("co-deal", "g", "--as", "carl")
    cli.ok("resolve", "g", "--as", "mod")
    assert cli("show", "g", "--as", "alice").code == 0
    from koryo_pbm.store import gameparts

    doc = gamefile.read_game(path)
    alice = _identity(cli, "alice")
    part = gameparts.open_part(doc, "alice", alice)  # what `show --as alice` opens, with the record below
    assert blind.open_hand(doc.public, part, doc.game_id, "alice", alice, game)  # the honest record opens
    decks = [dict(d) for d in doc.public["blind"]["decks"]]
    decks[0]["proofs"] = [decks[0]["proofs"][1], decks[0]["proofs"][1]]
    public = {**doc.public, "blind": {**doc.public["blind"], "decks": decks}}
    with pytest.raises(cb.BlindCheckError, match="mod's shuffle of deck round-1: the shuffle proof does not check"):
        blind.open_hand(public, part, doc.game_id, "alice", alice, game)


def test_a_hand_of_one_forged_by_the_moderator_reveals_nothing(cli):
    """The moderator, at alice's reveal, signs a version in which alice placed one card alone (a
    hand of one: no signed order to show) where she placed others by her signed order: the state
    names one of the cards she discarded face down, the claim is gone and the log says "alice
    plays 1 card face down (the only legal move)". The co-dealer judges a hand of one from its own
    signed record of the deal (alice was dealt ten cards of deck round-1, not one): one line,
    nothing released (before, it revealed that card on the log's word)."""
    from test_cli_blind import _play_until

    _blind2(cli, "g")
    _play_until(cli, "g", lambda s: s["decision"].startswith("r1-reveal-") and s["missing"] == ["carl"])
    path = cli.cwd / "g" / "game.toml"
    doc = gamefile.read_game(path)
    game = match.game_of(doc)
    rules = game.rules.load_state(doc.public["rules"])
    player = doc.decision["id"].rpartition("-")[2]
    p = rules.k.players.index(player)
    record = doc.public["blind"]["decks"][0]
    mine = [f"round-1:{i}" for i, r in enumerate(record["recipients"]) if r == player]
    assert len(mine) > 1
    discarded = next(s for s in mine if s not in rules.facedown[p])
    rules.facedown[p] = [discarded]
    public = {**doc.public, "rules": game.rules.dump_state(rules),
              "blind": {k: v for k, v in doc.public["blind"].items() if k != "claim"}}
    forced = f"{player} plays 1 card face down (the only legal move)"
    log = [{**e, "events": [forced, *e.get("events", [])]} if e.get("decision") == "r1-orders" else e for e in doc.log]
    # the co-dealer's step on the forged public state and log
    players = {n: k for n, k in doc.players.items() if n != "carl"}
    with pytest.raises(blind.KoryoPbmError) as caught:
        blind.co_deal(game, public, players, _identity(cli, "carl"), doc.decision["id"], log, moderator=doc.moderator)
    said = str(caught.value)
    assert "\n" not in said and f"{player}'s face-down cards ({discarded}) are not revealed" in said, said
    assert "does not show the rules placed them alone" in said
    # had the co-dealer's own signed record of the deal given alice that one card of the deck (a
    # true hand of one: here the test signs such a record with carl's key), the card is revealed
    from koryo_pbm.crypto.sign import sign

    st = game.from_view(public, {}, "carl")
    alone = ["" if (r == player and f"round-1:{i}" != discarded) else r for i, r in enumerate(record["recipients"])]
    signed = sign(_identity(cli, "carl"), blind._DEALT_CONTEXT,
                  blind._dealt_bytes(doc.game_id, "round-1", blind._final(st, "round-1"), alone))
    one = {**public, "blind": {**public["blind"], "decks": [{**record, "recipients": alone, "signature": _b64(signed)},
                                                            *public["blind"]["decks"][1:]]}}
    body = blind.co_deal(game, one, players, _identity(cli, "carl"), doc.decision["id"], log, moderator=doc.moderator)
    assert list(body["shares"]) == [discarded]
    # and through co-deal: the forged version signed by the moderator
    gamefile.write_game(path, doc.replace(version=doc.version + 1, public=public), _identity(cli, "mod"))
    r = cli("co-deal", "g", "--as", "carl")
    assert r.code != 0 and "Traceback" not in r.err and r.err.count("\n") == 1, r.err
    assert f"({discarded}) are not revealed" in r.err
    assert not inbox.inbox_dir(cli.cwd / "g").is_dir() or not inbox.list_inbox(cli.cwd / "g")  # nothing released


def test_a_draw_from_inside_the_pile_on_a_forked_file_gets_nothing(cli):
    """alice and bob each draw (deck:12, deck:13): the co-dealer gives both before alice's turn.
    The moderator, holding bob's key, signs a fork of that version in which bob drew deck:40, a
    card from inside the pile (the rules' record, bob's hand and the give all say so). The
    co-dealer gives only the top of the pile by its own signed record of the deck: one line,
    nothing released (before, it sealed its share of deck:40 to bob, and the moderator knew a
    card some player would draw later)."""
    from test_cli_blind_korsar import _blind_korsar2

    _blind_korsar2(cli, "k")
    for p in ("alice", "bob"):
        status = cli.ok("status", "k", "--json").json
        (cli.cwd / "d.toml").write_text(f'game = "{status["id"]}"\ndecision = "{status["decision"]}"\naction = "draw"\n')
        cli.ok("submit", "d.toml", "--as", p, "--game", "k")
        cli.ok("resolve", "k", "--as", "mod")
    path = cli.cwd / "k" / "game.toml"
    doc = gamefile.read_game(path)
    assert doc.decision["id"] == "t3-give"
    game = match.game_of(doc)
    rules = game.rules.load_state(doc.public["rules"])
    assert rules.give == ["deck:12", "deck:13"]
    rules.k.hands["bob"] = [s if s != "deck:13" else "deck:40" for s in rules.k.hands["bob"]]
    rules.k.pile = ["deck:13", *(s for s in rules.k.pile if s != "deck:40")]
    rules.dealt["deck"][13], rules.dealt["deck"][40] = "", "bob"
    rules.give = ["deck:12", "deck:40"]
    public = {**doc.public, "rules": game.rules.dump_state(rules)}
    players = {n: k for n, k in doc.players.items() if n != "carl"}
    with pytest.raises(blind.KoryoPbmError) as caught:
        blind.co_deal(game, public, players, _identity(cli, "carl"), "t3-give", doc.log, moderator=doc.moderator)
    said = str(caught.value)
    assert "\n" not in said and "deck:12, deck:40 are not the top of the draw pile" in said, said
    assert "(next: deck:12, deck:13)" in said
    # through co-deal: the fork signed by the moderator
    gamefile.write_game(path, doc.replace(version=doc.version + 1, public=public), _identity(cli, "mod"))
    r = cli("co-deal", "k", "--as", "carl")
    assert r.code != 0 and "Traceback" not in r.err and r.err.count("\n") == 1, r.err
    assert "not the top of the draw pile" in r.err
    assert not inbox.inbox_dir(cli.cwd / "k").is_dir() or not inbox.list_inbox(cli.cwd / "k")  # nothing released


def test_a_draw_forked_at_the_drawers_own_turn_stops_the_game_on_the_co_dealers_machine(cli):
    """What is left of the fork of a draw (docs/blind-table.md): the moderator, holding bob's key,
    forks its file at bob's turn (in a home of its own, so its pins do not stop it): bob draws
    there, and the co-dealer gives him the top card. In the real file bob plays; the co-dealer, on
    the machine that keeps its pins, refuses the second history in one line, releasing nothing:
    the game cannot go on there, and the two signed versions prove the fork."""
    import shutil

    from test_cli_blind_korsar import _blind_korsar2

    _blind_korsar2(cli, "k")
    carl_home = cli.home.parent / "carl-home"
    shutil.copytree(cli.home, carl_home)  # the co-dealer's machine: its key, and pins of its own
    mod_home = cli.home.parent / "mod-fork-home"
    shutil.copytree(cli.home, mod_home)

    def draw(folder, player, home):
        status = cli.ok("status", folder, "--json", home=home).json
        (cli.cwd / "d.toml").write_text(f'game = "{status["id"]}"\ndecision = "{status["decision"]}"\naction = "draw"\n')
        cli.ok("submit", "d.toml", "--as", player, "--game", folder, home=home)
        cli.ok("resolve", folder, "--as", "mod", home=home)

    draw("k", "alice", cli.home)  # alice draws deck:12; bob's turn
    shutil.copytree(cli.cwd / "k", cli.cwd / "fork")
    draw("fork", "bob", mod_home)  # the fork: bob draws deck:13; the give waits for carl
    assert cli.ok("status", "fork", "--json", home=mod_home).json["decision"] == "t3-give"
    cli.ok("co-deal", "fork", "--as", "carl", home=carl_home)  # answered: the fork is all it has seen
    # the real game: bob plays a card
    orders = cli.cwd / "o-bob.toml"
    cli.ok("orders", "k", "--as", "bob", "-o", orders)
    assert 'action = "play"' in orders.read_text() or 'action = "launch"' in orders.read_text()
    cli.ok("submit", orders, "--as", "bob", "--game", "k")
    cli.ok("resolve", "k", "--as", "mod")
    assert cli.ok("status", "k", "--json").json["decision"] == "t3-give"
    r = cli("co-deal", "k", "--as", "carl", home=carl_home)
    assert r.code != 0 and "Traceback" not in r.err and r.err.count("\n") == 1, r.err
    assert "the moderator signed two different histories" in r.err and "(t2-bob)" in r.err
    assert not inbox.list_inbox(cli.cwd / "k")  # nothing released
