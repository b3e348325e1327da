"""Deadlines and absent players: the public service policy of a game, and time as text.

Pure: nothing here reads a clock. The time always comes from the caller (the command line
passes the real clock, or ``KORYO_PBM_NOW`` in tests; the judge its own clock), and nothing in
``games/`` ever sees it: a deadline lives in the match layer.

A game's policy is the optional ``[service]`` table of the game file, public::

    deadlines = {default = "3d", action = "1d"}   # per decision kind; "default" for the others
    grace = "12h"                                  # after the deadline, before the bot plays
    missed = "wait"                                # or "bot": the bot plays a missed order
    bot_level = "heuristic"                        # the level that plays missed orders
    abandon_after = 3                              # N missed decisions in a row: seat abandoned
    remind = "1d"                                  # the judge reminds this long before
    bots = {carol = "heuristic"}                   # seats the moderator's bot plays itself
    abandoned = ["bob"]                            # seats the bot plays until a substitute comes
    missed_in_row = {bob = 2}                      # consecutive missed decisions, per seat
    press = "public"                               # press allowed: private (""), public, none
    state_mail = "every"                           # the judge's state mails: act (""), every, all
    moderator_email = "mod@example.org"            # the judge forwards players' plain mails there
    judge = "judge@example.org"                    # the judge's address (new --judge): where replies go
    tag = "friday"                                 # the game's tag in the judge's subjects ([koryo-pbm friday])

The pending decision's deadline is ``decision.deadline``, an absolute UTC time
(``2026-11-27T18:00:00Z``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from functools import cache
from typing import Any

from koryo_pbm.errors import FormatError, UsageError
from koryo_pbm.values import ID, Spelling, Value

MAX_DURATION = timedelta(days=90)
MAX_ABANDON = 100
MISSED = ("wait", "bot")
DEFAULT_KIND = "default"
SERVICE_KEYS = ("deadlines", "grace", "missed", "bot_level", "abandon_after", "remind", "bots", "abandoned",
                "missed_in_row", "press", "state_mail", "moderator_email",
                "judge", "tag")
PRESS = ("private", "public", "none")  # press between players: any, only to all players, none
# What the judge mails when the game moves on: "" (the default) or "act", a mail only to the players
# who must act (what happened goes into each player's next mail); "every" (or "turn", its old name),
# game.toml to the players who must act and a short text to the others; "all", game.toml to all
STATE_MAIL = ("act", "every", "turn", "all")

_UNITS = {"w": 7 * 86400, "d": 86400, "h": 3600, "m": 60}
_STAMP = "%Y-%m-%dT%H:%M:%SZ"
_LOWER = "abcdefghijklmnopqrstuvwxyz0123456789"
_WORD = Spelling(_LOWER + "_-", 0, 31, first=_LOWER)  # [a-z0-9][a-z0-9_-]{0,31}  # a decision kind, a bot level
_TAG = ID  # a game folder's name, as the judge's subjects carry it


@cache
def _duration_res() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """A duration and its parts (compiled on first use: only the commands that set one ask)."""
    return re.compile(r"(?:\d{1,6}[wdhm])+"), re.compile(r"(\d{1,6})([wdhm])")


class DeadlineError(UsageError):
    """A duration, a time or a policy that cannot be used."""


# -- durations ---------------------------------------------------------------------------------


def parse_duration(text: str, *, what: str = "a duration", allow_zero: bool = False) -> timedelta:
    """``30m``, ``12h``, ``3d``, ``1w``, ``1d12h`` -> a duration; zero (unless ``allow_zero``),
    negative, malformed and over 90 days refused."""
    s = text.strip().lower() if isinstance(text, str) else ""
    if s.startswith("-"):
        raise DeadlineError(f"{what} cannot be negative: {text!r}")
    if allow_zero and s in ("0", "0m", "0h", "0d", "0w"):
        return timedelta(0)
    duration, part = _duration_res()
    if not duration.fullmatch(s):
        raise DeadlineError(f"{what} must be like 30m, 12h, 3d, 1w or 1d12h, not {str(text)[:40]!r}")
    seconds = sum(int(n) * _UNITS[u] for n, u in part.findall(s))
    if seconds == 0 and not allow_zero:
        raise DeadlineError(f"{what} cannot be zero: {text!r}")
    if seconds > MAX_DURATION.total_seconds():
        raise DeadlineError(f"{what} is {text!r}, over the limit of 90 days")
    return timedelta(seconds=seconds)


def format_duration(delta: timedelta) -> str:
    """``2 days 3 h``, ``5 h 10 min``, ``12 min``, ``less than a minute`` (never negative)."""
    seconds = max(0, int(delta.total_seconds()))
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    if days:
        return f"{days} day{'s' if days != 1 else ''}" + (f" {hours} h" if hours else "")
    if hours:
        return f"{hours} h" + (f" {minutes} min" if minutes else "")
    return f"{minutes} min" if minutes else "less than a minute"


# -- times -------------------------------------------------------------------------------------


def stamp(when: datetime) -> str:
    """``2026-11-27T18:00:00Z`` (UTC, to the second)."""
    return when.astimezone(UTC).strftime(_STAMP)


def parse_stamp(text: Any, *, what: str = "the time") -> datetime:
    """A UTC time written ``2026-11-27T18:00:00Z`` (or ``...T18:00Z``)."""
    if isinstance(text, str):
        for fmt in (_STAMP, "%Y-%m-%dT%H:%MZ"):
            try:
                when = datetime.strptime(text, fmt).replace(tzinfo=UTC)
            except ValueError:
                continue
            if not 2000 <= when.year <= 9000:  # far from datetime's limits: durations never overflow
                raise DeadlineError(f"{what} must be between the years 2000 and 9000, not {text[:40]!r}")
            return when
    raise DeadlineError(f"{what} must be a UTC time like 2026-11-27T18:00Z, not {str(text)[:40]!r}")


def human(when: datetime) -> str:
    """``2026-11-27 18:00 UTC``."""
    return when.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def relative(when: datetime, now: datetime) -> str:
    """``in 2 days 3 h`` or ``passed 5 h ago``."""
    if when > now:
        return f"in {format_duration(when - now)}"
    return f"passed {format_duration(now - when)} ago"


def parse_new_deadline(text: str, current: datetime | None, now: datetime) -> datetime:
    """What ``koryo-pbm deadline`` sets: ``+1d`` (from the current deadline, or from now when
    there is none or it has passed) or an absolute UTC time, which must be in the future."""
    s = text.strip()
    if s.startswith("+"):
        base = current if current is not None and current > now else now
        when = base + parse_duration(s[1:], what="the extension")
    elif s[:1] == "-":
        raise DeadlineError(f"the extension cannot be negative: {text!r} (give a later time, or +DURATION)")
    else:
        when = parse_stamp(s, what="the new deadline")
    if when <= now:
        raise DeadlineError(f"the new deadline {human(when)} is in the past (it is {human(now)})")
    if when - now > MAX_DURATION:
        raise DeadlineError(f"the new deadline {human(when)} is more than 90 days away")
    return when


# -- the policy --------------------------------------------------------------------------------


class Policy(Value):
    """A game's service policy (the ``[service]`` table)."""

    _fields = ("deadlines", "grace", "missed", "bot_level", "abandon_after", "remind", "bots", "abandoned",
               "missed_in_row", "press", "state_mail", "moderator_email",
               "judge", "tag")
    deadlines: dict[str, str]
    grace: str
    missed: str
    bot_level: str
    abandon_after: int
    remind: str
    bots: dict[str, str]
    abandoned: list[str]
    missed_in_row: dict[str, int]
    press: str  # "" is "private": press to any players
    state_mail: str  # "" is "act" (the judge's default): mail only to the players who must act
    moderator_email: str  # the moderator's own address ("": none): players' plain mails are forwarded there
    judge: str  # the judge's mail address, where the player page's reply goes ("": none said)
    tag: str  # the game's tag in the judge's subjects, its folder's name ("": none said)

    def __init__(self, deadlines: dict[str, str] | None = None, grace: str = "", missed: str = "wait",
                 bot_level: str = "", abandon_after: int = 0, remind: str = "", bots: dict[str, str] | None = None,
                 abandoned: list[str] | None = None, missed_in_row: dict[str, int] | None = None, press: str = "",
                 state_mail: str = "", moderator_email: str = "",
                 judge: str = "", tag: str = "") -> None:
        self.deadlines = {} if deadlines is None else deadlines
        self.grace = grace
        self.missed = missed
        self.bot_level = bot_level
        self.abandon_after = abandon_after
        self.remind = remind
        self.bots = {} if bots is None else bots
        self.abandoned = [] if abandoned is None else abandoned
        self.missed_in_row = {} if missed_in_row is None else missed_in_row
        self.press = press
        self.state_mail = state_mail
        self.moderator_email = moderator_email
        self.judge = judge
        self.tag = tag

    def duration(self, kind: str) -> timedelta | None:
        """The time a decision of ``kind`` is given, if any."""
        text = self.deadlines.get(kind, self.deadlines.get(DEFAULT_KIND))
        return parse_duration(text) if text else None

    def grace_period(self) -> timedelta:
        return parse_duration(self.grace, allow_zero=True) if self.grace else timedelta(0)

    def bot_plays(self, player: str) -> str | None:
        """The level that plays ``player``'s seat at once (a bot seat, or an abandoned one)."""
        if player in self.bots:
            return self.bots[player]
        if player in self.abandoned:
            return self.bot_level or "random"
        return None

    def is_empty(self) -> bool:
        return self.to_table() == {}

    def to_table(self) -> dict[str, Any]:
        """The ``[service]`` table (empty fields left out)."""
        table: dict[str, Any] = {}
        if self.deadlines:
            table["deadlines"] = dict(self.deadlines)
        if self.grace:
            table["grace"] = self.grace
        if self.missed != "wait":
            table["missed"] = self.missed
        if self.bot_level:
            table["bot_level"] = self.bot_level
        if self.abandon_after:
            table["abandon_after"] = self.abandon_after
        if self.remind:
            table["remind"] = self.remind
        if self.bots:
            table["bots"] = dict(self.bots)
        if self.abandoned:
            table["abandoned"] = list(self.abandoned)
        if self.missed_in_row:
            table["missed_in_row"] = dict(self.missed_in_row)
        if self.press:
            table["press"] = self.press
        if self.state_mail:
            table["state_mail"] = self.state_mail
        if self.moderator_email:
            table["moderator_email"] = self.moderator_email
        if self.judge:
            table["judge"] = self.judge
        if self.tag:
            table["tag"] = self.tag
        return table

    def next_step(self, deadline: datetime, who: str = "them", *, bot: bool = True) -> str:
        """What happens to a missed order of this game, as a sentence (for the judge's mails);
        ``bot=False``: a decision the bot never answers for a person (the join), which waits."""
        if self.missed == "bot" and bot:
            return (f"the {self.bot_level or 'random'} bot plays for {who} from {human(deadline + self.grace_period())} "
                    f"if the orders are still missing then")
        return f"the game waits for {who}; the moderator may extend the deadline"

    def describe(self) -> list[str]:
        """Sentences for ``show``/``status``: what happens to missed orders, the bot seats."""
        lines = []
        if self.deadlines:
            parts = [f"{k} {v}" if k != DEFAULT_KIND else v for k, v in sorted(
                self.deadlines.items(), key=lambda kv: kv[0] != DEFAULT_KIND)]
            lines.append("time to answer: " + ", ".join(parts) + (f" (grace {self.grace})" if self.grace else ""))
        if self.missed == "bot":
            lines.append(f"missed orders: the {self.bot_level or 'random'} bot plays"
                         + (f" once the deadline and a grace period of {self.grace} have passed" if self.grace
                            else " once the deadline has passed"))
        elif self.deadlines:
            lines.append("missed orders: the game waits")
        if self.abandon_after:
            n = self.abandon_after
            lines.append(f"a seat that misses {n} decision{'s' if n != 1 else ''} in a row is abandoned "
                         "(the bot plays it until a substitute takes it over)")
        for name, level in self.bots.items():
            lines.append(f"{name} is a bot seat ({level})")
        for name in self.abandoned:
            lines.append(f"{name}'s seat is abandoned: the {self.bot_level or 'random'} bot plays it")
        return lines


