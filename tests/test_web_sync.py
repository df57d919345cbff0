"""One sync for both clients: the Python synchroniser (``clients/sync.py``,
which ``clients/session.py`` uses) and the browser's (``clients/web/app/sync.js``)
pass the same vectors, ``tests/data/sync-vectors.json`` (docs/PROTOCOL.md §5)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import msgspec
import pytest

from clients.sync import DocumentSync
from protocol.diff import Patch, PatchError, apply_document

ROOT = Path(__file__).resolve().parent.parent
VECTORS = json.loads((ROOT / "tests" / "data" / "sync-vectors.json").read_text("utf-8"))


def _apply(doc: Any, ops: Any) -> Any:
    try:
        patch = msgspec.convert(ops, Patch)
    except msgspec.ValidationError as exc:
        raise PatchError(str(exc)) from None
    return apply_document(doc, patch)


@pytest.mark.parametrize("vector", VECTORS["patches"], ids=lambda v: v["name"])
def test_patch_vectors(vector: dict[str, Any]) -> None:
    before = json.dumps(vector["doc"])
    if vector["result"] is None:
        with pytest.raises(PatchError):
            _apply(vector["doc"], vector["patch"])
    else:
        assert _apply(vector["doc"], vector["patch"]) == vector["result"]
    assert json.dumps(vector["doc"]) == before  # the document given is never changed


def _state(sync: DocumentSync) -> dict[str, Any]:
    return {
        "table": sync.table.view,
        "table_seq": sync.table.seq,
        "lobby": sync.lobby.view,
        "lobby_seq": sync.lobby.seq,
        "table_id": sync.table_id,
        "seat": sync.seat,
        "token": sync.token,
        "table_awaiting_snapshot": sync.table.awaiting_snapshot,
        "lobby_awaiting_snapshot": sync.lobby.awaiting_snapshot,
    }


@pytest.mark.parametrize("session", VECTORS["sessions"], ids=lambda s: s["name"])
def test_session_vectors(session: dict[str, Any]) -> None:
    sync = DocumentSync()
    for i, step in enumerate(session["steps"]):
        out = sync.take(json.loads(json.dumps(step["in"])))
        assert out == step["out"], f"commands after step {i} ({step['in']['t']})"
        assert _state(sync) == step["state"], f"state after step {i} ({step['in']['t']})"


def test_the_vectors_cover_enough() -> None:
    patches, sessions = VECTORS["patches"], VECTORS["sessions"]
    assert len(patches) >= 30 and len(sessions) >= 10
    assert any(v["result"] is None for v in patches) and any(v["result"] for v in patches)
    assert any(step["out"] for s in sessions for step in s["steps"])


def test_javascript_synchroniser_passes_the_same_vectors() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the JavaScript side is not checked here")
    run = subprocess.run(
        [node, "--test", str(ROOT / "tests" / "js" / "sync.test.mjs")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "# fail 0" in run.stdout
    # Every vector ran as a test of its own (plus the count check).
    expected = len(VECTORS["patches"]) + len(VECTORS["sessions"]) + 1
    assert f"# pass {expected}" in run.stdout, run.stdout[-2000:]
