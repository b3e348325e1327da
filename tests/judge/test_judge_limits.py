"""The judge's rate limits (koryo_pbm/judge/limits.py), the module others call: a sliding window
per game and address, kept on disk across restarts, logged when it bites; ``first`` once per key."""

from __future__ import annotations

import json

from koryo_pbm.judge.limits import AUTOMATIC_ANSWER, Limit, Limits


def test_a_window_per_game_and_address_kept_across_restarts(tmp_path):
    now = [1_000_000.0]
    logged: list[str] = []
    path = tmp_path / "state" / "limits.json"

    def limits(**kw) -> Limits:
        return Limits(path, clock=lambda: now[0], log=logged.append, **kw)

    a = limits()
    assert a.take(AUTOMATIC_ANSWER, game="friday", address="Alice@Example.org", why="a help reply")
    assert not a.take(AUTOMATIC_ANSWER, game="friday", address="alice@example.org", why="the answer to mail 1")
    assert logged == ["rate limit: game friday, alice@example.org: the answer to mail 1 not sent (automatic "
                      "answers: 1 per hour; the next one in 1 h)"]
    assert a.take(AUTOMATIC_ANSWER, game="saturday", address="alice@example.org")  # another game
    assert a.take(AUTOMATIC_ANSWER, game="friday", address="bob@example.org")  # another address
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    # a judge started again (cron): the same limits, from the file
    now[0] += 1800
    b = limits()
    assert not b.allowed(AUTOMATIC_ANSWER, game="friday", address="alice@example.org")
    now[0] += 1801
    assert b.take(AUTOMATIC_ANSWER, game="friday", address="alice@example.org")
    three = Limit("press", 3, 60.0, "press mails")
    assert [b.take(three, game="friday", address="bob@example.org") for _ in range(4)] == [True, True, True, False]
    # first: once per (name, game, key), across restarts
    assert b.first("receipt", game="g1", key="d1") and not b.first("receipt", game="g1", key="d1")
    assert b.first("receipt", game="g2", key="d1")
    assert limits().seen("receipt", game="g1", key="d1")


def test_saved_when_asked_and_a_damaged_file_starts_afresh(tmp_path):
    path = tmp_path / "limits.json"
    logged: list[str] = []
    lazy = Limits(path, clock=lambda: 5.0, log=logged.append, autosave=False)
    assert lazy.take(AUTOMATIC_ANSWER, game="g", address="a@b.example")
    assert not path.exists()  # not yet: the judge saves once per batch of mails
    lazy.save()
    assert json.loads(path.read_text())["format"] == 1
    path.write_text("{not json")
    fresh = Limits(path, clock=lambda: 5.0, log=logged.append)
    assert fresh.take(AUTOMATIC_ANSWER, game="g", address="a@b.example")
    assert "cannot be read" in logged[-1] and "they start afresh" in logged[-1]
    assert json.loads(path.read_text())["format"] == 1  # replaced by a good one


def test_a_mail_refused_for_good_gives_its_count_back_across_restarts(tmp_path):
    path = tmp_path / "limits.json"
    logged: list[str] = []
    three = Limit("mail-command", 3, 3600.0, "answers to mail commands")
    a = Limits(path, clock=lambda: 10.0, log=logged.append)
    for n in range(3):
        assert a.take(three, game="g", address="carol@example.org", mail=f"answer-{n}")
    assert not a.allowed(three, game="g", address="carol@example.org")
    b = Limits(path, clock=lambda: 20.0, log=logged.append)  # the judge started again
    assert b.refund("answer-1") and not b.refund("answer-1") and not b.refund("never-counted")
    assert Limits(path, clock=lambda: 30.0, log=logged.append).take(three, game="g", address="carol@example.org")
    assert logged == []
