"""``MadePatch``: a patch made from a move, that keeps its version 2 encoding
(``protocol/positional.py`` writes and reads it).

A module of its own so that it stays a Python class in the compiled build
(server/base/compiled.py): it subclasses ``list``, which mypyc cannot compile
as a native class; a Python class in a compiled module needs a decorator from
``mypy_extensions``, a dependency the pure build would then carry for nothing.
"""

from __future__ import annotations

from protocol.diff import Op

__all__ = ["MadePatch"]


class MadePatch(list[Op]):
    """A patch made from a move rather than by a diff (a card played): a
    list of ops like any, that keeps its version 2 encoding (per format,
    made once however many seats get it) and, for a seat's own patch, the
    shared patch it starts with (``base``), whose encoding it starts with."""

    __slots__ = ("base", "bodies")
    # (No __init__ of its own: a Python one costs a frame a patch. The maker
    # sets both: ``base`` and ``bodies`` = [None, None].)
    base: MadePatch | None
    bodies: list[tuple[int, bytes] | None]
    """By ``binary``: (count of elements, the ops encoded one after the other)."""
