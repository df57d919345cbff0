"""Keep the translation catalogs in step with the code (docs/TRANSLATING.md).

    python -m clients.cli.catalogs update    # code -> locale/atout.pot -> every .po
    python -m clients.cli.catalogs compile   # every .po -> its .mo (committed)
    python -m clients.cli.catalogs export-json   # every .po -> clients/web/i18n/<lang>.json
    python -m clients.cli.catalogs check     # what a test checks: exit 1 on a problem

The browser client (``clients/web``) speaks from the same catalogs: its
marked strings (``_("...")`` and friends in ``clients/web/app/*.js``) are
extracted with the terminal client's, and ``export-json`` writes what it
reads, one JSON file per language (committed, checked like the ``.mo``).

Needs Babel (in the ``test`` extra), which reads Python sources for the
marked strings and writes ``.mo`` files; the client itself reads the
compiled ``.mo`` with the standard library's ``gettext`` and needs nothing
but them. The ``.mo`` files are committed (and shipped as package data)
because they are what an installed client reads: a test fails when one is
out of date with its ``.po``.
"""

from __future__ import annotations

import io
import json
import re
import string
import sys
from pathlib import Path
from typing import Any

from clients.cli.i18n import DEFAULT, DOMAIN, LANGUAGES, LOCALE_DIR

SOURCES = Path(__file__).parent
WEB = SOURCES.parent / "web"
WEB_SOURCES = WEB / "app"
WEB_I18N = WEB / "i18n"
KEYWORDS: dict[str, Any] = {
    "_": None,
    "N_": None,
    "ngettext": (1, 2),
    "pgettext": ((1, "c"), 2),
}
TRANSLATED = [lang for lang in LANGUAGES if lang != DEFAULT]

# The game's French terms, as they must not show in Latin letters in a
# language that writes them its own way (docs/TRANSLATING.md): Chinese
# translates them, Korean writes the French words in Hangul (프리즈, 가르드,
# 가르드 상, 가르드 콩트르, 시앵, 푸아녜, 슐렘, 엑스퀴즈, 프티, 부). "atout" is
# left out: it is the program's name in commands such as `atout play`.
OWN_SCRIPT = ("zh", "ko")
FRENCH_TERMS = re.compile(
    # Bounded by what is not a Latin letter: Korean particles follow a word
    # with no space ("Prise나").
    r"(?<![a-zà-ÿ])(?:prise|garde(?: sans| contre)?|poign[ée]e|chelem|excuse|petit|chien|[ée]cart"
    r"|bouts?)(?![a-zà-ÿ])",
    re.IGNORECASE,
)


def french_terms(text: str) -> list[str]:
    """The game's French terms written in Latin letters in ``text``."""
    return [m.group(0) for m in FRENCH_TERMS.finditer(text)]


def po_path(lang: str) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def mo_path(lang: str) -> Path:
    return po_path(lang).with_suffix(".mo")


def template() -> Any:
    """A catalog of every marked string in the client's sources."""
    from babel.messages.catalog import Catalog
    from babel.messages.extract import extract_from_dir

    catalog = Catalog(project="atout", domain=DOMAIN)
    found = extract_from_dir(
        str(SOURCES),
        method_map=[("**.py", "python")],
        keywords=KEYWORDS,
        comment_tags=("TRANSLATORS:",),
        strip_comment_tags=True,
    )
    web = extract_from_dir(
        str(WEB_SOURCES),
        method_map=[("**.js", "javascript")],
        options_map={"**.js": {"parse_template_string": True}},
        keywords=KEYWORDS,
        comment_tags=("TRANSLATORS:",),
        strip_comment_tags=True,
    )
    for folder, entries in (("clients/cli", found), ("clients/web/app", web)):
        for filename, lineno, message, comments, context in entries:
            catalog.add(
                message,
                None,
                [(f"{folder}/{filename}", lineno)],
                auto_comments=comments,
                context=context,
            )
    return catalog


def read_po(lang: str) -> Any:
    from babel.messages.pofile import read_po as babel_read_po

    with open(po_path(lang), "rb") as f:
        return babel_read_po(f, locale=lang, domain=DOMAIN)


def write_po(path: Path, catalog: Any) -> None:
    from babel.messages.pofile import write_po as babel_write_po

    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        babel_write_po(f, catalog, width=100, omit_header=False, sort_output=False)


def mo_bytes(catalog: Any) -> bytes:
    from babel.messages.mofile import write_mo

    out = io.BytesIO()
    write_mo(out, catalog)
    return out.getvalue()


