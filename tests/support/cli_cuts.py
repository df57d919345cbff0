"""Finding cut words on a Textual screen (tests of the terminal client's fit).

A *cut* is text a person cannot read whole: a word clipped at a widget's
edge ("Classemen"), a word folded over two lines ("Rega"/"rder"), a text
shortened with "…" by Rich, Textual or our own cropping ("Bot…"), a
footer key pushed off the screen (a bare "^q"), or a widget drawn outside
its container's visible part.

``cuts(screen)`` compares what each widget *means to show* (a Static's or a
Label's content, a Button's label, a FooterKey's key and description, a
DataTable's headers and cells, a border title) with what the widget
*draws* at its size (``render_lines``, so a line scrolled out of a
scrolling container is not a cut), word by word. It returns one readable
line per cut. Only the screen on top is read: a dialog's background was
checked when it was on top.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from rich.cells import cell_len
from rich.table import Table
from rich.text import Text
from textual.content import Content
from textual.geometry import Region
from textual.widget import Widget
from textual.widgets import Button, DataTable, Input, OptionList, Static
from textual.widgets._footer import FooterKey

from clients.cli import catalogs, i18n

_WORD = re.compile(r"\S+")
_TRIM = "()[]{}«»“”\"'.,;:!?·│—–-"


NEAR = 6
"""How many drawn words may come between two words of a text (a cell's padding
does not make words; a wrapped line keeps them in order)."""


def plain(content: Any) -> str:
    """The text of a Static's content, a label, a Rich Text or a str."""
    if isinstance(content, Text):
        return content.plain
    if isinstance(content, Content):
        return content.plain
    if isinstance(content, str):
        return content
    if isinstance(content, Table):
        return table_text(content)
    return ""


def table_text(table: Table) -> str:
    """A Rich table's headers, cells and footers, a line each."""
    columns = table.columns
    lines = [" ".join(plain(c.header) for c in columns)]
    rows = zip(*(c.cells for c in columns), strict=True)
    lines += [" ".join(plain(cell) for cell in row) for row in rows]
    lines.append(" ".join(plain(c.footer) for c in columns))
    return "\n".join(lines)


def _words(text: str) -> list[str]:
    """The words of ``text`` a person would read, without the punctuation around them."""
    out = []
    for raw in _WORD.findall(text):
        word = raw.strip(_TRIM)
        if word and word != "…":
            out.append(word)
    return out


def intended_ellipses(lang: str) -> set[str]:
    """The words the catalog itself ends with "…" ("loading…"): not cuts."""
    texts: list[str] = []
    for m in catalogs.read_po("fr" if lang == "en" else lang):
        value = m.id if lang == "en" else m.string
        texts += [value] if isinstance(value, str) else list(value)
    found = set()
    for text in texts:
        for raw in _WORD.findall(text):
            if raw.endswith("…") and "{" not in raw:
                found.add(raw.strip(_TRIM + "…") + "…")
    return found


def cropped(text: str, allowed: set[str]) -> list[str]:
    """Words of ``text`` shortened with "…" (not a phrase that ends so on purpose)."""
    out = []
    for raw in _WORD.findall(text):
        if "…" not in raw or raw == "…":
            continue
        core = raw.strip(_TRIM.replace("…", ""))
        if core.rstrip("…") == "" or core.strip(_TRIM + "…") + "…" in allowed:
            continue
        out.append(raw)
    return out


def drawn(widget: Widget, region: Region) -> str:
    """The text ``widget`` draws in ``region`` (its padding and border too), lines
    joined by newlines."""
    width, height = region.size
    if not width or not height:
        return ""
    lines = widget.render_lines(Region(0, 0, width, height))
    return "\n".join(line.text for line in lines)


