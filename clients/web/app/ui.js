// The view library, bound once: htm over Preact. Text goes into the page as
// text nodes (Preact escapes it): nothing from a player is ever HTML.
import { h } from "preact";
import { useEffect, useState } from "preact/hooks";
import htm from "htm";
import { _, ngettext, pgettext } from "./i18n.js";
import { useEscape } from "./keys.js";

export const html = htm.bind(h);

// Numbers in words live with the other words (words.js), for node tests.
export { number, percent, points } from "./words.js";

export const days = (n) => ngettext("{n} day", "{n} days", n);

/** A heading and a close button, for the panels that open over a screen (Esc closes too). */
export function Panel({ title, onClose, children, label }) {
  useEscape(onClose);
  return html`<section class="panel" aria-label=${label || title}>
    <header class="panel-head">
      <h2>${title}</h2>
      ${onClose && html`<button class="close" onClick=${onClose}>${_("Close")}</button>`}
    </header>
    ${children}
  </section>`;
}

// The views' deadlines are the server's Unix times; a phone's clock may be
// minutes off. `welcome.now` (docs/PROTOCOL.md) says the server's time: the
// page counts from its own clock plus the difference seen then.
let offset = 0;

/** Learn the server's clock from a `welcome` (`now`, seconds; 0: not said). */
export function learnServerTime(now) {
  if (typeof now === "number" && now > 0) offset = now * 1000 - Date.now();
}

/** The server's time now (ms), as well as the page can tell. */
export function serverNow() {
  return Date.now() + offset;
}

/** The server's time now (ms), redrawn every second while ``active``: for countdowns. */
export function useNow(active) {
  const [now, setNow] = useState(serverNow);
  useEffect(() => {
    if (!active) return undefined;
    setNow(serverNow());
    const id = setInterval(() => setNow(serverNow()), 1000);
    return () => clearInterval(id);
  }, [active]);
  return now;
}
