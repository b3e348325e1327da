"""``koryo-pbm demo``: a complete game between bots through the real protocol.

Everything a real game does happens here, in one process: key pairs, ``new``, each bot reading
only its own sealed part, orders files, signed and sealed envelopes dropped into the inbox,
``resolve`` verifying and applying them, the signed game file rewritten atomically.
"""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

import click

from koryo_pbm.cli.common import check_player_count, echo_json, now_utc
from koryo_pbm.errors import SetupError, StorageError
from koryo_pbm.store.folder import GAME_FILE


def run_demo(game_name: str, n_players: int, seed: str, folder: Path, *, teams: bool = False,
             blind: bool = False, echo=click.echo) -> dict:
    import tomli_w

    from koryo_pbm import history, match
    from koryo_pbm.cli.submit import seal_orders
    from koryo_pbm.crypto.keys import Identity
    from koryo_pbm.engine.registry import find_game
    from koryo_pbm.engine.simulate import seat_names
    from koryo_pbm.match.run import run_resolve
    from koryo_pbm.store import gamefile, inbox
    from koryo_pbm.store.keyring import save_identity

    game = find_game(game_name)
    check_player_count(game, n_players)
    if (folder / GAME_FILE).exists():
        raise StorageError(f"{folder} already holds a game; choose another --dir")
    keys = folder / "keys"
    names = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi"]
    names = names[:n_players] if n_players <= len(names) else seat_names(n_players)
    options = {"teams": True} if teams else {}
    if teams and "teams" not in game.options:
        raise SetupError(f"{game.title} has no teams")

    moderator = Identity.generate("moderator")
    players = {n: Identity.generate(n) for n in names}
    co_dealer = Identity.generate("co-dealer") if blind else None
    for ident in [moderator, *players.values(), *([co_dealer] if co_dealer else [])]:
        save_identity(ident, keys)
    # The bots join (their contributions drawn from their own generator): the demo's seed is the
    # moderator's secret and names the game, so one seed plays one whole game.
    from koryo_pbm.crypto.keys import sha256_hex

    game_id = f"{game.name}-demo-{sha256_hex(seed.encode('utf-8'))[:10]}"
    if co_dealer is not None:  # a blind table: the moderator and the co-dealer deal; nobody sees a hand
        doc, _ = match.create(game, moderator, {n: i.public for n, i in players.items()}, options=options,
                              game_id=game_id, blind=("moderator", co_dealer.name, co_dealer.public))
    else:
        doc, _ = match.create(game, moderator, {n: i.public for n, i in players.items()}, seed=seed,
                              options=options, join=True, game_id=game_id)
    game = match.game_of(doc)
    for sub in (inbox.inbox_dir(folder), inbox.archive_dir(folder), folder / "orders"):
        sub.mkdir(parents=True, exist_ok=True)
    path = folder / GAME_FILE
    gamefile.write_game(path, doc, moderator)
    echo(f"{game.title}: game {doc.game_id} in {folder}, players {', '.join(names)}")

    bots = random.Random(f"demo-bots:{seed}")  # the bots' own generator
    envelopes = decisions = 0
    while True:
        doc = match.load_doc(path)  # every bot reads the shared, signed file
        if doc.decision is None:
            break
        for name in doc.decision["waiting_for"]:
            if name in doc.decision.get("received", []):
                continue
            if co_dealer is not None and name == co_dealer.name:  # what `koryo-pbm co-deal` does
                from koryo_pbm import blind as blind_table
                from koryo_pbm.verify import check_end

                ending = blind_table.proves_end(game, game.from_view(doc.public, {}, co_dealer.name))
                if ending:
                    check_end(doc)
                body = blind_table.co_deal(game, doc.public, {n: i.public for n, i in players.items()}, co_dealer,
                                           doc.decision["id"], doc.log, moderator=doc.moderator, end_proven=ending)
                text = match.canonical_orders(doc.game_id, doc.decision["id"], body)
                inbox.drop(folder, seal_orders(doc, game, co_dealer, text))
                envelopes += 1
                continue
            me = players[name]
            _, private = match.open_private(doc, me)  # a bot sees only its own part
            state = match.player_state(doc, game, name, private)
            order = game.random_order(state, name, bots)
            text = tomli_w.dumps({"game": doc.game_id, "decision": doc.decision["id"], **order})
            orders_file = folder / "orders" / f"{doc.decision['id']}--{name}.toml"
            orders_file.write_text(text, encoding="utf-8")
            inbox.drop(folder, seal_orders(doc, game, me, text, source=str(orders_file)))
            envelopes += 1
        result = run_resolve(folder, path, moderator, now=now_utc)
        if result.rejected:  # pragma: no cover - would be a bug in the engine
            raise RuntimeError(f"demo envelope rejected: {result.rejected[0].reason}")
        decisions += len(result.applied)
    # The public history, as every player reads it from the signed file (`koryo-pbm log`); its
    # last event announces the result.
    for line in history.text_lines(history.sections(game, names, history.log_events(doc.log)))[0]:
        echo(line)
    if co_dealer is not None:
        from koryo_pbm.verify import verify_game

        report = verify_game(doc)
        check = next(c for c in report.checks if c.name == "blind")
        echo(f"verify: {'ok' if report.ok else 'FAILED'}; the blind table: {check.detail}")
    outcome = game.view(doc.public, None)  # what everybody sees at the end
    scores, winners = outcome.get("scores", {}), outcome.get("winners", [])
    echo(f"{decisions} decisions answered through {envelopes} signed, sealed envelopes; "
         f"game file version {doc.version}, log verified, seed {doc.seed!r} published")
    return {"id": doc.game_id, "dir": str(folder), "scores": scores, "winners": winners,
            "decisions": decisions, "envelopes": envelopes, "version": doc.version}


@click.command("demo")
@click.option("--game", "game_name", help="Which game (default: the default game, koryo-pbm games).")
@click.option("--players", "n_players", type=int, default=4, show_default=True, help="Number of bots.")
@click.option("--seed", default="demo", show_default=True, help="Seed text for the deal and the bots.")
@click.option("--dir", "directory", type=click.Path(file_okay=False, path_type=Path),
              help="Keep the game folder here (default: a temporary folder, removed afterwards).")
@click.option("--teams", is_flag=True, help="Play in teams of two (games with teams).")
@click.option("--blind", is_flag=True, help="At a blind table: a co-dealer deals with the moderator, so that "
                                            "neither sees a hand; verify then audits every card.")
@click.option("--json", "as_json", is_flag=True, help="Print only a JSON summary.")
def command(game_name: str | None, n_players: int, seed: str, directory: Path | None, teams: bool,
            blind: bool, as_json: bool) -> None:
    """Play a complete game between random bots through the real protocol: keys, new, orders
    files, signed and sealed envelopes in the inbox, resolve. Prints the public events and the
    final scores."""
    from koryo_pbm.engine.registry import default_name

    game_name = game_name or default_name()
    echo = (lambda *_a, **_k: None) if as_json else click.echo
    if directory is not None:
        directory.mkdir(parents=True, exist_ok=True)
        summary = run_demo(game_name, n_players, seed, directory, teams=teams, blind=blind, echo=echo)
    else:
        from koryo_pbm.store.atomic import unsynced

        # The temporary folder is deleted at the end: writes stay atomic but skip fsync.
        with tempfile.TemporaryDirectory(prefix="koryo-pbm-demo-") as tmp, unsynced():
            summary = run_demo(game_name, n_players, seed, Path(tmp), teams=teams, blind=blind, echo=echo)
            summary["dir"] = None
    if as_json:
        echo_json(summary)
