// The view library, bound once: htm over Preact. Text goes into the page as
// text nodes (Preact escapes it): nothing from a player is ever HTML.
import { h } from "preact";
import htm from "htm";
import { _, ngettext, pgettext } from "./i18n.js";
import { useEscape } from "./keys.js";

export const html = htm.bind(h);

/** "+164 points", "-1 point": a signed score. */
export const points = (n) =>
  ngettext("{points} point", "{points} points", Math.abs(n), { points: n > 0 ? `+${n}` : String(n) });

/** 73.25 with the language's decimal separator. */
export const number = (value, decimals) =>
  Number(value).toFixed(decimals).replace(".", pgettext("decimal separator", "."));

export const percent = (value, decimals = 2) => _("{value}%", { value: number(value, decimals) });

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
