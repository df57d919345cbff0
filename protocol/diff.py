"""State diffs for views: ``diff(old, new) -> Patch`` and ``apply(old, patch) -> new``.

The server keeps, per connection, the last view it sent; after each move it
sends ``diff(last, view)`` instead of the whole view, and the client rebuilds
the view with ``apply``. The contract is ``apply(old, diff(old, new)) == new``
for any two values of the same Struct type. ``apply`` never mutates its inputs
and raises ``PatchError`` (and nothing else) when a patch does not fit the
value it is applied to; a client must then ask for a snapshot.

Documents
---------
A patch addresses the *document* form of a view: the value the view encodes
to, as a JSON or msgpack peer decodes it. A Struct is a
map from its encoded field names to values (an array for ``array_like``
structs, the tag field included for tagged ones), a ``list`` or ``tuple`` is an
array, a ``dict`` is a map. So a client in any language can hold the document
it got in a snapshot and patch it without knowing our types. (``diff`` walks
the Structs themselves, for speed, and turns only the changed values into
documents; ``apply`` patches the document of ``old`` and converts it back.)

Wire format
-----------
A patch is an array of ops, applied in order. Each op is an array of exactly
three elements ``[path, op, value]``:

``path``
    An array of steps from the root of the document. A string step selects a
    key of a map; an integer step selects an element of an array (0-based,
    never negative). A map key that is an integer in msgpack arrives as an
    integer step; views use string keys, so in JSON every map step is a
    string. An empty path is the whole document.
``op``
    ``"set"``: walk every step but the last, then put ``value`` at the last
    step. On a map the key may be new (this is how keys and fields are
    added); on an array the index must already exist. With an empty path,
    ``value`` replaces the whole document.

    ``"append"``: walk the whole path to an array and append every element
    of ``value`` (itself an array) to it, in order.

    ``"del"``: walk every step but the last, which must name an existing key
    of a map, and remove that key. ``value`` is ``null`` and ignored. Arrays
    are never shortened by ``del``; a shorter array comes as a ``"set"``.
``value``
    Any document value: ``null``, booleans, numbers, strings, arrays, maps.

Example, from a ``TableView``: seat 0 plays the King of spades into the
trick being played and the turn passes to seat 1::

    [[["seats", 0, "cards"], "set", 11],
     [["hand"], "set", ["7H", "T1", "EX"]],
     [["legal", "cards"], "set", []],
     [["deal", "turn"], "set", 1],
     [["deal", "trick", "cards"], "append", ["KS"]]]

A client applies a patch to a private copy of its document and keeps the copy
only if every op fits; any step that does not exist, an index out of range, a
step into a scalar, an ``"append"`` to something that is not an array or a
``"del"`` of a missing key means the client is out of step with the server.

How ``diff`` chooses ops
------------------------
Equal values give no op, so ``diff(v, v) == []``. Two maps are diffed key by
key: a removed key is a ``"del"``, a new key a ``"set"``, a changed value is
diffed recursively. An array whose new value starts with its old value
becomes one ``"append"`` carrying only the new tail: tricks and chat only
grow, and this keeps those patches small however long the game. An array of
the same or a greater length where at most half of the old elements changed
(at least one may always change) is diffed element by element, then any
tail appended: a seat whose ``connected`` flag flipped, or the current trick
inside the list of tricks, gives a small op instead of the whole list. Any
other change of an array, and any change of a scalar or of a value's kind,
is a ``"set"`` of the new value. These are choices of the sender only; the
receiver just applies ops.

Protocol version 2 (``protocol/positional.py``) knows one more op, never sent
to a version 1 peer: ``"remove"`` walks the whole path to an array and removes
its element at index ``value``. ``diff(..., removes=True)`` uses it for an
array that lost exactly one element (a card played from a hand), where
version 1 sends the whole new array.

Values are compared with Python's ``==``, so a view should not hold NaN (it is
never equal to itself: that costs a useless ``"set"`` each time, and ``apply``
refuses it) nor sets (their order in the document is not stable). Like any
message, a view must fit msgpack: integers within 64 bits.
"""

from __future__ import annotations

from typing import Any, Final, Literal, TypeAlias, TypeVar

import msgspec
from msgspec.structs import astuple

__all__ = [
    "Op",
    "OpKind",
    "Patch",
    "PatchError",
    "Path",
    "apply",
    "apply_document",
    "diff",
    "diff_arrays",
    "document",
]

T = TypeVar("T", bound=msgspec.Struct)

OpKind: TypeAlias = Literal["set", "append", "del", "remove"]
Path: TypeAlias = tuple[str | int, ...]


