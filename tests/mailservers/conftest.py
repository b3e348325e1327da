"""Fixtures for tests against real mail servers (see ``servers.py``): Debian's dovecot and postfix
on 127.0.0.1, and players who write their mail with the stdlib's ``email`` package or with real
mail clients (mutt, s-nail) in batch mode.

Missing servers skip these tests with the command that installs them, except under ``CI=true``,
where they fail.
"""

from __future__ import annotations

import email.utils
import os
import shutil
import smtplib
import subprocess
import sys
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from pathlib import Path

import pytest
import servers as servers_module
from servers import DOMAIN, MailServers

CLIENTS_INSTALL = "apt-get install mutt s-nail"


def _unavailable(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (required under CI=true)")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def mail_servers():
    """dovecot and postfix, started once for the session on free ports of 127.0.0.1."""
    reason = servers_module.missing()
    if reason:
        _unavailable(reason)
    running = servers_module.start_servers()
    try:
        yield running
    finally:
        running.stop()
        shutil.rmtree(running.root, ignore_errors=True)


@pytest.fixture(scope="session")
def bare_dovecot(mail_servers):
    """A second dovecot over the same Maildirs that offers neither TLS, IDLE nor MOVE (an old server)."""
    server = servers_module.Dovecot(mail_servers.root / "dovecot-bare", mail_servers.base, mail_servers.cert,
                                    mail_servers.key, capabilities="IMAP4rev1 LITERAL+ SASL-IR UIDPLUS NAMESPACE",
                                    ssl=False)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def polled_dovecot(mail_servers):
    """A second dovecot over the same Maildirs, the same as the first (TLS, MOVE, every other
    capability it announces after login) but without IDLE: a judge reading it polls.

    dovecot tells an idling client of new mail only after a fixed 500 ms (``NOTIFY_DELAY_MSECS``
    in its source; no setting changes it). A whole game over IMAP waits that long for every
    envelope, most of such a test's time. The complete games run against this server with a short
    ``--poll``: the same judge, the same mail, the same folders, found by NOOP and SEARCH at the
    next poll (the path of every server without IDLE). The IDLE path keeps its own tests
    (test_imap_source.py, and the endgame game of test_judge_by_mail.py)."""
    import ssl

    from imapclient import IMAPClient

    with IMAPClient("127.0.0.1", mail_servers.dovecot.imaps_port,
                    ssl_context=ssl.create_default_context(cafile=str(mail_servers.ca))) as c:
        c.login(mail_servers.user("other"), mail_servers.password)
        announced = [cap.decode() for cap in c.capabilities()]
    assert "IDLE" in announced and "MOVE" in announced, announced
    server = servers_module.Dovecot(mail_servers.root / "dovecot-polled", mail_servers.base, mail_servers.cert,
                                    mail_servers.key, capabilities=" ".join(c for c in announced if c != "IDLE"))
    server.start()
    try:
        with IMAPClient("127.0.0.1", server.imaps_port,
                        ssl_context=ssl.create_default_context(cafile=str(mail_servers.ca))) as c:
            c.login(mail_servers.user("other"), mail_servers.password)
            offered = [cap.decode() for cap in c.capabilities()]
        assert sorted(offered) == sorted(x for x in announced if x != "IDLE"), offered  # all but IDLE
        yield server
    finally:
        server.stop()


class Mailer:
    """Sends mail as a player would, to postfix's port for local clients (127.0.0.1, no login)."""

    def __init__(self, servers: MailServers, home: Path):
        self.servers = servers
        self.home = home

    def address(self, user: str) -> str:
        return f"{user}@{DOMAIN}"

    def send(self, message: EmailMessage) -> None:
        if "Date" not in message:
            message["Date"] = formatdate(localtime=True)
        if "Message-ID" not in message:
            message["Message-ID"] = make_msgid(domain=DOMAIN)
        # The bytes are made before connecting: postfix closes this port after 3 s of silence, and
        # flattening a 34 MB message on a loaded machine takes longer than that.
        data = message.as_bytes(policy=message.policy.clone(linesep="\r\n"))
        sender = email.utils.parseaddr(str(message["From"]))[1]
        recipients = [addr for _, addr in email.utils.getaddresses([str(v) for v in message.get_all("To", [])])]
        with smtplib.SMTP("127.0.0.1", self.servers.postfix.plain_port, timeout=30) as smtp:
            smtp.sendmail(sender, recipients, data)

    def _client_env(self) -> dict[str, str]:
        self.home.mkdir(parents=True, exist_ok=True)
        return {"HOME": str(self.home), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8",
                "LC_ALL": "C.UTF-8", "TERM": "dumb"}

    def mutt(self, sender: str, to: str, subject: str, body: str, attach: Path | None = None,
             settings: tuple[str, ...] = ()) -> None:
        """``mutt -s SUBJECT [-a FILE] -- TO < body``, sending through postfix's SMTP port."""
        if not shutil.which("mutt"):
            _unavailable(f"mutt is not installed ({CLIENTS_INSTALL})")
        muttrc = self.home / "muttrc"
        self.home.mkdir(parents=True, exist_ok=True)
        muttrc.write_text("\n".join([
            f'set smtp_url="smtp://127.0.0.1:{self.servers.postfix.plain_port}/"',
            f'set from="{sender}"', "set realname=\"A Player\"", "set use_from=yes", "set envelope_from=yes",
            "set ssl_starttls=no", "set ssl_force_tls=no", "set copy=no", "set record=\"\"", f'set folder="{self.home}/Mail"',
            "set charset=utf-8", "set user_agent=yes", "set send_charset=\"us-ascii:utf-8\"", *settings, "",
        ]))
        args = ["mutt", "-n", "-F", str(muttrc), "-s", subject]
        if attach is not None:
            args += ["-a", str(attach)]
        args += ["--", to]
        done = subprocess.run(args, input=body.encode(), env=self._client_env(), capture_output=True, timeout=60)
        assert done.returncode == 0, done.stderr.decode(errors="replace")

    def snail(self, sender: str, to: str, subject: str, body: str, attach: Path | None = None) -> None:
        """``s-nail -s SUBJECT [-a FILE] TO < body`` in batch mode (``-#``), its built-in SMTP client."""
        if not shutil.which("s-nail"):
            _unavailable(f"s-nail is not installed ({CLIENTS_INSTALL})")
        args = ["s-nail", "-#", "-n", "-S", "v15-compat", "-S", f"mta=smtp://127.0.0.1:{self.servers.postfix.plain_port}",
                "-S", "smtp-auth=none", "-S", "sendcharsets=utf-8", "-S", "ttycharset=utf-8", "-r", sender,
                "-s", subject]
        if attach is not None:
            args += ["-a", str(attach)]
        args += ["-.", to]
        done = subprocess.run(args, input=body.encode(), env=self._client_env(), capture_output=True, timeout=60)
        assert done.returncode == 0, done.stderr.decode(errors="replace")


@pytest.fixture
def mailer(mail_servers, tmp_path) -> Mailer:
    return Mailer(mail_servers, tmp_path / "client-home")


@pytest.fixture(scope="session")
def envelope(tmp_path_factory) -> tuple[str, str]:
    """A real armoured envelope (alice's orders for a 3-player Koryo game) and its digest."""
    from koryo_pbm.crypto.envelope import scan_armored

    work = tmp_path_factory.mktemp("envelope")
    env = {**os.environ, "KORYO_PBM_HOME": str(work / "home")}
    env.pop("KORYO_PBM_PASSPHRASE", None)

    def run(*args: str) -> str:
        done = subprocess.run([sys.executable, "-m", "koryo_pbm", *args], cwd=work, env=env, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        return done.stdout

    lines = {name: run("keygen", name).strip() for name in ("mod", "alice", "bob", "carol")}
    run("new", "g", "--as", "mod", "--seed", "mail-servers", *[a for p in ("alice", "bob", "carol")
                                                              for a in ("--player", f"{p}={lines[p]}")])
    run("orders", "g", "--as", "alice", "-o", "orders.toml")
    run("submit", "orders.toml", "--as", "alice", "--game", "g", "--out", "envelope.txt")
    text = (work / "envelope.txt").read_text()
    found = scan_armored(text)
    assert len(found) == 1 and not isinstance(found[0], Exception)
    return text, found[0].digest
