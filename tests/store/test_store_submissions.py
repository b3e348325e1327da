"""The record of what this machine submitted (koryo_pbm.store.submissions)."""

from __future__ import annotations

import pytest

from koryo_pbm.errors import FormatError
from koryo_pbm.store import submissions
from koryo_pbm.store.atomic import LinkRefused
from koryo_pbm.store.submissions import Submission

pytestmark = pytest.mark.real_fsync  # the store's writes fsync, as in every koryo-pbm process (see conftest._unsynced_session)


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("KORYO_PBM_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def sub(i: int, decision: str = "r1-orders", player: str = "alice") -> Submission:
    return Submission(decision, player, f"{i:064x}", f"2026-01-01T00:00:{i % 60:02d}.{i:06d}Z")


def test_round_trip_latest_and_the_withdrawn_notice(home):
    assert submissions.load("koryo-0a") == []
    submissions.add("koryo-0a", sub(1))
    submissions.add("koryo-0a", sub(2))
    submissions.add("koryo-0a", sub(3, player="bob"))
    assert submissions.load("koryo-0a") == [sub(1), sub(2), sub(3, player="bob")]
    assert (home / "submitted" / "koryo-0a").stat().st_mode & 0o777 == 0o600
    assert submissions.latest(submissions.load("koryo-0a"), "alice") == {"r1-orders": sub(2)}
    records = submissions.load("koryo-0a")
    log = [{"decision": "r1-orders", "accepted": [sub(1).digest, sub(3).digest]}]
    (notice,) = submissions.withdrawn(log, records, "alice")
    assert notice.startswith("the log counted an older envelope of alice for r1-orders than the last one")
    assert submissions.withdrawn(log, records, "bob") == []
    assert submissions.withdrawn([{"decision": "r1-orders", "accepted": [sub(2).digest]}], records, "alice") == []


def test_bounded_to_the_latest_entries(monkeypatch):
    monkeypatch.setattr(submissions, "MAX_ENTRIES", 5)
    for i in range(12):
        submissions.add("koryo-0b", sub(i))
    assert [s.digest for s in submissions.load("koryo-0b")] == [sub(i).digest for i in range(7, 12)]


def test_a_link_is_not_followed_and_damage_is_named(home, tmp_path):
    (home / "submitted").mkdir(parents=True)
    secret = tmp_path / "secret"
    secret.write_text("do not read\n")
    (home / "submitted" / "koryo-0c").symlink_to(secret)
    with pytest.raises(LinkRefused):
        submissions.load("koryo-0c")
    (home / "submitted" / "koryo-0d").write_text('{"decision": 1}\n')
    with pytest.raises(FormatError, match="damaged at line 1"):
        submissions.load("koryo-0d")
    submissions.add("koryo-0d", sub(1))  # a damaged record is started anew
    assert submissions.load("koryo-0d") == [sub(1)]
    with pytest.raises(LinkRefused):  # refused (submit warns), never written through
        submissions.add("koryo-0c", sub(1))
    assert secret.read_text() == "do not read\n"
    with pytest.raises(FormatError):
        submissions.record_path("../escape")
