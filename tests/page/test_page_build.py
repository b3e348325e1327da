"""The player page: its build, its bytes, its byte-compatibility with the Python code.

* the committed page (``koryo_pbm/assets/player-page.html``) is what ``player-page/`` builds
  (``npm ci`` then ``node build.mjs``), byte for byte;
* the page's protocol code passes its node tests against the vectors Python made
  (``tests/vectors/interop.json``), and those vectors hold for the Python code of today;
* an envelope made by the page's code is opened by Python and counted by ``resolve``;
* ``koryo-pbm player-page`` writes the page and tells a genuine page from another.

Node is needed for the first three (a skip naming the install command; a failure under CI=true).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ROOT / "player-page"
VECTORS = ROOT / "tests" / "vectors" / "interop.json"


def _require_node() -> str:
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        if os.environ.get("CI") == "true":
            pytest.fail("node and npm are missing (CI=true): apt-get install nodejs npm")
        pytest.skip("the player page is built with node: apt-get install nodejs npm")
    return node


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """``player-page/`` with its pinned dependencies installed (``npm ci``, once) and the page
    built from it into a folder of its own."""
    _require_node()
    installed = SOURCES / "node_modules" / ".package-lock.json"  # npm's record of what it installed
    if not installed.exists() or installed.stat().st_mtime < (SOURCES / "package-lock.json").stat().st_mtime:
        r = subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts"], cwd=SOURCES,
                           capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, r.stderr[-2000:]
    out = tmp_path_factory.mktemp("page") / "player-page.html"
    r = subprocess.run(["node", "build.mjs", str(out)], cwd=SOURCES, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    return out


def test_the_committed_page_is_what_the_sources_build(built):
    from koryo_pbm.assets import player_page

    assert built.read_bytes() == player_page(), (
        "koryo_pbm/assets/player-page.html differs from a fresh build of player-page/: "
        "run `cd player-page && npm ci && node build.mjs` and commit the page")


def test_the_page_is_one_file_that_reaches_nothing():
    """One file, at most 8 MB, whose only code is its one inline script (allowed by hash); the
    CSP adds to the page's strict one only 'wasm-unsafe-eval' (compiling WebAssembly, which
    allows no eval of JavaScript); the data blocks are never executed."""
    import re

    from koryo_pbm.assets import player_page

    page = player_page()
    assert len(page) <= 8_000_000, len(page)
    html = page.decode("utf-8")
    csp = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', html)
    assert csp, "no Content-Security-Policy"
    rules = dict(rule.strip().split(" ", 1) for rule in csp.group(1).split(";"))
    assert rules["default-src"] == "'none'" and rules["connect-src"] == "'none'" and rules["worker-src"] == "'none'"
    assert re.fullmatch(r"'sha256-[A-Za-z0-9+/=]+' 'wasm-unsafe-eval'", rules["script-src"]), rules["script-src"]
    assert csp.group(1).count("unsafe") == 1
    tags = re.findall(r"<(script|link|img|iframe|object|embed)\b([^>]*)>", html, re.I)
    assert [t for t, attrs in tags if "src=" in attrs or "href=" in attrs] == []
    assert html.count("<script>") == 1 and html.count("<style>") == 1
    data = [attrs for t, attrs in tags if t.lower() == "script" and attrs]
    assert data and all(re.fullmatch(r' type="application/x-gzip-base64" id="py-[a-z]+"', a) for a in data), data


def test_the_page_code_passes_its_tests_against_the_python_vectors(built):
    r = subprocess.run(["node", "--test", "test/"], cwd=SOURCES, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    assert "# fail 0" in r.stdout


def test_the_vectors_hold_for_the_python_code():
    """The same vectors, checked against the Python side: a format change on either side fails."""
    from koryo_pbm import choices, match
    from koryo_pbm.crypto import envelope as E
    from koryo_pbm.crypto.keys import PublicIdentity, parse_identity
    from koryo_pbm.crypto.seal import open_sealed
    from koryo_pbm.crypto.sign import signed_message, verify
    from koryo_pbm.store import gamefile as G
    from koryo_pbm.store import gamelog, gameparts, playercopy

    v = json.loads(VECTORS.read_text(encoding="utf-8"))
    alice = parse_identity(v["alice"]["key_v1"].encode(), "v1")
    assert alice.public.line() == v["alice"]["line"]
    assert parse_identity(v["alice"]["key_v2"].encode(), "v2", v["alice"]["passphrase"]).public == alice.public
    s = v["signature"]
    assert signed_message(s["context"], bytes.fromhex(s["data"])).hex() == s["message"]
    verify(alice.public, s["context"], bytes.fromhex(s["data"]), bytes.fromhex(s["signature"]))
    p = v["part"]
    assert gameparts.part_info("g-1", 7, "alice", alice.public.fingerprint()).hex() == p["info"]
    assert open_sealed(alice, bytes.fromhex(p["blob"]), bytes.fromhex(p["info"])).hex() == p["plaintext"]
    e = v["envelope"]
    assert E.header_bytes(e["header"]).hex() == e["header_bytes"]
    assert E.pad(e["orders"].encode()).hex() == e["padded"]
    env = E.parse_one(e["armored"])
    mod = PublicIdentity.parse(v["moderator"]["line"])
    env.verify(alice.public)
    assert env.moderator == mod.fingerprint()
    assert gameparts.compact_json(json.loads(json.dumps(v["canonical_json"]["value"], sort_keys=True))) == v["canonical_json"]["text"]
    for g in v["games"]:
        doc = G.decode(g["file"].encode())
        me = parse_identity(g["key"].encode(), "key")
        assert gamelog.head(doc) == g["head"]
        assert gameparts.open_part(doc, g["seat"], me) == g["part"]
        assert match.open_menu(doc, me) == g["menu"]
        assert isinstance(g["part"]["menu"], str) and choices.decode_menu(g["part"]["menu"]) == g["menu"]
        assert playercopy.player_copy(g["file"].encode()).decode() == g["copy"]
        assert playercopy.file_identity(g["file"].encode()) == playercopy.file_identity(g["copy"].encode()) == g["identity"]
        assert gameparts.open_part(G.decode(g["copy"].encode()), g["seat"], me) == g["part"]
    for old in v["old_games"]:
        assert G.decode(old["file"].encode()).replay is not None
        assert playercopy.file_identity(old["file"].encode()) == old["identity"]
    assert choices.decode_menu(v["menu_bomb"]) is None  # inflates beyond the limit: refused
    assert choices.decode_menu(g["part"]["menu"][:40]) is None and choices.decode_menu(7) is None


def _page_orders(game: Path, key: Path, how: str, out: Path) -> Path:
    """The orders the page's rules (``koryo_pbm/pagecore.py``) give the key's seat: the
    suggested choice, or the first at every question; written to ``out``."""
    from koryo_pbm import match, pagecore
    from koryo_pbm.crypto.keys import load_identity
    from koryo_pbm.store import gameparts

    doc = match.load_doc(game)
    identity = load_identity(key, "")
    seat = match.player_name(doc, identity)
    private = gameparts.open_part(doc, seat, identity)
    table = pagecore.open_table(game.read_text(encoding="utf-8"), gameparts.compact_json(private), seat)
    if how == "suggested":
        text = table.summary()["suggested"]["order"]
    else:
        path: list[int] = []
        while "t" not in (step := table.step(path))["o"][0]:
            path.append(0)
        text = step["o"][0]["t"]
    out.write_text(text, encoding="utf-8")
    return out


def _node_envelope(game: Path, key: Path, passphrase: str = "", how: str = "suggested",
                   orders: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(["node", str(SOURCES / "tools" / "make-envelope.mjs"), str(game), str(key), passphrase, how,
                           *([str(orders)] if orders else [])],
                          capture_output=True, text=True, timeout=120)


def test_envelopes_made_by_the_page_code_are_opened_and_counted_by_resolve(built, cli):
    from koryo_pbm.crypto.envelope import parse_one

    names = ("alice", "bob", "carol")
    for n in (*names, "mod"):
        cli.ok("keygen", n)
    keys = cli.home / "keys"
    folder = cli.cwd / "g"
    cli.ok("new", folder, "--as", "mod", *[f"--player={n}={keys / (n + '.pub')}" for n in names])
    for round_ in range(3):  # the join (a fresh contribution from the page), then Koryo's orders
        status = cli.ok("status", folder, "--json").json
        for player in status["missing"]:
            how = "first" if round_ else "suggested"
            orders = _page_orders(folder / "game.toml", keys / f"{player}.key", how, cli.cwd / "orders.txt")
            r = _node_envelope(folder / "game.toml", keys / f"{player}.key", how=how, orders=orders)
            assert r.returncode == 0, r.stderr
            env = parse_one(r.stdout)
            assert env.player == player and env.decision == status["decision"]
            (folder / "inbox" / f"{env.decision}--{player}.envelope").write_text(r.stdout)
        out = cli.ok("resolve", folder, "--as", "mod", "--json").json
        assert out["applied"] and out["applied"][0]["decision"] == status["decision"], out
    # a wrong key: one sentence, nothing made
    r = _node_envelope(folder / "game.toml", keys / "mod.key", orders=cli.cwd / "orders.txt")
    assert r.returncode == 1 and "not the key of any player" in r.stderr and r.stdout == ""


def test_player_page_writes_the_page_and_checks_one(cli):
    from koryo_pbm.assets import player_page, player_page_sha256

    out = cli.ok("player-page", "-o", "page.html")
    assert (cli.cwd / "page.html").read_bytes() == player_page()
    assert player_page_sha256() in out.out
    assert "genuine" in cli.ok("player-page", "--check", "page.html").out
    evil = player_page().replace(b"<title>", b"<title>evil ")
    (cli.cwd / "evil.html").write_bytes(evil)
    r = cli.fails("player-page", "--check", "evil.html")
    assert "NOT the player page" in r.err
    cli.fails("player-page")
    cli.fails("player-page", "--check", "missing.html")


def test_the_readme_shows_the_hash_of_the_shipped_page():
    from koryo_pbm.assets import player_page_sha256

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"`{player_page_sha256()}`" in readme, "README.md must show the SHA-256 of the page shipped"


def test_the_help_reply_attaches_the_genuine_page_and_the_mails_say_how_to_use_it():
    from email import message_from_bytes, policy

    from koryo_pbm.assets import player_page
    from koryo_pbm.judge import messages
    from koryo_pbm.judge.incoming import parse_mail
    from koryo_pbm.judge.outbox import render

    info = messages.GameInfo(tag="friday", game_id="koryo-1", title="Koryo", version=1,
                             decision={"id": "join", "kind": "join", "waiting_for": ["alice"], "received": []},
                             round=None, players=["alice", "bob"])
    state = messages.state_mail(info, "alice", "alice@example.org", 0, b"game", key="k1")
    said = " ".join(state.body.split())
    assert "With your player page" in said and ('Send it: press "Reply to the judge" (your mail program opens with it '
                                                'written), or reply to this mail, paste, and send.') in said
    assert [name for name, _ in state.attachments] == ["game.toml"]  # the page goes once per address (page=True)
    asked = parse_mail(b"From: alice@example.org\r\nSubject: [koryo-pbm friday] help\r\n"
                       b"Message-ID: <q1@example.org>\r\n\r\nhow do I play?\r\n", "mail 1")
    helped = messages.help_reply(asked, "alice@example.org", info, "alice", key="k2", game_file=b"game", page=True)
    assert [name for name, _ in helped.attachments] == ["game.toml", "koryo-pbm-player-page.html"]
    assert helped.attachments[1][1] == player_page()
    raw = render(helped, from_header="judge@example.org", message_id="<m1@example.org>", date=0.0, tag="friday")
    parsed = message_from_bytes(raw, policy=policy.default)
    page = [p for p in parsed.iter_attachments() if p.get_filename() == "koryo-pbm-player-page.html"]
    assert page and page[0].get_content_type() == "text/html"
    assert page[0].get_payload(decode=True) == player_page()
