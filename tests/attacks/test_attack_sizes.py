"""Sizes leak nothing that is not public (issue 9, item 2).

A sealed part's size depends only on its shape (the lengths of its lists: hand sizes and the
like, which are public), never on which cards are in it; the moderator's part keeps the same
size whether 0, 1, 2 or 3 orders are held; every legal order of a decision gives one envelope
size. Each test enumerates the secrets of one public shape, seals them for real and counts the
sizes.
"""

from __future__ import annotations

import base64
import itertools
import tomllib
from collections import defaultdict

import pytest
from attack_kit import PLAYERS4, assert_refused, identity

from koryo_pbm.engine.registry import find_game
from koryo_pbm.engine.simulate import play_random
from koryo_pbm.store import gamedoc, gameparts

KORYO4 = ["alice", "bob", "carol", "dave"]


def sealed_size(part: dict) -> int:
    return len(base64.b64decode(part["data"]))


def shape(value):
    """What is public of a part: its keys and the lengths of its lists (not what they hold)."""
    if isinstance(value, dict):
        return tuple((k, shape(v)) for k, v in value.items())
    if isinstance(value, list):
        return ("list", len(value))
    return type(value).__name__


def states_of(game_name: str, players: list[str], seeds: range, options=None):
    """Every state of random matches (all their decisions), for many seeds."""
    game = find_game(game_name)
    found = []
    for seed in seeds:
        play_random(game, players, f"sizes-{seed}", options=options,
                    after=lambda state, _events: found.append(state))
    return game, found


def doc_for(world, players):
    mod = identity(world, "mod")
    keys = {p: identity(world, p).public for p in players}
    return gamedoc.GameDoc(game_id="sizes-1", game="koryo", version=3, moderator=mod.public,
                            seed_commitment=gamedoc.seed_commitment("s", "00" * 32), players=keys)


@pytest.mark.parametrize("game_name,players,options", [
    ("koryo", KORYO4, None),
    ("korsar", ["alice", "bob", "carol", "dave"], None),
    ("korsar", ["alice", "bob", "carol", "dave"], {"teams": True}),
])
def test_a_players_part_has_one_size_for_each_hand_size(world, game_name, players, options):
    """Hands from 40 random matches, every decision, every seat: one sealed size per shape
    (hand size, face-down or loot size, a partner's), whatever the cards. A part a seat holds
    unchanged from one decision to the next (most of them: the others played) is sealed once:
    sealing the same bytes again gives the same size, so only distinct parts are sealed."""
    game, states = states_of(game_name, players, range(40), options)
    doc = doc_for(world, players)
    sizes: dict[tuple, set[int]] = defaultdict(set)
    contents: dict[tuple, set[str]] = defaultdict(set)
    sealed: set[tuple] = set()
    for state in states:
        for name in players:
            private = game.private(state, name)
            key = shape(private)
            text = gameparts.compact_json(private)
            contents[key].add(text)
            if (name, key, text) in sealed:
                continue
            sealed.add((name, key, text))
            part = gameparts.seal_part(doc, name, doc.players[name], private)
            sizes[key].add(sealed_size(part))
    assert len(sizes) >= 8
    assert sum(len(c) for c in contents.values()) > 1000  # many different hands of each size
    assert max(len({len(c) for c in group}) for group in contents.values()) > 3  # lengths differ
    assert {k: len(v) for k, v in sizes.items()} == {k: 1 for k in sizes}


@pytest.mark.parametrize("size", [0, 1, 2, 3, 4])
def test_every_koryo_hand_of_a_size_seals_to_one_size(world, size):
    """Every hand of 0 to 4 cards from Koryo's 11 kinds (all 1,001 of size 4), sealed as a
    player's part, takes one size: the longest names ('broadcaster', 'omniscient') and the
    shortest ('spy') are not told apart."""
    from koryo_pbm_games.koryo.cards import CARD_IDS

    doc = doc_for(world, KORYO4)
    seen = set()
    for hand in itertools.combinations_with_replacement(sorted(CARD_IDS), size):
        part = gameparts.seal_part(doc, "alice", doc.players["alice"],
                                  {"player": "alice", "hand": list(hand), "facedown": ["spy"] * (size % 2)})
        seen.add(sealed_size(part))
    assert len(seen) == 1


