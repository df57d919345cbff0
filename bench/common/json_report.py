"""A bench's figures as JSON: printed, and written to the ``--json`` file too."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def print_json(report: dict[str, Any], path: str | None) -> None:
    text = json.dumps(report, indent=1)
    print(text)
    if path:
        Path(path).write_text(text)
