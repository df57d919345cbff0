"""The connection to a server, kept alive: open a ``Session``, take our seat
back, and when the connection drops (lost network, server restart with close
code 1012) reconnect with backoff and resume the seat without a keystroke.

``Link.run()`` is the one task that owns the connection. Everything the
server sends reaches ``on_message`` in order; every change of the
connection's state reaches ``on_status`` as a ``LinkStatus`` a screen can
show as it is. The link also keeps the resume token (``tokens.py``): saved
when we sit down, forgotten when we leave or the server no longer knows it.

Usage contract: create it inside the running event loop, start ``run()`` as
a task, call ``send()`` for commands (it returns None, and sends nothing,
while offline), and ``await close()`` before the loop ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from ssl import SSLCertVerificationError, SSLContext
from typing import Any, Literal

from websockets.exceptions import InvalidURI, WebSocketException

from clients.cli import key_words, tls, wording
from clients.cli.i18n import N_, _
from clients.cli.keys import HelloKey, Keys, for_hello, welcomed
from clients.cli.tokens import SavedSeat, Tokens
from clients.session import ServerError, Session
from protocol.messages import Bye, Error, Left, Resume, Seated
from protocol.views import LobbyView, TableView

log = logging.getLogger("atout.client")

Phase = Literal["connecting", "online", "reconnecting", "stopped"]

# Errors that mean "this server will never take us": retrying cannot help.
FATAL_CODES = {"incompatible_version", "bad_name", "bad_key", "unknown_key", "name_taken"}
# Goodbyes after which reconnecting would be wrong, with their close codes.
FINAL_BYES = {"replaced": 4001, "flooding": 4005, "idle": 4006}


PHASE_WORDS = {
    "connecting": N_("connecting"),
    "online": N_("online"),
    "reconnecting": N_("reconnecting"),
    "stopped": N_("stopped"),
}


@dataclass(frozen=True)
class LinkStatus:
    phase: Phase
    reason: str = ""
    """Why we are not online (what a person should read), or "" when all is well."""
    attempt: int = 0
    retry_at: float | None = None
    """``time.monotonic()`` of the next attempt while reconnecting."""
    detail: str = ""
    """How the last attempt failed ("connection refused"), if it did."""

    def text(self, now: float | None = None) -> str:
        """The status line: stable except for the countdown to the next try."""
        match self.phase:
            case "online":
                return _("online")
            case "connecting" if self.retry_at is None:
                return self.reason or _("connecting…")
            case "stopped":
                if self.reason:
                    return _("disconnected: {reason}").format(reason=self.reason)
                return _("disconnected")
        now = time.monotonic() if now is None else now
        wait = max(0.0, (self.retry_at or now) - now)
        detail = f": {self.detail}" if self.detail else ""
        if self.phase == "reconnecting":
            if wait >= 1:
                text = _("{reason}; reconnecting in {s}s (attempt {n})")
            else:
                text = _("{reason}; reconnecting now (attempt {n})")
        elif wait >= 1:
            text = _("{reason}; trying again in {s}s (attempt {n})")
        else:
            text = _("{reason}; trying again now (attempt {n})")
        return text.format(reason=self.reason + detail, s=f"{wait:.0f}", n=self.attempt)

    def phase_word(self) -> str:
        """The connection's state in one word, for the header."""
        return _(PHASE_WORDS.get(self.phase, self.phase))

    @property
    def unreachable(self) -> bool:
        """Never connected yet, and the last attempt failed: the address may be wrong."""
        return self.phase == "connecting" and self.retry_at is not None


def backoff(
    attempt: int, base: float = 0.25, cap: float = 8.0, jitter: Callable[[], float] = random.random
) -> float:
    """Seconds to wait before reconnection attempt ``attempt`` (1, 2, ...).

    Doubles from ``base`` up to ``cap``; ±20% jitter so that the clients of a
    restarted server do not all knock at the same instant.
    """
    delay: float = min(cap, base * 2.0 ** max(0, attempt - 1))
    return delay * (0.8 + 0.4 * jitter())