def update() -> None:
    pot = template()
    write_po(LOCALE_DIR / f"{DOMAIN}.pot", pot)
    for lang in TRANSLATED:
        if po_path(lang).exists():
            catalog = read_po(lang)
            catalog.update(pot, no_fuzzy_matching=True)
        else:
            from babel.messages.catalog import Catalog

            catalog = Catalog(locale=lang, domain=DOMAIN, project="atout")
            catalog.update(pot, no_fuzzy_matching=True)
        catalog.obsolete.clear()  # a stale id is dropped, not kept commented out
        write_po(po_path(lang), catalog)


def compile_all() -> None:
    for lang in TRANSLATED:
        mo_path(lang).write_bytes(mo_bytes(read_po(lang)))


def json_path(lang: str) -> Path:
    return WEB_I18N / f"{lang}.json"


def json_text(lang: str) -> str:
    """The browser client's catalog for ``lang``: each translated msgid (a
    ``context\\x04msgid`` key for a message with a context) to its
    translation, or to the list of its plural forms; English is the msgids
    themselves, so its ``messages`` is empty."""
    messages: dict[str, str | list[str]] = {}
    plural = "(n != 1)"
    if lang != DEFAULT:
        catalog = read_po(lang)
        plural = catalog.plural_expr
        for m in catalog:
            if not m.id or m.fuzzy:
                continue
            msgid = m.id if isinstance(m.id, str) else m.id[0]
            key = f"{m.context}\x04{msgid}" if m.context else msgid
            if isinstance(m.string, str):
                if m.string:
                    messages[key] = m.string
            elif all(m.string):
                messages[key] = list(m.string)
    doc = {"lang": lang, "plural": plural, "messages": dict(sorted(messages.items()))}
    return json.dumps(doc, ensure_ascii=False, indent=0, sort_keys=False) + "\n"


def export_json() -> None:
    WEB_I18N.mkdir(parents=True, exist_ok=True)
    for lang in LANGUAGES:
        json_path(lang).write_text(json_text(lang), encoding="utf-8")


def fields(text: str) -> set[str]:
    """The placeholders of a message: ``{who}`` fields and ``%(name)s``/``%s`` ones."""
    names = {f"{{{name}}}" for _lit, name, _spec, _conv in string.Formatter().parse(text) if name}
    if "%" in text:
        names |= set(re.findall(r"%(?:\([a-z_]+\))?[a-z]", text))
    return names


def problems() -> list[str]:
    """Every way the catalogs fall short of the code, one line each."""
    out: list[str] = []
    pot = template()
    wanted = {(m.id if isinstance(m.id, str) else m.id[0], m.context) for m in pot if m.id}
    for lang in TRANSLATED:
        if not po_path(lang).exists():
            out.append(f"{lang}: no catalog at {po_path(lang)}")
            continue
        catalog = read_po(lang)
        have = set()
        for m in catalog:
            if not m.id:
                continue
            key = (m.id if isinstance(m.id, str) else m.id[0], m.context)
            have.add(key)
            ids = [m.id] if isinstance(m.id, str) else list(m.id)
            strs = [m.string] if isinstance(m.string, str) else list(m.string)
            if key not in wanted:
                out.append(f"{lang}: stale msgid {key[0]!r} (no longer in the code)")
            if m.fuzzy:
                out.append(f"{lang}: fuzzy translation of {key[0]!r}")
            if not all(strs):
                out.append(f"{lang}: no translation of {key[0]!r}")
                continue
            for s in strs:
                if lang in OWN_SCRIPT and french_terms(s):
                    out.append(
                        f"{lang}: {key[0]!r} keeps {french_terms(s)} in Latin letters "
                        "(docs/TRANSLATING.md: the game's own words)"
                    )
                if fields(s) != fields(ids[-1]) and fields(s) != fields(ids[0]):
                    out.append(
                        f"{lang}: placeholders of {key[0]!r}: {sorted(fields(s))} "
                        f"!= {sorted(fields(ids[0]))}"
                    )
        for key in sorted(wanted - have, key=str):
            out.append(f"{lang}: msgid {key[0]!r} missing from the catalog")
        if not mo_path(lang).exists() or mo_path(lang).read_bytes() != mo_bytes(catalog):
            out.append(f"{lang}: {mo_path(lang).name} is out of date: run catalogs compile")
    for lang in LANGUAGES:
        path = json_path(lang)
        if not path.exists() or path.read_text(encoding="utf-8") != json_text(lang):
            out.append(f"{lang}: {path.name} is out of date: run catalogs export-json")
    return out


def main(argv: list[str]) -> int:
    command = argv[0] if argv else "check"
    if command == "update":
        update()
    elif command == "compile":
        compile_all()
    elif command == "export-json":
        export_json()
    elif command == "check":
        found = problems()
        for line in found:
            print(line)
        return 1 if found else 0
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
