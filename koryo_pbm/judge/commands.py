"""Mail commands as a player writes them, and what else a mail without an envelope holds.

Pure functions of a mail's decoded text parts (:func:`koryo_pbm.judge.club.mail_texts`) and raw
bytes: nothing here reads a file or answers anything.

A command is found as a person types it into a mail client: the first line of the text the
player wrote (lines quoted with ``>``, an "On ... wrote:" line and everything below a signature
line ``-- `` are not the player's), in any case, with punctuation around it ("Status?",
"*help*", "resend."), alone on its line. "Resend page" asks for the player page again. A line
with more words ("Help! the page says no menu") is a person writing: that mail is human mail.

:func:`mistake` names what a player sent by mistake (the game file, a key, a cut envelope, ...)
so that the answer can say what was received and what to send instead. :func:`holds_secret_key`
tells a mail carrying a secret key file: never quoted back, never logged.
"""

from __future__ import annotations

import re

COMMANDS = ("help", "status", "resend", "resend page", "history", "list")
_PUNCTUATION = " \t\"'*_.,;:!?¡¿()[]<>«»“”‘’-"
_WROTE = re.compile(r"^(on .{0,200} wrote|am .{0,200} schrieb|le .{0,200} a écrit)\s*:\s*$", re.I)
_ALIASES = {"page": "resend page", "resend the page": "resend page", "send page": "resend page",
            "games": "list", "log": "history", "state": "status"}

# The first line of each kind of secret key file (``koryo-pbm keygen`` or the player page):
# PKCS #8 blocks (with or without a passphrase) and the passphrase-sealed format v2.
SECRET_MARKS = (b"-----BEGIN PRIVATE KEY-----", b"-----BEGIN ENCRYPTED PRIVATE KEY-----",
                b"# koryo-pbm secret key v2:")
_ENVELOPE_BEGIN = "-----BEGIN KORYO-PBM ENVELOPE-----"
_ENVELOPE_END = "-----END KORYO-PBM ENVELOPE-----"


def own_lines(text: str) -> list[str]:
    """The lines of ``text`` its writer wrote: up to a signature line (``-- ``) or the line a
    mail client puts above a quoted mail, without quoted lines (``>``)."""
    lines = []
    for line in text.splitlines():
        if line.rstrip("\r") == "-- " or line.strip() == "--":
            break
        if _WROTE.match(line.strip()) or line.strip().lower().startswith(("-----original message",
                                                                           "---------- forwarded message")):
            break
        if line.lstrip().startswith(">"):
            continue
        lines.append(line)
    return lines


def find_command(texts: list[str]) -> str:
    """The mail command the player's text begins with (one of :data:`COMMANDS`), or ""."""
    for text in texts[:1]:
        for line in own_lines(text):
            words = " ".join(line.strip(_PUNCTUATION).lower().split())
            if not words:
                continue
            words = _ALIASES.get(words, words)
            return words if words in COMMANDS else ""
    return ""


def holds_secret_key(data: bytes) -> bool:
    """Whether the raw mail carries a secret key file, pasted or attached (attachments are
    searched as written and as base64, whose first line of a key file always begins the same)."""
    if any(mark in data for mark in SECRET_MARKS):
        return True
    import base64

    for mark in SECRET_MARKS:
        # the base64 of a file beginning with the mark, as a mail client encodes an attachment
        head = base64.b64encode(mark)[: len(mark) // 3 * 4]
        if head in data:
            return True
    return False


def mistake(data: bytes, texts: list[str], subject: str) -> tuple[str, str] | None:
    """``(what was received, what to send instead)``, each a sentence, for a mail without a
    readable envelope that holds something a player sends by mistake; None for a mail that holds
    none of these."""
    text = "\n".join(texts)
    own = "\n".join(line for t in texts[:1] for line in own_lines(t)).strip()
    if holds_secret_key(data):
        return ("It holds a secret key file.", "Never send it to anyone. Make a new key, and tell the moderator.")
    if b'format = "koryo-pbm-game/' in data or b"Zm9ybWF0ID0gImtvcnlvLXBibS1nYW1lL" in data:
        return ("It holds the game file (game.toml).",
                "The judge sends you the game file; it needs only your answer back: open the game file in your "
                "player page, choose, and paste the envelope the page makes (from its BEGIN line to its END line) "
                "into your reply.")
    if _ENVELOPE_BEGIN in text and _ENVELOPE_END not in text:
        return ("It holds a cut envelope (its BEGIN line without its END line).",
                "Send the whole envelope again: in the page, press Copy and paste everything into your reply.")
    if "koryo-pbm-pub-v1:" in text:
        return ("It holds a public key line.",
                "Your seat is taken already: your key is not needed again. Send orders as an envelope the page "
                "makes.")
    if subject.lower().startswith(("fwd:", "fw:", "wg:", "tr:")) or b"message/rfc822" in data.lower():
        return ("It is a forwarded mail, without an envelope of yours.",
                "Reply to the judge's mail instead of forwarding it, and paste the envelope the page makes.")
    if _html_only(data):
        return ("It came in HTML only, without an envelope.",
                "If you pasted an envelope, your mail program may have changed it: send it again as plain text, "
                "or attach the file the page saves.")
    if not own:
        return ("It is empty.", "")
    return None


def _html_only(data: bytes) -> bool:
    lower = data.lower()
    return b"text/html" in lower and b"text/plain" not in lower
