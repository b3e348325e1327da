"""A tiny post office for the judge's tests: a sendmail program that delivers into one Maildir
per address, and players who read their mail and answer it with the real CLI."""

from __future__ import annotations

import email
import email.policy
import os
import stat
import sys
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


SENDMAIL = r'''#!{python}
import os, sys, time
args = sys.argv[1:]
rcpts = args[args.index("--") + 1:]
data = sys.stdin.buffer.read()
if os.path.exists({down!r}):
    sys.stderr.write("mail system down\n")
    sys.exit(75)
for r in rcpts:
    box = os.path.join({root!r}, r)
    for sub in ("new", "cur", "tmp"):
        os.makedirs(os.path.join(box, sub), exist_ok=True)
    name = "%d.P%d.%s.sent" % (time.time_ns(), os.getpid(), os.urandom(4).hex())
    with open(os.path.join(box, "tmp", name), "wb") as f:
        f.write(data)
    os.rename(os.path.join(box, "tmp", name), os.path.join(box, "new", name))
with open({log!r}, "a") as f:
    f.write(" ".join(rcpts) + "\n")
'''


class PostOffice:
    """``root/<address>/`` is each address's Maildir; ``sendmail`` delivers there."""

    def __init__(self, root: Path):
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.down_flag = root / "DOWN"
        self.log = root / "sendmail.log"
        self.sendmail = root / "sendmail"
        self.sendmail.write_text(SENDMAIL.format(python=sys.executable, root=str(root), down=str(self.down_flag),
                                                 log=str(self.log)))
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


def body(msg) -> str:
    part = msg.get_body(preferencelist=("plain",))
    return part.get_content() if part is not None else ""
