"""``python -m koryo_pbm`` runs the command line."""

from koryo_pbm.cli.main import entry

entry()
