"""The README and docs/*.md against what they describe: every relative link (and ``#anchor``)
points to a file and a heading that exist, and every ``koryo-pbm`` command they show (in ``sh``
blocks and in inline code) is one the real command line accepts: the command exists, each option
is one of its options, and it has as many arguments as it takes (click's own parser; a command
named in prose with a few of its options, `koryo-pbm new --position FILE`, may leave out
arguments).

Commands are *run* as written elsewhere: the Quick start's two commands by ``.ci/run``, the
players' guide's "Play alone against bots" by ``tests/cli/test_cli_bot.py``, and the README's
walk through a game below."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import click
import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "docs" / "rules" / "README.md"]


def rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


# --- links -------------------------------------------------------------------------------------


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, markup and punctuation dropped, spaces to -."""
    text = re.sub(r"[`*_]|<[^>]+>", "", heading.strip().lower())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for heading in re.findall(r"^#{1,6} (.+)$", strip_code(page.read_text(encoding="utf-8")), flags=re.M):
        base = slug(heading)
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def strip_code(text: str) -> str:
    """The text without fenced code blocks (a ``# comment`` there is no heading)."""
    return re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)


def links(page: Path) -> list[str]:
    text = strip_code(page.read_text(encoding="utf-8"))
    text = re.sub(r"`[^`\n]*`", "", text)
    return re.findall(r"\]\(([^)\s]+)\)", text) + re.findall(r'<img src="([^"]+)"', text)


@pytest.mark.parametrize("page", PAGES, ids=rel)
def test_every_relative_link_points_to_a_file_and_heading_that_exist(page):
    broken = []
    for target in links(page):
        if re.match(r"[a-z]+:", target):  # https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists() or not dest.is_relative_to(ROOT):
            broken.append(f"{target}: no such file")
        elif anchor and (dest.suffix != ".md" or anchor not in anchors(dest)):
            broken.append(f"{target}: no such heading in {rel(dest)}")
    assert not broken, f"{rel(page)}: " + "; ".join(broken)


def test_the_docs_are_found_from_the_readme_and_the_index():
    """Every page in docs/ is linked from the README or the docs' index, and the README stays
    short (issue 19: at most about 300 lines)."""
    readme = ROOT / "README.md"
    index = ROOT / "docs" / "README.md"
    linked = {(p.parent / t.partition("#")[0]).resolve() for p in (readme, index) for t in links(p)}
    for page in (ROOT / "docs").glob("*.md"):
        assert page.resolve() in linked or page == index, f"{rel(page)} is linked from neither"
    assert len(readme.read_text(encoding="utf-8").splitlines()) <= 300


# --- commands ----------------------------------------------------------------------------------


def shown_commands(page: Path) -> list[str]:
    """Every ``koryo-pbm ...`` command the page shows: each command of its ``sh`` blocks (a
    ``$ `` prompt and comments dropped, continued lines joined, split at ``&&``, ``;``, ``|``,
    ``while``/``do``), a systemd unit's ``ExecStart=``, and each inline code span that starts
    with ``koryo-pbm ``."""
    text = page.read_text(encoding="utf-8")
    found = []
    for block in re.findall(r"^```sh\n(.*?)^```", text, flags=re.M | re.S):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.removeprefix("$ ")
            for part in re.split(r"&&|;|\||\bdo\b|\bdone\b|\bwhile\b|\$\(|\)", line):
                part = part.strip()
                if part.startswith(("koryo-pbm ", ".venv/bin/koryo-pbm ")):
                    found.append(shlex.split(part, comments=True))
    for line in re.findall(r"^ExecStart=\S*koryo-pbm (.*)$", text, flags=re.M):  # a systemd unit
        found.append(["koryo-pbm", *shlex.split(line)])
    prose = strip_code(text)
    for span in re.findall(r"`(koryo-pbm [^`]+)`", prose.replace("\n", " ")):
        found.append(["`", *shlex.split(span)[1:]])  # marked: shown in prose
    return found


def _check(argv: list[str]) -> str | None:
    """Why the real command line would refuse ``argv`` as a usage error, or None."""
    from koryo_pbm.cli.main import cli

    args = argv[1:]
    if args in (["--version"], ["--help"]):
        return None
    ctx = click.Context(cli, info_name="koryo-pbm")
    command = cli.get_command(ctx, args[0]) if args else None
    if command is None:
        return f"no such command {args[:1]}"
    # Redirections (`> solo/judge.log`, `2>&1`) and a trailing `&` are the shell's.
    cleaned, skip = [], False
    for arg in args[1:]:
        if skip:
            skip = False
            continue
        if arg in (">", ">>", "<"):
            skip = True
            continue
        if re.fullmatch(r"\d?>&\d|&", arg):
            continue
        cleaned.append(arg)
    if "--help" in cleaned or "-h" in cleaned:
        cleaned = [a for a in cleaned if a not in ("--help", "-h")]
    prose = argv[0] == "`"  # a command named in prose with some of its options: `koryo-pbm new --seed`
    sub = click.Context(command, info_name=args[0], parent=ctx)
    try:
        values, extra, _ = command.make_parser(sub).parse_args(cleaned)
    except click.UsageError as exc:
        return exc.format_message()
    if extra:
        return f"unexpected extra arguments {extra}"
    missing = [p.name for p in command.params if isinstance(p, click.Argument) and p.required
               and not (isinstance(v := values.get(p.name), (str, tuple)) and v)]  # None, (), click's UNSET
    if missing and not prose:
        return f"missing arguments {missing}"
    return None