def policy_of(table: Mapping[str, Any] | None, players: Sequence[str] = ()) -> Policy:
    """The policy in a game file's ``[service]`` table, every field checked (``FormatError``)."""
    if table is None:
        return Policy()
    if not isinstance(table, Mapping):
        raise FormatError("'service' must be a table")
    for key in table:
        if key not in SERVICE_KEYS:
            raise FormatError(f"'service' has an unknown field {str(key)[:40]!r}")
    p = Policy()
    try:
        deadlines = table.get("deadlines", {})
        if not isinstance(deadlines, Mapping) or not all(isinstance(v, str) for v in deadlines.values()):
            raise FormatError("'service.deadlines' must be a table of durations")
        for kind, text in deadlines.items():
            if not _WORD.fits(kind):
                raise FormatError("'service.deadlines' has a key that is not a decision kind")
            parse_duration(text, what=f"'service.deadlines.{kind}'")
        p.deadlines = dict(deadlines)
        for key in ("grace", "remind"):
            value = table.get(key, "")
            if not isinstance(value, str):
                raise FormatError(f"'service.{key}' must be a duration")
            if value:
                parse_duration(value, what=f"'service.{key}'", allow_zero=key == "grace")
            setattr(p, key, value)
        p.missed = table.get("missed", "wait")
        if p.missed not in MISSED:
            raise FormatError("'service.missed' must be 'wait' or 'bot'")
        p.bot_level = table.get("bot_level", "")
        if not isinstance(p.bot_level, str) or (p.bot_level and not _WORD.fits(p.bot_level)):
            raise FormatError("'service.bot_level' must be a bot level")
        p.abandon_after = table.get("abandon_after", 0)
        if isinstance(p.abandon_after, bool) or not isinstance(p.abandon_after, int) or not (
                0 <= p.abandon_after <= MAX_ABANDON):
            raise FormatError(f"'service.abandon_after' must be a number from 1 to {MAX_ABANDON}")
        bots = table.get("bots", {})
        if not isinstance(bots, Mapping) or not all(isinstance(v, str) and _WORD.fits(v) for v in bots.values()):
            raise FormatError("'service.bots' must be a table of bot levels")
        p.bots = dict(bots)
        abandoned = table.get("abandoned", [])
        if not isinstance(abandoned, list) or not all(isinstance(n, str) for n in abandoned):
            raise FormatError("'service.abandoned' must be a list of players")
        p.abandoned = list(abandoned)
        counts = table.get("missed_in_row", {})
        if not isinstance(counts, Mapping) or not all(
                isinstance(v, int) and not isinstance(v, bool) and 0 < v <= MAX_ABANDON for v in counts.values()):
            raise FormatError("'service.missed_in_row' must be a table of counts")
        p.missed_in_row = dict(counts)
        for key, allowed in (("press", PRESS), ("state_mail", STATE_MAIL)):
            value = table.get(key, "")
            if value and value not in allowed:
                raise FormatError(f"'service.{key}' must be one of {', '.join(allowed)}")
            setattr(p, key, value)
        moderator_email = table.get("moderator_email", "")
        if not isinstance(moderator_email, str) or len(moderator_email) > 254 or (
                moderator_email and (moderator_email.count("@") != 1 or any(c.isspace() or not c.isprintable()
                                                                            for c in moderator_email))):
            raise FormatError("'service.moderator_email' must be a mail address")
        p.moderator_email = moderator_email
        p.judge, p.tag = table.get("judge", ""), table.get("tag", "")
        if p.judge:
            from koryo_pbm.address import check_address

            try:
                check_address(p.judge, who="'service.judge'")
            except UsageError as exc:
                raise FormatError(str(exc)) from None
        if not isinstance(p.tag, str) or (p.tag and not _TAG.fits(p.tag)):
            raise FormatError("'service.tag' must be a game folder's name")
    except DeadlineError as exc:
        raise FormatError(str(exc)) from None
    if players:
        for where, names in (("bots", p.bots), ("abandoned", p.abandoned), ("missed_in_row", p.missed_in_row)):
            for name in names:
                if name not in players:
                    raise FormatError(f"'service.{where}' names {str(name)[:40]!r}, who is not a player")
    return p