class Op(msgspec.Struct, frozen=True, array_like=True, gc=False):
    """One patch operation, on the wire ``[path, op, value]``.

    See the module docstring for what each ``op`` does. ``gc=False``: an op
    holds plain document values and never takes part in a reference cycle,
    so the garbage collector need not track the many ops a busy server makes
    (its pauses, not CPU, dominate tail latency).
    """

    path: Path
    op: OpKind
    value: Any = None


Patch: TypeAlias = list[Op]
"""A patch: its ops, applied in order. Decode one with ``type=Patch``."""


class PatchError(ValueError):
    """The patch does not fit the value it was applied to.

    The receiver is out of step with the sender (a lost or reordered message,
    or a bug on either side); it should drop its view and ask for a snapshot.
    """


_DOC_ENCODER: Final = msgspec.msgpack.Encoder()
_DOC_DECODER: Final = msgspec.msgpack.Decoder()


def document(value: Any) -> Any:
    """``value``'s document, in fresh containers: exactly what a msgpack peer decodes.

    Not ``msgspec.to_builtins``: that one keeps tuples, so a patch made in
    process would differ from the same patch after a trip on the wire, and a
    later op could not change a value inside one.
    """
    return _DOC_DECODER.decode(_DOC_ENCODER.encode(value))


def diff(
    old: T,
    new: T,
    *,
    only: tuple[str, ...] | None = None,
    removes: bool = False,
    at: Path = (),
) -> Patch:
    """Return the ops that turn ``old`` into ``new``; ``[]`` when they are equal.

    Both must be instances of the same Struct type (``TypeError`` otherwise).
    The ops carry fresh document values (no object of ``new`` is shared), so
    the patch can be kept or encoded later whatever happens to ``new``.

    ``only`` names the fields (attribute names) to compare, the others are
    ignored: a sender whose views share most fields between recipients diffs
    the shared fields once and each recipient's own fields separately, and
    the ops of the two calls together are the patch. (Ops of different
    fields touch different paths, so their order does not matter.)

    ``removes``: an array that lost one element is a ``"remove"`` op (for
    protocol version 2 peers only).

    ``at``: the path of ``old`` and ``new`` inside a larger document, put
    before every op's path (a sender that knows which part of a view changed
    diffs that part alone).
    """
    if type(old) is not type(new):
        raise TypeError(
            f"diff needs two values of one type, got {type(old).__name__} and {type(new).__name__}"
        )
    ops: Patch = _Ops() if removes else []
    if only is not None:
        _diff_fields(old, new, _some_fields_of(type(old), only), at, ops)
    elif old != new:
        _diff_structs(old, new, at, ops)
    return list(ops) if removes else ops


class _Ops(list[Op]):
    """The ops of a diff that may use ``"remove"`` (the walk tells by the type)."""


def apply(old: T, patch: Patch) -> T:
    """Return ``old`` with ``patch`` applied, as a new value of ``old``'s type.

    ``old`` and ``patch`` are not mutated. Raises ``PatchError`` if any op does
    not fit, or if the patched document is no longer a valid ``type(old)``; in
    that case no partial result exists.
    """
    cls = type(old)
    # A fresh document, ours to mutate, exactly as a msgpack client holds it.
    doc = _patch_in_place(document(old), patch)
    try:
        new = msgspec.convert(doc, cls)
    except msgspec.ValidationError as exc:
        raise PatchError(f"patched value is not a valid {cls.__name__}: {exc}") from None
    # convert silently drops map keys that are no field of a Struct, so a
    # "set" of a misspelt field would pass unnoticed. Comparing the document
    # with the value's own document catches that and any other loss.
    if document(new) != doc:
        raise PatchError(
            f"patched document is not all kept by {cls.__name__}: a key that is no field?"
        )
    return new


def apply_document(doc: Any, patch: Patch) -> Any:
    """``patch`` applied to a raw document (maps, arrays, scalars), as a
    client that keeps no typed model holds it (docs/PROTOCOL.md §5.3).

    Returns a new document; ``doc`` is not mutated. Raises ``PatchError``
    when an op does not fit. Unlike ``apply`` it checks no type, so keys it
    does not know are kept, as a client of an older version must.
    """
    return _patch_in_place(_fresh(doc), patch)


def _patch_in_place(doc: Any, patch: Patch) -> Any:
    for index, op in enumerate(patch):
        if type(op) is not Op:
            raise PatchError(f"op {index} is a {type(op).__name__}, not an Op")
        try:
            doc = _apply_op(doc, op)
        except PatchError as exc:
            raise PatchError(f"op {index} {_describe(op)}: {exc}") from None
    return doc


