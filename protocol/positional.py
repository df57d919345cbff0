"""Protocol version 2's table stream: views as arrays, patches in a few bytes.

Version 1 sends a table view as a map of field names and a patch as
``[path, op, value]`` ops whose paths are names (``protocol/diff.py``): a card
played costs each seat ~140 bytes. Version 2 sends the same views and the
same ops, written differently (docs/PROTOCOL.md §9):

* a view is **positional**: a struct is an array of its field values in the
  order of its fields, and a card is its number (``protocol/cards.py``: 0-77);
* the names are sent **once**, in the ``welcome`` (``schema``): each struct's
  fields with their types, and the **templates**: every path into a view
  that a patch may address, a struct field by its position and an array
  element by a wildcard;
* a table patch is one flat array ``[seq, op, op, ...]`` where an op is a
  **code** (template and kind together), the wildcards' indices, then the
  value (none for ``del``). "Seat 2 holds 11 cards" is 3 bytes.

All of it is derived from the view structs (``TableView`` and what it holds),
so a field added to any of them is served in version 2 with no change here;
``HOT`` only puts the paths that change at every move first, so that their
codes take one byte.

The server side (``TableWire``) turns the version 1 ops the table makes into
version 2 bytes, each op once per codec however many seats get it. The
client side (``TableReader``) works from the server's schema alone: it turns
a version 2 view or patch back into names (to feed the version 1 machinery
of a client), or applies a patch to a positional document in place
(``apply``, for clients that keep arrays: ``bench/load.py``).
"""

from __future__ import annotations

from typing import Any, Final, TypeAlias

import msgspec

from protocol.cards import CARD_OF, CODES
from protocol.diff import Op, OpKind, Patch, PatchError
from protocol.made_patch import MadePatch
from protocol.msgpack_arrays import SMALL_HEADERS, array_header
from protocol.views import TableView

__all__ = ["HOT", "KINDS", "MadePatch", "Schema", "TableReader", "TableWire", "schema_of"]

KINDS: Final[tuple[OpKind, ...]] = ("set", "append", "del", "remove")
"""An op's kind is its code modulo 4, in this order."""
_KIND_NUMBER: Final[dict[str, int]] = {k: i for i, k in enumerate(KINDS)}
KIND_COUNT: Final = len(KINDS)
"""A code is template × KIND_COUNT + kind (after the generic codes)."""
GENERIC: Final = KIND_COUNT
"""Codes below this are generic ops: the kind, then a whole positional path."""

WILD: Final = None
"""A template step that is any array index (sent with the op)."""

HOT: Final[tuple[tuple[str, ...], ...]] = (
    ("seats", "*", "cards"),
    ("deal", "turn"),
    ("deal", "trick", "cards"),
    ("hand",),
    ("legal", "cards"),
    ("deal", "trick"),
    ("deal", "tricks"),
    ("deal", "tricks_won"),
    ("legal",),
    ("deal", "bids"),
    ("deal", "phase"),
    ("legal", "bids"),
    ("legal", "poignee_sizes"),
    ("legal", "poignee_cards"),
    ("deadline",),
    ("deal",),
    ("seats", "*", "connected"),
    ("seats", "*", "away"),
    ("ready",),
    ("status",),
    ("scores",),
    ("sheet",),
    ("next_deal_at",),
    ("chat",),
    ("ecart",),
    ("legal", "ecart"),
    ("deal", "taker"),
    ("deal", "contract"),
    ("deal", "chien"),
    ("deal", "poignees"),
)
"""Paths (by field name, ``*`` any index) given the first templates, hence
one-byte codes: what a move changes. Any other path gets a later one."""

Schema: TypeAlias = dict[str, Any]
"""The ``schema`` of a version 2 ``welcome`` (docs/PROTOCOL.md §9.2)."""

# A type, as the schema writes it: None (any value, sent as it is), "card",
# a struct's name, or [type] for an array of that type.
Type: TypeAlias = Any


class _List:
    __slots__ = ("item",)

    def __init__(self, item: Any) -> None:
        self.item = item


