"""The table size is a value: ``server.game.variant`` and where it is carried.

Four players is the only variant yet; these tests hold the seam for the
others: the variant's facts add up, a stored table or game from before
variants loads as four players, the views say the deal's size, and no module
of the server, the protocol or the client writes a seat count, a hand size
or a trick count of its own (an AST scan, with a short justified allow-list).
"""

from __future__ import annotations

import ast
import random
from pathlib import Path

import msgspec
import pytest

from protocol.cards import DECK_SIZE
from protocol.views import FOUR_PLAYER_ECART, FOUR_PLAYER_HAND, FOUR_PLAYERS, DealView, Legal
from server.game import Game, GameState
from server.game.dealing import deal_cards
from server.game.scoring import score
from server.game.variant import FIVE, FOUR, THREE, VARIANTS, Variant, variant_for
from server.table.seat_view import deal_view, legal_view
from server.table.state import TableState, decode_state, encode_state, new_state

ROOT = Path(__file__).resolve().parent.parent

# -- the variant itself ------------------------------------------------------------


def test_three_four_and_five_are_the_variants_and_deal_the_whole_pack() -> None:
    assert VARIANTS == {3: THREE, 4: FOUR, 5: FIVE}
    assert variant_for(4) is FOUR
    assert FOUR.players * FOUR.hand_size + FOUR.chien_size == DECK_SIZE
    assert (FOUR.tricks, FOUR.ecart_size, FOUR.packets) == (18, 6, 24)
    assert FOUR.poignees == (10, 13, 15)
    assert [FOUR.poignee_name(n) for n in FOUR.poignees] == ["simple", "double", "triple"]
    with pytest.raises(KeyError):
        variant_for(6)


def test_a_variant_that_does_not_deal_the_whole_pack_is_refused() -> None:
    with pytest.raises(ValueError, match="whole pack"):
        Variant(players=4, hand_size=17, packet=3, chien_size=6, poignees=(10, 13, 15))


def test_the_protocol_defaults_are_the_four_player_variant() -> None:
    # protocol/ may not import server/: its defaults repeat FOUR's, once.
    assert (
        FOUR.players,
        FOUR.hand_size,
        FOUR.ecart_size,
    ) == (FOUR_PLAYERS, FOUR_PLAYER_HAND, FOUR_PLAYER_ECART)
    deal = DealView(number=1, dealer=0, phase="bidding")
    assert (deal.players, deal.hand_size, Legal().ecart_size) == (4, 18, 6)


def test_shares_make_scores_that_sum_to_zero() -> None:
    # Taker alone: three defenders pay, the taker wins three times the base.
    assert FOUR.shares(2) == [-1, -1, 3, -1]
    # The seat for a called partner (five players) is already there.
    five = msgspec.structs.replace(FOUR, camps="called_partner")
    assert sum(five.shares(0, partner=1)) == 0
    assert five.shares(0, partner=0) == FOUR.shares(0)  # called their own card: alone
    result = score(
        taker=1,
        contract=2,
        taker_half_points=120,
        bouts=2,
        petit_au_bout=None,
        poignees=[(0, 10)],
        chelem=None,
    )
    assert sum(result.scores) == 0 and result.scores[1] == 3 * result.base
    assert result.poignees[0].size == "simple"


def test_dealing_follows_the_variant() -> None:
    hands, chien = deal_cards(random.Random(7), dealer=2, variant=FOUR)
    assert [len(h) for h in hands] == [FOUR.hand_size] * FOUR.players
    assert len(chien) == FOUR.chien_size
    assert len({c for h in hands for c in h} | set(chien)) == DECK_SIZE


def test_views_say_the_deal_size() -> None:
    game = Game(deals=1, seed="views", first_dealer=0)
    view = deal_view(game)
    assert (view.players, view.hand_size) == (FOUR.players, FOUR.hand_size)
    deal = game.deal
    while deal.phase == "bidding":
        assert deal.turn is not None
        deal.bid(deal.turn, "garde" if not deal.bids else "pass")
    if deal.phase == "ecart":
        assert legal_view(deal, deal.taker).ecart_size == FOUR.ecart_size


# -- stored states from before variants ------------------------------------------------


def _played_game() -> Game:
    game = Game(deals=2, seed="stored", first_dealer=1)
    deal = game.deal
    for _ in range(FOUR.players):
        assert deal.turn is not None
        deal.bid(deal.turn, deal.legal_bids()[-1] if not deal.bids else 0)
    return game


def test_a_table_state_saved_before_variants_loads_as_four_players() -> None:
    game = _played_game()
    state = new_state(
        "t1",
        "CODE42",
        "Old table",
        now=0.0,
        private=False,
        deals=2,
        bot_level="normal",
        turn_timer=0.0,
        seed="stored",
        result_wait=60.0,
    )
    state.game = game.state()
    # What an older server wrote: no ``players`` in the table nor in its game.
    document = msgspec.to_builtins(state)
    del document["players"]
    del document["game"]["players"]
    old = msgspec.msgpack.encode(document)
    loaded = decode_state(old)
    assert loaded.players == FOUR.players and loaded.variant is FOUR
    assert len(loaded.seats) == FOUR.players
    assert loaded.game is not None and loaded.game.players == FOUR.players
    restored = Game.restore(loaded.game)
    assert restored.variant is FOUR
    assert restored.deal.log == game.deal.log
    assert restored.deal.hands == game.deal.hands
    # Saved again, it says its size.
    assert decode_state(encode_state(loaded)).players == FOUR.players


