"""Print the page's security headers for a reverse proxy that serves the
browser client's files itself (docs/DEPLOY.md, "The browser client")::

    python -m server.web.proxy nginx [CLIENT_FOLDER] > /etc/nginx/atout-headers.conf
    python -m server.web.proxy caddy [CLIENT_FOLDER]

The headers are the server's own (server/web/policy.py), the host written as
the proxy's variable for it. The policy holds the hash of the page's import
map: print them again after an upgrade (a stale hash shows as a blank page
and a console error naming the refused script).
"""

from __future__ import annotations

import sys
from pathlib import Path

from server.web.files import INDEX, bundled_folder
from server.web.policy import importmap_hashes, page_headers

PROXY_HOST = {"nginx": "$http_host", "caddy": "{http.request.hostport}"}
"""Each proxy's variable for the ``Host`` the browser asked for, port included."""

USAGE = "usage: python -m server.web.proxy nginx|caddy [CLIENT_FOLDER]"


def lines(proxy: str, folder: Path) -> str:
    """The headers in ``proxy``'s configuration language, for the client in ``folder``."""
    headers = page_headers(importmap_hashes((folder / INDEX).read_bytes()), PROXY_HOST[proxy])
    said = f"# Atout's page headers: python -m server.web.proxy {proxy}, again after each upgrade"
    if proxy == "nginx":
        # `always`: on 304s and errors too, as the server sends them.
        out = [said, *(f'add_header {name} "{value}" always;' for name, value in headers)]
    else:
        out = [said, "header {", *(f'\t{name} "{value}"' for name, value in headers), "}"]
    return "\n".join(out) + "\n"


def main(argv: list[str]) -> int:
    if not 1 <= len(argv) <= 2 or argv[0] not in PROXY_HOST:
        print(USAGE, file=sys.stderr)
        return 2
    folder = Path(argv[1]) if len(argv) == 2 else bundled_folder()
    if folder is None or not (folder / INDEX).is_file():
        where = folder or "the installed client (clients/web)"
        print(f"no {INDEX} in {where}; {USAGE}", file=sys.stderr)
        return 1
    sys.stdout.write(lines(argv[0], folder))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
