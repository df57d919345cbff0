"""docs/PROTOCOL.md cannot silently fall behind the protocol code.

Every message tag (commands and events) must have a row in one of the
document's tables, every field of every message and view (``views.py`` and
``tournaments.py``) must be named in it, every close code of
``server/link/conn.py`` must be listed, and every stable error code the server or
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
from server import table
from server.link import conn

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


# -- field order: "sent as maps keyed by the field names below, in this order" -------

_ROW = re.compile(r"^\|\s*`([a-z_0-9]+)`\s*\|")


def _tables() -> list[tuple[str, list[str]]]:
    """Every table of the document: the lines just above it, and its rows'
    first-column names in order."""
    lines = DOC.splitlines()
    tables: list[tuple[str, list[str]]] = []
    current: list[str] = []
    start = 0
    for i, line in enumerate([*lines, ""]):
        match = _ROW.match(line)
        if match:
            if not current:
                start = i
            current.append(match.group(1))
        elif not line.startswith("|"):
            if current:
                tables.append(("\n".join(lines[max(0, start - 8) : start]), current))
            current = []
    return tables


def _titled(cls: type[msgspec.Struct], above: str) -> bool:
    """The table just below a heading of ``cls``."""
    name = cls.__name__
    marks = [f"**{name}**", f"### 4.1 {name}"]
    tag = cls.__struct_config__.tag
    if isinstance(tag, str):
        marks.append(f"#### `{tag}`")
    return any(mark in above for mark in marks)


@pytest.mark.parametrize("cls", MESSAGES + VIEWS, ids=lambda cls: cls.__name__)
def test_field_tables_list_fields_in_wire_order(cls: type[msgspec.Struct]) -> None:
    # §4 promises the order on the wire; a client may read a table top down.
    fields = list(cls.__struct_encode_fields__)
    for above, names in _tables():
        if _titled(cls, above) and set(names) <= set(fields):
            assert names == [f for f in fields if f in names], (
                f"docs/PROTOCOL.md lists {cls.__name__} as {names}, sent as {fields}"
            )


@pytest.mark.parametrize(
    "cls",
    [views.TableView, views.SeatView, views.Legal, views.DealView, views.DealLine, views.SizeRules],
    ids=lambda cls: cls.__name__,
)
def test_the_main_views_have_a_field_table(cls: type[msgspec.Struct]) -> None:
    fields = set(cls.__struct_encode_fields__)
    assert any(set(names) == fields for _, names in _tables()), f"no table of {cls.__name__}"
