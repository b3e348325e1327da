"""The fair deal (issue 9, items 3 and 4): a salted seed commitment, the game id in the
generator, and the join step through which every player contributes randomness to the deal."""

from __future__ import annotations

import tomllib

from test_cli_bymail import make_keys

PLAYERS = ["alice", "bob", "carol"]


def new(cli, lines, folder="g", *extra, names=PLAYERS, game="koryo"):
    args = ["new", folder, "--game", game, "--as", "mod", *extra]
    for n in names:
        args += ["--player", f"{n}={lines[n]}"]
    return cli.ok(*args)


def public(cli, folder="g"):
    return tomllib.loads((cli.cwd / folder / "game.toml").read_text())


def hands(cli, folder="g", names=PLAYERS):
    return {p: cli.ok("show", folder, "--as", p, "--json").json["hand"] for p in names}


def test_a_new_game_waits_for_every_player_to_join_before_the_deal(cli):
    lines = make_keys(cli, PLAYERS)
    out = new(cli, lines).out
    assert "decision join: waiting for alice, bob, carol" in out
    assert "not dealt yet: every player joins first (koryo-pbm play g --as NAME, or orders and submit)" in out
    top = public(cli)
    assert top["format"] == "koryo-pbm-game/v4" and top["deal"] == "joined"
    assert "contributions" not in top
    assert top["public"] == {"not_dealt": True, "players": PLAYERS, "commitment": top["seed_commitment"]}
    # The moderator's secret is committed to before anyone contributes.
    assert top["seed_commitment"].startswith("sha256:") and "seed" not in top and "salt" not in top
    status = cli.ok("status", "g").out
    assert "decision join (join), waiting for alice, bob, carol" in status
    assert "deal: not dealt yet; every player joins first" in status
    shown = cli.ok("show", "g", "--as", "alice").out
    assert "Koryo: not dealt yet; the deal waits for every player to join" in shown
    assert "your move: koryo-pbm orders g --as alice" in shown
    assert "hand" not in cli.ok("show", "g", "--as", "alice", "--json").json

    # `orders` writes 32 fresh random bytes each time, never the same, never a bot's guess.
    first = cli.ok("orders", "g", "--as", "alice").out
    again = cli.ok("orders", "g", "--as", "alice").out
    c1 = tomllib.loads(first)["contribution"]
    c2 = tomllib.loads(again)["contribution"]
    assert len(c1) == 64 and c1 != c2 and "Keep the contribution as it is" in first
    # the player signs the commitment they join under with their contribution
    assert tomllib.loads(first)["commitment"] == top["seed_commitment"]

    # A join order that is not 32 bytes of hex is refused by submit, one line, nothing written.
    (cli.cwd / "bad.toml").write_text(f'game = "{top["game_id"]}"\ndecision = "join"\ncontribution = "00"\n')
    r = cli.fails("submit", "bad.toml", "--as", "alice", "--game", "g")
    assert "'contribution' must be 64 hex digits" in r.err
    (cli.cwd / "bad.toml").write_text(tomllib.loads(first) and first.replace(top["seed_commitment"], "sha256:" + "0" * 64))
    r = cli.fails("submit", "bad.toml", "--as", "alice", "--game", "g")
    assert "'commitment' must be the game file's seed commitment" in r.err
    assert not list((cli.cwd / "g" / "inbox").iterdir())

    # Nobody's hand exists before everyone joined: resolve with two of three deals nothing.
    cli.join("g", resolve=False)
    (cli.cwd / "g" / "inbox" / "join--carol.envelope").rename(cli.cwd / "carol-join.envelope")
    r = cli.ok("resolve", "g", "--as", "mod", "--json").json
    assert r["applied"] == [] and public(cli)["decision"]["received"] == ["alice", "bob"]
    (cli.cwd / "carol-join.envelope").rename(cli.cwd / "g" / "inbox" / "join--carol.envelope")
    r = cli.ok("resolve", "g", "--as", "mod", "--json").json
    assert r["applied"][0]["decision"] == "join"
    top = public(cli)
    contributions = top["contributions"]
    assert list(contributions) == PLAYERS and all(len(v) == 64 for v in contributions.values())
    assert top["decision"]["id"] == "r1-orders" and top["log"][0]["decision"] == "join"
    assert any(e.startswith("alice joined (contribution ") for e in top["log"][0]["events"])
    assert all(len(h) > 0 for h in hands(cli).values())
    assert "deal: fair, from the moderator's committed secret" in cli.ok("status", "g").out


def test_the_same_seed_in_two_games_deals_differently_and_says_it_is_the_moderators(cli):
    lines = make_keys(cli, PLAYERS)
    assert "deal: chosen by you (--seed): not fair-proof" in new(cli, lines, "g1", "--seed", "friday").out
    new(cli, lines, "g2", "--seed", "friday")
    a, b = public(cli, "g1"), public(cli, "g2")
    assert a["deal"] == b["deal"] == "seed" and a["game_id"] != b["game_id"]
    assert hands(cli, "g1") != hands(cli, "g2")
    # Salted: two commitments to one seed differ, and neither is the plain hash of the seed.
    assert a["seed_commitment"] != b["seed_commitment"]
    assert a["decision"]["id"] == "r1-orders"  # no join: the moderator chose the deal
    assert "deal: chosen by the moderator (a seed given at `new`): not fair-proof" in cli.ok("status", "g1").out
    assert "not fair-proof" in cli.ok("show", "g1").out
    assert cli.ok("show", "g1", "--json").json["deal"] == "seed"


