"""``koryo-pbm new``: the moderator creates a game folder."""

from __future__ import annotations

from pathlib import Path

import click

from koryo_pbm.cli.common import deadline_lines, echo_json, identity_options, load_identity, now_utc
from koryo_pbm.errors import SetupError, StorageError, UsageError
from koryo_pbm.store.folder import GAME_FILE

BOT_KEY = "bot"  # --player carol=bot: a bot seat, in its place in the seat order


def _parse_player(spec: str, option: str = "--player"):
    from koryo_pbm.crypto.keys import load_public

    name, sep, key = spec.partition("=")
    name, key = name.strip(), key.strip()
    if not sep or not name or not key:
        raise UsageError(f"{option} takes NAME=PUBLIC_KEY (the key line or a .pub file), not {spec!r}")
    if key == BOT_KEY and option == "--player":
        return name, None
    return name, load_public(key)


def parse_deadline_specs(game, specs: tuple[str, ...]) -> dict[str, str]:
    """``{kind: duration}`` from ``--deadline 3d`` (every kind) and ``--deadline KIND=3d``."""
    from koryo_pbm.deadlines import DEFAULT_KIND, parse_duration

    kinds = tuple(game.decision_kinds)
    out: dict[str, str] = {}
    for spec in specs:
        kind, sep, text = spec.rpartition("=")
        kind = kind.strip() if sep else DEFAULT_KIND
        if sep and not kind:
            raise UsageError(f"--deadline takes DURATION or KIND=DURATION (orders=3d), not {spec!r}")
        if kinds and kind not in kinds and kind != DEFAULT_KIND:
            raise UsageError(f"--deadline {spec!r}: {game.title} has no decisions of kind {kind!r} "
                             f"(its kinds: {', '.join(kinds)})")
        if kind in out:
            raise UsageError(f"--deadline gives {'every decision' if kind == DEFAULT_KIND else kind} two durations")
        parse_duration(text, what=f"the deadline {spec!r}")
        out[kind] = text.strip().lower()
    return out


def _name_value_specs(specs: tuple[str, ...], option: str, example: str, check, twice: str) -> dict[str, str]:
    """``{name: check(name, value)}`` from ``NAME=VALUE`` items of ``option``."""
    out: dict[str, str] = {}
    for spec in specs:
        name, sep, value = spec.partition("=")
        name, value = name.strip(), value.strip()
        if not sep or not name or not value:
            raise UsageError(f"{option} takes {example}, not {spec!r}")
        if name in out:
            raise UsageError(twice.format(name=name, option=option))
        out[name] = check(name, value)
    return out


def judge_and_tag(judge: str, directory: Path) -> tuple[str, str]:
    """``new --judge``: the judge's address and the game's tag (the folder's name, which the
    judge's subjects carry as ``[koryo-pbm TAG]``), both checked."""
    from koryo_pbm.address import check_address
    from koryo_pbm.values import ID

    tag = directory.resolve().name
    if not ID.fits(tag):
        raise UsageError(f"--judge: the folder's name {tag[:64]!r} cannot be the game's tag in the judge's subjects "
                         "(letters, digits, '_', '.', ':', '+', '-', starting with a letter or digit)")
    return check_address(judge.strip(), who="--judge"), tag


def parse_bot_specs(specs: tuple[str, ...]) -> dict[str, str]:
    """``{seat: level}`` from ``--bot NAME=LEVEL`` items (levels checked later, by the game)."""
    return _name_value_specs(specs, "--bot", "NAME=LEVEL (carol=heuristic)", lambda name, level: level,
                             "{name} is named twice in {option}")


