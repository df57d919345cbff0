"""The client's language: English (the msgids), French, Simplified Chinese
and Korean, from gettext catalogs under ``locale/<lang>/LC_MESSAGES/atout``.

Translators edit the ``.po`` files (docs/TRANSLATING.md); the compiled
``.mo`` files beside them are what the standard library's ``gettext`` reads
at run time, so the client needs no extra package to speak a language.

Every text is translated when it is shown, never at import: ``use()`` may
switch the language at any time (the snapshot tests draw the same screen in
each language in one process), and a constant written ``N_("...")`` is only
marked for the catalog and translated where it is used.
"""

from __future__ import annotations

import dataclasses
import gettext
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

DOMAIN = "atout"
LOCALE_DIR = Path(__file__).with_name("locale")
LANGUAGES = {"en": "English", "fr": "Français", "zh": "简体中文", "ko": "한국어"}
"""The languages the client speaks, by ``--lang`` code; English is the default."""
DEFAULT = "en"

_translation: gettext.NullTranslations = gettext.NullTranslations()
current = DEFAULT


def choose(arg: str | None = None, environ: Mapping[str, str] | None = None) -> str:
    """The language to speak: ``arg`` (``--lang``) if given, else the locale
    as gettext reads it (``LANGUAGE``, a list, then the first of ``LC_ALL``,
    ``LC_MESSAGES``, ``LANG`` that is set), else English."""
    if arg:
        return _code(arg) or DEFAULT
    env = os.environ if environ is None else environ
    for part in env.get("LANGUAGE", "").split(":"):
        code = _code(part)
        if code:
            return code
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(var)
        if value:
            return _code(value) or DEFAULT
    return DEFAULT


def _code(locale: str) -> str | None:
    """``fr_FR.UTF-8`` -> ``fr``; ``zh_CN``, ``zh_TW`` -> ``zh``; ``C`` -> None."""
    code = locale.strip().split(".")[0].split("@")[0].replace("-", "_").split("_")[0].lower()
    return code if code in LANGUAGES else None


def use(lang: str) -> None:
    """Speak ``lang`` from now on (an unknown code speaks English)."""
    global _translation, current
    current = lang if lang in LANGUAGES else DEFAULT
    if current == DEFAULT:
        _translation = gettext.NullTranslations()
    else:
        _translation = gettext.translation(DOMAIN, LOCALE_DIR, [current], fallback=True)


def _(message: str) -> str:
    """``message`` in the current language (the English msgid if untranslated)."""
    return _translation.gettext(message) if message else message


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of a counted message for ``n``, by the language's plural rule."""
    return _translation.ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """``message`` where one English word needs two translations (``context`` tells which)."""
    return _translation.pgettext(context, message)


def N_(message: str) -> str:
    """Mark ``message`` for the catalogs without translating it yet."""
    return message


def deep(value: Any) -> Any:
    """``value`` with every string in it translated: a marked constant that
    is a dict (its values), a tuple or a list of strings."""
    if isinstance(value, str):
        return _(value)
    if isinstance(value, dict):
        return {k: deep(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return tuple(deep(v) for v in value)
    if isinstance(value, list):
        return [deep(v) for v in value]
    return value


def translate_bindings(node: Any) -> None:
    """Translate the descriptions of a screen's (or app's) key bindings, which
    the footer shows. Textual copies a class's ``BINDINGS`` into each
    instance, so this rewrites the instance's copy and leaves the class's
    English msgids alone for the next instance, in whatever language."""
    bindings = node._bindings.key_to_bindings
    for key, items in bindings.items():
        bindings[key] = [
            dataclasses.replace(b, description=_(b.description), tooltip=_(b.tooltip))
            for b in items
        ]


# -- card letters ------------------------------------------------------------------

ENGLISH_RANKS = "KQCJ"


def rank_letters() -> str:
    """The letters of King, Queen, Knight, Jack in this language (French: RDCV)."""
    # TRANSLATORS: four letters for King, Queen, Knight (Cavalier) and Jack, in
    # this order, as players of your language write them (French: RDCV). They
    # show on the cards and may be typed; keep them ASCII capitals.
    letters = pgettext("card letters", "KQCJ")
    return letters if len(letters) == len(ENGLISH_RANKS) else ENGLISH_RANKS


def local_rank(rank: str) -> str:
    """A card code's rank (``K``, ``10``...) as this language writes it."""
    i = ENGLISH_RANKS.find(rank)
    return rank_letters()[i] if len(rank) == 1 and i >= 0 else rank


def code_rank(letter: str) -> str:
    """A rank letter as typed (``R`` in French) -> the card code's (``K``);
    the English letters are accepted in every language."""
    if letter in ENGLISH_RANKS:
        return letter
    i = rank_letters().find(letter)
    return ENGLISH_RANKS[i] if i >= 0 else letter


class Translated:
    """Mixed into a Textual screen (or app) before its Textual class: its key
    bindings' descriptions are translated when it is made."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        translate_bindings(self)


def local_code(code: str) -> str:
    """A card code with its rank in this language's letters: French ``RS`` for ``KS``."""
    if len(code) >= 1 and code[0] in ENGLISH_RANKS:
        return local_rank(code[0]) + code[1:]
    return code
