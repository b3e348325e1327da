"""The player page against a dishonest moderator (issue 29, items 4 and 5), in headless Chromium.

The moderator has the code and its key: it can seal any menu into a player's part and sign any
file. Each attack below made the page of before sign what the moderator chose or accept what the
command line refuses:

* a join menu without ``fresh``, or with the placeholder in a comment: the page signed the
  contribution the moderator wrote (so the moderator chose the deal). Now the page writes the
  join itself: its own random bytes, the file's seed commitment;
* a label that differs from its order: the page showed the moderator's label and signed another
  order. Now every label of a finished choice is made from its order, and the exact order text
  signed is shown;
* a menu carrying an order the page cannot read strictly (a comment, a key no order has): the
  page of an older koryo-pbm signed it; the page of issue 29 refused it in one sentence; the page
  that runs the rules (issue 32) does not use a sealed menu where its rules give the choices;
* a game file signed with a torsion component in R, or by a mixed-order moderator key: the
  page's ZIP-215 check accepted what the command line refuses. Now both refuse.
"""

from __future__ import annotations

import base64
import sys
import zlib
from pathlib import Path

import pytest
from page_kit import Page

from koryo_pbm import choices, pagecore
from koryo_pbm.crypto.envelope import parse_one
from koryo_pbm.crypto.keys import PublicIdentity, load_identity
from koryo_pbm.store import gamefile as G
from koryo_pbm.store import gameparts

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "vectors"))
import make_ed25519_strict as ed

NAMES = ("alice", "bob")


@pytest.fixture
def players(cli):
    for n in (*NAMES, "mod"):
        cli.ok("keygen", n)
    return cli.home / "keys"


def _new(cli, keys: Path, *extra: str) -> Path:
    folder = cli.cwd / "g"
    cli.ok("new", folder, "--as", "mod", *[f"--player={n}={keys / (n + '.pub')}" for n in NAMES], *extra)
    return folder / "game.toml"


def _real_menu(path: Path, part: dict, seat: str) -> dict:
    """The menu an older koryo-pbm's resolve sealed into ``seat``'s part (``koryo_pbm/choices.py``'s
    layout), made of the rules' choices (``koryo_pbm/pagecore.py``): the real one."""
    table = pagecore.open_table(path.read_text(encoding="utf-8"), gameparts.compact_json(part), seat)
    summary = table.summary()
    nodes: list = []
    orders: list[str] = []

    def node(at: list[int]) -> int:
        step = table.step(at)
        i = len(nodes)
        nodes.append(None)
        options = []
        for k, o in enumerate(step["o"]):
            if "t" in o:
                if o["t"] not in orders:
                    orders.append(o["t"])
                options.append({"l": o["l"], "t": orders.index(o["t"])})
            else:
                options.append({"l": o["l"], "n": node([*at, k])})
        nodes[i] = {"q": step["q"], "o": options, **({"d": step["d"]} if "d" in step else {})}
        return i

    node([])
    return {"decision": summary["decision"], "root": {"n": 0}, "nodes": nodes, "orders": orders, "complete": True,
            **({"fresh": summary["fresh"]} if summary["fresh"] else {})}


def _encoded(menu: dict) -> str:
    squeeze = zlib.compressobj(9, zlib.DEFLATED, -15, 9)
    return base64.b64encode(squeeze.compress(gameparts.compact_json(menu).encode()) + squeeze.flush()).decode()


def _remenu(path: Path, keys: Path, seat: str, change) -> dict:
    """The moderator seals into ``seat``'s part the menu ``change`` makes of the real one, and signs
    the file (what a dishonest moderator can do with its key): returns the menu sealed."""
    mod, me = load_identity(keys / "mod.key"), load_identity(keys / f"{seat}.key")
    doc = G.decode(path.read_bytes())
    part = gameparts.open_part(doc, seat, me)
    menu = _real_menu(path, part, seat)
    assert choices.decode_menu(_encoded(menu)) == menu
    change(menu)
    part["menu"] = _encoded(menu)
    sealed = dict(doc.sealed)
    sealed[seat] = gameparts.seal_part(doc, seat, me.public, part, size=len(gameparts.compact_json(part).encode()) + 64)
    path.write_bytes(G.encode(doc.replace(sealed=sealed), mod))
    return menu


def _opened(armored: str, keys: Path, seat: str) -> str:
    """The orders text an envelope carries, as the moderator's resolve opens it."""
    return parse_one(armored).open(load_identity(keys / "mod.key"), load_identity(keys / f"{seat}.key").public)


def _click(page: Page, index: int) -> str:
    page.d.execute_script("document.getElementById('envelope').value = ''")
    page.all("[data-choice]")[index].click()
    return page.envelope()


CHOSEN = "ab" * 32  # the contribution the moderator wants alice to sign


