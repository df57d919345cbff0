"""Table names the server makes, worded in the player's language.

The server names a table itself in three documented forms (docs/PROTOCOL.md:
``create`` with an empty name, and §11 the daily game): ``"<creator>'s
table"``, ``"Daily <YYYY-MM-DD>"`` and ``"Daily <YYYY-MM-DD> (practice)"``.
They reach every client in English, so the client recognises those forms
and words them again from their parts (the creator's name, the day). Any
other name is a person's choice and is shown as it is. A person who typed
"Bob's table" themselves gets the same words the server would have made.
"""

from __future__ import annotations

import re

from clients.cli.i18n import _, pgettext

_CREATOR = re.compile(r"(?P<who>.+)'s table")
_DAILY = re.compile(r"Daily (?P<day>\d{4}-\d\d-\d\d)(?P<practice> \(practice\))?")
_VOWEL = re.compile(r"[aeiouyhàâäéèêëîïôöùûüÿœæ]", re.IGNORECASE)
"""A name that starts with a vowel sound (French elides "de" before it: "d’Alice")."""


def table_name(name: str) -> str:
    """``name`` as this language says it, when the server made it."""
    if m := _DAILY.fullmatch(name):
        if m["practice"]:
            return _("Practice {day}").format(day=m["day"])
        return _("Daily game {day}").format(day=m["day"])
    if m := _CREATOR.fullmatch(name):
        who = m["who"]
        if _VOWEL.match(who):
            # TRANSLATORS: the same, for a name starting with a vowel sound
            # (French: "Table d’{name}").
            return pgettext("a name starting with a vowel", "{name}'s table").format(name=who)
        return _("{name}'s table").format(name=who)
    return name


def is_daily(name: str) -> bool:
    """A daily table (the ranked attempt or a practice game): no "play again" there."""
    return _DAILY.fullmatch(name) is not None


def is_practice(name: str) -> bool:
    m = _DAILY.fullmatch(name)
    return m is not None and bool(m["practice"])