def intended(widget: Widget) -> list[str]:
    """What ``widget`` means to show, as texts (each read word by word)."""
    texts: list[str] = [plain(widget.border_title)] if widget.border_title else []
    if isinstance(widget, FooterKey):
        texts += [widget.key_display, widget.description]
    elif isinstance(widget, Button):
        texts.append(plain(widget.label))
    elif isinstance(widget, Static):
        texts.append(plain(widget.content) or plain(widget.visual))
    elif isinstance(widget, DataTable):
        texts += [plain(c.label) for c in widget.columns.values()]
        shown = max(0, widget.size.height - (1 if widget.show_header else 0))
        for row in range(min(widget.row_count, shown)):
            texts += [plain(cell) for cell in widget.get_row_at(row)]
        texts += [f"{NARROW} {t}" for t in narrow_cells(widget)]
    elif isinstance(widget, OptionList):
        shown = widget.size.height
        for i in range(min(widget.option_count, shown)):
            texts.append(plain(widget.get_option_at_index(i).prompt))
    if widget.border_subtitle:
        texts.append(plain(widget.border_subtitle))
    return [t for t in texts if t]


NARROW = "\x00narrow"


def narrow_cells(table: DataTable[Any]) -> list[str]:
    """The headers and cells of ``table`` wider than their column."""
    out = []
    columns = list(table.columns.values())
    rows = [table.get_row_at(i) for i in range(table.row_count)]
    for i, column in enumerate(columns):
        room = column.get_render_width(table) - 2 * table.cell_padding
        for cell in [column.label, *(row[i] for row in rows)]:
            if cell_len(plain(cell)) > room:
                out.append(plain(cell))
    return out


def _scrolls(widget: Widget) -> bool:
    """Some container above ``widget`` scrolls vertically (its lines may be out of view)."""
    node = widget.parent
    while isinstance(node, Widget):
        if node.allow_vertical_scroll:
            return True
        node = node.parent
    return False


def _where(widget: Widget) -> str:
    ident = f"#{widget.id}" if widget.id else ""
    classes = "".join(f".{c}" for c in sorted(widget.classes) if not c.startswith("-"))
    return f"{type(widget).__name__}{ident}{classes}"


def cuts(screen: Any, allowed: set[str] | None = None) -> list[str]:
    """Every cut on ``screen`` (the one on top), one readable line each."""
    allowed = intended_ellipses(i18n.current) if allowed is None else allowed
    found: list[str] = []
    width, height = screen.size
    whole = Region(0, 0, width, height)
    for widget, geometry in screen._compositor.full_map.items():
        if not isinstance(widget, Widget) or widget is screen or not widget.display:
            continue
        if isinstance(widget, Input):
            continue  # what is typed scrolls sideways on purpose
        texts = intended(widget)
        if not texts:
            continue
        where = _where(widget)
        region, clip = geometry.region, geometry.clip.intersection(whole)
        # Sideways, nothing may leave the visible part; downwards, only in a scroller.
        if region.x < clip.x or region.right > clip.right:
            found.append(f"{where}: drawn outside the screen {texts}")
            continue
        if (region.y < clip.y or region.bottom > clip.bottom) and not _scrolls(widget):
            found.append(f"{where}: drawn below the screen {texts}")
            continue
        shown = drawn(widget, region)
        drawn_words = _words(shown)
        at = 0
        for text in texts:
            if text.startswith(NARROW):
                found.append(f"{where}: {text[len(NARROW) + 1 :]!r} is wider than its column")
                continue
            # Word by word, in the order drawn: a word clipped, folded or
            # shortened is missing, even when the same word is drawn elsewhere.
            missing = []
            for word in _words(text):
                # Near where the last one was: a word drawn in another place does not count.
                if word in drawn_words[at : at + NEAR]:
                    at = drawn_words.index(word, at) + 1
                else:
                    missing.append(word)
            if missing:
                found.append(f"{where}: {missing[0]!r} cut, drawn {_near(shown, missing[0])!r}")
            for word in cropped(text, allowed):
                found.append(f"{where}: {word.strip('│')!r} shortened, in {_near(text, word)!r}")
        for word in cropped(shown, allowed):
            found.append(
                f"{where}: {word.strip('│')!r} shortened when drawn: {_near(shown, word)!r}"
            )
    return sorted(set(found))


def _near(shown: str, word: str) -> str:
    """The drawn line where ``word`` should have been (its first letters' line)."""
    for head in (word, word[:3], word[:1]):
        for line in shown.splitlines():
            if head and head in line:
                return line.strip(" │╭╮╰╯─")
    return shown.strip().splitlines()[0] if shown.strip() else ""


def report(found: Iterable[str]) -> str:
    return "\n".join(found)