def make_policy(game, deadline_specs: tuple[str, ...], grace: str | None, missed: str, bot_level: str | None,
                abandon_after: int | None, remind: str | None, bot_seats: dict[str, str]):
    """The public service policy the options of ``new`` describe, every part checked."""
    from koryo_pbm.deadlines import MAX_ABANDON, Policy, parse_duration
    from koryo_pbm.engine import bots

    policy = Policy(deadlines=parse_deadline_specs(game, deadline_specs), missed=missed, bots=dict(bot_seats))
    for level in bot_seats.values():
        bots.check_level(game, level)
    if grace is not None:
        parse_duration(grace, what="--grace", allow_zero=True)
        policy.grace = grace.strip().lower()
    if remind is not None:
        parse_duration(remind, what="--remind")
        policy.remind = remind.strip().lower()
    if abandon_after is not None:
        if not 1 <= abandon_after <= MAX_ABANDON:
            raise UsageError(f"--abandon-after takes a number of decisions from 1 to {MAX_ABANDON}, not {abandon_after}")
        if missed != "bot":
            raise UsageError("--abandon-after counts the orders the bot played for a player: it needs --missed bot")
        policy.abandon_after = abandon_after
    if (missed == "bot" or grace is not None or remind is not None) and not policy.deadlines:
        raise UsageError("--missed bot, --grace and --remind need a deadline: add --deadline DURATION (e.g. 3d)")
    if bot_level is not None:
        if missed != "bot":
            raise UsageError("--bot-level is the level that plays missed orders: it needs --missed bot")
        policy.bot_level = bots.check_level(game, bot_level)
    elif missed == "bot":
        policy.bot_level = "heuristic" if "heuristic" in bots.levels(game) else bots.RANDOM
    return policy


def parse_email_specs(specs: tuple[str, ...], option: str = "--email") -> dict[str, str]:
    """``{player: address}`` from ``NAME=ADDRESS`` items (each address checked)."""
    from koryo_pbm.transport.address import check_address

    return _name_value_specs(specs, option, "NAME=ADDRESS (alice=alice@example.org)",
                             lambda name, address: check_address(address, who=f"{name}'s address"),
                             "{name} is given two addresses in {option}")


@click.command("new")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@click.option("--game", "game_name", help="Which game (default: the default game, koryo-pbm games).")
@identity_options(role="moderator")
@click.option("--player", "player_specs", multiple=True, metavar="NAME=PUB",
              help="A player and their public key (the line from keygen, or a .pub file); in seat order.")
@click.option("--email", "email_specs", multiple=True, metavar="NAME=ADDRESS",
              help="A player's mail address, for the judge (koryo-pbm serve); kept sealed to you. "
                   "A player without one plays through the shared folder.")
@click.option("--first", help="The first player (default: drawn by the seed).")
@click.option("--seed", help="Deal at once from this seed text instead of the players joining first (for tests "
                             "and replays: the deal is then your choice, not fair-proof). Its salted hash is "
                             "published; keep it secret until the end.")
@click.option("--position", "position_file", type=click.Path(dir_okay=False, path_type=Path),
              help="Start from a position file instead of a new deal (no join: not fair-proof).")
@click.option("--team", "teams", multiple=True, metavar="A,B",
              help="A team of two neighbouring players (games with a teams option).")
@click.option("--option", "option_specs", multiple=True, metavar="NAME=VALUE",
              help="One of the game's options (`koryo-pbm games --json` lists them): a text, a whole number, "
                   "true or false.")
@click.option("--deadline", "deadline_specs", multiple=True, metavar="[KIND=]DURATION",
              help="Time to answer each decision (30m, 12h, 3d, 1w, 1d12h), or decisions of one KIND "
                   "(orders=3d, action=1d). Public; the deadline of the pending decision is shown to all.")
@click.option("--grace", metavar="DURATION", help="After a deadline, how long before missed orders are played.")
@click.option("--missed", type=click.Choice(["wait", "bot"]), default="wait", show_default=True,
              help="Missed orders: the game waits, or the bot plays them after the deadline and grace.")
@click.option("--bot-level", metavar="LEVEL",
              help="The bot level that plays missed orders (default: heuristic if the game has it).")
@click.option("--abandon-after", type=int, metavar="N",
              help="After N missed decisions in a row a seat is abandoned: the bot plays it (needs --missed bot).")
@click.option("--remind", metavar="DURATION",
              help="The judge reminds missing players this long before the deadline (default: the judge's).")
