"""The options the command line makes itself rather than through click's decorators (issue 19:
``--help``, ``--version`` and the path options of ``--key`` and ``--mail`` without a gettext
look-up, which imports ``locale`` in every command): they say and refuse what click's own did,
and a resolve in a real process no longer imports ``locale``."""

from __future__ import annotations

import subprocess
import sys

from koryo_pbm import __version__


def test_help_and_version_are_as_click_made_them(cli):
    top = cli.ok("--help").out
    assert "  --version   Show the version and exit.\n  -h, --help  Show this message and exit.\n" in top
    assert cli.ok("-h").out == top
    assert cli.ok("--version").out == f"koryo-pbm, version {__version__}\n"
    for command in ("resolve", "status", "show"):
        text = cli.ok(command, "--help").out
        last = text.rstrip().splitlines()[-1].split()  # the last option, as click puts it
        assert last == ["-h,", "--help", "Show", "this", "message", "and", "exit."], text
        assert cli.ok(command, "-h").out == text
    resolve = cli.ok("resolve", "--help").out
    assert "--key FILE" in resolve and "--mail PATH" in resolve  # the metavars click.Path gives


def test_path_options_refuse_what_click_path_refused(cli):
    cli.ok("keygen", "mod")
    (cli.cwd / "g").mkdir()
    r = cli.fails("resolve", "g", "--as", "mod", "--mail", cli.cwd / "nowhere.eml", code=2)
    assert r.err == (f"koryo-pbm: error: invalid value for '--mail': Path '{cli.cwd / 'nowhere.eml'}' does not "
                     "exist (see: koryo-pbm resolve --help)\n")
    r = cli.fails("status", "g", "--key", cli.cwd, code=2)
    assert r.err == (f"koryo-pbm: error: invalid value for '--key': File '{cli.cwd}' is a directory "
                     "(see: koryo-pbm status --help)\n")
    r = cli.fails("resolve", "g", "--key", cli.home / "keys" / "nobody.key", code=1)  # not checked by click
    assert "no key file at" in r.err


def test_a_resolve_imports_no_locale(tmp_path):
    """Each command in its own process, as users run them: ``status``, ``show --as`` and a
    resolve completing a decision import no ``locale`` (``orders -o`` and ``submit`` do: a path
    given is checked by ``click.Path``, which asks gettext for its name)."""
    script = ("import sys\nfrom koryo_pbm.cli.main import main\n"
              "code = main(sys.argv[1:])\nprint(code, 'locale' in sys.modules)\n")
    env = {"KORYO_PBM_HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin"}

    def run(*args: str) -> str:
        r = subprocess.run([sys.executable, "-c", script, *args], cwd=tmp_path, env=env, capture_output=True,
                           text=True, timeout=120)
        last = r.stdout.strip().splitlines()[-1]
        assert last.startswith("0 "), (args, r.stdout, r.stderr)
        return last

    for name in ("mod", "alice", "bob"):
        run("keygen", name)
    keys = {p: (tmp_path / "home" / "keys" / f"{p}.pub").read_text().strip() for p in ("alice", "bob")}
    run("new", "g", "--as", "mod", "--seed", "options", "--player", f"alice={keys['alice']}",
        "--player", f"bob={keys['bob']}")
    assert run("status", "g") == "0 False"
    assert run("show", "g", "--as", "alice") == "0 False"
    for p in ("alice", "bob"):
        run("orders", "g", "--as", p, "-o", f"{p}.toml")
        run("submit", f"{p}.toml", "--as", p, "--game", "g")
    assert run("resolve", "g", "--as", "mod") == "0 False"
    assert sorted(p.name for p in (tmp_path / "g" / "archive" / "accepted").iterdir()) == [
        "r1-orders--alice.envelope", "r1-orders--bob.envelope"]
