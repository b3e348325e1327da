"""Ways orders travel to the moderator besides the shared folder: mail files (eml, mbox, Maildir)."""