def test_a_game_state_without_players_is_of_four() -> None:
    game = _played_game()
    document = msgspec.to_builtins(game.state())
    del document["players"]
    state = msgspec.convert(document, GameState)
    assert Game.restore(state).variant is FOUR


def test_a_new_table_has_a_seat_per_player() -> None:
    state = TableState(table_id="t", name="n", code="c")
    assert len(state.seats) == FOUR.players and state.variant is FOUR


# -- no seat count, hand size or trick count outside the variant --------------------

SCANNED = ("server", "protocol", "clients")
DEFINITIONS = {
    "server/game/variant.py": "the variant's definition itself",
}
SEAT_COUNTS = {4}
"""Seats: ``% 4``, ``range(4)``, ``== 4``, ``* 4``, ``[x, x, x, x]``."""
DEAL_SIZES = {17, 18}
"""A hand, and so the tricks (18); the last trick (17)."""
POIGNEES = {10, 13, 15}

ALLOWED: dict[tuple[str, str], str] = {
    # (file, the stripped source line holding the literal): why it is no table size.
    ("protocol/views.py", "FOUR_PLAYER_HAND: Final = 18"): (
        "the wire's default for a view from before table sizes; protocol/ may not "
        "import server/ (test_the_protocol_defaults_are_the_four_player_variant)"
    ),
    (
        "clients/cli/tls.py",
        "_SELF_SIGNED = {18, 19}  # DEPTH_ZERO_SELF_SIGNED_CERT, SELF_SIGNED_CERT_IN_CHAIN",
    ): "OpenSSL verification error codes",
    ("server/table/inbox.py", "return secrets.token_urlsafe(18)"): "bytes of a token's entropy",
    ("server/bots/evaluation.py", "count += 6 if trumps >= 4 else 3"): (
        "a bidding count: four trumps make a void worth more"
    ),
    ("server/bots/evaluation.py", "count += 3 if trumps >= 4 else 1"): "the same bidding count",
    ("server/bots/normal.py", "if n <= room and n <= 4:"): (
        "the normal bot voids a suit of at most four cards into the écart"
    ),
}


def _python_files() -> list[Path]:
    files: list[Path] = []
    for top in SCANNED:
        files.extend(p for p in sorted((ROOT / top).rglob("*.py")) if "locale" not in p.parts)
    return files


def _int(node: ast.AST | None) -> int | None:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return None


def _findings(tree: ast.AST) -> list[tuple[int, str]]:
    """``(line, what)`` for each literal that reads as a table size."""
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            if _int(node.right) in SEAT_COUNTS:
                out.append((node.lineno, f"modulo {_int(node.right)}"))
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            # ``[x] * 4``: a list per seat (``4 * n`` is some other count).
            sides = (node.left, node.right)
            if any(isinstance(s, ast.List) for s in sides) and any(
                _int(s) in SEAT_COUNTS for s in sides
            ):
                out.append((node.lineno, "a list per seat"))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name | ast.Attribute):
            name = node.func.id if isinstance(node.func, ast.Name) else node.func.attr
            if name in ("range", "randrange") and any(_int(a) in SEAT_COUNTS for a in node.args):
                out.append((node.lineno, f"{name} over {SEAT_COUNTS}"))
        elif isinstance(node, ast.Compare):
            for side in (node.left, *node.comparators):
                if _int(side) in SEAT_COUNTS:
                    out.append((node.lineno, f"compared with {_int(side)}"))
        elif isinstance(node, ast.List | ast.Tuple) and len(node.elts) in SEAT_COUNTS:
            values = [_int(e) for e in node.elts]
            if values[0] is not None and len(set(values)) == 1:
                out.append((node.lineno, "a value per seat, written out"))
        if isinstance(node, ast.Tuple | ast.Set | ast.Dict):
            items = node.keys if isinstance(node, ast.Dict) else node.elts
            if {_int(i) for i in items} >= POIGNEES:
                out.append((node.lineno, "the poignée sizes"))
        if _int(node) in DEAL_SIZES:
            out.append((getattr(node, "lineno", 0), f"the literal {_int(node)}"))
    return out


def test_no_table_size_literal_outside_the_variant() -> None:
    found = []
    used: set[tuple[str, str]] = set()
    for path in _python_files():
        rel = path.relative_to(ROOT).as_posix()
        if rel in DEFINITIONS:
            continue
        source = path.read_text(encoding="utf-8")
        lines = source.splitlines()
        for line, what in _findings(ast.parse(source)):
            key = (rel, lines[line - 1].strip())
            if key in ALLOWED:
                used.add(key)
                continue
            found.append(f"{rel}:{line}: {what}: {lines[line - 1].strip()}")
    assert not found, "table sizes belong to server.game.variant:\n" + "\n".join(found)
    assert used == set(ALLOWED), f"allow-list entries no longer needed: {set(ALLOWED) - used}"


@pytest.mark.parametrize(
    ("source", "flagged"),
    [
        ("seat = (s + 1) % 4", True),
        ("for s in range(4): pass", True),
        ("ok = len(bids) == 4", True),
        ("hands = [0, 0, 0, 0]", True),
        ("streams = [None] * 4", True),
        ("TRICKS = 18", True),
        ("SIZES = {10: 'a', 13: 'b', 15: 'c'}", True),
        ("seat = (s + 1) % players", False),
        ("for s in variant.seats: pass", False),
        ("hands = variant.no_scores()", False),
    ],
)
def test_the_scan_sees_a_table_size(source: str, flagged: bool) -> None:
    assert bool(_findings(ast.parse(source))) is flagged
