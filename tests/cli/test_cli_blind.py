"""The blind table through the real CLI (issue 20): ``new --blind --co-dealer``, ``co-deal``, a
complete blind 3-player Koryo game by shared folder with the moderator holding a seat, and what
the moderator's and the co-dealer's keys can open at every version."""

from __future__ import annotations

from test_cli_bymail import make_keys

SEATS = ["alice", "bob", "dora"]  # dora: the moderator's own player key


def new_blind(cli, lines, folder="g", *extra, seats=SEATS, co="carl"):
    args = ["new", folder, "--as", "mod", "--blind", "--co-dealer", f"{co}={lines[co]}", *extra]
    for n in seats:
        args += ["--player", f"{n}={lines[n]}"]
    return cli(*args)


def play_blind(cli, folder="g", *, each_version=None, max_steps=400):
    """Play the blind game in ``folder`` to its end: the co-dealer by ``co-deal``, every player
    by ``orders`` (its example order) and ``submit``, the moderator by ``resolve``."""
    for _ in range(max_steps):
        status = cli.ok("status", folder, "--json").json
        if status["decision"] is None:
            return status
        if status["missing"] == ["carl"]:
            cli.ok("co-deal", folder, "--as", "carl")
        else:
            for p in status["missing"]:
                orders = cli.cwd / f"o-{p}.toml"
                cli.ok("orders", folder, "--as", p, "-o", orders)
                cli.ok("submit", orders, "--as", p, "--game", folder)
        cli.ok("resolve", folder, "--as", "mod")
        if each_version is not None:
            each_version()
    raise AssertionError("the game did not end")


def test_smoke(cli):
    lines = make_keys(cli, ["alice", "bob", "dora", "carl"])
    r = new_blind(cli, lines)
    assert r.code == 0, r.err
    print(r.out)
    print(cli.ok("status", "g").out)
    status = play_blind(cli)
    print(status)
