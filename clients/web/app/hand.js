// The hand: every card a real button with its spoken name; only the cards
// `legal` allows are enabled. In the écart and the poignée, a card is a
// toggle (aria-pressed) instead.
import { _ } from "./i18n.js";
import { handOrder, kindClass, label, spoken } from "./cards.js";
import { html } from "./ui.js";

export function Card({ code, small, extra }) {
  return html`<span class=${`card ${kindClass(code)}${small ? " small" : ""}`} role="img" aria-label=${spoken(code)}
    title=${spoken(code)}>${label(code)}${extra}</span>`;
}

export function CardList({ codes, label: name }) {
  return html`<span class="card-list" role="group" aria-label=${name}>
    ${codes.map((c) => html`<${Card} key=${c} code=${c} small />`)}</span>`;
}

/**
 * `mode`: "play" (enabled: `allowed`, click plays), "pick" (enabled: `allowed`,
 * click toggles `picked`), or "look" (nothing enabled).
 */
export function Hand({ hand, mode, allowed, picked, onCard, busy }) {
  const cards = handOrder(hand);
  const title = _("Your hand ({n})", { n: hand.length });
  return html`<section class="hand-box" aria-label=${title}>
    <h2 class="visually-hidden">${title}</h2>
    <ul class="hand">
      ${cards.map((code) => {
        const enabled = mode !== "look" && allowed.includes(code) && !busy;
        const chosen = mode === "pick" && picked.includes(code);
        return html`<li key=${code}>
          <button class=${`card ${kindClass(code)}${chosen ? " chosen" : ""}`} disabled=${!enabled}
            aria-pressed=${mode === "pick" ? String(chosen) : undefined}
            data-card=${code} onClick=${() => enabled && onCard(code)}><span aria-hidden="true">${label(code)}</span>
            <span class="visually-hidden">${spoken(code)}</span></button>
        </li>`;
      })}
    </ul>
  </section>`;
}
