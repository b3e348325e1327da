"""The exceptions of koryo-pbm.

Every error a user can cause is a :class:`KoryoPbmError`; the CLI turns each into a one-line
message on stderr and a non-zero exit, in one place (``koryo_pbm.cli.main``). Anything else
escaping is a bug.

The classes say *what kind* of problem it is, so that callers (and tests) can tell "this is
not for you" from "this is corrupt" from "this breaks a rule".
"""

from __future__ import annotations


class KoryoPbmError(Exception):
    """Base class of every error a user can cause. ``str(e)`` is the one-line reason."""

    exit_code = 1


class UsageError(KoryoPbmError):
    """The command was called wrongly (missing option, conflicting options)."""

    exit_code = 2


class GameError(KoryoPbmError):
    """Something about a game's rules or set-up."""


class SetupError(GameError):
    """A game cannot be set up this way (player count, teams, options)."""


class PositionError(GameError):
    """A position file describes an impossible or malformed position."""


class OrderError(GameError):
    """An order could not be read (wrong shape, unknown key) or breaks a rule."""


class IllegalOrder(OrderError):
    """A well-formed order that the rules forbid; the message names the rule."""


class UnknownGame(GameError):
    """No registered game has this name."""


class FormatError(KoryoPbmError):
    """A file is not in the format it claims (not TOML, wrong version line, missing field)."""


class CryptoError(KoryoPbmError):
    """Base class of key, signature and sealing problems."""


class KeyFileError(CryptoError):
    """A key file or key line cannot be used (missing, malformed, unsafe permissions, wrong passphrase)."""


class NoSuchKey(KeyFileError):
    """``--as NAME``: the keyring holds no key of that name."""


class NotForYou(CryptoError):
    """Well-formed, but sealed to somebody else: this key cannot open it."""


class TamperedError(CryptoError):
    """A signature does not verify or a sealed part does not open: the bytes were changed."""


class StaleError(KoryoPbmError):
    """An envelope for another game, an earlier decision, or one already counted."""


class StorageError(KoryoPbmError):
    """The game folder or its files cannot be read or written as needed."""


class LockedError(StorageError):
    """Another process holds the game's lock."""