def test_a_part_opens_only_with_spaces_as_padding(world):
    from koryo_pbm.crypto.seal import seal
    from koryo_pbm.errors import FormatError

    doc = doc_for(world, KORYO4)
    alice = identity(world, "alice")
    part = gameparts.seal_part(doc, "alice", alice.public, {"hand": ["spy"]})
    assert gameparts.open_part(dataclass_with(doc, alice=part), "alice", alice) == {"hand": ["spy"]}
    fpr = alice.public.fingerprint()
    for padding in (b"\n", b"\t  ", b" x", b"\x00"):
        blob = seal(alice.public, b'{"hand":["spy"]}' + padding, gameparts.part_info(doc.game_id, doc.version,
                                                                                   "alice", fpr))
        bad = {"recipient": fpr, "data": base64.b64encode(blob).decode()}
        with pytest.raises(FormatError):
            gameparts.open_part(dataclass_with(doc, alice=bad), "alice", alice)


def dataclass_with(doc, **parts):
    return doc.replace(sealed={**doc.sealed, **parts})


# -- the moderator's part and held orders -------------------------------------------------------


def moderator_part_size(path) -> int:
    top = tomllib.loads(path.read_text(encoding="utf-8"))
    return sealed_size(top["sealed"]["moderator"])


def test_the_moderators_part_does_not_grow_with_held_orders(arena):
    """A 4-player game of Koryo: the moderator's part after 0, 1, 2 and 3 orders held (the
    longest legal order of one player, the shortest of another) has one size, so the last
    player learns nothing of what the others chose; the orders are all held (status shows them)."""
    from koryo_pbm import match

    folder = arena.game(arena.world.g4_v1)
    path = folder / "game.toml"
    sizes = [moderator_part_size(path)]
    doc = match.load_doc(path)
    game = match.game_of(doc)
    lengths = []
    for n, p in enumerate(PLAYERS4[:3]):
        _, private = match.open_private(doc, identity(arena.world, p))
        orders = legal_orders(game, match.player_state(doc, game, p, private), p)
        order = sorted(orders, key=lambda o: len(gameparts.compact_json(o)))[-1 if n % 2 == 0 else 0]
        lengths.append(len(gameparts.compact_json(order)))
        text = orders_text(doc.game_id, doc.decision["id"], order)
        (arena.cwd / f"{p}.toml").write_text(text)
        arena.ok("submit", f"{p}.toml", "--as", p, "--game", folder)
        arena.ok("resolve", folder, "--as", "mod")
        assert arena.ok("status", folder, "--json").json["received"] == PLAYERS4[: n + 1]
        sizes.append(moderator_part_size(path))
    assert len(set(lengths)) > 1
    assert len(set(sizes)) == 1, sizes


def test_the_orders_kept_for_the_replay_take_one_size_whatever_they_say(arena):
    """Once a decision is applied, every order is kept in the moderator's part until the end,
    for the replay then published: the shortest and the longest legal orders take one size
    there (padded as the envelopes padded them), not whole envelopes (most of whose size is a
    ciphertext that checks nothing more), and what is published is what each player signed."""
    from koryo_pbm import match

    folder = arena.game(arena.world.g4_v1)
    path = folder / "game.toml"
    doc = match.load_doc(path)
    game = match.game_of(doc)
    decision = doc.decision["id"]
    signed = {}
    for n, p in enumerate(PLAYERS4):
        _, private = match.open_private(doc, identity(arena.world, p))
        orders = legal_orders(game, match.player_state(doc, game, p, private), p)
        order = sorted(orders, key=lambda o: len(gameparts.compact_json(o)))[-1 if n % 2 == 0 else 0]
        (arena.cwd / f"{p}.toml").write_text(orders_text(doc.game_id, decision, order))
        arena.ok("submit", f"{p}.toml", "--as", p, "--game", folder)
        signed[p] = match.canonical_orders(doc.game_id, decision, order)
    assert len({len(t) for t in signed.values()}) > 1
    arena.ok("resolve", folder, "--as", "mod")
    mv = match.open_moderator(match.load_doc(path), identity(arena.world, "mod"))
    kept = [e for e in mv.secrets.played if e["decision"] == decision]
    assert [e["player"] for e in kept] == PLAYERS4 and not any("envelope" in e for e in kept)
    assert len({gameparts.padded_size({"kept": e}) for e in kept}) == 1
    archived = sorted((folder / "archive").rglob("*.envelope"))
    assert len(archived) == 4
    whole = min(gameparts.padded_size({"kept": {"decision": decision, "player": "alice", "envelope": a.read_text()}})
                for a in archived)  # what was kept before: the whole envelope
    assert max(gameparts.padded_size({"kept": e}) for e in kept) < whole * 0.85, whole
    published = match.publish_orders(mv, kept)
    assert {e["player"]: e["orders"] for e in published} == signed
    assert all("length" not in e for e in published)