class _Struct:
    __slots__ = ("fields", "name", "names", "position")

    def __init__(self, name: str) -> None:
        self.name = name
        self.fields: list[tuple[str, Any]] = []  # (encoded name, node)
        self.names: list[str] = []
        self.position: dict[str, int] = {}


_CARD: Final = "card"


def _node(info: Any, structs: dict[type, _Struct]) -> Any:
    """The node of a msgspec type: None (plain), ``_CARD``, ``_List`` or ``_Struct``."""
    while isinstance(info, msgspec.inspect.Metadata):
        if (info.extra or {}).get("card"):
            return _CARD
        info = info.type
    if isinstance(info, msgspec.inspect.UnionType):
        others = [t for t in info.types if not isinstance(t, msgspec.inspect.NoneType)]
        # "X or None" is X (null stays null); any other union is a plain value.
        return _node(others[0], structs) if len(others) == 1 else None
    if isinstance(info, msgspec.inspect.ListType | msgspec.inspect.VarTupleType):
        return _List(_node(info.item_type, structs))
    if isinstance(info, msgspec.inspect.StructType):
        known = structs.get(info.cls)
        if known is not None:
            return known
        node = structs[info.cls] = _Struct(info.cls.__name__)
        if info.array_like or info.tag is not None:
            raise TypeError(f"{info.cls.__name__}: views are plain (untagged, map) structs")
        for f in info.fields:
            node.position[f.encode_name] = len(node.fields)
            node.fields.append((f.encode_name, _node(f.type, structs)))
            node.names.append(f.encode_name)
        return node
    return None


def _type_of(node: Any) -> Type:
    if node is None or node is _CARD:
        return node
    if type(node) is _List:
        return [_type_of(node.item)]
    assert type(node) is _Struct
    return node.name


def _templates(root: _Struct) -> list[tuple[tuple[str, ...], tuple[int | None, ...]]]:
    """Every path into a view a patch may address, by names (``*``: any
    index) and by positions (``WILD``), hot ones first."""
    found: list[tuple[tuple[str, ...], tuple[int | None, ...]]] = []

    def walk(node: Any, names: tuple[str, ...], steps: tuple[int | None, ...], depth: int) -> None:
        if depth > 8:  # views do not nest deeper; a recursive struct stops here
            return
        if type(node) is _Struct:
            for i, (name, sub) in enumerate(node.fields):
                found.append(((*names, name), (*steps, i)))
                walk(sub, (*names, name), (*steps, i), depth + 1)
        elif type(node) is _List:
            found.append(((*names, "*"), (*steps, WILD)))
            walk(node.item, (*names, "*"), (*steps, WILD), depth + 1)

    walk(root, (), (), 0)
    rank = {path: i for i, path in enumerate(HOT)}
    found.sort(key=lambda t: rank.get(t[0], len(HOT)))  # stable: the rest in field order
    return found


def schema_of(root: type[msgspec.Struct] = TableView) -> Schema:
    """The schema a version 2 server sends in its ``welcome``."""
    structs: dict[type, _Struct] = {}
    node = _node(msgspec.inspect.type_info(root), structs)
    return {
        "root": node.name,
        "structs": {
            s.name: [[name, _type_of(sub)] for name, sub in s.fields] for s in structs.values()
        },
        "templates": [list(steps) for _, steps in _templates(node)],
    }


# -- the server: version 1 ops in, version 2 out ------------------------------------------


_MP_ENCODE: Final = msgspec.msgpack.Encoder().encode
_JSON_ENCODE: Final = msgspec.json.Encoder().encode
_CACHE_SIZE: Final = 4096

_Head: TypeAlias = tuple[bytes, int, bool, Any]
"""An op's encoding but its value, its count of elements, whether a value
follows, and the node the value is converted as (``_to_v2``)."""


def _to_v2(value: Any, node: Any) -> Any:
    """A version 1 document value of type ``node`` as version 2 writes it."""
    if node is None or value is None:
        return value
    if node is _CARD:
        return CARD_OF[value]
    if type(node) is _List:
        item = node.item
        if item is _CARD:  # a hand, a trick, legal cards: the commonest lists
            return [CARD_OF[v] for v in value]
        return value if item is None else [_to_v2(v, item) for v in value]
    return [_to_v2(value.get(name), sub) for name, sub in node.fields]


