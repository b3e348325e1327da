"""koryo-pbm: play card games by mail or through a shared folder.

Layers, each knowing only those below it (:data:`LAYERS`; ``tests/test_layers.py`` checks every
import, at module level and inside functions):

* :mod:`koryo_pbm.errors`, :mod:`koryo_pbm.printable`, :mod:`koryo_pbm.address`,
  :mod:`koryo_pbm.deadlines`, :mod:`koryo_pbm.waiting` — errors, text safe for a terminal, the
  syntax of a mail address, times and the public deadline policy (no clock), the wording of who
  a decision waits for: plain values any layer may use (the game file checks its deadlines and
  policy); :mod:`koryo_pbm.assets`, the built player page; :mod:`koryo_pbm.values`, plain value
  classes (cheaper to import than dataclasses).
* :mod:`koryo_pbm.engine` — the game contract, the scene a game draws, the registry, the seeded
  generator, simulation. Knows no game and no file.
* games (package ``koryo_pbm_games``, folder ``games/``) — pure rules, one folder per game.
* :mod:`koryo_pbm.crypto` — keys, signatures (Ed25519), sealing (HPKE), envelopes, seed
  commitments.
* :mod:`koryo_pbm.store` — the game file, atomic writes, the keyring, the inbox, the lock, the
  record of submitted envelopes.
* :mod:`koryo_pbm.match` (with :mod:`koryo_pbm.fair`, :mod:`koryo_pbm.history`) — a game's state and the signed game file: the join, resolve (and
  :mod:`koryo_pbm.match.run`, resolve on disk), deadlines, the bots of absent players;
  :mod:`koryo_pbm.verify` replays a finished game; :mod:`koryo_pbm.pinning` keeps what this
  machine saw of each game (the moderator's key, the history) and tells an older file from a
  second history; :mod:`koryo_pbm.press` (press between players: who may write to whom,
  delivery into a shared folder) and :mod:`koryo_pbm.signup` (a game that waits for its seats,
  taken by mail); :mod:`koryo_pbm.choices` writes each waiting player's menu of legal choices
  into their sealed part, for the player page; :mod:`koryo_pbm.pagecore` is the player page's
  Python (the table and every legal choice from the game file and the player's opened part);
  :mod:`koryo_pbm.plugin_page` adds a pure-Python plug-in game to the page.
* :mod:`koryo_pbm.picture` — pictures of the table (HTML, SVG) from the scene a game draws.
* :mod:`koryo_pbm.transport` — mail files (eml, mbox, Maildir), IMAP and SMTP.
* :mod:`koryo_pbm.judge` — ``serve``: the games run by mail and shared folder.
* :mod:`koryo_pbm.cli` — the ``koryo-pbm`` command, one module per command.
"""

__version__ = "0.2.0"

#: The layers, lowest first: a module may import from its own layer and from those below it,
#: never from one above. Each entry names a package or a module (and all below it); the bare
#: ``koryo_pbm`` is this file alone.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("koryo_pbm", "koryo_pbm.errors", "koryo_pbm.printable", "koryo_pbm.address", "koryo_pbm.deadlines",
     "koryo_pbm.assets", "koryo_pbm.waiting", "koryo_pbm.values"),
    ("koryo_pbm.engine",),
    ("koryo_pbm_games",),
    ("koryo_pbm.crypto",),
    ("koryo_pbm.store",),
    ("koryo_pbm.match", "koryo_pbm.fair", "koryo_pbm.blind", "koryo_pbm.history", "koryo_pbm.verify", "koryo_pbm.pinning",
     "koryo_pbm.press", "koryo_pbm.signup", "koryo_pbm.choices", "koryo_pbm.pagecore", "koryo_pbm.plugin_page"),
    ("koryo_pbm.picture",),
    ("koryo_pbm.transport",),
    ("koryo_pbm.judge",),
    ("koryo_pbm.cli", "koryo_pbm.__main__"),
)
