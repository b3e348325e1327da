"""``koryo-pbm player-page``: write the player page, or check that a page is the genuine one."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from koryo_pbm.errors import StorageError, TamperedError


class NotGenuine(TamperedError):
    """A page that is not byte for byte the one of this release."""


@click.command("player-page")
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True, path_type=Path),
              help="Write the page here (- for standard output).")
@click.option("--check", "check", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE",
              help="Say whether FILE is the genuine player page of this release (exit 0) or not (exit 1).")
@click.option("--with", "plugin", metavar="PACKAGE",
              help="Also carry the pure-Python plug-in game PACKAGE installed beside koryo-pbm (not the release's page).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def command(output: Path | None, check: Path | None, plugin: str | None, as_json: bool) -> None:
    """Write the player page: one HTML file with which a player needs only a browser and a
    mail client (make a key, open the game file, choose, paste the envelope into a reply). It
    works offline and talks to no server. Its SHA-256 is printed: players compare it with the
    one in the README of this release. With --check FILE, say whether FILE is that page.

    The page is the project's code, never the moderator's: give players this file (the judge
    attaches it), and let them check it. With --with PACKAGE, the page also carries that
    plug-in game (a pure-Python package installed beside koryo-pbm): it is then not the
    release's page, and --check says so and names the games it adds."""
    from koryo_pbm.assets import code_sha256, player_page
    from koryo_pbm.crypto.keys import sha256_hex
    from koryo_pbm.errors import UsageError
    from koryo_pbm.store.atomic import write_atomic

    page = player_page()
    digest = sha256_hex(page)
    code = code_sha256(page)
    if (output is None) == (check is None):
        raise UsageError("say what to do: -o FILE writes the page, --check FILE checks one")
    if plugin is not None and check is not None:
        raise UsageError("--with builds a page (-o FILE); --check FILE checks one")
    added: dict[str, str] = {}
    if plugin is not None:
        from koryo_pbm.plugin_page import with_plugin

        page, added = with_plugin(page, plugin)
        digest = sha256_hex(page)
    if check is not None:
        from koryo_pbm.store.atomic import read_limited_at

        theirs = read_limited_at(check, 16 * 1024 * 1024, "page")
        genuine = theirs == page
        if as_json:
            click.echo(json.dumps({"genuine": genuine, "sha256": sha256_hex(theirs), "expected": digest}))
        if not genuine:
            from koryo_pbm.plugin_page import plugin_of

            games = plugin_of(theirs, page)
            if games is not None:
                raise NotGenuine(f"{check} is NOT the player page of this koryo-pbm: it is that page with the plug-in "
                                 f"games {', '.join(games)} added (its SHA-256 is {sha256_hex(theirs)}, the release's "
                                 f"page's is {digest}); open it only if you made it or trust who did")
            raise NotGenuine(f"{check} is NOT the player page of this koryo-pbm (its SHA-256 is {sha256_hex(theirs)}, "
                             f"the genuine page's is {digest}): do not open it with your key")
        if not as_json:
            click.echo(f"{check} is the genuine player page of this koryo-pbm (SHA-256 {digest})")
        return
    assert output is not None
    if str(output) == "-":
        sys.stdout.flush()
        sys.stdout.buffer.write(page)
        sys.stdout.buffer.flush()
    else:
        try:
            write_atomic(output, page)
        except OSError as exc:
            raise StorageError(f"cannot write {output}: {exc.strerror or exc}") from None
    if as_json:
        click.echo(json.dumps({"file": str(output), "sha256": digest, "code_sha256": code, "bytes": len(page),
                               **({"plugin_games": sorted(added)} if plugin else {})}), err=str(output) == "-")
        return
    click.echo(f"sha256 {digest}  {output}", err=str(output) == "-")
    if plugin:
        click.echo(f"this page is NOT the release's page: it also carries the plug-in games {', '.join(sorted(added))} "
                   f"(package {plugin})", err=True)
    click.echo(f"the page shows the SHA-256 of its code: {code}", err=True)
