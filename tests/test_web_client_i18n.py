"""The browser client speaks from the terminal client's catalogs: its strings
are extracted into the same ``.po`` files, and ``clients/web/i18n/*.json`` is
exported from them (``python -m clients.cli.catalogs export-json``)."""

from __future__ import annotations

import json
import re

from clients.cli import catalogs
from clients.cli.i18n import LANGUAGES

# The plural rules clients/web/app/i18n.js knows (no eval under the page's CSP).
JS_PLURALS = {"en": "(n != 1)", "fr": "(n > 1)", "zh": "0", "ko": "0"}


def test_the_committed_json_catalogs_are_the_po_files_exported() -> None:
    for lang in LANGUAGES:
        path = catalogs.json_path(lang)
        assert path.read_text(encoding="utf-8") == catalogs.json_text(lang), (
            f"{path} is out of date: run python -m clients.cli.catalogs export-json"
        )


def test_the_plural_rules_are_the_ones_the_page_knows() -> None:
    script = (catalogs.WEB_SOURCES / "i18n.js").read_text(encoding="utf-8")
    for lang in LANGUAGES:
        doc = json.loads(catalogs.json_path(lang).read_text(encoding="utf-8"))
        assert doc["lang"] == lang
        assert doc["plural"] == JS_PLURALS[lang]
        assert re.search(rf"\b{lang}: ", script), f"i18n.js has no plural rule for {lang}"


def test_the_web_strings_are_in_the_catalogs_and_translated() -> None:
    pot = catalogs.template()
    web = [m for m in pot if m.id and any(f.startswith("clients/web/") for f, _ in m.locations)]
    assert len(web) > 100  # the page's words, shared with the terminal client's or its own
    fr = json.loads(catalogs.json_path("fr").read_text(encoding="utf-8"))["messages"]
    for m in web:
        msgid = m.id if isinstance(m.id, str) else m.id[0]
        key = f"{m.context}\x04{msgid}" if m.context else msgid
        assert key in fr, f"no French for {msgid!r}"
    assert fr["{rank} of {suit}"] == "{rank} de {suit}"
