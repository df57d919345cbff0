"""The browser client says it right, in each of its languages (issue 34).

A person with the page in English, French, Chinese or Korean (the browser's
own language) goes through its screens: the name form, the lobby and the
New table form (whose deals follow the table's size: each seat deals
twice), then a table of five it watches from the wait to the game's end and
its score sheet, on a 390-px phone. On every screen the test fails on
an English message left untranslated, a number written the English way (a
decimal point, "50%") in French, a game term left in Latin letters in
Chinese or Korean ("Garde" for 가르드), a word cut by its box, and a page
wider than the phone. The taker's figure ("Needs 41", "You need 41") on the
result screen is the result's own target. The page's pure modules have their
node tests run here too.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from clients.cli.catalogs import OWN_SCRIPT, french_terms
from clients.session import Session
from protocol.messages import CreateTable, Seated
from tests.browser import ServerThread, patient_context
from tests.web_helpers import GAME_OVER, PHONE, hosted_game

if TYPE_CHECKING:
    from playwright.sync_api import Page

ROOT = Path(__file__).resolve().parent.parent
I18N = ROOT / "clients" / "web" / "i18n"
LOCALES = {"en": "en-GB", "fr": "fr-FR", "zh": "zh-CN", "ko": "ko-KR"}


def _messages(lang: str) -> dict[str, Any]:
    if lang == "en":
        return {}
    found: dict[str, Any] = json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8"))[
        "messages"
    ]
    return found


def _tr(lang: str, msgid: str) -> str:
    text = _messages(lang).get(msgid)
    return text if isinstance(text, str) and text else msgid


def _english_leftovers(lang: str) -> list[str]:
    """English messages that must not show in ``lang``: whole sentences of
    two words or more, without fields, whose translation differs."""
    out = []
    for msgid, text in _messages(lang).items():
        if "\u0004" in msgid or "{" in msgid or not isinstance(text, str) or text == msgid:
            continue
        if len(msgid.split()) >= 2 and len(msgid) >= 8 and msgid not in text:
            out.append(msgid)
    return out


# The page's visible text, and any element whose text its box cuts (an
# ellipsis, or clipped: wider than the box that hides its overflow).
LOOK = """() => {
  const cut = [];
  for (const el of document.querySelectorAll("body *")) {
    // Text kept for screen readers only (visually hidden on purpose) is no cut.
    const shown = el.offsetParent !== null && !el.closest(".visually-hidden") && el.clientWidth > 2;
    if (!el.childElementCount && el.textContent.trim() && shown) {
      const style = getComputedStyle(el);
      const clipped = ["hidden", "clip"].includes(style.overflowX);
      const hides = clipped || style.textOverflow === "ellipsis";
      if (hides && el.scrollWidth > el.clientWidth + 1) cut.push(el.textContent.trim());
    }
  }
  return {
    text: document.body.innerText,
    cut,
    wide: document.documentElement.scrollWidth > window.innerWidth + 1,
  };
}"""


GLUED = re.compile(r"\S*(?:(?<!\d)·(?=\S)|(?<=\S)·(?!\d))\S*")

# How many elements on screen (not text kept for screen readers) say exactly ``words``.
SHOWN = """(words) => [...document.querySelectorAll("body *")].filter((el) =>
  !el.childElementCount && el.textContent.trim() === words && el.offsetParent !== null &&
  !el.closest(".visually-hidden")).length"""


def _check(page: Page, lang: str, where: str, problems: list[str]) -> str:
    look = page.evaluate(LOOK)
    text: str = look["text"]
    for msgid in _english_leftovers(lang):
        if re.search(rf"(?<![\w'’]){re.escape(msgid)}(?![\w'’])", text):
            problems.append(f"{lang} {where}: untranslated {msgid!r}")
    if lang == "fr":
        for number in re.findall(r"(?<![\w.:/-])\d+\.\d+(?![\w.])", text):
            problems.append(f"fr {where}: a decimal point in {number!r}")
        for number in re.findall(r"\d%", text):
            problems.append(f"fr {where}: no space before % in {number!r}")
    if lang in OWN_SCRIPT:  # Korean writes "Garde" in Hangul, Chinese translates it
        problems += [f"{lang} {where}: {t!r} in Latin letters" for t in french_terms(text)]
    # A separator glued to a word ("8 deals ·bots normal"; Korean's "3·4·5인"
    # is a list of numbers, written so): htm drops the
    # whitespace of a line break, so a template's line ending in " ·" loses it.
    problems += [f"{lang} {where}: glued {g!r}" for g in GLUED.findall(text)]
    problems += [f"{lang} {where}: cut {c!r}" for c in look["cut"]]
    if look["wide"]:
        problems.append(f"{lang} {where}: the page is wider than the phone")
    return text


async def _opens_a_public_table(server: ServerThread, lang: str) -> Session:
    session = await Session.open(server.ws_url, f"Inès {lang}")
    await session.send(CreateTable(players=3, deals=3))
    await session.wait_for(Seated)
    return session


@pytest.mark.parametrize("lang", list(LOCALES))
def test_every_screen_in_each_language(browser: Any, web_server: ServerThread, lang: str) -> None:
    context = patient_context(browser, locale=LOCALES[lang], viewport=PHONE)
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    problems: list[str] = []
    # A public table in the lobby, so that its row (status, size, seats,
    # deals, bots) is looked at too.
    other = web_server.call(_opens_a_public_table(web_server, lang))
    try:
        page.goto(web_server.url)
        page.locator("input[name=name]").wait_for()
        _check(page, lang, "name form", problems)
        page.fill("input[name=name]", "Zoé")
        page.get_by_role("button", name=_tr(lang, "Play"), exact=True).click()
        page.get_by_role("button", name=_tr(lang, "Quick play")).wait_for()
        page.locator(".table-row").first.wait_for()
        _check(page, lang, "lobby", problems)
        # The New table form: the deals follow the size, each seat dealing twice.
        page.get_by_role("button", name=_tr(lang, "New table"), exact=True).click()
        deals = page.locator("input[name=deals]")
        assert deals.input_value() == "8"
        for players, expected in (("3", "6"), ("5", "10"), ("4", "8")):
            page.select_option("select[name=players]", players)
            assert deals.input_value() == expected, (players, deals.input_value())
        deals.fill("3")
        page.select_option("select[name=players]", "5")
        assert deals.input_value() == "3"  # a number the person typed stays
        _check(page, lang, "new table", problems)
        page.get_by_role("button", name=_tr(lang, "Cancel"), exact=True).click()

        # Hugo opens a private table of five (two deals) from a protocol
        # client; once we watch, he starts it with four bots and plays it out.
        seed = f"words-{lang}"
        code, join = hosted_game(
            web_server, seed, ready=lambda v: v.spectators > 0, players=5, deals=2, seed=seed
        )
        page.evaluate(f"() => {{ window.location.hash = 'watch={code}'; }}")
        page.locator(".table-screen").wait_for()
        seen = [_check(page, lang, "table, waiting", problems)]
        while not page.locator(GAME_OVER.replace("Game over", _tr(lang, "Game over"))).count():
            page.wait_for_timeout(250)
            seen.append(_check(page, lang, "table", problems))
        last = join()
        assert last.status == "finished"
        final = _check(page, lang, "game over", problems)
        # "Game over" once: the result's heading, not the log beside it too.
        assert page.evaluate(SHOWN, _tr(lang, "Game over")) == 1, final
        # The taker's figure on the result screen is the result's target.
        result = last.deal.result if last.deal is not None else None
        if result and "target" in result:
            before, after = _tr(lang, "Needs {points}").split("{points}")
            shown = re.search(re.escape(before) + r"(\d+)" + re.escape(after), final)
            assert shown and int(shown.group(1)) == result["target"], final
        page.get_by_role("button", name=_tr(lang, "Score sheet"), exact=True).click()
        page.locator("table.sheet").wait_for()
        _check(page, lang, "score sheet", problems)
        # The sheet of a table of five fits the phone: no sideways scrolling.
        box = page.locator(".scroll:has(table.sheet)")
        sideways = box.evaluate("el => el.scrollWidth - el.clientWidth")
        if sideways > 1:
            problems.append(f"{lang} score sheet: {sideways} px wider than the phone")
        assert seen  # bots play fast: the screens between are looked at as they come
    finally:
        context.close()
        web_server.call(other.close())
    assert not problems, "\n".join(dict.fromkeys(problems))
    assert not errors, errors


@pytest.mark.parametrize("files", [("words.test.mjs", 6), ("copylink.test.mjs", 3)])
def test_the_page_s_words_pass_their_node_tests(files: tuple[str, int]) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the JavaScript side is not checked here")
    name, count = files
    run = subprocess.run(
        [node, "--test", str(ROOT / "tests" / "js" / name)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "# fail 0" in run.stdout and f"# pass {count}" in run.stdout, run.stdout[-2000:]
