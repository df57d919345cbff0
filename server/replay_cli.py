"""``atout-server replay FILE...``: check and score deal records.

Each file (``-`` for standard input) holds one JSON record or several as JSON
Lines. One JSON result per record, one per line, in order; exit status 0 when
every record is legal, 1 otherwise. A broken record never stops the others.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from server.game import replay_record


def _records(text: str) -> Iterator[Any]:
    """The records of one file: a whole JSON document, or JSON Lines."""
    try:
        yield json.loads(text)
        return
    except json.JSONDecodeError:
        pass
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            yield json.loads(line)
        except json.JSONDecodeError as e:
            yield _Unreadable(f"line {number}: not JSON ({e.msg})")


class _Unreadable:
    def __init__(self, why: str) -> None:
        self.why = why


def _unwrap(obj: Any) -> Any:
    # reference-deals.jsonl wraps each record as {"name", "record", "expected"}.
    if isinstance(obj, dict) and "record" in obj and "hands" not in obj:
        return obj["record"]
    return obj


def run(paths: list[str], out: TextIO = sys.stdout) -> int:
    ok = True
    for path in paths:
        try:
            text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
        except OSError as e:
            print(json.dumps({"error": "unreadable", "message": f"{path}: {e.strerror}"}), file=out)
            ok = False
            continue
        for obj in _records(text):
            if isinstance(obj, _Unreadable):
                result: dict[str, Any] = {"error": "malformed", "message": f"{path}: {obj.why}"}
            elif isinstance(obj, list):
                # A JSON array of records is accepted too.
                for item in obj:
                    result = replay_record(_unwrap(item))
                    ok &= "error" not in result
                    print(json.dumps(result), file=out)
                continue
            else:
                result = replay_record(_unwrap(obj))
            ok &= "error" not in result
            print(json.dumps(result), file=out)
    return 0 if ok else 1
