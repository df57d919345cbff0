"""protocol.diff: apply(old, diff(old, new)) == new, compact ops, PatchError."""

from __future__ import annotations

import enum
from typing import Any, Literal

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol.diff import Op, Patch, PatchError, apply, diff

# --- a view shaped like a TableView -------------------------------------------------

Phase = Literal["bidding", "chien", "playing", "scoring"]
Bid = Literal["petite", "garde", "garde_sans", "garde_contre"]


class Seat(msgspec.Struct, frozen=True):
    name: str
    bot: bool
    connected: bool = True
    tricks_won: int = 0


class Trick(msgspec.Struct, frozen=True):
    leader: int
    cards: list[str]
    winner: int | None = None


class Contract(msgspec.Struct, frozen=True):
    taker: int
    bid: Bid
    called_king: str | None = None


class View(msgspec.Struct, frozen=True, tag=True):
    phase: Phase
    seats: list[Seat]
    hand: list[str]
    tricks: list[Trick]
    scores: dict[str, int]
    to_play: int | None = None
    contract: Contract | None = None
    chat: list[str] = []
    ratio: float = 0.0


# Other shapes the encoder can give a Struct: renamed fields, arrays, omitted defaults.
class Renamed(msgspec.Struct, rename="camel", frozen=True):
    seat_name: str
    score_by_round: list[int]
    last_bid: Bid | None = None


class Row(msgspec.Struct, array_like=True, frozen=True):
    seat: int
    cards: list[str]
    note: str | None = None


class Sparse(msgspec.Struct, omit_defaults=True, frozen=True):
    label: str = ""
    counts: dict[str, int] = {}
    rows: list[Row] = []
    renamed: Renamed | None = None


class Suit(enum.Enum):
    SPADES = "S"
    HEARTS = "H"


class Pass(msgspec.Struct, tag=True, array_like=True, frozen=True):
    seat: int


class Call(msgspec.Struct, tag=True, array_like=True, frozen=True):
    seat: int
    bid: Bid
    kings: list[str] = []


class Odd(msgspec.Struct, frozen=True):
    """Values whose document differs from the object: tuples, tags, enum and int keys."""

    deal: tuple[str, ...]
    bids: list[Pass | Call]
    last: Pass | Call | None
    by_suit: dict[Suit, int]
    by_seat: dict[int, str]


# --- strategies -------------------------------------------------------------------

CARDS = [f"{r}{s}" for s in "SHDC" for r in ("1", "7", "10", "J", "Q", "K")] + [
    "T1",
    "T21",
    "EX",
]
cards = st.lists(st.sampled_from(CARDS), max_size=6)
names = st.text(max_size=6)
seat_index = st.integers(0, 3)
int64 = st.integers(-(2**63), 2**63 - 1)  # what msgpack carries
# No NaN (never equal to itself) and no infinity (JSON has none).
finite = st.floats(allow_nan=False, allow_infinity=False)

seats = st.builds(Seat, names, st.booleans(), st.booleans(), st.integers(0, 18))
tricks = st.builds(Trick, seat_index, cards, st.none() | seat_index)
contracts = st.builds(
    Contract,
    seat_index,
    st.sampled_from(["petite", "garde", "garde_sans", "garde_contre"]),
    st.none() | st.sampled_from(CARDS),
)
views = st.builds(
    View,
    phase=st.sampled_from(["bidding", "chien", "playing", "scoring"]),
    seats=st.lists(seats, max_size=4),
    hand=cards,
    tricks=st.lists(tricks, max_size=4),
    scores=st.dictionaries(names, st.integers(-500, 500), max_size=4),
    to_play=st.none() | seat_index,
    contract=st.none() | contracts,
    chat=st.lists(names, max_size=3),
    ratio=finite,
)
renameds = st.builds(
    Renamed,
    names,
    st.lists(int64, max_size=4),
    st.none() | st.sampled_from(["petite", "garde"]),
)
rows = st.builds(Row, seat_index, cards, st.none() | names)
sparses = st.builds(
    Sparse,
    label=names,
    counts=st.dictionaries(names, int64, max_size=3),
    rows=st.lists(rows, max_size=3),
    renamed=st.none() | renameds,
)

