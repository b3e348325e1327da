"""The ``koryo-pbm`` command: one module per command, wired in :mod:`koryo_pbm.cli.main`."""