class TableWire:
    """Version 2 encodings of table views and patches (one for the process)."""

    def __init__(self, root: type[msgspec.Struct] = TableView) -> None:
        structs: dict[type, _Struct] = {}
        self.root: _Struct = _node(msgspec.inspect.type_info(root), structs)
        self.schema = schema_of(root)
        self._code_of: dict[tuple[int | None, ...], int] = {
            tuple(steps): GENERIC + KIND_COUNT * i
            for i, steps in enumerate(self.schema["templates"])
        }
        self._paths: dict[tuple[str | int, ...], tuple[int, tuple[Any, ...], Any]] = {}
        # Encodings kept so that what many seats get is encoded once: each op
        # (the public ops of a move are the same objects in every seat's
        # patch) and each patch list (seats whose own fields did not change
        # get the very same list), by id, per format. Each entry holds its
        # object, so that the id is not reused while it is here.
        self._ops: tuple[dict[int, tuple[Op, int, bytes]], ...] = ({}, {})
        self._lists: tuple[dict[int, tuple[Patch, int, bytes]], ...] = ({}, {})
        self._heads: tuple[dict[tuple[Any, str], _Head], ...] = ({}, {})

    def view(self, doc: Any) -> Any:
        """A view's version 1 document as version 2 writes it."""
        return _to_v2(doc, self.root)

    def _path(self, path: tuple[str | int, ...]) -> tuple[int, tuple[Any, ...], Any]:
        """(code base, what follows the code, node at the end) of a version 1 path."""
        known = self._paths.get(path)
        if known is not None:
            return known
        node: Any = self.root
        steps: list[int | None] = []
        indices: list[Any] = []
        positional: list[Any] = []
        generic = False
        for step in path:
            if type(node) is _Struct and type(step) is str and step in node.position:
                i = node.position[step]
                steps.append(i)
                positional.append(i)
                node = node.fields[i][1]
            elif type(node) is _List and type(step) is int:
                steps.append(WILD)
                indices.append(step)
                positional.append(step)
                node = node.item
            else:  # inside a plain value (a map: a deal's result): as it is
                generic = True
                positional.append(step)
                node = None
        code = None if generic else self._code_of.get(tuple(steps))
        known = (0, (positional,), node) if code is None else (code, tuple(indices), node)
        if len(self._paths) < _CACHE_SIZE:
            self._paths[path] = known
        return known

    def _head(self, path: tuple[str | int, ...], kind: str, binary: bool) -> _Head:
        """What of an op's encoding its path and kind decide (kept: a move's
        ops go to the same few paths every time)."""
        base, follows, node = self._path(path)
        elements: list[Any] = [base + _KIND_NUMBER[kind], *follows]
        if binary:
            head = b"".join(_MP_ENCODE(e) for e in elements)
        else:
            head = b",".join(_JSON_ENCODE(e) for e in elements)
        if kind == "del":
            known: _Head = (head, len(elements), False, None)
        else:
            # The value follows: "set" writes it as the node at the path
            # wants it, "append" as the list's items, "remove" an index as it is.
            if kind == "set":
                convert = node
            elif kind == "append":
                convert = node if type(node) is _List else None
            else:
                convert = None
            known = (head if binary else head + b",", len(elements) + 1, True, convert)
        heads = self._heads[binary]
        if len(heads) < _CACHE_SIZE:
            heads[path, kind] = known
        return known

    def _op(self, op: Op, binary: bool) -> tuple[Op, int, bytes]:
        """An op's encoding (kept: the public ops of a move are the same
        objects in every seat's patch), with how many elements it is: the
        elements of ``[code, index..., value]`` one after the other, with no
        array around them (the head, all but the value, encoded once a path)."""
        path, kind = op.path, op.op
        known = self._heads[binary].get((path, kind))
        if known is None:
            known = self._head(path, kind, binary)
        head, count, valued, convert = known
        if valued:
            value = op.value
            if convert is not None and value is not None:
                value = _to_v2(value, convert)
            data = head + (_MP_ENCODE(value) if binary else _JSON_ENCODE(value))
        else:
            data = head
        done = (op, count, data)
        ops = self._ops[binary]
        if len(ops) >= _CACHE_SIZE:
            ops.clear()
        ops[id(op)] = done
        return done

    def _body(self, patch: Patch, binary: bool) -> tuple[Patch, int, bytes]:
        """The ops of ``patch`` encoded one after the other (no array around
        them), and how many elements they are."""
        if type(patch) is MadePatch:
            made = patch.bodies[binary]
            if made is None:
                made = patch.bodies[binary] = self._made(patch, binary)
            return patch, made[0], made[1]
        lists = self._lists[binary]
        hit = lists.get(id(patch))
        if hit is not None:  # (an entry holds its list: the id is that list's)
            return hit
        get = self._ops[binary].get
        count = 0
        parts: list[bytes] = []
        for op in patch:
            # (An entry holds its op, so an op found by its id is that op.)
            known = get(id(op))
            if known is None:
                known = self._op(op, binary)
            count += known[1]
            parts.append(known[2])
        hit = (patch, count, b"".join(parts) if binary else b",".join(parts))
        if len(lists) >= 64:
            lists.clear()
        lists[id(patch)] = hit
        return hit

    def _made(self, patch: MadePatch, binary: bool) -> tuple[int, bytes]:
        """``_body`` of a made patch: its base's (kept on the base), then its own ops'."""
        base = patch.base
        count, parts, start = 0, [], 0
        if base:
            made = base.bodies[binary]
            if made is None:
                made = base.bodies[binary] = self._made(base, binary)
            count, body = made
            parts.append(body)
            start = len(base)
        get = self._ops[binary].get
        for op in patch[start:]:
            known = get(id(op))  # (an entry holds its op: the id is that op's)
            if known is None:
                known = self._op(op, binary)
            count += known[1]
            parts.append(known[2])
        return count, b"".join(parts) if binary else b",".join(parts)

    def patch(self, seq: int, patch: Patch, binary: bool) -> bytes:
        """The version 2 table patch message ``[seq, op, ...]``."""
        if type(patch) is MadePatch:  # (_body's first case, inline: most patches)
            made = patch.bodies[binary]
            if made is None:
                made = patch.bodies[binary] = self._made(patch, binary)
            count, body = made
        else:
            _, count, body = self._body(patch, binary)
        if binary:
            count += 1  # the seq
            head = SMALL_HEADERS[count] if count < 16 else array_header(count)
            return head + _MP_ENCODE(seq) + body
        if not body:
            return b"[%d]" % seq
        return b"[%d,%s]" % (seq, body)


