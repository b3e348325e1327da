"""Ways orders travel to the moderator besides the shared folder: mail files (eml, mbox, Maildir),
and the judge's mail edges: sources of incoming mail (``sources``: Maildir; ``imap``) and senders
of outgoing mail (``senders``: a sendmail program; ``smtp``)."""
