"""argparse's own words (``usage:``, ``options``, its error messages) in our
catalogs, so ``atout --help`` and a usage mistake read in one language.

argparse translates through ``gettext.gettext`` in the ``argparse`` domain,
which no system ships for our languages; ``install`` points it at the
client's catalog instead. The msgids are argparse's, as Python 3.11 to 3.13
write them; one a later Python words differently stays in English.
"""

from __future__ import annotations

import argparse

from clients.cli import i18n
from clients.cli.i18n import N_

WORDS = (
    N_("usage: "),
    N_("options"),
    N_("positional arguments"),
    N_("show this help message and exit"),
    N_("show program's version number and exit"),
    N_("argument %(argument_name)s: %(message)s"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
    N_("invalid %(type)s value: %(value)r"),
    N_("unrecognized arguments: %s"),
    N_("expected one argument"),
)


def install() -> None:
    argparse._ = i18n._  # type: ignore[attr-defined]
    argparse.ngettext = i18n.ngettext  # type: ignore[attr-defined]
