"""``wss://`` with a certificate that is not a public one (issue 27): a real
server behind a real TLS endpoint holding a self-signed certificate made by
``openssl``, and the terminal client driven with Textual's Pilot.

Without ``--cafile`` the client says the certificate is not trusted, and
why, and stops (it never says "is the server running?"); with ``--cafile``
or ``SSL_CERT_FILE`` it plays; a certificate for another name says so.
"""

from __future__ import annotations

import ssl
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from clients.cli import tls, wording
from clients.cli.__main__ import main
from clients.cli.app import NEVER_CONNECTED, AtoutApp
from clients.cli.tokens import MemoryTokens
from server.process.app import Server
from tests.support.pilot import SIZE, until
from tests.support.servers import running, self_signed, tls_front


@pytest.fixture
async def server() -> AsyncIterator[Server]:
    async with running(log_level="warning") as srv:
        yield srv


def client(url: str, ssl: ssl.SSLContext | None = None) -> AtoutApp:
    """``atout connect URL --guest [--cafile ...]``: what TLS lets through is all we test."""
    return AtoutApp(url=url, name="Tina", tokens=MemoryTokens(), base_delay=0.05, ssl=ssl)


async def refused(app: AtoutApp) -> str:
    """Connect, and the reason the client stopped for: it exits, as a
    failure, rather than stay on an empty lobby (issue 33, item 7)."""
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.link_status.phase == "stopped", what="the refusal")
        await until(pilot, lambda: app.return_code == NEVER_CONNECTED, what="the exit")
        reason = app.link_status.reason
        assert app.link is not None and app.link.lobby is None and app.link.connections == 0
        # Never the hint for a server that is not running.
        assert all(wording.CANNOT_REACH not in s.text() for s in app.statuses)
        assert "Is atout-server running" not in str(app.lobby_screen.query_one("#empty").render())
        await app.aclose()
    return reason


async def plays(app: AtoutApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.link and app.link.lobby is not None, what="the lobby")
        assert app.link_status.phase == "online" and app.errors == []
        await app.aclose()


async def test_a_self_signed_certificate_is_named_and_trusted_with_cafile(
    server: Server, tmp_path: Path
) -> None:
    cert, key = self_signed(tmp_path, "localhost", "127.0.0.1")
    async with tls_front(server.port, cert, key) as port:
        url = f"wss://localhost:{port}"
        reason = await refused(client(url))
        assert reason.startswith("the certificate of localhost is not trusted: it is self-signed.")
        assert "--cafile FILE" in reason and "SSL_CERT_FILE" in reason
        # --cafile: the same server, trusted, plays.
        await plays(client(url, tls.context(str(cert))))


async def test_ssl_cert_file_is_read_without_cafile(
    server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cert, key = self_signed(tmp_path, "localhost", "127.0.0.1")
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    async with tls_front(server.port, cert, key) as port:
        await plays(client(f"wss://127.0.0.1:{port}"))


async def test_a_certificate_for_another_name_says_which_name(
    server: Server, tmp_path: Path
) -> None:
    cert, key = self_signed(tmp_path, "atout.lan")
    async with tls_front(server.port, cert, key) as port:
        reason = await refused(client(f"wss://127.0.0.1:{port}", tls.context(str(cert))))
    assert reason.startswith(
        "the certificate of 127.0.0.1 is not trusted: "
        "it is made out for another name than 127.0.0.1."
    )
    assert "--cafile" not in reason  # trusting the file would not help


def test_expired_and_unknown_failures_are_worded_too() -> None:
    def failure(code: int, message: str) -> ssl.SSLCertVerificationError:
        error = ssl.SSLCertVerificationError(1, f"[SSL: CERTIFICATE_VERIFY_FAILED] {message}")
        error.verify_code, error.verify_message = code, message
        return error

    expired = tls.untrusted(failure(10, "certificate has expired"), "wss://a.example")
    assert expired.startswith("the certificate of a.example is not trusted: it has expired.")
    issuer = tls.untrusted(failure(20, "unable to get local issuer certificate"), "wss://a.example")
    assert "signed by an authority this computer does not trust" in issuer and "--cafile" in issuer
    other = tls.untrusted(failure(23, "certificate revoked"), "wss://a.example:8443")
    assert other.startswith("the certificate of a.example is not trusted: certificate revoked.")


def test_cafile_mistakes_are_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "empty.pem").write_text("no certificate here\n", encoding="utf-8")
    for argv, says in (
        (["connect", "wss://atout.lan", "--cafile", str(tmp_path / "none.pem")], "none.pem"),
        (["daily", "wss://atout.lan", "--cafile", str(tmp_path / "empty.pem")], "empty.pem"),
        (["connect", "ws://atout.lan:8765", "--cafile", str(tmp_path / "empty.pem")], "wss://"),
    ):
        with pytest.raises(SystemExit) as stopped:
            main(argv)
        assert stopped.value.code == 2
        err = capsys.readouterr().err
        assert err.startswith(f"atout {argv[0]}: ") and says in err and "Traceback" not in err
