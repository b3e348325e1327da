"""Golden texts of the judge's mails, one per kind (tests/judge/golden/KIND.txt): the subject,
the names of the attachments and the text as a mail client shows it, with what varies from run
to run (times, digests, ids, keys, signatures, the events
of the deal and the version) replaced by a placeholder. The tests that read
the mails of a game played through the judge compare each kind with its golden text; with
KORYO_PBM_GOLDEN=update they write them instead (then read each one as a player would)."""

from __future__ import annotations

import os
import re
from pathlib import Path

GOLDEN = Path(__file__).resolve().parent / "judge" / "golden"


def body(msg) -> str:
    part = msg.get_body(preferencelist=("plain",))
    return part.get_content() if part is not None else ""
_VARYING = [
    (re.compile(r"koryo-pbm-pub-v1:[A-Za-z0-9_-]+"), "koryo-pbm-pub-v1:<KEY>"),
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z"), "<STAMP>"),
    (re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC"), "<TIME>"),
    (re.compile(r"\bmail(\s)[0-9a-f]{8}\b"), r"mail\1<MAIL>"),
    (re.compile(r"\bmail-[0-9a-f]{8}\.eml"), "mail-<MAIL>.eml"),
    (re.compile(r"\(code [A-Za-z0-9-]+\)"), "(code <CODE>)"),
    (re.compile(r"[0-9a-f]{10,}"), "<HEX>"),
    (re.compile(r"^[A-Za-z0-9+/=]{20,}$", re.M), "<BASE64>"),
    # what happened depends on the deal and the orders (the players play the template's choices)
    (re.compile(r"(What happened since the last mail:\n\n).*?\n\n", re.S), r"\1  <EVENTS>\n\n"),
    (re.compile(r"\bversion \d+"), "version <N>"),
]


def normalized(msg) -> str:
    names = [part.get_filename() for part in msg.iter_attachments()]
    text = (f"Subject: {msg['Subject']}\nAttachments: {', '.join(n for n in names if n) or '(none)'}\n\n"
            + body(msg).replace("\r\n", "\n"))
    for pattern, replacement in _VARYING:
        text = pattern.sub(replacement, text)
    return text


def check(kind: str, msg) -> None:
    """``msg`` is the golden mail of ``kind``, but what varies."""
    path = GOLDEN / f"{kind}.txt"
    text = normalized(msg)
    if os.environ.get("KORYO_PBM_GOLDEN") == "update":
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    assert path.is_file(), f"no golden text {path}: run with KORYO_PBM_GOLDEN=update, then read it"
    assert text == path.read_text(encoding="utf-8"), f"the {kind} mail is not its golden text {path}:\n{text}"