@click.option("--bot", "bot_specs", multiple=True, metavar="NAME=LEVEL",
              help="A seat the moderator's bot plays (no key needed; --player NAME=bot sets its place).")
@click.option("--press", "press", type=click.Choice(["private", "public", "none"]), default="private",
              show_default=True, help="Press between players (koryo-pbm say): to any players, only to all "
                                      "players at once, or none.")
@click.option("--state-mail", "state_mail", type=click.Choice(["act", "every", "turn", "all"]), default="act",
              show_default=True,
              help="What the judge mails when the game moves on: a mail only to the players who must act, what "
                   "happened meanwhile in each player's next mail (act); also a short text to the others at every "
                   "move (every; turn is its old name); or game.toml to every player at every move (all).")
@click.option("--moderator-email", "moderator_email", metavar="ADDRESS",
              help="Your own address, written into the game: the judge forwards players' plain mails (without "
                   "an envelope or a command) there, and tells them so.")
@click.option("--judge", "judge", metavar="ADDRESS",
              help="The judge's mail address (koryo-pbm serve --from): written into the public game file with the "
                   "game's tag (this folder's name), so that the player page's reply goes to the judge.")
@click.option("--invite", "invite_specs", multiple=True, metavar="NAME=ADDRESS",
              help="A seat offered by mail: the judge (serve) mails ADDRESS an invitation, and a reply with a "
                   "public key line takes the seat. The game is made when every seat is taken.")
@click.option("--signup-deadline", "signup_deadline", default="7d", show_default=True, metavar="DURATION",
              help="How long the invited players have to take their seats (--invite).")
@click.option("--blind", is_flag=True,
              help="A blind table: you and a co-dealer (--co-dealer) shuffle and deal the cards so that neither "
                   "of you alone sees any hidden card; you may then hold a seat with a player key of your own.")
