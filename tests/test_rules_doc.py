"""docs/RULES.md and docs/DEAL-RECORD.md cannot silently drift from the engine.

The Decisions listed in RULES.md are the project's final choices: their ids
are pinned here, and each must also be stated in the section it governs.
Every module either document names must exist, each rules section must name
the module that enforces it, and every worked example is scored by the real
``server/game/scoring.py`` (its table row) and its written sum is evaluated.
DEAL-RECORD.md's example record is replayed by the real engine.
"""

from __future__ import annotations

import ast
import json
import operator
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from server.game import replay_record
from server.game.contracts import BID_OF
from server.game.scoring import score
from server.game.variant import variant_for

ROOT = Path(__file__).resolve().parent.parent
RULES = (ROOT / "docs" / "RULES.md").read_text(encoding="utf-8")
RECORD_DOC = (ROOT / "docs" / "DEAL-RECORD.md").read_text(encoding="utf-8")

DECISIONS = ("D1", "D2", "D3")
"""The Decisions of RULES.md. They are final: changing this tuple is a rules change."""


def _sections(doc: str) -> dict[str, str]:
    """``## `` heading -> the text under it (up to the next ``## ``)."""
    parts = re.split(r"^## (.+)$", doc, flags=re.M)
    return {parts[i].strip(): parts[i + 1] for i in range(1, len(parts), 2)}


SECTIONS = _sections(RULES)


def test_decisions_list_is_exactly_the_final_decisions() -> None:
    listed = re.findall(r"^- \*\*(D\d+) — ", SECTIONS["Decisions"], flags=re.M)
    assert tuple(listed) == DECISIONS


def test_each_decision_is_stated_where_it_applies() -> None:
    body = "".join(text for title, text in SECTIONS.items() if title != "Decisions")
    stated = re.findall(r"\*\*Decision (D\d+)", body)
    assert sorted(set(stated)) == list(DECISIONS)
    # The rules sections never refer to a Decision that is not in the list.
    assert set(re.findall(r"\bD\d+\b", body)) <= set(DECISIONS)


def _named_modules(doc: str) -> set[str]:
    return set(re.findall(r"`((?:server|protocol)/[\w/]+\.py)`", doc))


@pytest.mark.parametrize("doc", ["RULES.md", "DEAL-RECORD.md"])
def test_every_named_module_exists(doc: str) -> None:
    text = (ROOT / "docs" / doc).read_text(encoding="utf-8")
    named = _named_modules(text)
    assert named, f"{doc} names no module"
    missing = sorted(m for m in named if not (ROOT / m).is_file())
    assert not missing


def test_every_rules_section_names_its_engine_module() -> None:
    numbered = {t: s for t, s in SECTIONS.items() if re.match(r"\d+\. ", t)}
    assert len(numbered) == 11
    for title, text in numbered.items():
        line = re.search(r"^Enforced by: (.+)$", text, flags=re.M)
        assert line, f"section {title!r} has no 'Enforced by:' line"
        assert _named_modules(line.group(1)), f"section {title!r} names no module"


# -- worked examples ----------------------------------------------------------

TAKER = 0
DEFENDER = 1
POIGNEE_CARDS = {"simple": 10, "double": 13, "triple": 15}


def _examples(text: str | None = None) -> list[dict[str, str]]:
    if text is None:
        text = next(s for t, s in SECTIONS.items() if t.endswith("Worked examples"))
    rows = [line for line in text.splitlines() if line.startswith("|")]
    cells = [[c.strip() for c in row.strip("|").split("|")] for row in rows]
    return [dict(zip(cells[0], row, strict=True)) for row in cells[2:]]


EXAMPLES = _examples()


def _none(cell: str) -> str | None:
    return None if cell == "–" else cell


def _poignees(cell: str, sizes: tuple[int, ...] | None = None) -> list[tuple[int, int]]:
    """``(seat, trumps shown)`` of a cell; ``sizes``: the variant's poignées."""
    cards = POIGNEE_CARDS if sizes is None else dict(zip(POIGNEE_CARDS, sizes, strict=True))
    if cell == "–":
        return []
    out = []
    for item in cell.split(","):
        camp, size = (x.strip() for x in item.split(":"))
        out.append((TAKER if camp == "taker" else DEFENDER, cards[size]))
    return out


def test_there_are_six_worked_examples() -> None:
    assert [e["ex"] for e in EXAMPLES] == ["1", "2", "3", "4", "5", "6"]


@pytest.mark.parametrize("ex", EXAMPLES, ids=lambda e: f"ex{e['ex']}")
def test_worked_example_row_is_what_the_engine_scores(ex: dict[str, str]) -> None:
    got = score(
        taker=TAKER,
        contract=BID_OF[ex["contract"]],
        taker_half_points=round(2 * float(ex["points"])),
        bouts=int(ex["bouts"]),
        petit_au_bout=_none(ex["petit au bout"]),  # type: ignore[arg-type]
        poignees=_poignees(ex["poignées"]),
        chelem=_none(ex["chelem"]),  # type: ignore[arg-type]
    )
    assert got.base == int(ex["base"])
    assert got.scores[TAKER] == int(ex["taker"])
    assert sum(got.scores) == 0


_OPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
}