auction = st.one_of(
    st.builds(Pass, seat_index),
    st.builds(Call, seat_index, st.sampled_from(["petite", "garde"]), cards),
)
odds = st.builds(
    Odd,
    st.lists(st.sampled_from(CARDS), max_size=5).map(tuple),
    st.lists(auction, max_size=4),
    st.none() | auction,
    st.dictionaries(st.sampled_from(Suit), int64, max_size=2),
    st.dictionaries(seat_index, names, max_size=3),
)


@st.composite
def mutated(draw: st.DrawFn, view: View) -> View:
    """``view`` after one to three small changes, the kind a move causes."""
    for _ in range(draw(st.integers(1, 3))):
        view = draw(st.sampled_from(MUTATIONS))(draw, view)
    return view


def _play_card(draw: st.DrawFn, v: View) -> View:
    card = draw(st.sampled_from(CARDS))
    hand = [c for c in v.hand if c != card]
    if v.tricks and len(v.tricks[-1].cards) < 4:
        last = v.tricks[-1]
        grown = msgspec.structs.replace(last, cards=[*last.cards, card])
        trick_list = [*v.tricks[:-1], grown]
    else:
        trick_list = [*v.tricks, Trick(leader=draw(seat_index), cards=[card])]
    return msgspec.structs.replace(v, hand=hand, tricks=trick_list)


def _chat(draw: st.DrawFn, v: View) -> View:
    return msgspec.structs.replace(v, chat=[*v.chat, draw(names)])


def _seat_field(draw: st.DrawFn, v: View) -> View:
    if not v.seats:
        return msgspec.structs.replace(v, seats=[draw(seats)])
    i = draw(st.integers(0, len(v.seats) - 1))
    seat = msgspec.structs.replace(v.seats[i], connected=not v.seats[i].connected)
    return msgspec.structs.replace(v, seats=[*v.seats[:i], seat, *v.seats[i + 1 :]])


def _score(draw: st.DrawFn, v: View) -> View:
    scores = dict(v.scores)
    remove: bool = draw(st.booleans())
    if scores and remove:
        del scores[draw(st.sampled_from(sorted(scores)))]
    else:
        scores[draw(names)] = draw(st.integers(-500, 500))
    return msgspec.structs.replace(v, scores=scores)


def _scalar(draw: st.DrawFn, v: View) -> View:
    return msgspec.structs.replace(
        v,
        phase=draw(st.sampled_from(["bidding", "chien", "playing", "scoring"])),
        to_play=draw(st.none() | seat_index),
    )


def _contract(draw: st.DrawFn, v: View) -> View:
    return msgspec.structs.replace(v, contract=draw(st.none() | contracts))


MUTATIONS = [_play_card, _chat, _seat_field, _score, _scalar, _contract]

json_patch = msgspec.json.Decoder(Patch)
msgpack_patch = msgspec.msgpack.Decoder(Patch)


def _snapshot(value: msgspec.Struct) -> bytes:
    return msgspec.msgpack.encode(value)


# --- the round trip ---------------------------------------------------------------


@given(views, views)
def test_apply_of_diff_gives_new_for_any_pair(a: View, b: View) -> None:
    assert apply(a, diff(a, b)) == b


@given(st.data())
def test_apply_of_diff_gives_new_after_a_move(data: st.DataObject) -> None:
    a = data.draw(views)
    b = data.draw(mutated(a))
    assert apply(a, diff(a, b)) == b


