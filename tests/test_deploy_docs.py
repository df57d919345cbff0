"""docs/DEPLOY.md and docker-compose.yml agree with server/base/config.py.

Fast and without containers: the settings table in DEPLOY.md is the one
``deploy/settings_table.py`` prints from ``server.base.config.SETTINGS``, and every
``ATOUT_*`` variable docker-compose.yml reads is a real setting (a typo there
would be silently ignored by the server) or one of compose's own, documented.
"""

from __future__ import annotations

import importlib.util
import re
from dataclasses import fields
from pathlib import Path
from types import ModuleType

from server.base.config import SETTINGS, Settings

ROOT = Path(__file__).resolve().parents[1]
DEPLOY_MD = ROOT / "docs" / "DEPLOY.md"
COMPOSE_FILE = ROOT / "docker-compose.yml"

COMPOSE_ONLY = {"ATOUT_PUBLISH"}
"""Variables of docker-compose.yml itself, not server settings."""

COMPOSE_DEFAULTS_DIFFER = {
    "ATOUT_LOG_FORMAT": "json",  # one JSON object per line for `docker compose logs`
    "ATOUT_REDIS_URL": "redis://redis:6379/0",  # the compose file's own Redis
    "ATOUT_WORKERS": "auto",  # every core the container may use (it has Redis)
}
"""Where the compose file deliberately does not use the server's default."""


def _settings_table() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "settings_table", ROOT / "deploy" / "settings_table.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_deploy_md_holds_the_settings_table_the_script_prints() -> None:
    script = _settings_table()
    in_doc = script.between_markers(DEPLOY_MD.read_text(encoding="utf-8"))
    assert in_doc == script.table(), (
        "docs/DEPLOY.md's settings table is out of date: "
        "run `python deploy/settings_table.py --write`"
    )


def test_the_table_has_one_row_per_setting() -> None:
    rows = _settings_table().table().splitlines()[2:]
    assert len(rows) == len(SETTINGS)
    for (_, flag, variable, _, _), row in zip(SETTINGS, rows, strict=True):
        assert row.startswith(f"| `{flag}` | `{variable}` |"), row


def _compose_variables() -> dict[str, str]:
    """``${ATOUT_X:-default}`` of docker-compose.yml -> {ATOUT_X: default}."""
    text = COMPOSE_FILE.read_text(encoding="utf-8")
    found = dict(re.findall(r"\$\{(ATOUT_[A-Z_]+):-([^}]*)\}", text))
    bare = set(re.findall(r"\$\{?(ATOUT_[A-Z_]+)", text))
    assert bare == set(found), f"give every variable a default: {bare - set(found)}"
    return found


def test_compose_reads_only_real_settings_with_the_servers_defaults() -> None:
    settings = {variable: default for _, _, variable, default, _ in SETTINGS}
    # Each value read by the setting's own parser, as the server reads it.
    parse = {f"ATOUT_{f.name.upper()}": f.metadata["parse"] for f in fields(Settings)}
    for variable, default in _compose_variables().items():
        if variable in COMPOSE_ONLY:
            continue
        assert variable in settings, f"docker-compose.yml: {variable} is no setting"
        if variable in COMPOSE_DEFAULTS_DIFFER:
            expected = parse[variable](COMPOSE_DEFAULTS_DIFFER[variable])
        else:
            expected = settings[variable]
        assert parse[variable](default) == expected, (
            f"docker-compose.yml: {variable} defaults to {default!r}, the server to "
            f"{settings[variable]!r}; keep them equal, or list the difference here"
        )


def test_compose_only_variables_are_documented() -> None:
    doc = DEPLOY_MD.read_text(encoding="utf-8")
    for variable in COMPOSE_ONLY:
        assert f"`{variable}`" in doc, f"docs/DEPLOY.md does not explain {variable}"


def test_both_compose_commands_are_named() -> None:
    # Many hosts have Compose v1 (``docker-compose``) only; it runs the same
    # file. The guide says so where a newcomer starts, not only later.
    text = (ROOT / "docs" / "DEPLOY.md").read_text(encoding="utf-8")
    start = text[: text.index("## Host a game in three steps") + 800]
    assert "docker compose up -d --build" in start
    assert "docker-compose up -d --build" in start
    assert "Compose v1" in start and "Compose v2" in start
