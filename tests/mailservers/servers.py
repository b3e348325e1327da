"""Real mail servers for the tests: Debian's dovecot (IMAP) and postfix (SMTP), each a private
instance with its own configuration, spool and logs in one temporary folder, listening on free
ports of 127.0.0.1 only, started as root and stopped after.

Mail for ``NAME@example.org`` is delivered by postfix (its ``virtual`` agent) into the Maildir
``BASE/NAME/``, which dovecot serves over IMAP to the user ``NAME`` (any name, password
:data:`PASSWORD`). A test CA made with ``cryptography`` signs the servers' certificate for
``localhost`` and ``127.0.0.1``; clients trust it with ``--ca-file`` or ``SSL_CERT_FILE``.

Ports: IMAP (STARTTLS offered), IMAPS; SMTP on port 25's role (no TLS required, mail from
127.0.0.1 accepted without login: the players' clients), submission (STARTTLS and login
required) and SMTPS (TLS from the first byte, login required). Login is checked by dovecot's
auth service, exactly as a typical small mail server does.
"""

from __future__ import annotations

import datetime
import os
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

DOMAIN = "example.org"
PASSWORD = "test-password-7g3k"
ROLES = ("judge", "alice", "bob", "carol", "dave", "erin", "mallory", "other")
POOL = 300  # mailboxes per role: NAME1 ... NAME300
MAIL_UID = 65534  # nobody: delivery and IMAP run as this user, never as root
INSTALL = "apt-get install dovecot-imapd postfix"
SIEVE_INSTALL = "apt-get install dovecot-sieve"
LDA = "/usr/lib/dovecot/dovecot-lda"
SIEVE_PLUGIN = "/usr/lib/dovecot/modules/lib90_sieve_plugin.so"


def missing() -> str | None:
    """Why the servers cannot run here, or None."""
    for tool in ("/usr/sbin/dovecot", "/usr/sbin/postfix", "/usr/sbin/postconf"):
        if not os.path.exists(tool):
            return f"{tool} is not installed ({INSTALL})"
    if not os.path.exists("/usr/lib/dovecot/imap"):
        return f"dovecot's IMAP server is not installed ({INSTALL})"
    if os.geteuid() != 0:
        return "the mail servers are started as root and this is not root"
    return None


def sieve_missing() -> str | None:
    """Why a dovecot with Sieve (Pigeonhole) cannot run here, or None."""
    for path in (LDA, SIEVE_PLUGIN):
        if not os.path.exists(path):
            return f"{path} is not installed ({SIEVE_INSTALL})"
    return None


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, what: str, log: Path, timeout: float = 15.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.05)
    text = log.read_text(errors="replace")[-3000:] if log.exists() else "(no log)"
    raise RuntimeError(f"{what} did not start listening on 127.0.0.1:{port}\n{text}")