@given(st.data())
def test_patch_survives_msgpack_and_json(data: st.DataObject) -> None:
    a = data.draw(views)
    b = data.draw(mutated(a) | views)
    patch = diff(a, b)
    # diff gives exactly what a peer decodes: no tuples, no Structs in values.
    assert msgpack_patch.decode(msgspec.msgpack.encode(patch)) == patch
    assert json_patch.decode(msgspec.json.encode(patch)) == patch
    assert apply(a, msgpack_patch.decode(msgspec.msgpack.encode(patch))) == b
    assert apply(a, json_patch.decode(msgspec.json.encode(patch))) == b


@given(sparses, sparses)
def test_round_trip_with_renamed_array_like_and_omitted_fields(a: Sparse, b: Sparse) -> None:
    patch = json_patch.decode(msgspec.json.encode(diff(a, b)))
    assert apply(a, patch) == b


@given(odds, odds)
def test_round_trip_with_tuples_tags_and_odd_keys(a: Odd, b: Odd) -> None:
    # int map keys do not survive JSON, so msgpack only here.
    patch = msgpack_patch.decode(msgspec.msgpack.encode(diff(a, b)))
    assert apply(a, patch) == b
    assert apply(a, diff(a, b)) == b


@given(views)
def test_diff_of_equal_values_is_empty(a: View) -> None:
    assert diff(a, a) == []
    assert diff(a, msgspec.msgpack.decode(_snapshot(a), type=View)) == []


@given(st.data())
def test_apply_mutates_neither_old_nor_patch(data: st.DataObject) -> None:
    a = data.draw(views)
    b = data.draw(mutated(a) | views)
    patch = diff(a, b)
    before, patch_before = _snapshot(a), msgspec.msgpack.encode(patch)
    apply(a, patch)
    apply(a, patch)
    assert _snapshot(a) == before
    assert msgspec.msgpack.encode(patch) == patch_before


def test_diff_shares_nothing_with_new() -> None:
    a = View("playing", [], [], [], {})
    b = msgspec.structs.replace(a, hand=["KS"])
    patch = diff(a, b)
    b.hand.append("QS")  # a careless caller mutates the new view after diffing
    assert patch == [Op(("hand",), "append", ["KS"])]


def test_a_tuple_that_grew_is_appended_and_stays_a_tuple() -> None:
    a = Odd(("KS",), [], None, {}, {})
    b = msgspec.structs.replace(a, deal=("KS", "QS"))
    assert diff(a, b) == [Op(("deal",), "append", ["QS"])]
    assert apply(a, diff(a, b)) == b
    assert apply(apply(a, [Op(("deal",), "set", ("7H",))]), [Op(("deal",), "append", ["8H"])]) == (
        msgspec.structs.replace(a, deal=("7H", "8H"))
    )


def test_array_like_fields_are_addressed_after_the_tag() -> None:
    a = Odd((), [Call(0, "petite", ["KH"])], None, {}, {})
    b = msgspec.structs.replace(a, bids=[Call(0, "petite", ["KH", "KS"])])
    assert diff(a, b) == [Op(("bids", 0, 3), "append", ["KS"])]  # ["Call", seat, bid, kings]


@given(st.data())
def test_diffs_of_some_fields_add_up_to_the_whole_diff(data: st.DataObject) -> None:
    # What the server does: the fields all recipients share are diffed once,
    # each recipient's own fields apart; together they must make the patch.
    a = data.draw(views)
    b = data.draw(mutated(a))
    own = tuple(data.draw(st.sets(st.sampled_from(View.__struct_fields__))))
    shared = tuple(f for f in View.__struct_fields__ if f not in own)
    parts = diff(a, b, only=shared) + diff(a, b, only=own)
    assert apply(a, parts) == b
    assert sorted(map(msgspec.json.encode, parts)) == sorted(map(msgspec.json.encode, diff(a, b)))