# -- legal orders ---------------------------------------------------------------------------------


def legal_orders(game, state, player, limit: int = 20000) -> list[dict]:
    """Every legal order of ``player``, through the game's menus (each option leads to one)."""
    out: list[dict] = []

    def walk(picked):
        assert len(out) < limit, "too many legal orders to enumerate"
        answer = game.menu(state, player, picked)
        if isinstance(answer, dict):
            out.append(answer)
            return
        for option in answer.options:
            walk([*picked, option.value])

    walk([])
    return out


def orders_text(game_id: str, decision: str, order: dict) -> str:
    import tomli_w

    return tomli_w.dumps({"game": game_id, "decision": decision, **order})



# -- envelopes ------------------------------------------------------------------------------------


def sample_decisions(game_name: str, players: list[str], want: dict, seeds: range, options=None):
    """States of random matches whose pending decision is of each kind wanted, with a variety
    of hand sizes: ``want`` maps a decision kind to how many samples of it to take (one per
    shape of the answering player's part: hand and face-down or loot sizes)."""
    game = find_game(game_name)
    picked: dict[tuple, tuple] = {}

    def after(state, _events):
        decision = game.pending(state)
        if decision is None or decision.kind not in want:
            return
        player = decision.players[0]
        key = (decision.kind, shape(game.private(state, player)))
        if key not in picked and sum(k[0] == decision.kind for k in picked) < want[decision.kind]:
            picked[key] = (state, player)

    for seed in seeds:
        play_random(game, players, f"envelope-sizes-{seed}", options=options, after=after)
    return game, picked


def real_doc(world, game, state, players):
    """A game file's document holding ``state`` (what the player's tools read it from)."""
    from koryo_pbm import match

    mod = identity(world, "mod")
    doc = gamedoc.GameDoc(game_id=f"{game.name}-sizes", game=game.name, version=1, moderator=mod.public,
                           seed_commitment=gamedoc.seed_commitment("s", "00" * 32),
                           players={p: identity(world, p).public for p in players})
    match._fill(doc, game, state, match._secret(match.Secrets("s", "00" * 32), {}, {}))
    return doc


@pytest.mark.parametrize("game_name,want", [
    ("koryo", {"orders": 4, "action": 3, "discard": 1}),
    ("korsar", {"turn": 12}),
])
def test_every_legal_order_of_a_decision_gives_one_envelope_size(world, game_name, want):
    """Sample decisions (Koryo: order phases with hands of several sizes, action turns, end-phase
    discards; Korsar: turns with hands of several sizes): every legal order, written as a player
    might (with comments and spacing), is checked, signed and sealed by the real ``submit`` code;
    all envelopes of one decision have one size."""
    from koryo_pbm import match
    from koryo_pbm.cli.submit import seal_orders

    game, picked = sample_decisions(game_name, KORYO4, want, range(30))
    assert {k[0] for k in picked} == set(want) and len(picked) == sum(want.values())
    total = 0
    for (kind, hand), (state, player) in picked.items():
        doc = real_doc(world, game, state, KORYO4)
        me = identity(world, player)
        _, private = match.open_private(doc, me)
        orders = legal_orders(game, match.player_state(doc, game, player, private), player)
        sizes = set()
        for i, order in enumerate(orders):
            text = "# " + "my thoughts, " * (i % 7) + "\n\n" + orders_text(doc.game_id, doc.decision["id"], order)
            sizes.add(len(seal_orders(doc, game, me, text).armor()))
        assert len(sizes) == 1, (kind, hand, len(orders), sizes)
        total += len(orders)
    assert total > 20


