"""Trusting a ``wss://`` server: the certificates the client accepts, and what
a player reads when a server's certificate is not one of them.

By default the client trusts what the system trusts; OpenSSL also reads the
standard variable ``SSL_CERT_FILE`` (a file of certificates that stands for
the system's file). ``--cafile FILE`` adds a certificate to those: the host's
own self-signed one, or the authority of a LAN. A certificate that fails is
said to be one, with the name it failed for and why, and what to do: never
"is the server running?", which sends the player the wrong way (issue 27).
"""

from __future__ import annotations

import ssl
from urllib.parse import urlsplit

from clients.cli.i18n import _

# OpenSSL's verification results (``X509_V_ERR_*``), by what they mean to a player.
_SELF_SIGNED = {18, 19}  # DEPTH_ZERO_SELF_SIGNED_CERT, SELF_SIGNED_CERT_IN_CHAIN
# UNABLE_TO_GET_ISSUER_CERT, UNABLE_TO_GET_ISSUER_CERT_LOCALLY, UNABLE_TO_VERIFY_LEAF_SIGNATURE
_UNKNOWN_ISSUER = {2, 20, 21}
_EXPIRED, _NOT_YET_VALID = 10, 9
_WRONG_NAME = {62, 64}  # HOSTNAME_MISMATCH, IP_ADDRESS_MISMATCH


class BadCertificates(ValueError):
    """A ``--cafile`` that holds no certificate we can use; ``str()`` is for the player."""


def context(cafile: str | None) -> ssl.SSLContext | None:
    """What a ``wss://`` server may be signed by: the system's certificates and
    ``cafile``'s; None without ``cafile`` (the connection's default, which
    reads ``SSL_CERT_FILE`` too)."""
    if cafile is None:
        return None
    ctx = ssl.create_default_context()
    try:
        ctx.load_verify_locations(cafile=cafile)
    except (OSError, ssl.SSLError) as e:
        why = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        raise BadCertificates(
            _("cannot read a certificate in {path}: {error}").format(path=cafile, error=why)
        ) from None
    return ctx


def untrusted(error: ssl.SSLCertVerificationError, url: str) -> str:
    """Why ``url``'s certificate was refused and what to do, for a person."""
    host = urlsplit(url).hostname or url
    code = error.verify_code
    if code in _WRONG_NAME:
        why = _("it is made out for another name than {host}").format(host=host)
        hint = _(
            "Connect with the name the certificate was made for, "
            "or ask the host for a certificate that names {host}."
        ).format(host=host)
    elif code == _EXPIRED:
        why = _("it has expired")
        hint = _("The host must renew it (or this computer's clock is wrong).")
    elif code == _NOT_YET_VALID:
        why = _("it is not valid yet")
        hint = _("Check this computer's clock, or ask the host to check the certificate's dates.")
    else:
        if code in _SELF_SIGNED:
            why = _("it is self-signed")
        elif code in _UNKNOWN_ISSUER:
            why = _("it is signed by an authority this computer does not trust")
        else:
            why = error.verify_message or error.reason or str(error)
        hint = _(
            "If you trust this server, get its certificate from the host and connect "
            "with --cafile FILE (or set SSL_CERT_FILE=FILE)."
        )
    text = _("the certificate of {host} is not trusted: {why}.").format(host=host, why=why)
    return f"{text} {hint}"