def _without_fresh(menu: dict) -> None:
    menu.pop("fresh", None)
    menu["orders"][0] = menu["orders"][0].replace("0" * 64, CHOSEN)


def _placeholder_in_a_comment(menu: dict) -> None:
    text = menu["orders"][0]
    menu["orders"][0] = text.replace(f'contribution = "{"0" * 64}"\n',
                                     f'contribution = "{CHOSEN}"\n# contribution = "{"0" * 64}"\n')
    assert menu["orders"][0] != text and menu.get("fresh") == "contribution"


@pytest.mark.parametrize("attack", [_without_fresh, _placeholder_in_a_comment], ids=["no fresh", "comment placeholder"])
def test_the_moderator_cannot_choose_a_page_players_join(page, cli, players, attack):
    game = _new(cli, players)
    _remenu(game, players, "alice", attack)
    said = page.open_game(game, players / "alice.key", "")
    assert said.startswith("opened:"), said
    text = _opened(_click(page, 0), players, "alice")
    doc = G.decode(game.read_bytes())
    signed = dict(line.split(" = ", 1) for line in text.splitlines())
    assert signed["contribution"] != f'"{CHOSEN}"', "the page signed the moderator's contribution"
    assert len(signed["contribution"]) == 66 and signed["commitment"] == f'"{doc.seed_commitment}"'
    assert text == (f'game = "{doc.game_id}"\ndecision = "join"\ncontribution = {signed["contribution"]}\n'
                    f'commitment = "{doc.seed_commitment}"\n')  # the command line's join, byte for byte
    assert page.by("#signed-order").get_attribute("textContent") == text
    # the envelope counts: resolve accepts the page's join
    (game.parent / "inbox" / "join--alice.envelope").write_text(page.by("#envelope").get_attribute("value"))
    status = cli.ok("resolve", game.parent, "--as", "mod", "--json").json
    assert "alice" not in cli.ok("status", game.parent, "--json").json["missing"], status


def test_a_label_cannot_hide_another_order(page, cli, players):
    """The moderator swaps the labels of two plays: the page shows each play as its order says,
    and what is signed is what the chosen button says (and is shown, exactly)."""
    game = _new(cli, players, "--seed", "labels", "--first", "alice")
    real: dict = {}

    def swap(menu: dict) -> None:
        options = menu["nodes"][0]["o"]
        texts = [menu["orders"][o["t"]] for o in options]
        # two plays neither of whose descriptions is part of the other's
        labels = [o["l"] for o in options]
        i, j = next((i, j) for i in range(len(labels)) for j in range(i + 1, len(labels))
                    if labels[i] not in labels[j] and labels[j] not in labels[i])
        real.update(i=i, j=j, labels=labels, texts=texts)
        options[i]["l"], options[j]["l"] = labels[j], labels[i]

    _remenu(game, players, "alice", swap)
    said = page.open_game(game, players / "alice.key", "")
    assert said.startswith("opened:"), said
    for k, other in ((real["i"], real["j"]), (real["j"], real["i"])):
        shown = page.all("[data-choice]")[k].text
        text = _opened(_click(page, k), players, "alice")
        assert text == real["texts"][k]
        assert real["labels"][k] in shown and real["labels"][other] not in shown, (shown, real["labels"][k])
        assert page.by("#signed-order").get_attribute("textContent") == text
        assert page.by("#signed-label").text == shown
        page.by("#back").click()


@pytest.mark.parametrize("extra", ["# the moderator's note\n", 'bonus = "yes"\n'], ids=["comment", "unknown key"])
def test_a_menu_with_an_order_not_read_strictly_is_not_offered(page, cli, players, extra):
    """The page runs the rules: a menu the moderator sealed is not used where they give the
    choices, so its spoiled order is never offered (the page of issue 29 refused the menu)."""
    game = _new(cli, players, "--seed", "strict", "--first", "alice")

    def spoil(menu: dict) -> None:
        menu["orders"][-1] += extra

    spoiled = _remenu(game, players, "alice", spoil)
    said = page.open_game(game, players / "alice.key", "")
    assert said.startswith("opened:"), said
    offered = page.d.execute_script("return window.koryoPbmChoices()")
    assert spoiled["orders"][-1] not in offered["all"] and all(extra not in t for t in offered["all"])
    assert set(offered["all"]) >= {t for t in spoiled["orders"] if extra not in t}  # the rules' own choices


def _moderator_secret(keys: Path) -> tuple[int, bytes]:
    seed = load_identity(keys / "mod.key").sign_key.private_bytes_raw()
    return ed.secret(seed)


def _resigned(data: bytes, public: bytes, a: int, prefix: bytes, *, torsion: bool) -> bytes:
    cut = data.rfind(b"\n", 0, len(data) - 1) + 1
    body = data[:cut]
    sig = ed.signature(a, prefix, public, G.signed_message(body), torsion=torsion)
    return body + f'signature = "{base64.b64encode(sig).decode()}"\n'.encode()