@click.option("--co-dealer", "co_dealer", metavar="NAME=PUB",
              help="The co-dealer of a --blind game: a key run by someone else (koryo-pbm co-deal answers for it).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def command(directory: Path, game_name: str | None, as_name: str | None, key_file: Path | None,
            player_specs: tuple[str, ...], email_specs: tuple[str, ...], first: str | None, seed: str | None,
            position_file: Path | None, teams: tuple[str, ...], option_specs: tuple[str, ...],
            deadline_specs: tuple[str, ...],
            grace: str | None, missed: str, bot_level: str | None, abandon_after: int | None,
            remind: str | None, bot_specs: tuple[str, ...], press: str, state_mail: str, moderator_email: str | None,
            judge: str | None,
            invite_specs: tuple[str, ...], signup_deadline: str, blind: bool, co_dealer: str | None,
            as_json: bool) -> None:
    """Create the game folder DIRECTORY: game.toml (signed by you, the moderator), inbox/ and
    archive/. Without --seed or --position the game begins with the join: every player
    contributes randomness to the deal, mixed with your secret (committed to in game.toml).

    \b
    Example:
      koryo-pbm new friday --as mod --player alice=alice.pub --player bob=koryo-pbm-pub-v1:...
          --email alice=alice@example.org --email bob=bob@example.net
      koryo-pbm new friday --as mod --player alice=alice.pub --player bob=bob.pub
          --bot carol=heuristic --deadline 3d --missed bot --abandon-after 3
      koryo-pbm new club --as mod --invite alice=alice@example.org --invite bob=bob@example.net
          (the judge, koryo-pbm serve, invites them by mail and makes the game once both seats are taken)
    """
    import shlex

    from koryo_pbm import match
    from koryo_pbm.engine.registry import default_name, find_game
    from koryo_pbm.store import gamedoc, gamefile, inbox

    moderator = load_identity(as_name, key_file)
    game = find_game(game_name or default_name())
    blind_spec = None
    if blind or co_dealer:
        if not (blind and co_dealer):
            raise UsageError("a blind table needs both --blind and --co-dealer NAME=PUBLIC_KEY")
        if invite_specs:
            raise UsageError("a blind game cannot take its seats by mail yet (--invite)")
        co_name, co_key = _parse_player(co_dealer, "--co-dealer")
        blind_spec = (moderator.name, co_name, co_key)
    seats = dict(_parse_player(spec) for spec in player_specs)
    if len(seats) != len(player_specs):
        raise UsageError("a player is named twice in --player")
    bot_seats = parse_bot_specs(bot_specs)
    for name, key in seats.items():
        if key is None and name not in bot_seats:
            raise UsageError(f"--player {name}=bot needs --bot {name}=LEVEL (the level that plays the seat)")
        if key is not None and name in bot_seats:
            raise UsageError(f"{name} is given a key and a bot: a bot seat has no key (--player {name}=bot)")
    for name in bot_seats:
        seats.setdefault(name, None)
    invites = parse_email_specs(invite_specs, "--invite")
    for name in invites:
        if name in seats:
            raise UsageError(f"{name} is given a seat with --player or --bot and an invitation: give one")
    if not seats and not invites:
        raise UsageError("name the players: --player NAME=PUBLIC_KEY, once per player, in seat order")
    for name in email_specs:
        if name.partition("=")[0].strip() in bot_seats:
            raise UsageError(f"{name.partition('=')[0].strip()} is a bot seat: it has no mail address")
    now = now_utc()
    options: dict[str, object] = {}
    for spec in option_specs:
        key, eq, text = spec.partition("=")
        key = key.strip()
        if not eq or not key:
            raise UsageError(f"--option takes NAME=VALUE, not {spec[:40]!r}")
        if key not in game.options or key == "teams":
            known = ", ".join(k for k in game.options if k != "teams") or "none"
            raise SetupError(f"{game.title} has no option {key[:40]!r} (options: {known})")
        text = text.strip()
        options[key] = {"true": True, "false": False}.get(text, int(text) if text.lstrip("-").isdigit() else text)
    if teams:
        if "teams" not in game.options:
            raise SetupError(f"{game.title} has no teams")
        options["teams"] = [[m.strip() for m in t.split(",")] for t in teams]
    if blind_spec is not None:  # the dealers' decisions (kind deal) can have a deadline too
        from koryo_pbm.blind import Dealing
        from koryo_pbm.match.creation import check_blind_table

        # match.create makes these refusals too; made here first, before the policy's own checks
        check_blind_table(game, list(seats), seed=seed, from_position=position_file is not None, bots=list(bot_seats),
                          missed=missed, abandon_after=abandon_after, options=options)
        policy = make_policy(Dealing(game), deadline_specs, grace, missed, bot_level, abandon_after, remind, bot_seats)
    else:
        policy = make_policy(game, deadline_specs, grace, missed, bot_level, abandon_after, remind, bot_seats)
    policy.press = "" if press == "private" else press
    policy.state_mail = {"act": "", "turn": "every"}.get(state_mail, state_mail)
    if moderator_email is not None:
        from koryo_pbm.transport.address import check_address

        check_address(moderator_email, who="--moderator-email address")
        policy.moderator_email = moderator_email
    if judge is not None:
        policy.judge, policy.tag = judge_and_tag(judge, directory)
    players = {name: moderator.public if key is None else key for name, key in seats.items()}
    emails = parse_email_specs(email_specs)
    if invites:
        return _signup(directory, game, moderator, seats, invites, emails, policy, options, seed, first,
                       position_file, signup_deadline, now, as_json)
    position = match.read_position(position_file) if position_file else None
    if position is not None and position.get("game", game.name) != game.name:
        raise SetupError(f"the position is for {position.get('game')!r}, not {game.name!r}")
    path = directory / GAME_FILE
    if path.exists():
        raise StorageError(f"{path} exists already: choose a new folder (nothing was changed)")
    doc, _ = match.create(game, moderator, players, seed=seed, first=first, options=options, position=position,
                          emails=emails, policy=policy, now=now, blind=blind_spec)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        inbox.inbox_dir(directory).mkdir(exist_ok=True)
        inbox.archive_dir(directory).mkdir(exist_ok=True)
    except OSError as exc:
        raise StorageError(f"cannot create {directory}: {exc.strerror or exc}") from None
    gamefile.write_game(path, doc, moderator)
    decision = doc.decision or {}
    if as_json:
        echo_json({"id": doc.game_id, "game": doc.game, "path": str(path),
                   "decision": decision.get("id"), "waiting_for": decision.get("waiting_for", []),
                   "deadline": decision.get("deadline"), "service": policy.to_table()})
        return
    click.echo(f"created game {doc.game_id} ({game.title}) in {directory}")
    if decision:
        from koryo_pbm.waiting import waiting_words

        click.echo(f"decision {decision['id']}: {waiting_words(decision['waiting_for'])}")
    for line in deadline_lines(doc, now):
        click.echo(line)
    if decision.get("kind") == "join":
        click.echo(f"not dealt yet: every player joins first (koryo-pbm play {shlex.quote(str(directory))} --as NAME, "
                   "or orders and "
                   "submit); resolve then deals from your committed secret and their contributions")
    elif doc.deal == "blind":
        click.echo(gamedoc.describe_deal(doc))
        click.echo(f"waiting for the co-dealer: koryo-pbm co-deal {shlex.quote(str(directory))} --as {blind_spec[1]}"
                   if blind_spec else "")
    elif doc.deal != "joined":
        click.echo(f"deal: chosen by you ({'--position' if doc.deal == 'position' else '--seed'}): not fair-proof")
    click.echo(f"share {path} with the players (mail it, or share the folder)")