def make_ca(folder: Path) -> tuple[Path, Path, Path]:
    """A test CA and a server certificate for localhost/127.0.0.1: (ca.pem, cert.pem, key.pem)."""
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "koryo-pbm test CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=30))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True, content_commitment=False,
                          key_encipherment=False, data_encipherment=False, key_agreement=False,
                          encipher_only=False, decipher_only=False),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=30))
        .add_extension(
            x509.SubjectAlternativeName([x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    ca_pem, cert_pem, key_pem = folder / "ca.pem", folder / "cert.pem", folder / "key.pem"
    ca_pem.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    cert_pem.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_pem.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    os.chmod(key_pem, 0o600)
    return ca_pem, cert_pem, key_pem


@dataclass
class Dovecot:
    """One private dovecot serving the Maildirs under ``base`` over IMAP."""

    root: Path
    base: Path
    cert: Path
    key: Path
    capabilities: str | None = None  # replaces the IMAP capability list (a server without IDLE, MOVE)
    ssl: bool = True  # False: no STARTTLS, no IMAPS (plain IMAP, as only 127.0.0.1 may be spoken to)
    sieve: bool = False  # deliver() files mail by each user's ~/.dovecot.sieve (dovecot's LDA with Pigeonhole)
    imap_port: int = field(default_factory=free_port)
    imaps_port: int = field(default_factory=free_port)
    proc: subprocess.Popen | None = None

    @property
    def auth_socket(self) -> Path:
        return self.root / "run" / "auth-postfix"

    @property
    def log(self) -> Path:
        return self.root / "dovecot.log"

    def start(self) -> None:
        run = self.root / "run"
        run.mkdir(parents=True, exist_ok=True)
        conf = self.root / "dovecot.conf"
        capability = f"imap_capability = {self.capabilities}\n" if self.capabilities is not None else ""
        tls = f"ssl = yes\nssl_cert = <{self.cert}\nssl_key = <{self.key}\nssl_min_protocol = TLSv1.2\n" if self.ssl else "ssl = no\n"
        imaps = f"""  inet_listener imaps {{
    address = 127.0.0.1
    port = {self.imaps_port}
    ssl = yes
  }}
""" if self.ssl else ""
        conf.write_text(f"""\
protocols = imap
listen = 127.0.0.1
base_dir = {run}
state_dir = {self.root / "state"}
instance_name = koryo-test-{self.imap_port}
log_path = {self.log}
info_log_path = {self.log}
default_internal_user = dovecot
default_login_user = dovenull
{tls}auth_mechanisms = plain login
auth_failure_delay = 0
disable_plaintext_auth = yes
mail_location = maildir:~
mail_uid = {MAIL_UID}
mail_gid = {MAIL_UID}
first_valid_uid = {MAIL_UID}
{capability}passdb {{
  driver = static
  args = password={PASSWORD}
}}
userdb {{
  driver = static
  args = uid={MAIL_UID} gid={MAIL_UID} home={self.base}/%n
}}
namespace inbox {{
  inbox = yes
  separator = /
}}
service imap-login {{
  inet_listener imap {{
    address = 127.0.0.1
    port = {self.imap_port}
  }}
{imaps}}}
service auth {{
  unix_listener auth-postfix {{
    mode = 0666
  }}
}}
{self._sieve_conf()}service stats {{
  unix_listener stats-reader {{
    mode = 0600
  }}
  unix_listener stats-writer {{
    mode = 0600
  }}
}}
""")
        (self.root / "state").mkdir(exist_ok=True)
        with open(self.root / "dovecot.err", "wb") as err:
            self.proc = subprocess.Popen(["/usr/sbin/dovecot", "-F", "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=err)
        wait_port(self.imap_port, "dovecot", self.log)
        if self.ssl:
            wait_port(self.imaps_port, "dovecot", self.log)

    def _sieve_conf(self) -> str:
        if not self.sieve:
            return ""
        return f"""postmaster_address = postmaster@{DOMAIN}
protocol lda {{
  mail_plugins = $mail_plugins sieve
}}
plugin {{
  sieve = file:~/sieve;active=~/.dovecot.sieve
}}
"""

    def deliver(self, user: str, data: bytes, sender: str) -> None:
        """Deliver one message to ``user`` as the mail system does (dovecot's LDA, run as postfix's
        ``mailbox_command`` would run it): the user's Sieve script files it."""
        assert self.sieve
        done = subprocess.run([LDA, "-c", str(self.root / "dovecot.conf"), "-d", user, "-f", sender], input=data,
                              capture_output=True, timeout=60)
        assert done.returncode == 0, done.stderr.decode(errors="replace")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:  # pragma: no cover - dovecot stops on SIGTERM
                self.proc.kill()
                self.proc.wait()


@dataclass
class Postfix:
    """One private postfix: accepts mail on 127.0.0.1 and delivers ``NAME@example.org`` to ``BASE/NAME/``."""

    root: Path
    base: Path
    cert: Path
    key: Path
    auth_socket: Path
    users: list[str]
    smtp_port: int = field(default_factory=free_port)
    submission_port: int = field(default_factory=free_port)
    smtps_port: int = field(default_factory=free_port)
    plain_port: int = field(default_factory=free_port)  # no TLS at all, idle connections closed after 3 s

    @property
    def config(self) -> Path:
        return self.root / "etc"

    @property
    def log(self) -> Path:
        return self.root / "postfix.log"

    def start(self) -> None:
        etc, spool, data = self.config, self.root / "spool", self.root / "lib"
        for d in (etc, spool, data):
            d.mkdir(parents=True, exist_ok=True)
        shutil.chown(data, "postfix", "postfix")
        # virtual(8) allows no regexp substitution, so every mailbox is listed
        (etc / "vmailbox").write_text("".join(f"{user}@{DOMAIN} {user}/\n" for user in self.users))
        (etc / "main.cf").write_text(f"""\
compatibility_level = 3.6
queue_directory = {spool}
data_directory = {data}
maillog_file = {self.log}
maillog_file_prefixes = {self.root}
myhostname = localhost
mydomain = localhost
myorigin = localhost
mydestination =
inet_interfaces = 127.0.0.1
inet_protocols = ipv4
mynetworks = 127.0.0.0/8
relayhost =
alias_maps =
alias_database =
local_recipient_maps =
biff = no
smtpd_banner = $myhostname ESMTP koryo-pbm test postfix
virtual_mailbox_domains = {DOMAIN}
virtual_mailbox_base = {self.base}
virtual_mailbox_maps = texthash:{etc / "vmailbox"}
virtual_uid_maps = static:{MAIL_UID}
virtual_gid_maps = static:{MAIL_UID}
virtual_minimum_uid = 100
virtual_mailbox_limit = 0
message_size_limit = 52428800
smtpd_relay_restrictions = permit_mynetworks permit_sasl_authenticated reject_unauth_destination
smtpd_tls_cert_file = {self.cert}
smtpd_tls_key_file = {self.key}
smtpd_tls_security_level = may
smtpd_sasl_type = dovecot
smtpd_sasl_path = {self.auth_socket}
smtpd_sasl_auth_enable = no
smtpd_tls_auth_only = yes
delay_warning_time = 0
queue_run_delay = 1s
minimal_backoff_time = 1s
maximal_backoff_time = 2s
in_flow_delay = 0
default_destination_concurrency_limit = 20
virtual_destination_concurrency_limit = 20
smtpd_client_connection_rate_limit = 0
smtpd_error_sleep_time = 0
smtpd_soft_error_limit = 1000
smtpd_hard_error_limit = 1000
""")
        auth = "-o smtpd_sasl_auth_enable=yes -o smtpd_relay_restrictions=permit_sasl_authenticated,reject -o smtpd_client_restrictions=permit_sasl_authenticated,reject"
        services = [
            f"127.0.0.1:{self.smtp_port} inet n - n - - smtpd",
            f"127.0.0.1:{self.submission_port} inet n - n - - smtpd -o smtpd_tls_security_level=encrypt {auth}",
            f"127.0.0.1:{self.smtps_port} inet n - n - - smtpd -o smtpd_tls_wrappermode=yes -o smtpd_tls_security_level=encrypt {auth}",
            f"127.0.0.1:{self.plain_port} inet n - n - - smtpd -o smtpd_tls_security_level=none -o smtpd_timeout=3s",
            "pickup unix n - n 60 1 pickup",
            "cleanup unix n - n - 0 cleanup",
            "qmgr unix n - n 300 1 qmgr",
            "tlsmgr unix - - n 1000? 1 tlsmgr",
            "rewrite unix - - n - - trivial-rewrite",
            "bounce unix - - n - 0 bounce",
            "defer unix - - n - 0 bounce",
            "trace unix - - n - 0 bounce",
            "verify unix - - n - 1 verify",
            "flush unix n - n 1000? 0 flush",
            "proxymap unix - - n - - proxymap",
            "proxywrite unix - - n - 1 proxymap",
            "smtp unix - - n - - smtp",
            "relay unix - - n - - smtp",
            "showq unix n - n - - showq",
            "error unix - - n - - error",
            "retry unix - - n - - error",
            "discard unix - - n - - discard",
            "local unix - n n - - local",
            "virtual unix - n n - - virtual",
            "lmtp unix - - n - - lmtp",
            "anvil unix - - n - 1 anvil",
            "scache unix - - n - 1 scache",
            "postlog unix-dgram n - n - 1 postlogd",
        ]
        (etc / "master.cf").write_text("\n".join(services) + "\n")
        self._postfix("start")
        wait_port(self.smtp_port, "postfix", self.log)
        wait_port(self.submission_port, "postfix", self.log)
        wait_port(self.smtps_port, "postfix", self.log)
        wait_port(self.plain_port, "postfix", self.log)

    def _postfix(self, command: str) -> None:
        r = subprocess.run(["/usr/sbin/postfix", "-c", str(self.config), command], capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"postfix {command} failed: {r.stderr.strip()}")

    def queue_empty(self) -> bool:
        spool = self.root / "spool"
        for sub in ("incoming", "active", "deferred", "maildrop"):
            folder = spool / sub
            if folder.exists() and any(p.is_file() for p in folder.rglob("*")):
                return False
        return True

    def stop(self) -> None:
        subprocess.run(["/usr/sbin/postfix", "-c", str(self.config), "stop"], capture_output=True)


class MailServers:
    """Both servers over one Maildir tree. ``address(name)`` is a mailbox nobody else uses."""

    def __init__(self, root: Path, users: list[str] | None = None):
        self.root = root
        self.base = root / "mail"
        self.base.mkdir()
        os.chown(self.base, MAIL_UID, MAIL_UID)
        self.ca, self.cert, self.key = make_ca(root)
        self.dovecot = Dovecot(root / "dovecot", self.base, self.cert, self.key)
        self.postfix = Postfix(root / "postfix", self.base, self.cert, self.key, self.dovecot.auth_socket,
                               users if users is not None else [f"{r}{n}" for r in ROLES for n in range(1, POOL + 1)])
        self._used: dict[str, int] = {}
        self.password = PASSWORD

    def start(self) -> MailServers:
        try:
            self.dovecot.start()
            self.postfix.start()
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        self.postfix.stop()
        self.dovecot.stop()

    def user(self, name: str) -> str:
        """A fresh mailbox ``NAMEn`` (tests share the servers, never a mailbox); ``name`` is one of :data:`ROLES`."""
        n = self._used[name] = self._used.get(name, 0) + 1
        user = f"{name}{n}"
        if user not in self.postfix.users:
            raise RuntimeError(f"no mailbox {user} declared to postfix")
        return user

    def maildir(self, user: str) -> Path:
        return self.base / user

    def delivered(self, user: str, count: int, timeout: float = 20.0) -> list[bytes]:
        """The messages in ``user``'s Maildir (new/ and cur/) once there are at least ``count``."""
        end = time.monotonic() + timeout
        while True:
            found = []
            for sub in ("new", "cur"):
                folder = self.maildir(user) / sub
                if folder.is_dir():
                    found.extend(sorted(folder.iterdir(), key=lambda p: p.stat().st_mtime_ns))
            if len(found) >= count or time.monotonic() > end:
                return [p.read_bytes() for p in found]
            time.sleep(0.02)


def start_servers(users: list[str] | None = None) -> MailServers:
    root = Path(tempfile.mkdtemp(prefix="koryo-mail-"))
    os.chmod(root, 0o755)
    return MailServers(root, users).start()