def test_play_answers_the_join_with_one_confirmation(cli):
    lines = make_keys(cli, ["alice", "bob"])
    new(cli, lines, names=["alice", "bob"])
    r = cli.ok("play", "g", "--as", "alice", stdin="y\n")
    assert "join the game; your contribution to the deal: " in r.out
    assert "submitted alice's orders for join" in r.out
    cli.join("g")
    assert public(cli)["contributions"]["alice"] in r.out


def test_a_korsar_game_with_teams_joins_and_deals(cli):
    names = ["alice", "bob", "carol", "dave"]
    lines = make_keys(cli, names)
    new(cli, lines, "k", "--team", "alice,bob", "--team", "carol,dave", names=names, game="korsar")
    assert public(cli, "k")["decision"]["kind"] == "join"
    assert cli.join("k") == names
    assert public(cli, "k")["decision"]["id"] != "join"


def test_a_bad_first_player_is_refused_at_new_not_at_the_deal(cli):
    lines = make_keys(cli, PLAYERS)
    args = ["new", "g", "--as", "mod", "--first", "zed"]
    for n in PLAYERS:
        args += ["--player", f"{n}={lines[n]}"]
    cli.fails(*args)
    assert not (cli.cwd / "g").exists()


def test_the_bots_answer_a_join_from_their_own_generator():
    import random

    from koryo_pbm import fair
    from koryo_pbm.engine import bots
    from koryo_pbm.engine.registry import find_game

    game = fair.Joining(find_game("koryo"))
    state = fair.JoinState("koryo-0a1b2c3d4e", ("alice", "bob"), "the moderator's secret")
    for level in ("random", *bots.levels(game)):
        one = bots.choose(game, state, "alice", level, seed="one").order
        assert one == bots.choose(game, state, "alice", level, seed="one").order  # deterministic
        assert one != bots.choose(game, state, "alice", level, seed="two").order
        game.check(state, "alice", one)
    dealt, events = game.apply(state, {p: game.random_order(state, p, random.Random(p)) for p in ("alice", "bob")})
    assert game.pending(dealt).id == "r1-orders" and events[-1].kind == "deal"
    # the same contributions deal the same; another game id deals differently
    again, _ = game.apply(state, {p: game.random_order(state, p, random.Random(p)) for p in ("alice", "bob")})
    other = fair.JoinState("koryo-ffffffffff", ("alice", "bob"), "the moderator's secret")
    moved, _ = game.apply(other, {p: game.random_order(state, p, random.Random(p)) for p in ("alice", "bob")})
    assert game.dump_state(dealt) == game.dump_state(again) != game.dump_state(moved)


def test_hostile_join_orders_in_signed_envelopes_are_rejected_by_resolve(cli):
    """A player's own program may send anything: resolve checks every join order itself."""
    from koryo_pbm.crypto.envelope import make_envelope
    from koryo_pbm.crypto.keys import PublicIdentity, load_identity
    from koryo_pbm.store.gamefile import read_game
    from koryo_pbm.store.gamelog import head

    lines = make_keys(cli, ["alice", "bob"])
    new(cli, lines, names=["alice", "bob"])
    top = public(cli)
    alice = load_identity(cli.home / "keys" / "alice.key")
    mod = PublicIdentity.parse(top["moderator"])
    bodies = [
        'contribution = "00"',
        f'contribution = "{"ab" * 32}"',  # no commitment
        f'contribution = "{"ab" * 32}"\ncommitment = "sha256:{"0" * 64}"',  # another commitment
        f'contribution = "{"ab" * 32}"\ncommitment = "{top["seed_commitment"]}"\nextra = 1',
    ]
    for i, body in enumerate(bodies):
        text = f'game = "{top["game_id"]}"\ndecision = "join"\n{body}\n'
        env = make_envelope(alice, mod, game_id=top["game_id"], decision="join", player="alice", orders_text=text,
                            answers=head(read_game(cli.cwd / "g" / "game.toml")), submitted=f"2026-01-01T00:00:0{i}Z")
        (cli.cwd / "g" / "inbox" / f"hostile-{i}.envelope").write_text(env.armor())
    r = cli("resolve", "g", "--as", "mod", "--json")
    assert r.code == 3
    rejected = [c for c in r.json["envelopes"] if c["status"] == "rejected"]
    assert public(cli)["decision"]["received"] == []  # nothing of alice's was taken
    reasons = [c["reason"] for c in rejected]
    assert len(rejected) == 4 and sum("'contribution' must be 64 hex digits" in x for x in reasons) == 1
    assert sum("'commitment' must be the game file's seed commitment" in x for x in reasons) == 2
    assert sum("holds only 'contribution' and 'commitment'" in x for x in reasons) == 1
