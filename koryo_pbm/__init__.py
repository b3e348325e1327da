"""koryo-pbm: play card games by mail or through a shared folder.

Layers, each knowing only those below it:

* :mod:`koryo_pbm.engine` — the game contract, the registry, the seeded generator, simulation.
  Knows no game and no file.
* games (package ``koryo_pbm_games``, folder ``games/``) — pure rules, one folder per game.
* :mod:`koryo_pbm.crypto` — keys, signatures (Ed25519), sealing (HPKE), envelopes, seed
  commitments.
* :mod:`koryo_pbm.store` — the game file, atomic writes, the inbox, the lock, the record of
  submitted envelopes.
* :mod:`koryo_pbm.match` (with :mod:`koryo_pbm.fair`, :mod:`koryo_pbm.deadlines`) — a game's
  state and the signed game file: the join, resolve, deadlines, the bots of absent players;
  :mod:`koryo_pbm.verify` replays a finished game.
* :mod:`koryo_pbm.transport` — mail files (eml, mbox, Maildir), IMAP and SMTP.
* :mod:`koryo_pbm.judge` — ``serve``: the games run by mail and shared folder.
* :mod:`koryo_pbm.cli` — the ``koryo-pbm`` command, one module per command.
"""

__version__ = "0.2.0"
