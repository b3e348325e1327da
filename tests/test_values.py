"""The checks that stand for regular expressions in the modules every command imports (compiling
the expressions cost each command milliseconds) accept exactly what the expressions did."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st
from koryo_pbm_games.koryo import game as koryo_game

from koryo_pbm import deadlines, pinning, values
from koryo_pbm.crypto import envelope, keys
from koryo_pbm.engine import registry
from koryo_pbm.store import gamedoc, gamefile, inbox, playercopy

# the characters the expressions treat differently, and some they do not know
ALPHABET = "aAfgzZ09_.:+-/=\"' \t\n>()T" + "\u0660\u0967\uff10\u017f\u0131\u212a\xe9"
text = st.text(alphabet=ALPHABET, max_size=90)


def near(*samples: str) -> st.SearchStrategy[str]:
    """A sample, or a sample with a few characters changed, cut or added."""
    def edit(sample: str, at: int, cut: int, insert: str) -> str:
        at = at % (len(sample) + 1)
        return sample[:at] + insert + sample[at + cut:]
    sample = st.sampled_from(samples)
    return st.one_of(sample, text, st.builds(edit, sample, st.integers(0, 200), st.integers(0, 3),
                                             st.text(alphabet=ALPHABET, max_size=3)))


HASH = "sha256:" + "0123456789abcdef" * 4
TIMES = ("2026-11-26T03:04:05Z", "2026-11-26T03:04:05.123456+00:00", "2026-11-26T03:04:05.1Z",
         "\u0662026-11-26T03:04:05Z")
SPELLINGS = [
    (values.ID, r"[A-Za-z0-9][A-Za-z0-9_.:+-]{0,63}", ("koryo-5e3f22ca5a", "r1-orders", "a" * 64, "a" * 65)),
    (values.HEX64, r"[0-9a-f]{64}", (HASH[7:],)),
    (envelope._HEX16, r"[0-9a-f]{16}", (HASH[7:23],)),
    (envelope._HEX32, r"[0-9a-f]{32}", (HASH[7:39],)),
    (envelope._B64_LINE, r"[A-Za-z0-9+/=]+", ("QUJD+/==",)),
    (keys._NAME_RE, r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}", ("alice", "bob.smith-2", "b" * 64)),
    (keys._B64_RE, r"[A-Za-z0-9_-]{86}", ("A-_z" * 21 + "Ab",)),
    (deadlines._WORD, r"[a-z0-9][a-z0-9_-]{0,31}", ("orders", "r1-x_y", "z" * 32)),
]


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_each_spelling_fits_what_its_expression_fully_matches(data: st.DataObject) -> None:
    for spelling, expression, samples in SPELLINGS:
        value = data.draw(near(*samples))
        assert spelling.fits(value) == bool(re.fullmatch(expression, value)), (expression, value)


@settings(max_examples=120, deadline=None)
@given(near(HASH, "r12-orders", "round 3: x", "r\u0663-", " > >> \t>x", "sha256:" + "0" * 63, "signature = \"" + "A+/z" * 21 + "AB==\"", "QUJD==", "QUJ===",
            "2026-11-26", "\u0662\u0660\u0662\u0666-11-26", *TIMES))
def test_the_hand_written_checks_accept_what_their_expressions_did(value: str) -> None:
    assert values.is_sha256(value) == bool(re.fullmatch(r"sha256:[0-9a-f]{64}", value))
    assert gamedoc._is_b64(value) == bool(re.fullmatch(r"[A-Za-z0-9+/]*={0,2}", value))
    m = re.fullmatch(r'signature = "([A-Za-z0-9+/]{86}==)"', value)
    assert gamefile._signature_text(value) == (m.group(1) if m else None)
    assert pinning._is_date(value) == bool(re.fullmatch(r"\d{4}-\d{2}-\d{2}", value))
    time = r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|\+00:00)"
    assert envelope._is_time(value) == bool(re.fullmatch(time, value)), value
    m = re.match(r"[ \t]*((?:>[ \t]?)*)", value)
    assert m is not None and envelope._quote(value) == (m.group(1), m.end())
    for before, after in (("r", "-"), ("round ", ": ")):
        m = re.match(re.escape(before) + r"(\d+)" + re.escape(after), value)
        assert koryo_game._round_number(value, before, after) == (m.group(1) if m else None)
    assert registry._normalize(value) == re.sub(r"[-_.]+", "-", value).lower().replace("-", "_")


@settings(max_examples=100, deadline=None)
@given(near("", "0123456789abcdef", "QUJD", "QUJD==", "QU\"JD"), st.sampled_from(["'", '"', "`"]),
       near("0123456789abcdef"), st.sampled_from(["", "\n", " "]))
def test_the_moderator_part_is_found_as_its_expression_found_it(data: str, quote: str, recipient: str,
                                                                 tail: str) -> None:
    body = (b"x = 1\n[sealed.moderator]\n"
            + f'recipient = "{recipient}"\ndata = {quote}{data}{quote}\n{tail}'.encode())
    start = body.index(b"recipient")
    m = re.compile(rb'recipient = "[0-9a-f]{16}"\ndata = ([\'"])([A-Za-z0-9+/]*={0,2})\1\n').fullmatch(body, start)
    expected = None if m is None else (m.start(1) - len(b"data = "), m.group(2))
    assert playercopy._moderator_data(body, start) == expected


CONFLICTS = [re.compile(r" \([^()]*conflicted copy[^()]*\)", re.IGNORECASE), re.compile(r" \(\d+\)$"),
             re.compile(r"\.sync-conflict-\d{8}-\d{6}(-[A-Za-z0-9]+)?", re.IGNORECASE)]


@settings(max_examples=100, deadline=None)
@given(near("r1-orders--alice.envelope", "r1-orders--alice (1).envelope", "game (Bob's conflicted copy).toml",
            "r1-orders--bob.sync-conflict-20261126-030405-ABCDEF.envelope", "game.SYNC-CONFLICT-20261126-030405.toml"))
def test_conflict_copies_are_told_as_before(name: str) -> None:
    stem = name.rsplit(".", 1)[0] if "." in name.lstrip(".") else name
    assert inbox.is_conflict_name(name) == any(p.search(stem) or p.search(name) for p in CONFLICTS)


@settings(max_examples=100, deadline=None)
@given(st.one_of(text, near("orders.toml", "my game", "it's", "/tmp/a b/game", "-x", "")))
def test_shell_quote_is_shlex_quote(word: str) -> None:
    import shlex

    from koryo_pbm.cli.common import shell_quote

    assert shell_quote(word) == shlex.quote(word)


@settings(max_examples=100, deadline=None)
@given(near("the moderator moved the deadline of r2-orders to 2026-11-27T18:00:00Z",
            "bob's seat is taken over by a new player (key fingerprint 0123456789abcdef; the former key was "
            "fedcba9876543210)", "the moderator set bob's mail address",
            "bob missed the deadline: the random bot played for them", "bob's seat is abandoned: the random bot "
            "played for them (x)", "the random bot played bob's seat", "bob missed 3 decisions in a row: the seat is "
            "abandoned; the bot plays it"))
def test_the_notes_needles_change_no_answer(line: str) -> None:
    from koryo_pbm.match import notes

    for pattern in (*notes.SERVICE_ONLY, *notes.BOT_NOTES):
        m = re.fullmatch(pattern.compiled.pattern, line)
        found = pattern.fullmatch(line)
        assert (found and found.groupdict()) == (m and m.groupdict())


PEM = ("-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIA+/=\n-----END PRIVATE KEY-----\n",
       "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIGbMFcGCSqG\nSIb3=\n-----END ENCRYPTED PRIVATE KEY-----")
PIECES = st.sampled_from([*PEM, "-----BEGIN ", "-----END ", "ENCRYPTED ", "PRIVATE KEY-----", "\n", " ", "AbC+/=",
                          "-", "x", "\r"])


@settings(max_examples=120, deadline=None)
@given(st.lists(st.one_of(PIECES, near(*PEM)), max_size=6).map("".join))
def test_key_blocks_are_found_as_their_expression_found_them(text: str) -> None:
    pattern = re.compile(r"-----BEGIN ((?:ENCRYPTED )?)PRIVATE KEY-----\n[A-Za-z0-9+/=\n]+?-----END \1PRIVATE KEY-----\n?")
    expected = [(m.group(0), bool(m.group(1))) for m in pattern.finditer(text)], pattern.sub("", text)
    assert keys._pem_blocks(text) == expected


def test_a_part_is_opened_without_its_menu_under_the_menus_own_key() -> None:
    from koryo_pbm import choices
    from koryo_pbm.match import views

    assert views.MENU_KEY == choices.MENU_KEY


def test_keep_holds_at_most_its_limit_and_lets_the_entry_put_in_longest_ago_go_first():
    memo: dict[str, int] = {}
    for n, key in enumerate("abcd"):
        assert values.keep(memo, key, n, 3) == n
    assert memo == {"b": 1, "c": 2, "d": 3}
    values.keep(memo, "b", memo.pop("b"), 3)  # taken out on use and put back: kept longest
    values.keep(memo, "e", 4, 3)
    assert list(memo) == ["d", "b", "e"]