# -- the client: the server's schema, version 2 in ---------------------------------------


class TableReader:
    """Reads a version 2 table stream with the server's ``schema`` alone.

    Raises ``PatchError`` for a patch that does not parse (a client asks for
    a snapshot then), ``ValueError`` for a schema that is no schema.
    """

    def __init__(self, schema: Schema) -> None:
        try:
            self.structs: dict[str, list[tuple[str, Type]]] = {
                name: [(str(f), t) for f, t in fields] for name, fields in schema["structs"].items()
            }
            self.root: str = schema["root"]
            self.templates: list[list[int | None]] = [list(t) for t in schema["templates"]]
            if self.root not in self.structs:
                raise ValueError(f"no struct {self.root!r} in the schema")
        except (KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"not a schema: {exc!r}") from None
        self.arity = [sum(1 for s in t if s is WILD) for t in self.templates]

    # views

    def view(self, value: Any) -> Any:
        """A version 2 view with names and card codes, as version 1 writes it."""
        if type(value) is not list:
            raise PatchError(f"a view is an array, not {value!r}")
        return self._named(value, self.root)

    def _named(self, value: Any, kind: Type) -> Any:
        if kind is None or value is None:
            return value
        if kind == _CARD:
            if type(value) is not int or not 0 <= value < len(CODES):
                raise PatchError(f"{value!r} is no card number")
            return CODES[value]
        if type(kind) is list:
            if type(value) is not list:
                raise PatchError(f"expected an array, got {value!r}")
            item = kind[0]
            return value if item is None else [self._named(v, item) for v in value]
        fields = self.structs.get(kind)
        if fields is None:
            return value
        if type(value) is not list or len(value) > len(fields):
            raise PatchError(f"expected a {kind} array, got {value!r}")
        return {name: self._named(v, t) for (name, t), v in zip(fields, value, strict=False)}

    # patches

    def ops(self, message: list[Any]) -> tuple[int, list[tuple[int, list[Any], Any]]]:
        """``[seq, op, ...]`` split: the seq and each op as (kind number,
        positional path, value)."""
        if not message or type(message[0]) is not int:
            raise PatchError("a table patch starts with its seq")
        out: list[tuple[int, list[Any], Any]] = []
        i, end = 1, len(message)
        try:
            while i < end:
                code = message[i]
                if type(code) is not int or code < 0:
                    raise PatchError(f"{code!r} is no op code")
                kind = code % KIND_COUNT
                if code < GENERIC:
                    path = list(message[i + 1])
                    i += 2
                else:
                    t = (code - GENERIC) // KIND_COUNT
                    arity = self.arity[t]
                    indices = iter(message[i + 1 : i + 1 + arity])
                    path = [next(indices) if s is WILD else s for s in self.templates[t]]
                    i += 1 + arity
                value = None
                if kind != 2:  # del has no value
                    value = message[i]
                    i += 1
                out.append((kind, path, value))
        except (IndexError, StopIteration, TypeError) as exc:
            raise PatchError(f"a table patch cut short: {exc!r}") from None
        if i != end:
            raise PatchError("a table patch cut short")
        return message[0], out

    def patch(self, ops: list[tuple[int, list[Any], Any]]) -> Patch:
        """Version 2 ops as version 1 ``Op``s (names, card codes)."""
        patch: Patch = []
        for kind, path, value in ops:
            names: list[str | int] = []
            node: Type = self.root
            for step in path:
                if type(node) is str and node in self.structs:
                    fields = self.structs[node]
                    if type(step) is not int or not 0 <= step < len(fields):
                        raise PatchError(f"{step!r} is no field of {node}")
                    name, node = fields[step]
                    names.append(name)
                elif type(node) is list:
                    if type(step) is not int:
                        raise PatchError(f"an array needs an index, not {step!r}")
                    names.append(step)
                    node = node[0]
                else:
                    if type(step) is not int and type(step) is not str:
                        raise PatchError(f"{step!r} is no step")
                    names.append(step)
                    node = None
            op = KINDS[kind]
            if op == "set":
                value = self._named(value, node)
            elif op == "append":
                value = self._named(value, node if type(node) is list else None)
            patch.append(Op(tuple(names), op, value))
        return patch

    def apply(self, doc: Any, ops: list[tuple[int, list[Any], Any]]) -> Any:
        """Apply version 2 ops to a positional document in place; returns it.

        For clients that keep the arrays (cheap: no names, no copies).
        Raises ``PatchError`` when an op does not fit.
        """
        try:
            for kind, path, value in ops:
                if not path:
                    if kind != 0:
                        raise PatchError("only a set may replace the whole view")
                    doc = value
                    continue
                node = doc
                for step in path[:-1]:
                    if type(node) is list and (type(step) is not int or step < 0):
                        raise PatchError(f"{step!r} is no index")  # -1 would pass in Python
                    node = node[step]
                last = path[-1]
                if type(node) is list and (type(last) is not int or last < 0):
                    raise PatchError(f"{last!r} is no index")
                if kind == 0:
                    if type(node) is list and not 0 <= last < len(node):
                        raise PatchError(f"index {last} out of range")
                    node[last] = value
                elif kind == 1:
                    node[last].extend(value)
                elif kind == 2:
                    del node[last]
                else:
                    target = node[last]
                    if type(target) is not list or not 0 <= value < len(target):
                        raise PatchError(f"cannot remove {value!r}")
                    del target[value]
        except (LookupError, TypeError, AttributeError) as exc:
            raise PatchError(f"{type(exc).__name__}: {exc}") from None
        return doc