def test_a_torsion_signature_is_refused_by_the_page_as_by_the_command_line(page, cli, players):
    """R moved by a point of order 8: noble's ZIP-215 check (the page before) accepted it,
    ``cryptography`` (the command line) refuses it; now both refuse."""
    game = _new(cli, players, "--seed", "torsion", "--first", "alice")
    a, prefix = _moderator_secret(players)
    mod_public = load_identity(players / "mod.key").public.raw[:32]
    data = game.read_bytes()
    assert _resigned(data, mod_public, a, prefix, torsion=False) == data  # the signature as the library makes it
    forged = _resigned(data, mod_public, a, prefix, torsion=True)
    assert ed.zip215(mod_public, G.signed_message(forged[:forged.rfind(b"\n", 0, len(forged) - 1) + 1]),
                     base64.b64decode(forged.rsplit(b'"', 2)[1]))
    bad = game.parent / "torsion.toml"
    bad.write_bytes(forged)
    r = cli.fails("status", bad)
    assert "does not verify" in r.err or "signature" in r.err, r.err
    said = page.open_game(bad, players / "alice.key", "")
    assert "does not verify" in said, said
    assert page.by("#game").get_attribute("hidden") is not None


def test_a_mixed_order_moderator_key_is_refused_by_the_page_as_by_the_command_line(page, cli, players):
    """The moderator's key moved by a point of order 8, the file signed with its secret: a
    ZIP-215 check accepts every signature of it; the command line refuses the key; so does the page."""
    game = _new(cli, players, "--seed", "mixed", "--first", "alice")
    a, prefix = _moderator_secret(players)
    mod = load_identity(players / "mod.key").public
    mixed = ed.encode(ed.add(ed.decode(mod.raw[:32]), ed.decode(ed.T8)))
    line = "koryo-pbm-pub-v1:" + base64.urlsafe_b64encode(mixed + mod.raw[32:]).decode().rstrip("=")
    data = game.read_bytes().replace(mod.line().encode(), line.encode())
    forged = _resigned(data, mixed, a, prefix, torsion=False)
    body = forged[:forged.rfind(b"\n", 0, len(forged) - 1) + 1]
    assert ed.zip215(mixed, G.signed_message(body), base64.b64decode(forged.rsplit(b'"', 2)[1]))
    with pytest.raises(Exception, match="not a point of the prime-order group"):
        PublicIdentity.parse(line)
    bad = game.parent / "mixed.toml"
    bad.write_bytes(forged)
    assert "not a point of the prime-order group" in cli.fails("status", bad).err
    said = page.open_game(bad, players / "alice.key", "")
    assert "not a point of the prime-order group" in said, said
    assert page.by("#game").get_attribute("hidden") is not None


FORGE_PINS = """
for (const k of Object.keys(localStorage)) {
  if (!k.startsWith('koryo-pbm/pin')) continue;
  const walk = (v) => { if (v && typeof v === 'object') for (const f of Object.keys(v)) {
    if (f === 'moderator') v[f] = '0000000000000000'; else walk(v[f]); } return v; };
  localStorage.setItem(k, JSON.stringify(walk(JSON.parse(localStorage.getItem(k)))));
}
return Object.keys(localStorage).filter((k) => k.startsWith('koryo-pbm/pin')).length"""


def test_a_pin_rewritten_by_another_local_page_is_not_used(page, cli, players):
    """Item 8: a page opened from the disk shares the browser's storage with other local files
    (Chromium): one of them rewrites what the page remembers of a game (here: another moderator
    key, to make the genuine file look forged). The pins are signed with the player's key: a
    rewritten one is not used, and the page says so."""
    game = _new(cli, players, "--seed", "pins", "--first", "alice")
    assert page.open_game(game, players / "alice.key", "").startswith("opened:")
    assert page.d.execute_script(FORGE_PINS) == 1
    said = page.open_game(game, players / "alice.key", "")
    assert said.startswith("opened:"), said
    assert "not signed by your key" in page.by("#news").text
    # the pin written again is the page's own, signed: the next open uses it without a word
    said = page.open_game(game, players / "alice.key", "")
    assert said.startswith("opened:") and "not signed by your key" not in page.by("#news").text


def test_the_page_claims_no_hash_of_itself_and_says_how_to_check_it(page):
    """Item 8: a modified page could show any hash of itself; the page shows none and tells the
    player how to check the file with a tool of their own."""
    page.by("#page-check summary").click()
    told = page.by("#page-check").text
    assert "koryo-pbm player-page --check FILE" in told and "sha256sum FILE" in told and "certutil" in told
    assert "This page's code: SHA-256" not in page.d.execute_script("return document.body.innerText")
    note = page.by("#remember-note").text
    assert "opened from your disk" in note and "passphrase" in note
