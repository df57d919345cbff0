"""Every error and bye code the server documents has words in the browser
client, and those words are translated in every language of the catalogs.

docs/PROTOCOL.md lists exactly the codes of ``protocol.errors.ErrorCode`` and
``ByeCode`` (tests/test_error_codes.py checks that), so these two types stand
for the documented tables here. The browser client's words are read from its
source (clients/web/app/words.js), their translations from the JSON that
``python -m clients.cli.catalogs export-json`` writes from the shared catalogs.
"""

from __future__ import annotations

import json
import re
import typing
from pathlib import Path

import pytest

from protocol.errors import ByeCode, ErrorCode

WEB = Path(__file__).resolve().parents[1] / "clients" / "web"
WORDS = (WEB / "app" / "words.js").read_text("utf-8")
LANGS = ("fr", "zh", "ko")


def _object(name: str) -> str:
    """The text of the JS object literal ``const NAME = {...};``."""
    found = re.search(rf"const {name} = \{{(.*?)\}};", WORDS, re.DOTALL)
    assert found, f"no {name} in words.js"
    return found.group(1)


def _error_words() -> dict[str, str]:
    return dict(re.findall(r'^\s*([a-z_]+): N_\("([^"]+)"\),', _object("ERROR_CODES"), re.M))


def _close_words() -> dict[int, str]:
    pairs = re.findall(r'^\s*(\d+): \[N_\("([^"]+)"\)', _object("CLOSE_CODES"), re.M)
    return {int(code): words for code, words in pairs}


def _bye_words() -> dict[str, str]:
    close = _close_words()
    pairs = re.findall(r"([a-z_]+): (\d+)", _object("BYE_CODES"))
    return {code: close[int(number)] for code, number in pairs}


def test_every_documented_error_code_has_words() -> None:
    words = _error_words()
    assert set(typing.get_args(ErrorCode)) - set(words) == set()
    assert set(words) <= set(typing.get_args(ErrorCode)), "words for a code nobody sends"


def test_every_documented_bye_code_has_words() -> None:
    assert set(_bye_words()) == set(typing.get_args(ByeCode))


@pytest.mark.parametrize("lang", LANGS)
def test_the_words_of_every_code_are_translated(lang: str) -> None:
    messages = json.loads((WEB / "i18n" / f"{lang}.json").read_text("utf-8"))["messages"]
    wanted = set(_error_words().values()) | set(_bye_words().values())
    missing = sorted(w for w in wanted if not messages.get(w) or messages[w] == w)
    assert missing == [], f"untranslated in {lang}: {missing}"
