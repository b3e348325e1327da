"""A tiny post office for the judge's tests: a sendmail program that delivers into one Maildir
per address, and players who read their mail and answer it with the real CLI."""

from __future__ import annotations

import email
import email.parser
import email.policy
import os
import stat
import time
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from pathlib import Path

JUDGE = "judge@example.org"
FROM = f"Koryo judge <{JUDGE}>"


def maildir(path: Path) -> Path:
    for sub in ("new", "cur", "tmp"):
        (path / sub).mkdir(parents=True, exist_ok=True)
    return path


def deliver(box: Path, data: bytes) -> Path:
    maildir(box)
    name = f"{time.time_ns()}.P{os.getpid()}.{os.urandom(4).hex()}.test"
    tmp = box / "tmp" / name
    tmp.write_bytes(data)
    os.rename(tmp, box / "new" / name)
    return box / "new" / name


# A shell script: a Python one costs 16-50 ms to start per mail (the judge-killed test sends
# ~2,000 mails), this one ~5 ms: three programs a mail (date, cat, mv; cp for each further
# recipient), where it ran five (date, cat, cp, mv, rm). Same contract: the addresses after '--',
# the message on stdin, exit 75 (EX_TEMPFAIL) while the DOWN flag exists, one line of addresses per
# mail in the log; each recipient's copy written in tmp/ and moved to new/ once every copy is written.
SENDMAIL = r'''#!/bin/sh
while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do shift; done
[ "$#" -gt 0 ] && shift
if [ -e '{down}' ]; then echo "mail system down" >&2; exit 75; fi
if [ "$#" -eq 0 ]; then cat > /dev/null; echo >> '{log}'; exit 0; fi
stamp=$(date +%s%N).P$$
first= n=0
for r in "$@"; do
    n=$((n + 1))
    box='{root}/'"$r"
    [ -d "$box/tmp" ] || mkdir -p -- "$box/new" "$box/cur" "$box/tmp" || exit 75
    if [ -z "$first" ]; then
        first="$box/tmp/$stamp.$n.sent"
        cat > "$first" || exit 75
    else
        cp -- "$first" "$box/tmp/$stamp.$n.sent" || exit 75
    fi
done
n=0
for r in "$@"; do
    n=$((n + 1))
    box='{root}/'"$r"
    mv -- "$box/tmp/$stamp.$n.sent" "$box/new/$stamp.$n.sent" || exit 75
done
echo "$*" >> '{log}'
'''


class PostOffice:
    """``root/<address>/`` is each address's Maildir; ``sendmail`` delivers there."""

    def __init__(self, root: Path):
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.down_flag = root / "DOWN"
        self.log = root / "sendmail.log"
        self.sendmail = root / "sendmail"
        self.sendmail.write_text(SENDMAIL.format(root=str(root), down=str(self.down_flag), log=str(self.log)))
        self.sendmail.chmod(self.sendmail.stat().st_mode | stat.S_IXUSR)
        self.judge_box = maildir(root / JUDGE)

    def box(self, address: str) -> Path:
        return maildir(self.root / address)

    def messages(self, address: str, *, take: bool = True) -> list[email.message.EmailMessage]:
        """The mails in ``address``'s Maildir (oldest first); ``take`` moves them to cur/."""
        box = self.box(address)
        found = []
        for path in sorted((box / "new").iterdir(), key=lambda p: p.name):
            msg = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
            found.append(msg)
            if take:
                os.rename(path, box / "cur" / (path.name + ":2,S"))
        return found

    def message_ids(self, address: str) -> list[str]:
        """The Message-IDs of the mails in ``address``'s Maildir, new/ (oldest first), headers
        only (a state mail carries the game file: parsing it whole costs more than the serve)."""
        parser = email.parser.BytesHeaderParser(policy=email.policy.default)
        ids = []
        for path in sorted((self.box(address) / "new").iterdir(), key=lambda p: p.name):
            head = path.read_bytes().replace(b"\r\n", b"\n").partition(b"\n\n")[0]
            ids.append(str(parser.parsebytes(head + b"\n\n")["Message-ID"]))
        return ids

    def send_to_judge(self, sender: str, subject: str, body: str, *, attachments=(), headers=None,
                      in_reply_to: str | None = None) -> bytes:
        msg = EmailMessage()
        msg["From"] = sender
        msg["To"] = JUDGE
        msg["Subject"] = subject
        msg["Date"] = format_datetime(__import__("datetime").datetime.now(__import__("datetime").UTC))
        msg["Message-ID"] = make_msgid(domain="players.example")
        if in_reply_to:
            msg["In-Reply-To"] = in_reply_to
        for k, v in (headers or {}).items():
            del msg[k]
            msg[k] = v
        msg.set_content(body)
        for name, data in attachments:
            msg.add_attachment(data, maintype="text", subtype="plain", filename=name)
        data = msg.as_bytes()
        deliver(self.judge_box, data)
        return data


def attachment(msg, name: str = "game.toml") -> bytes | None:
    for part in msg.iter_attachments():
        if part.get_filename() == name:
            return part.get_payload(decode=True)
    return None


def player_copy(path) -> bytes:
    """What the judge attaches as ``game.toml``: the player copy of the game file at ``path``
    (the moderator's part as its digest, the same signature)."""
    from koryo_pbm.store.playercopy import player_copy as copy_of

    data = Path(path).read_bytes()
    copy = copy_of(data)
    assert len(copy) < len(data) and b'\n[sealed.moderator]\nrecipient = "' in copy
    return copy


def body(msg) -> str:
    part = msg.get_body(preferencelist=("plain",))
    return part.get_content() if part is not None else ""