def test_diff_of_some_fields_ignores_the_others_and_checks_their_names() -> None:
    a = View("playing", [], ["KS"], [], {})
    b = msgspec.structs.replace(a, phase="scoring", hand=[])
    assert diff(a, b, only=("hand",)) == [Op(("hand",), "set", [])]
    assert diff(a, b, only=()) == []
    with pytest.raises(TypeError, match="no field 'hands'"):
        diff(a, b, only=("hands",))
    with pytest.raises(TypeError, match="omit_defaults"):
        diff(Sparse(), Sparse(label="x"), only=("label",))


def test_diff_needs_one_type() -> None:
    with pytest.raises(TypeError):
        diff(View("playing", [], [], [], {}), Row(0, []))  # mypy takes T = Struct


# --- the ops diff chooses ---------------------------------------------------------

SOUTH, WEST, NORTH, EAST = range(4)


def _midgame() -> View:
    return View(
        phase="playing",
        seats=[Seat(n, bot=n != "ann") for n in ("ann", "bot1", "bot2", "bot3")],
        hand=["T1", "KS", "7H", "EX"],
        tricks=[
            Trick(SOUTH, ["QS", "1S", "KS", "T3"], winner=EAST),
            Trick(EAST, ["7D", "10D"]),
        ],
        scores={"ann": 0},
        to_play=SOUTH,
        contract=Contract(WEST, "garde"),
        chat=["hi"],
    )


def test_a_card_played_appends_only_that_card() -> None:
    a = _midgame()
    last = a.tricks[-1]
    b = msgspec.structs.replace(
        a,
        hand=["T1", "7H", "EX"],
        tricks=[a.tricks[0], msgspec.structs.replace(last, cards=[*last.cards, "KS"])],
        to_play=WEST,
    )
    assert diff(a, b) == [
        Op(("hand",), "set", ["T1", "7H", "EX"]),
        Op(("tricks", 1, "cards"), "append", ["KS"]),
        Op(("to_play",), "set", WEST),
    ]


def test_growing_lists_send_only_their_tail() -> None:
    a = _midgame()
    b = msgspec.structs.replace(a, chat=["hi", "gg", "wp"], tricks=[*a.tricks, Trick(NORTH, [])])
    assert diff(a, b) == [
        Op(("tricks",), "append", [{"leader": NORTH, "cards": [], "winner": None}]),
        Op(("chat",), "append", ["gg", "wp"]),
    ]


def test_one_seat_changing_is_one_field_op() -> None:
    a = _midgame()
    seats = list(a.seats)
    seats[NORTH] = msgspec.structs.replace(seats[NORTH], connected=False)
    assert diff(a, msgspec.structs.replace(a, seats=seats)) == [
        Op(("seats", NORTH, "connected"), "set", False)
    ]


def test_a_list_mostly_changed_or_shortened_is_set_whole() -> None:
    a = _midgame()
    new_hand = ["T2", "T3", "T4", "EX"]  # three of four changed
    assert diff(a, msgspec.structs.replace(a, hand=new_hand)) == [Op(("hand",), "set", new_hand)]
    assert diff(a, msgspec.structs.replace(a, chat=[])) == [Op(("chat",), "set", [])]


def test_dict_keys_are_set_and_deleted_one_by_one() -> None:
    a = msgspec.structs.replace(_midgame(), scores={"ann": 10, "bob": 3})
    b = msgspec.structs.replace(a, scores={"ann": 25, "cid": 0})
    assert diff(a, b) == [
        Op(("scores", "ann"), "set", 25),
        Op(("scores", "bob"), "del"),
        Op(("scores", "cid"), "set", 0),
    ]


def test_a_value_changing_kind_is_set_whole() -> None:
    a = _midgame()
    b = msgspec.structs.replace(a, contract=None)
    assert diff(a, b) == [Op(("contract",), "set", None)]
    assert diff(b, a) == [
        Op(("contract",), "set", {"taker": WEST, "bid": "garde", "called_king": None})
    ]