UNITS = sorted((ROOT / "docs").glob("*.service"))  # the systemd unit files the moderators' guide offers


@pytest.mark.parametrize("page", [*PAGES, *UNITS], ids=rel)
def test_every_command_shown_is_one_the_command_line_accepts(page):
    shown = shown_commands(page)
    refused = [f"{shlex.join(argv[1:])}: {why}" for argv in shown if (why := _check(argv))]
    assert not refused, f"{rel(page)}:\n" + "\n".join(refused)


def test_the_checks_catch_a_stale_command():
    """The command check fails on what a stale page would show."""
    assert _check(["koryo-pbm", "show", "friday", "--as", "alice"]) is None
    assert "no such command" in _check(["koryo-pbm", "shwo", "friday"])
    assert "--colour" in _check(["koryo-pbm", "show", "friday", "--colour"])
    assert "extra arguments" in _check(["koryo-pbm", "show", "friday", "extra"])
    assert "missing arguments" in _check(["koryo-pbm", "serve", "--as", "mod"])
    assert _check(["`", "serve"]) is None and "missing" in _check(["koryo-pbm", "serve"])
    assert "--colour" in _check(["`", "new", "--colour"])
    assert slug("With a real mail account (IMAP and SMTP)") == "with-a-real-mail-account-imap-and-smtp"
    assert slug("Your turn: show, orders, submit") == "your-turn-show-orders-submit"


# --- the README's walk through a game, run as written -------------------------------------------


def readme_block(section: str) -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index(f"\n### {section}\n")
    end = text.index("\n## ", start)
    return re.findall(r"^```sh\n(.*?)^```", text[start:end], flags=re.M | re.S)


def test_the_readme_walk_through_a_game_runs_as_written(tmp_path, monkeypatch):
    """The README's "On the command line": its commands run by bash as written, with three real
    key lines in place of the ``koryo-pbm-pub-v1:...`` it abbreviates, and the players' turns
    answered from the ``play`` menus (Enter: the suggestion, then y) until the game is over;
    then ``verify`` says what the README says it ends with."""
    keygen, new, turn, resolve, verify = readme_block("On the command line")
    home = tmp_path / "home"
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8"}

    def bash(script: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        return subprocess.run(["bash", "-euc", script], cwd=tmp_path, env=env, input=stdin, text=True,
                              capture_output=True, timeout=120)

    lines = {}
    for name in ("mod", "alice", "bob", "carol"):
        r = bash(keygen.replace("alice", name))
        assert r.returncode == 0, r.stderr
        lines[name] = r.stdout.strip().splitlines()[-1]
        assert lines[name].startswith("koryo-pbm-pub-v1:")
        if name == "alice":  # what the players' guide shows keygen print (the default keyring)
            guide = (ROOT / "docs" / "players.md").read_text(encoding="utf-8")
            sample = re.search(r"^\$ koryo-pbm keygen alice\n(.*?)^```", guide, flags=re.M | re.S)
            assert sample is not None

            def shape(text: str) -> list[str]:
                text = re.sub(r"\b[0-9a-f]{16}\b", "FINGERPRINT", text.replace(str(home), "~"))
                return [re.sub(r"koryo-pbm-pub-v1:\S+", "KEY", line) for line in text.splitlines()]

            assert shape(r.stderr + r.stdout) == shape(sample.group(1))
    (tmp_path / "bob.pub").write_text(lines["bob"] + "\n")
    made = new
    for name in ("alice", "carol"):
        made = made.replace(f"{name}=koryo-pbm-pub-v1:...", f"{name}={lines[name]}")
    assert bash(made).returncode == 0
    play, shown, orders, submit = (next(c for c in turn.splitlines() if c.startswith(f"koryo-pbm {name} "))
                                   for name in ("play", "show", "orders", "submit"))
    r = bash(f"{orders}\n{submit}")  # alice joins with an orders file, as the README shows
    assert r.returncode == 0 and "submitted alice's orders for join" in r.stderr, r.stderr
    def status() -> dict:
        """The test's own look at the game between turns (not a README command): in-process,
        with the keyring the commands above use (a process each cost ~0.2 s, ~20 of them)."""
        import contextlib
        import io

        from koryo_pbm.cli.main import main

        monkeypatch.setenv("KORYO_PBM_HOME", str(home / ".config" / "koryo-pbm"))
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert main(["status", str(tmp_path / "friday"), "--json"]) == 0
        return json.loads(out.getvalue())

    for _ in range(120):
        state = status()
        if state.get("decision") is None:
            break
        for player in state["missing"]:  # the others answer from the menus, as the README shows
            r = bash(play.replace("alice", player), stdin="\n" * 40 + "y\n")
            assert r.returncode == 0, r.stderr
        r = bash(resolve)
        assert r.returncode == 0, r.stderr
    else:
        pytest.fail("the game did not end")
    r = bash(shown)
    assert r.returncode == 0 and "majority" in r.stdout, r.stderr  # the score breakdown at the end
    r = bash(verify)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().splitlines()[-1] == "verdict: the game verifies"
    # The players' guide shows verify's output: the same checks, in the same order, all ok.
    guide = (ROOT / "docs" / "players.md").read_text(encoding="utf-8")
    sample = re.search(r"^\$ koryo-pbm verify friday --as alice\n(.*?)^```", guide, flags=re.M | re.S)
    assert sample is not None

    def checks(text: str) -> list[tuple[str, str]]:
        return [tuple(line.split()[:2]) for line in text.splitlines()]  # type: ignore[misc]

    assert checks(r.stdout) == checks(sample.group(1))