def _signup(directory: Path, game, moderator, seats: dict, invites: dict[str, str], emails: dict[str, str], policy,
            options: dict, seed: str | None, first: str | None, position_file: Path | None, signup_deadline: str,
            now, as_json: bool) -> None:
    """``new --invite``: the sign-up file the judge serves until every seat is taken."""
    from koryo_pbm import signup
    from koryo_pbm.deadlines import parse_duration

    if position_file is not None:
        raise UsageError("--invite makes a new deal: it cannot start from --position")
    names = [*seats, *invites]
    if first is not None and first not in names:
        raise UsageError(f"--first {first}: not one of the players ({', '.join(names)})")
    for name in emails:
        if name not in seats:
            raise UsageError(f"--email {name}: not a --player seat (an invited seat's address is its --invite)")
    for spec in options.get("teams", []):
        for member in spec:
            if member not in names:
                raise UsageError(f"--team names {member}, who is not a player")
    from koryo_pbm.crypto.keys import validate_name

    for name in names:
        validate_name(name)
    answer_by = now + parse_duration(signup_deadline, what="--signup-deadline")
    record = signup.Signup(
        game=game.name, answer_by=answer_by.strftime("%Y-%m-%dT%H:%M:%SZ"),
        seats=[*(signup.Seat(n, None if k is None else k.line(), emails.get(n)) for n, k in seats.items()),
               *(signup.Seat(n, None, a, signup.new_code()) for n, a in invites.items())],
        make={k: v for k, v in {"seed": seed, "first": first, "options": options,
                                "service": policy.to_table()}.items() if v})
    if (directory / GAME_FILE).exists() or (directory / signup.SIGNUP_FILE).exists():
        raise StorageError(f"{directory} holds a game already: choose a new folder (nothing was changed)")
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StorageError(f"cannot create {directory}: {exc.strerror or exc}") from None
    signup.write(directory, record, moderator)
    if as_json:
        echo_json({"signup": str(directory / signup.SIGNUP_FILE), "game": game.name, "invited": list(invites),
                   "seats": names, "answer_by": record.answer_by})
        return
    click.echo(f"{game.title} game {directory.name}: waiting for its seats (sign-up until {record.answer_by})")
    click.echo(f"invited by mail: {', '.join(f'{n} ({a})' for n, a in invites.items())}")
    click.echo("the judge (koryo-pbm serve) mails the invitations, takes the seats from the replies and makes "
               "game.toml when every seat is taken")