def _diff_values(old: Any, new: Any, path: Path, ops: Patch) -> None:
    # Callers only come here when old != new (or when their types differ).
    # Values may be Python objects (Structs, tuples, ...) or document values
    # already; either way the ops must address the document form.
    kind = type(old)
    if kind is not type(new):
        ops.append(Op(path, "set", document(new)))
    elif kind is dict:
        _diff_dicts(old, new, path, ops)
    elif kind is list or kind is tuple:
        diff_arrays(old, new, path, ops)
    elif isinstance(old, msgspec.Struct):
        _diff_structs(old, new, path, ops)
    else:
        ops.append(Op(path, "set", document(new)))


def _diff_structs(old: msgspec.Struct, new: msgspec.Struct, path: Path, ops: Patch) -> None:
    fields = _fields_of(type(old))
    if fields is None:
        _diff_values(document(old), document(new), path, ops)
    else:
        _diff_fields(old, new, fields, path, ops)


def _diff_fields(
    old: msgspec.Struct,
    new: msgspec.Struct,
    fields: _Fields,
    path: Path,
    ops: Patch,
) -> None:
    # astuple reads every field in C: cheaper than two getattr calls a field.
    old_values = astuple(old)
    new_values = astuple(new)
    for index, step in fields:
        old_value = old_values[index]
        new_value = new_values[index]
        # Views that share what did not change (structs.replace, or parts
        # reused between views): "is" skips those without even a compare.
        if old_value is not new_value and (
            old_value != new_value or type(old_value) is not type(new_value)
        ):
            _diff_values(old_value, new_value, (*path, step), ops)


_Fields: TypeAlias = tuple[tuple[int, str | int], ...]
"""Fields to diff: each one's position in ``astuple`` and its step in the document."""

_FIELDS: dict[type[msgspec.Struct], _Fields | None] = {}


def _fields_of(cls: type[msgspec.Struct]) -> _Fields | None:
    """Each field's position and its step in the document, or None: diff the document."""
    try:
        return _FIELDS[cls]
    except KeyError:
        pass
    config = cls.__struct_config__
    fields: _Fields | None
    if config.omit_defaults:
        # Which fields the document holds depends on msgspec's notion of a
        # default; rather than copy it, diff that struct's document.
        fields = None
    elif config.array_like:
        first = 0 if config.tag is None else 1  # a tag comes first in the array
        fields = tuple((i, first + i) for i in range(len(cls.__struct_fields__)))
    else:
        fields = tuple(enumerate(cls.__struct_encode_fields__))
    _FIELDS[cls] = fields
    return fields


_SOME_FIELDS: dict[tuple[type[msgspec.Struct], tuple[str, ...]], _Fields] = {}


def _some_fields_of(cls: type[msgspec.Struct], only: tuple[str, ...]) -> _Fields:
    """``_fields_of(cls)`` narrowed to the fields (attribute names) in ``only``."""
    try:
        return _SOME_FIELDS[cls, only]
    except KeyError:
        pass
    fields = _fields_of(cls)
    if fields is None:
        raise TypeError(f"diff(only=...) needs a Struct without omit_defaults, not {cls.__name__}")
    names = cls.__struct_fields__
    unknown = set(only) - set(names)
    if unknown:
        raise TypeError(f"{cls.__name__} has no field {sorted(unknown)[0]!r}")
    some = _SOME_FIELDS[cls, only] = tuple(f for f in fields if names[f[0]] in only)
    return some


def _diff_dicts(old: dict[Any, Any], new: dict[Any, Any], path: Path, ops: Patch) -> None:
    if not (_plain_keys(old) and _plain_keys(new)):
        # An enum or other key is a different value in the document: diff
        # that, or if even it has odd keys, send the whole map.
        old_doc, new_doc = document(old), document(new)
        if _plain_keys(old_doc) and _plain_keys(new_doc):
            _diff_dicts(old_doc, new_doc, path, ops)
        else:
            ops.append(Op(path, "set", new_doc))
        return
    kept = 0
    for key, old_value in old.items():
        if key not in new:
            ops.append(Op((*path, key), "del"))
            continue
        kept += 1
        new_value = new[key]
        # The type test catches 1 -> True and 1 -> 1.0, which == calls equal.
        if old_value is not new_value and (
            old_value != new_value or type(old_value) is not type(new_value)
        ):
            _diff_values(old_value, new_value, (*path, key), ops)
    if len(new) > kept:  # some keys are new; skip the scan when none are
        for key, new_value in new.items():
            if key not in old:
                ops.append(Op((*path, key), "set", document(new_value)))


def _plain_keys(mapping: dict[Any, Any]) -> bool:
    return all(type(key) is str or type(key) is int for key in mapping)