def test_the_canonical_form_of_an_order_reads_back_as_the_same_order():
    """What ``submit`` seals instead of the player's text is the same order: any TOML table of
    texts (quotes, control characters, any Unicode), numbers, booleans, lists and tables reads
    back equal from its canonical form."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from koryo_pbm.match import canonical_orders

    text = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)
    scalars = text | st.integers(-(2**63), 2**63 - 1) | st.booleans()
    values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                          | st.dictionaries(text, inner, max_size=4), max_leaves=12)

    @settings(max_examples=300, deadline=None)
    @given(st.dictionaries(text.filter(lambda k: k not in ("game", "decision")), values, max_size=4))
    def case(body):
        written = canonical_orders("koryo-0123456789", "r1-orders", body)
        assert tomllib.loads(written) == {"game": "koryo-0123456789", "decision": "r1-orders", **body}
        assert written.count("\n") == 2 + len(body)  # one line per key: the compact form, always

    case()


def test_the_moderators_part_does_not_show_mail_addresses(arena):
    """Players' mail addresses are kept in the moderator's part, each padded to the 254
    characters RFC 5321 allows: no address, a short one, the longest allowed, for one player or
    all, the part keeps one size. A longer address is refused in one line, nothing changed;
    every change is logged publicly (that an address changed, never the address)."""
    folder = arena.game(arena.world.g4_v1)
    path = folder / "game.toml"
    longest = "a" * 64 + "@" + "b" * 63 + "." + "c" * 63 + "." + "d" * 57 + ".org"
    assert len(longest) == 254
    sizes = [moderator_part_size(path)]
    for changes in (["alice=a@b.io"], [f"alice={longest}"], [f"{p}={longest}" for p in PLAYERS4],
                    ["bob=b@example.org"], ["--remove", "alice"]):
        arena.ok("address", folder, "--as", "mod", *changes)
        sizes.append(moderator_part_size(path))
    assert len(set(sizes)) == 1, sizes
    before = path.read_bytes()
    line = assert_refused(arena("address", folder, "--as", "mod", f"carol=a{longest}"), code=2)
    assert line == "koryo-pbm: error: carol's address is 255 characters long: RFC 5321 allows at most 254"
    assert path.read_bytes() == before
    text = path.read_text(encoding="utf-8")
    assert "example.org" not in text and "a@b.io" not in text and longest not in text
    events = [e for entry in tomllib.loads(text)["log"] for e in entry["events"]]
    assert events == ["the moderator set alice's mail address", "the moderator changed alice's mail address",
                      "the moderator set bob's mail address",
                      "the moderator set carol's mail address", "the moderator set dave's mail address",
                      "the moderator changed bob's mail address", "the moderator removed alice's mail address"]
    status = arena.ok("status", folder, "--json").json
    assert status["decision"] == "r1-orders"  # nothing resolved


def test_the_orders_a_bot_played_are_kept_in_one_size_whatever_they_say(arena):
    """An order the moderator's bot played for a seat is kept in the moderator's part until the
    end padded as a player's is: the part's size does not tell what the bot chose; published,
    it is the order as played."""
    from koryo_pbm import match
    from koryo_pbm.match.resolution import _bot_record

    folder = arena.game(arena.world.g4_v1)
    doc = match.load_doc(folder / "game.toml")
    game = match.game_of(doc)
    decision = doc.decision["id"]
    mv = match.open_moderator(doc, identity(arena.world, "mod"))
    _, private = match.open_private(doc, identity(arena.world, "bob"))
    orders = sorted(legal_orders(game, match.player_state(doc, game, "bob", private), "bob"),
                    key=lambda o: len(gameparts.compact_json(o)))
    texts = [match.canonical_orders(doc.game_id, decision, o) for o in (orders[0], orders[-1])]
    assert len(texts[0]) != len(texts[1])
    kept = [_bot_record(decision, "bob", "heuristic", t) for t in texts]
    assert len({gameparts.padded_size({"kept": e}) for e in kept}) == 1
    published = match.publish_orders(mv, kept)
    assert [e["orders"] for e in published] == texts
    assert all(set(e) == {"decision", "player", "bot", "orders"} for e in published)
