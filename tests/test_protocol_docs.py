"""docs/PROTOCOL.md cannot silently fall behind the protocol code.

Every message tag (commands and events) must have a row in one of the
document's tables, every field of every message and view (``views.py`` and
``tournaments.py``) must be named in it, every close code of
``server/conn.py`` must be listed, and every stable error code the server or
the codec can send must be explained.
"""

from __future__ import annotations

import re
import typing
from pathlib import Path

import msgspec
import pytest

from protocol import messages, tournaments, views
from protocol.codec import DecodeErrorCode
from server import conn, table

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "PROTOCOL.md").read_text(encoding="utf-8")


def _structs(module: object) -> list[type[msgspec.Struct]]:
    """The Struct classes defined in ``module`` (not imported into it)."""
    return [
        value
        for value in vars(module).values()
        if isinstance(value, type)
        and issubclass(value, msgspec.Struct)
        and value.__module__ == module.__name__  # type: ignore[attr-defined]
        and not value.__name__.startswith("_")
    ]


MESSAGES = [cls for cls in _structs(messages) if cls.__struct_config__.tag is not None]
VIEWS = _structs(views) + _structs(tournaments)


def _tag(cls: type[msgspec.Struct]) -> str:
    tag = cls.__struct_config__.tag
    assert isinstance(tag, str)
    return tag


def _quoted(word: str) -> bool:
    return f"`{word}`" in DOC


def test_every_message_is_in_a_union() -> None:
    # The unions are what the codecs decode; a tagged message outside both
    # would be a message nobody can receive (and this file's scan relies on it).
    members = {*typing.get_args(messages.Command), *typing.get_args(messages.Event)}
    assert set(MESSAGES) == members


@pytest.mark.parametrize("cls", MESSAGES, ids=lambda cls: f"{cls.__name__}-{_tag(cls)}")
def test_every_message_tag_has_a_table_row(cls: type[msgspec.Struct]) -> None:
    tag = _tag(cls)
    row = re.compile(rf"^\|\s*`{re.escape(tag)}`\s*\|", re.MULTILINE)
    assert row.search(DOC), f"docs/PROTOCOL.md has no table row for message `{tag}`"
    assert f"#### `{tag}`" in DOC, f"docs/PROTOCOL.md has no section for message `{tag}`"


@pytest.mark.parametrize("cls", MESSAGES + VIEWS, ids=lambda cls: cls.__name__)
def test_every_field_is_named(cls: type[msgspec.Struct]) -> None:
    missing = [name for name in cls.__struct_encode_fields__ if not _quoted(name)]
    assert not missing, f"docs/PROTOCOL.md never names {cls.__name__} fields {missing}"


def test_every_view_struct_is_described() -> None:
    missing = [
        cls.__name__
        for cls in VIEWS
        if f"**{cls.__name__}**" not in DOC and f"### 4.1 {cls.__name__}" not in DOC
    ]
    assert not missing, f"docs/PROTOCOL.md does not describe {missing}"


CLOSE_CODES = {
    name: value
    for name, value in vars(conn).items()
    if name.startswith("CLOSE_") and isinstance(value, int)
}


def test_close_codes_are_found() -> None:
    assert {4001, 4002, 4003, 4004, 4005} <= set(CLOSE_CODES.values())


@pytest.mark.parametrize("name", sorted(CLOSE_CODES))
def test_every_close_code_is_listed(name: str) -> None:
    code = CLOSE_CODES[name]
    row = re.compile(rf"^\|\s*`{code}`\s*\|\s*`{name}`\s*\|", re.MULTILINE)
    assert row.search(DOC), f"docs/PROTOCOL.md has no close-code row for `{code}` ({name})"


def _error_codes() -> set[str]:
    """Every literal error/bye code in server/ and protocol/ sources."""
    codes: set[str] = set(typing.get_args(DecodeErrorCode))
    codes |= set(table._SEAT_ERRORS)
    pattern = re.compile(r'\bcode="([a-z_]+)"|\b(?:RuleError|bye)\(\s*"([a-z_]+)"')
    for folder in ("server", "protocol"):
        for path in (ROOT / folder).rglob("*.py"):
            for match in pattern.finditer(path.read_text(encoding="utf-8")):
                codes.add(match.group(1) or match.group(2))
    return codes


ERROR_CODES = sorted(_error_codes())


def test_error_codes_are_found() -> None:
    assert {"illegal_card", "not_your_turn", "malformed", "replaced"} <= set(ERROR_CODES)


@pytest.mark.parametrize("code", ERROR_CODES)
def test_every_error_code_is_explained(code: str) -> None:
    row = re.compile(rf"^\|\s*`{re.escape(code)}`\s*\|", re.MULTILINE)
    assert row.search(DOC), f"docs/PROTOCOL.md has no table row for error code `{code}`"
