"""The built-in games, shipped as the package ``koryo_pbm_games`` (this folder is ``games/`` in
the repository). Each game is a sub-package registered through the ``koryo_pbm.games``
entry-point group, exactly as a third-party game would be."""