def test_the_wire_format_is_path_op_value_arrays() -> None:
    a = _midgame()
    b = msgspec.structs.replace(a, to_play=WEST, scores={})
    patch = diff(a, b)
    assert msgspec.json.encode(patch) == b'[[["scores","ann"],"del",null],[["to_play"],"set",1]]'
    assert msgspec.msgpack.decode(msgspec.msgpack.encode(patch)) == [
        [["scores", "ann"], "del", None],
        [["to_play"], "set", 1],
    ]


def test_paths_use_the_encoded_names_and_array_positions() -> None:
    a = Sparse(rows=[Row(0, ["KS"])], renamed=Renamed("ann", [1]))
    b = Sparse(rows=[Row(0, ["KS", "QS"])], renamed=Renamed("ann", [1], last_bid="garde"))
    assert diff(a, b) == [
        Op(("rows", 0, 1), "append", ["QS"]),
        Op(("renamed", "lastBid"), "set", "garde"),
    ]
    # A field left at its default is absent from the document: adding a key is
    # a "set" of the whole field, going back to the default a "del".
    assert diff(Sparse(), Sparse(counts={"a": 1})) == [Op(("counts",), "set", {"a": 1})]
    assert diff(Sparse(counts={"a": 1}), Sparse()) == [Op(("counts",), "del")]


# --- bad patches ------------------------------------------------------------------

BAD_PATCHES: dict[str, list[Op]] = {
    "missing key": [Op(("nope", "x"), "set", 1)],
    "unknown field": [Op(("nope",), "set", 1)],
    "index out of range": [Op(("seats", 4, "connected"), "set", False)],
    "negative index": [Op(("seats", -1, "connected"), "set", False)],
    "string index": [Op(("seats", "0", "connected"), "set", False)],
    "bool index": [Op(("seats", True, "connected"), "set", False)],
    "step into a scalar": [Op(("to_play", "x"), "set", 1)],
    "step into null": [Op(("tricks", 0, "winner", "x"), "set", 1)],
    "append to a map": [Op(("scores",), "append", [1])],
    "append a scalar": [Op(("hand",), "append", "KS")],
    "del from an array": [Op(("hand", 0), "del")],
    "del a missing key": [Op(("scores", "zed"), "del")],
    "del the root": [Op((), "del")],
    "wrong value type": [Op(("hand",), "set", 5)],
    "bad literal": [Op(("phase",), "set", "dancing")],
    "set the root to a scalar": [Op((), "set", 3)],
    "unknown op": [Op(("hand",), "insert", ["KS"])],  # type: ignore[arg-type]  # on purpose
    "not an op": [["hand", "set", []]],  # type: ignore[list-item]  # on purpose
    "good then bad": [Op(("to_play",), "set", 2), Op(("seats", 9), "set", None)],
}


@pytest.mark.parametrize("patch", BAD_PATCHES.values(), ids=BAD_PATCHES.keys())
def test_a_patch_that_does_not_fit_raises_patch_error_and_changes_nothing(
    patch: list[Op],
) -> None:
    a = _midgame()
    before = _snapshot(a)
    with pytest.raises(PatchError):
        apply(a, patch)
    assert _snapshot(a) == before


def test_a_patch_for_an_older_view_does_not_fit_a_newer_one() -> None:
    a = _midgame()
    b = msgspec.structs.replace(a, tricks=[])
    c = msgspec.structs.replace(a, tricks=[*a.tricks[:-1], Trick(EAST, ["7D", "10D", "KD"])])
    with pytest.raises(PatchError, match="tricks"):
        apply(b, diff(a, c))


def test_hand_made_ops_may_carry_structs() -> None:
    a = _midgame()
    seat = Seat("dan", bot=False)
    new = apply(a, [Op(("seats", 0), "set", seat)])
    assert new.seats[0] == seat


def test_the_root_may_be_replaced() -> None:
    a, b = _midgame(), View("bidding", [], [], [], {})
    doc: Any = msgspec.to_builtins(b)
    assert apply(a, [Op((), "set", doc)]) == b