def diff_arrays(
    old: list[Any] | tuple[Any, ...], new: list[Any] | tuple[Any, ...], path: Path, ops: Patch
) -> None:
    """The ops that make the list ``old`` at ``path`` into ``new`` (which
    differs from it), added to ``ops``: an append, per-element ops, or the
    list set whole; a "remove" only into ``diff``'s own ops (``removes``)."""
    old_len = len(old)
    new_len = len(new)
    if new_len == old_len - 1 and type(ops) is _Ops:
        # One element gone (a card played from a hand): find it.
        i = 0
        while i < new_len and old[i] == new[i]:
            i += 1
        if old[i + 1 :] == new[i:]:
            ops.append(Op(path, "remove", i))
            return
    if new_len >= old_len:
        # A slice compare runs in C; most lists that change only grew.
        if new[:old_len] == old:
            ops.append(Op(path, "append", document(new[old_len:])))
            return
        changed = [i for i in range(old_len) if old[i] != new[i]]
        # Past half the elements, per-element ops would cost about as much as
        # the list itself; one changed element is always worth its own op.
        if len(changed) <= max(1, old_len // 2):
            for i in changed:
                _diff_values(old[i], new[i], (*path, i), ops)
            if new_len > old_len:
                ops.append(Op(path, "append", document(new[old_len:])))
            return
    ops.append(Op(path, "set", document(new)))


def _apply_op(doc: Any, op: Op) -> Any:
    """Apply one op to ``doc`` in place and return the (maybe new) root."""
    path = op.path
    kind = op.op
    if not path:
        if kind == "set":
            return _fresh(op.value)
        if kind == "append":
            _append(doc, op.value)
            return doc
        if kind == "del":
            raise PatchError("cannot delete the whole document")
        if kind == "remove":
            _remove(doc, op.value)
            return doc
        raise PatchError(f"unknown op {kind!r}")
    if kind == "append":
        _append(_walk(doc, path), op.value)
        return doc
    if kind == "remove":
        _remove(_walk(doc, path), op.value)
        return doc
    parent = _walk(doc, path[:-1])
    key = path[-1]
    if kind == "set":
        if type(parent) is dict:
            _check_key(key)
            parent[key] = _fresh(op.value)
        elif type(parent) is list:
            parent[_index(parent, key)] = _fresh(op.value)
        else:
            raise PatchError(f"cannot set {key!r} in a {_kind(parent)}")
    elif kind == "del":
        if type(parent) is not dict:
            raise PatchError(f"can only delete a key of a map, not from a {_kind(parent)}")
        _check_key(key)
        if key not in parent:
            raise PatchError(f"no key {key!r} to delete")
        del parent[key]
    else:
        raise PatchError(f"unknown op {kind!r}")
    return doc


def _walk(node: Any, steps: Path) -> Any:
    for depth, step in enumerate(steps):
        if type(node) is dict:
            _check_key(step)
            if step not in node:
                raise PatchError(f"no key {step!r} at {_show(steps[:depth])}")
            node = node[step]
        elif type(node) is list:
            node = node[_index(node, step)]
        else:
            raise PatchError(f"cannot step into a {_kind(node)} at {_show(steps[:depth])}")
    return node


def _append(target: Any, value: Any) -> None:
    if type(target) is not list:
        raise PatchError(f"can only append to an array, not to a {_kind(target)}")
    tail = _fresh(value)
    if type(tail) is not list:
        raise PatchError(f"an append value must be an array, not a {_kind(value)}")
    target.extend(tail)


def _remove(target: Any, index: Any) -> None:
    if type(target) is not list:
        raise PatchError(f"can only remove from an array, not from a {_kind(target)}")
    del target[_index(target, index)]


def _index(array: list[Any], step: object) -> int:
    # bool is an int subclass; True is no index on the wire.
    if type(step) is not int:
        raise PatchError(f"an array needs an integer step, not {step!r}")
    if not 0 <= step < len(array):
        raise PatchError(f"index {step} is out of range for an array of {len(array)}")
    return step


def _check_key(step: object) -> None:
    if type(step) is not str and type(step) is not int:
        raise PatchError(f"a map key must be a string or an integer, not {step!r}")


def _fresh(value: Any) -> Any:
    # Copies containers (a patch may be applied more than once, and later ops
    # must not mutate an earlier op's value) and turns any Struct or tuple a
    # caller put in a hand-made op into its document form.
    try:
        return document(value)
    except (TypeError, OverflowError) as exc:
        raise PatchError(f"value is not a document: {exc}") from None


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if type(value) is dict:
        return "map"
    if type(value) is list:
        return "array"
    return type(value).__name__


def _show(steps: Path) -> str:
    return "/" + "/".join(str(step) for step in steps)


def _describe(op: Op) -> str:
    return f"{op.op} {_show(op.path)}"
