"""Print the table of every server setting (flag, variable, default, meaning)
as Markdown, from ``server.base.config.SETTINGS``: docs/DEPLOY.md holds a copy
between ``<!-- settings:begin -->`` and ``<!-- settings:end -->``, and
tests/test_deploy_docs.py fails when the two differ.

    python deploy/settings_table.py            # print the table
    python deploy/settings_table.py --write    # update docs/DEPLOY.md in place
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEPLOY_MD = ROOT / "docs" / "DEPLOY.md"
BEGIN = "<!-- settings:begin -->"
END = "<!-- settings:end -->"

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # runs from a checkout, installed or not

from server.base.config import SETTINGS  # noqa: E402


def _default(value: Any) -> str:
    if isinstance(value, bool):
        return "`on`" if value else "`off`"
    if isinstance(value, str):
        return f"`{value}`" if value else "(empty)"
    if isinstance(value, float):
        return f"`{value:.15g}`"  # 86400.0 -> 86400, 0.6 -> 0.6
    return f"`{value}`"


def table() -> str:
    """The Markdown table, one row per setting, in ``SETTINGS`` order."""
    lines = [
        "| Flag | Variable | Default | Meaning |",
        "| --- | --- | --- | --- |",
    ]
    for _name, flag, variable, default, meaning in SETTINGS:
        meaning = str(meaning).replace("|", "\\|")
        lines.append(f"| `{flag}` | `{variable}` | {_default(default)} | {meaning} |")
    return "\n".join(lines) + "\n"


def between_markers(text: str) -> str:
    """What ``text`` holds between the two markers (ValueError if they are missing)."""
    start = text.index(BEGIN) + len(BEGIN)
    return text[start : text.index(END, start)].strip("\n") + "\n"


def write(path: Path = DEPLOY_MD) -> None:
    text = path.read_text(encoding="utf-8")
    start = text.index(BEGIN) + len(BEGIN)
    end = text.index(END, start)
    path.write_text(text[:start] + "\n" + table() + text[end:], encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        write()
    elif sys.argv[1:]:
        sys.exit(__doc__)
    else:
        sys.stdout.write(table())
