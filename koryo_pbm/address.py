"""Players' mail addresses: checked once, when the moderator gives them, and compared without
regard to case."""

from __future__ import annotations

from koryo_pbm.errors import UsageError
from koryo_pbm.values import LazyPattern

MAX_ADDRESS = 254  # RFC 5321's limit on a path
# A plain addr-spec: dot-atom local part, a domain of labels. No display names, no comments, no
# quoted local parts, no address literals, no leading "-" (it would read as an option to a
# sendmail program): what a person types as their address.
_ATOM = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
# compiled on first use: reading a game file that holds addresses checks none
_ADDRESS = LazyPattern(rf"(?!-){_ATOM}(?:\.{_ATOM})*@{_LABEL}(?:\.{_LABEL})*")


def check_address(address: str, *, who: str = "address") -> str:
    """``address`` if it is a plain mail address (``alice@example.org``), else ``UsageError``."""
    if isinstance(address, str) and len(address) > MAX_ADDRESS:
        raise UsageError(f"{who} is {len(address)} characters long: RFC 5321 allows at most {MAX_ADDRESS}")
    if not isinstance(address, str) or not _ADDRESS.fullmatch(address):
        shown = address[:80] if isinstance(address, str) else type(address).__name__
        raise UsageError(f"{who} {shown!r} is not a mail address (write it as name@example.org)")
    return address


def same_address(a: str, b: str) -> bool:
    """True if ``a`` and ``b`` name one mailbox. Case is ignored throughout: RFC 5321 lets a
    local part be case-sensitive, but no mail provider players use treats it so."""
    return a.casefold() == b.casefold()