class Link:
    def __init__(
        self,
        url: str,
        name: str,
        tokens: Tokens,
        *,
        on_message: Callable[[Any], None],
        on_status: Callable[[LinkStatus], None],
        base_delay: float = 0.25,
        max_delay: float = 8.0,
        open_timeout: float = 5.0,
        token_key: str | None = None,
        keys: Keys | None = None,
        player: str | None = None,
        ssl: SSLContext | None = None,
    ) -> None:
        self.url = url
        self.token_key = token_key or url
        """Where our seat's token is kept (``tokens.seat_key``: server and player)."""
        self.name = name
        self.player = player or name
        """Whose key we say hello with: the ``--profile``, else the name (as for tokens)."""
        self.ssl = ssl
        """The certificates a ``wss://`` server must be signed by; None: the system's."""
        self.tokens = tokens
        self.on_message = on_message
        self.on_status = on_status
        self.base_delay = base_delay
        self.max_delay = max_delay
        self.open_timeout = open_timeout
        self.keys = keys
        """Where our player key for this server lives; ``None``: we play as a guest."""
        self.session: Session | None = None
        self.status = LinkStatus("connecting", _("connecting to {url}…").format(url=url))
        self.connections = 0
        """How many times a connection opened (1 + the reconnections)."""
        self.resume_rid: int | None = None
        self._stopping = False
        self._wake = asyncio.Event()
        self._bye: Bye | None = None
        self._kept: tuple[str, TableView | None, int] | None = None

    # -- what the screens read ------------------------------------------------------

    @property
    def table(self) -> TableView | None:
        return self.session.table if self.session else None

    @property
    def lobby(self) -> LobbyView | None:
        return self.session.lobby if self.session else None

    @property
    def online(self) -> bool:
        return self.status.phase == "online"

    # -- commands -------------------------------------------------------------------

    async def send(self, cmd: Any) -> int | None:
        """Send a command; its rid, or None when offline (nothing was sent)."""
        session = self.session
        if session is None or not self.online or session.closed.is_set():
            return None
        try:
            return await session.send(cmd)
        except WebSocketException:
            return None  # the reader sees the close and the link reconnects

    def retry_now(self) -> None:
        """Skip the rest of the backoff wait (the user asked)."""
        self._wake.set()

    async def close(self) -> None:
        self._stopping = True
        self._wake.set()
        session = self.session
        if session is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(session.close(), 2.0)

    # -- the connection task --------------------------------------------------------

    async def run(self) -> None:
        attempt = 0
        lost = ""  # why the last connection ended, shown until we are back
        while not self._stopping:
            self._bye = None
            saved = self._player_key()
            try:
                session = await Session.open(
                    self.url,
                    self.name,
                    open_timeout=self.open_timeout,
                    key=saved.saved.key if saved else None,
                    register=saved is not None and not saved.saved.registered,
                    ssl=self.ssl,
                )
            except ServerError as e:
                if e.code in FATAL_CODES:
                    who = key_words.who(self.player, self.name)
                    hint = key_words.key_hint(e.code, self.url, who)
                    text = wording.error(e.code, e.message) + hint
                    self._set(LinkStatus("stopped", text))
                    return
                attempt += 1
                await self._pause(attempt, lost, wording.error(e.code, e.message))
                continue
            except InvalidURI:
                self._set(
                    LinkStatus(
                        "stopped",
                        _("{url} is not a ws:// or wss:// address").format(url=repr(self.url)),
                    )
                )
                return
            except SSLCertVerificationError as e:
                # The server answers, but its certificate is not one we trust:
                # trying again cannot help, the player must act (tls.py says how).
                self._set(LinkStatus("stopped", tls.untrusted(e, self.url)))
                log.info("link_untrusted url=%s %s", self.url, e.verify_message)
                return
            except (OSError, TimeoutError, WebSocketException, ConnectionError) as e:
                attempt += 1
                await self._pause(attempt, lost, wording.unreachable(e))
                continue
            if self._stopping:
                await session.close()
                return
            if saved is not None and not self._welcomed(saved, session.player_name):
                # The server's old per-server key, and someone else's (keys.py):
                # leave before a single command, and say hello with our own.
                await session.close()
                continue
            attempt, lost = 0, ""
            self.connections += 1
            old, self.session = self.session, session
            session.on_change = self._on_change
            self._set(LinkStatus("online"))
            await self._resume_seat(session, old)
            await self._pump(session)
            if self._stopping:
                return
            code = session.close_code
            lost, again = wording.closed(code)
            bye = self._bye
            if bye is not None and bye.code in FINAL_BYES:
                # Whatever close code made it through: another window holds
                # the seat now, and taking it back would start a tug of war.
                lost, again = wording.closed(FINAL_BYES[bye.code])
            elif code not in wording.CLOSE_CODES and bye is not None and bye.message:
                lost = bye.message
            if not again:
                self._set(LinkStatus("stopped", lost))
                return
            attempt = 1
            await self._pause(attempt, lost, "")

    def _player_key(self) -> HelloKey | None:
        """Our key for this server (made on first use), or None to play as a guest."""
        if self.keys is None:
            return None
        try:
            return for_hello(self.keys, self.url, self.player, self.name)
        except OSError:
            # A key we cannot keep would make a player we lose at once.
            log.warning("player key not kept; playing as a guest", exc_info=True)
            return None

    def _welcomed(self, used: HelloKey, server_name: str) -> bool:
        """Keep what the welcome taught about our key; False: not ours, say hello again."""
        if self.keys is None:
            return True
        try:
            mine = welcomed(self.keys, self.url, used, server_name, self.player, self.name)
        except OSError:
            # Unsaved: we only register again, harmlessly; an old key we could
            # not give to its owner is not ours to play with.
            log.warning("player key not updated", exc_info=True)
            if used.old:
                self.keys = None  # a key we cannot keep: a guest, this run
                return False
            return True
        if not mine:
            log.info("old_key_owner server_name=%s player=%s", server_name, self.player)
        return mine

    async def _pause(self, attempt: int, lost: str, detail: str) -> None:
        """Wait before the next attempt, saying why (``lost``) and how the last try went."""
        delay = backoff(attempt, self.base_delay, self.max_delay)
        phase: Phase = "reconnecting" if self.connections else "connecting"
        reason = lost or wording.CANNOT_REACH  # the address is in the header
        self._set(LinkStatus(phase, reason, attempt, time.monotonic() + delay, detail))
        log.info("link_retry attempt=%s delay=%.2f reason=%s %s", attempt, delay, reason, detail)
        self._wake.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._wake.wait(), delay)

    async def _resume_seat(self, session: Session, old: Session | None) -> None:
        """Show the saved token, if any: the server seats us again and sends
        only the patches we missed (or a snapshot)."""
        saved = self.tokens.get(self.token_key)
        if saved is None:
            return
        view, seq = None, -1
        if old is not None and old.table is not None and old.table_id == saved.table_id:
            # Patches continue the view we already hold (see _on_change).
            view, seq = old.table, old.table_seq
        self._kept = (saved.table_id, view, seq)
        self.resume_rid = await session.send(Resume(token=saved.token, last_seq=seq))

    def _on_change(self, msg: Any) -> None:
        # Runs inside the session's reader, before the next message is read.
        # Session.take resets its view on Seated; after a resume the server
        # continues with the patches we missed, so put back the view they
        # apply to.
        if isinstance(msg, Seated) and self._kept is not None:
            table_id, view, seq = self._kept
            self._kept = None
            if view is not None and msg.table_id == table_id and self.session is not None:
                self.session.table, self.session.table_seq = view, seq
        elif isinstance(msg, Bye):
            self._bye = msg

    async def _pump(self, session: Session) -> None:
        while True:
            msg = await session.events.get()
            if msg is None:
                return
            self._keep_token(msg)
            try:
                self.on_message(msg)
            except Exception:
                # A display bug must not cut the connection: log and go on.
                log.exception("on_message failed for %s", type(msg).__name__)

    def _keep_token(self, msg: Any) -> None:
        match msg:
            case Seated(seat=seat, token=token, table_id=table_id) if seat is not None and token:
                self.tokens.save(self.token_key, SavedSeat(token, table_id, seat, time.time()))
            case Left():
                self.tokens.forget(self.token_key)
            case Error(rid=rid, code=code) if rid is not None and rid == self.resume_rid:
                # The server no longer knows our seat (table closed, seat
                # handed over): the token is useless from now on.
                if code != "already_seated":
                    self.tokens.forget(self.token_key)
                self._kept = None

    def _set(self, status: LinkStatus) -> None:
        self.status = status
        try:
            self.on_status(status)
        except Exception:
            log.exception("on_status failed")
