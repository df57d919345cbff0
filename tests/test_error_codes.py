"""The error and bye codes the server is typed with are the documented ones.

``protocol.errors.ErrorCode`` and ``ByeCode`` type every code the server
sends (mypy refuses any other); here docs/PROTOCOL.md §6.1 (with §11.5) and §6.2 must list
exactly those codes, no more, no fewer.
"""

from __future__ import annotations

import re
import typing
from pathlib import Path

from protocol.codec import DecodeErrorCode
from protocol.errors import ByeCode, ErrorCode
from server.table import SEAT_ERRORS

DOC = (Path(__file__).resolve().parent.parent / "docs" / "PROTOCOL.md").read_text("utf-8")


def _codes(start: str, end: str) -> set[str]:
    section = DOC[DOC.index(start) : DOC.index(end)]
    return set(re.findall(r"^\|\s*`([a-z_]+)`\s*\|", section, re.MULTILINE))


def test_error_codes_are_exactly_the_documented_ones() -> None:
    # §6.1 lists the table's and the lobby's; §11.5 those of players and the daily game.
    documented = _codes("### 6.1", "### 6.2") | _codes("### 11.5", "### 11.6")
    assert set(typing.get_args(ErrorCode)) == documented


def test_bye_codes_are_exactly_the_documented_ones() -> None:
    assert set(typing.get_args(ByeCode)) == _codes("### 6.2", "### 6.3")


def test_the_codec_and_seat_codes_are_error_codes() -> None:
    codes = set(typing.get_args(ErrorCode))
    assert set(typing.get_args(DecodeErrorCode)) <= codes
    assert set(SEAT_ERRORS) <= codes


def test_the_server_builds_every_bye_through_the_typed_helper() -> None:
    # ``Bye.code`` is a plain string on the wire; ``protocol.messages.bye``
    # takes a ``ByeCode``, so mypy checks each code the server sends.
    root = Path(__file__).resolve().parent.parent / "server"
    direct = [
        f"{path.relative_to(root.parent)}:{n}"
        for path in sorted(root.rglob("*.py"))
        for n, line in enumerate(path.read_text("utf-8").splitlines(), 1)
        if re.search(r"\bBye\(", line)
    ]
    assert len(list(root.rglob("*.py"))) > 20  # found the server's files
    assert direct == []
