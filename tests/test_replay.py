"""Deal records and ``atout-server replay`` (docs/DEAL-RECORD.md)."""

from __future__ import annotations

import copy
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from server.game import replay_record
from tests.support.engine import random_deal

DATA = Path(__file__).resolve().parent / "data"
REFERENCE = [json.loads(line) for line in (DATA / "reference-deals.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("ref", REFERENCE, ids=[r["name"] for r in REFERENCE])
def test_reference_deals_give_expected_results(ref: dict[str, Any]) -> None:
    got = replay_record(ref["record"])
    assert {k: got.get(k) for k in ref["expected"]} == ref["expected"]


def _played() -> dict[str, Any]:
    rng = random.Random(7)
    while True:
        deal = random_deal(rng)
        if deal.phase == "done" and deal.ecart_cards:
            return deal.record()


def test_record_format_of_a_played_deal() -> None:
    rec = _played()
    assert set(rec) == {"dealer", "hands", "chien", "bids", "ecart", "chelem", "poignees", "tricks"}
    assert len(rec["hands"]) == 4 and all(len(h) == 18 for h in rec["hands"])
    assert len(rec["chien"]) == 6 and len(rec["ecart"]) == 6 and len(rec["bids"]) == 4
    assert len(rec["tricks"]) == 18 and all(len(t) == 4 for t in rec["tricks"])
    json.dumps(rec)  # JSON-ready


@pytest.mark.parametrize(
    ("mutate", "code"),
    [
        (lambda r: r.pop("hands"), "malformed"),
        (lambda r: r.update(dealer=7), "malformed"),
        (lambda r: r["hands"][0].__setitem__(0, r["hands"][1][0]), "bad_deck"),
        (lambda r: r["hands"][0].__setitem__(0, "ZZ"), "bad_deck"),
        (lambda r: r.update(bids=["garde", "prise", "pass", "pass"]), "bad_bid"),
        (lambda r: r.update(bids=["pass", "pass"]), "malformed"),
        (lambda r: r.update(bids=["pass", "pass", "bof", "pass"]), "bad_bid"),
        (lambda r: r["tricks"].pop(), "malformed"),
        (lambda r: r.update(chelem="yes"), "bad_chelem"),
        (lambda r: r.update(poignees=[{"seat": 9, "cards": []}]), "bad_poignee"),
        (lambda r: r["tricks"][3].__setitem__(1, "XX"), "unknown_card"),
    ],
)
def test_broken_records_get_stable_codes(mutate: Any, code: str) -> None:
    rec = copy.deepcopy(_played())
    mutate(rec)
    out = replay_record(rec)
    assert out["error"] == code and out["message"]


def test_bad_ecart_with_a_king_is_refused() -> None:
    rec = copy.deepcopy(_played())
    taker_hand = rec["hands"][0] + rec["hands"][1] + rec["hands"][2] + rec["hands"][3]
    king = next(c for c in taker_hand + rec["chien"] if c.startswith("K"))
    rec["ecart"] = [king, *rec["ecart"][1:]]
    out = replay_record(rec)
    assert out["error"] == "bad_ecart"


def test_replay_cli_prints_one_line_per_record_and_exit_status(tmp_path: Path) -> None:
    good = _played()
    bad = copy.deepcopy(good)
    bad["tricks"][0][0] = "ZZ"
    path = tmp_path / "deals.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in (good, bad, good)) + "\nnot json\n")
    proc = subprocess.run(
        [sys.executable, "-m", "server", "replay", str(path)], capture_output=True, text=True
    )
    lines = [json.loads(x) for x in proc.stdout.splitlines()]
    assert proc.returncode == 1
    assert len(lines) == 4
    assert "scores" in lines[0] and lines[1]["error"] == "unknown_card" and "scores" in lines[2]
    assert lines[3]["error"] == "malformed"
    # Only legal records: exit 0; "-" reads standard input.
    proc = subprocess.run(
        [sys.executable, "-m", "server", "replay", "-"],
        input=json.dumps(good),
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0 and json.loads(proc.stdout)["scores"]


def test_replay_cli_reads_reference_file() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "server", "replay", str(DATA / "reference-deals.jsonl")],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0
    got = [json.loads(x) for x in proc.stdout.splitlines()]
    assert [g["scores"] for g in got] == [r["expected"]["scores"] for r in REFERENCE]