def _arith(node: ast.AST) -> int:
    """Evaluate a sum written with + − × and parentheses (nothing else)."""
    if isinstance(node, ast.Expression):
        return _arith(node.body)
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_arith(node.operand)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        return int(_OPS[type(node.op)](_arith(node.left), _arith(node.right)))
    raise AssertionError(f"not plain arithmetic: {ast.dump(node)}")


def _sums(text: str) -> list[tuple[str, int]]:
    """Each backticked ``expression = result`` of ``text``."""
    out = []
    for expr, result in re.findall(r"`([-−(0-9][0-9 ()+\-−×]*) = (−?\d+)`", text):
        py = expr.replace("×", "*").replace("−", "-")
        out.append((expr, _arith(ast.parse(py, mode="eval"))))
        assert out[-1][1] == int(result.replace("−", "-")), f"{expr} = {result} is wrong"
    return out


def test_each_worked_example_sum_is_right_and_matches_its_row() -> None:
    text = next(s for t, s in SECTIONS.items() if t.endswith("Worked examples"))
    items = re.split(r"^(\d+)\. ", text, flags=re.M)
    bodies = {items[i]: items[i + 1] for i in range(1, len(items), 2)}
    assert sorted(bodies) == [e["ex"] for e in EXAMPLES]
    for ex in EXAMPLES:
        sums = _sums(bodies[ex["ex"]])
        assert len(sums) == 1, f"example {ex['ex']} shows {len(sums)} sums"
        assert sums[0][1] == int(ex["base"])


# -- worked examples at three and five players (section 11) ---------------------

VARIANT_TEXT = SECTIONS["11. Three and five players"].split("### Worked examples", 1)[1]
VARIANT_EXAMPLES = _examples(VARIANT_TEXT)
PARTNER = 3


def test_there_are_four_variant_examples() -> None:
    assert [e["ex"] for e in VARIANT_EXAMPLES] == ["7", "8", "9", "10"]


@pytest.mark.parametrize("ex", VARIANT_EXAMPLES, ids=lambda e: f"ex{e['ex']}")
def test_variant_example_row_is_what_the_engine_scores(ex: dict[str, str]) -> None:
    variant = variant_for(int(ex["players"]))
    got = score(
        taker=TAKER,
        contract=BID_OF[ex["contract"]],
        taker_half_points=round(2 * float(ex["points"])),
        bouts=int(ex["bouts"]),
        petit_au_bout=None,
        poignees=_poignees(ex["poignées"], variant.poignees),
        chelem=None,
        variant=variant,
        partner=PARTNER if ex["partner"] == "yes" else None,
    )
    assert got.base == int(ex["base"])
    assert got.scores[TAKER] == int(ex["taker"])
    if ex["partner"] == "yes":
        assert got.scores[PARTNER] == int(ex["partner score"])
    assert sum(got.scores) == 0 and len(got.scores) == variant.players


def test_each_variant_example_sum_is_right_and_matches_its_row() -> None:
    items = re.split(r"^(\d+)\. ", VARIANT_TEXT, flags=re.M)
    bodies = {items[i]: items[i + 1] for i in range(1, len(items), 2)}
    assert sorted(bodies, key=int) == [e["ex"] for e in VARIANT_EXAMPLES]
    for ex in VARIANT_EXAMPLES:
        sums = _sums(bodies[ex["ex"]])
        assert len(sums) == 1, f"example {ex['ex']} shows {len(sums)} sums"
        assert sums[0][1] == int(ex["base"])


# -- DEAL-RECORD.md -------------------------------------------------------------


def _block_after(marker: str) -> str:
    found = re.search(rf"<!-- {marker} -->\n```json\n(.*?)\n```", RECORD_DOC, flags=re.S)
    assert found, f"no json block after <!-- {marker} -->"
    return found.group(1)


def test_deal_record_example_replays_to_the_output_shown() -> None:
    record = json.loads(_block_after("example-record"))
    shown = json.loads(_block_after("example-output"))
    assert replay_record(record) == shown
    # The sum written under the output is the same base.
    assert [v for _, v in _sums(RECORD_DOC)] == [shown["base"]]


def test_deal_record_broken_example_is_what_replay_says() -> None:
    record = json.loads(_block_after("example-record"))
    tricks = record["tricks"]
    tricks[0][0], tricks[3][3] = tricks[3][3], tricks[0][0]
    shown = re.search(r'^\{"error": "illegal_card".*\}$', RECORD_DOC, flags=re.M)
    assert shown
    assert replay_record(record) == json.loads(shown.group(0))


def test_deal_record_documents_every_error_code_replay_can_give() -> None:
    table = RECORD_DOC.split("The codes:", 1)[1]
    documented = set(re.findall(r"^\| `(\w+)` \|", table, flags=re.M))
    source = "".join(
        (ROOT / p).read_text(encoding="utf-8")
        for p in (
            "server/game/replay.py",
            "server/game/deal.py",
            "server/game/following.py",  # a card refused (``refusal``)
            "server/game/calling.py",
            "server/replay_cli.py",
        )
    )
    raised = set(re.findall(r'RuleError\(\s*"(\w+)"', source))
    raised |= set(re.findall(r'"error": "(\w+)"', source))
    raised.add("malformed")  # replay.py's _malformed()
    # The replay drives the turns itself, so these two cannot come out of it.
    raised -= {"wrong_phase", "not_your_turn"}
    assert documented == raised
