// Cards in the page: a card on the felt (`Card`: a picture with its spoken
// name) and the hand (`Hand`: every card a real button with its spoken name;
// only the cards `allowed` are enabled, raised, the others dimmed). In the
// écart and the poignée, a card is a toggle (aria-pressed) instead. The hand
// is fanned: each card overlaps the next as far as the row needs, never
// showing less than 24 px of itself (the style sheet's flex rules); a hand
// too long for one row at that overlap (24 cards on a narrow phone) is laid
// in two rows.
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { _ } from "./i18n.js";
import { handOrder, kindClass, spoken } from "./cards.js";
import { face } from "./faces.js";
import { html } from "./ui.js";

export function Card({ code, small, seat, extra }) {
  return html`<span class=${`card ${kindClass(code)}${small ? " small" : ""}`} role="img" aria-label=${spoken(code)}
    title=${spoken(code)} data-card=${code} data-seat=${seat}>${face(code)}${extra}</span>`;
}

export function CardList({ codes, label: name, className = "" }) {
  return html`<span class=${`card-list ${className}`} role="group" aria-label=${name}>
    ${codes.map((c) => html`<${Card} key=${c} code=${c} small />`)}</span>`;
}

// The least of a card that shows beside its neighbour, and what a row keeps
// for its last card: CSS px (the style sheet's `.hand li` min-width).
const PEEK = 26;

/** How many rows `n` cards need in `box` (the hand's element): as few as
 * keep PEEK px of each card showing (two at 24 cards on a narrow phone,
 * three for the taker's 30 while discarding at three players). */
function rowsFor(box, n) {
  if (!box) return 1;
  const card = box.querySelector("button.card .face");
  const width = box.querySelector(".hand")?.clientWidth || box.clientWidth;
  const cardWidth = card ? card.getBoundingClientRect().width : 48;
  const fit = Math.max(1, Math.floor((width - cardWidth) / PEEK) + 1);
  return Math.max(1, Math.ceil(n / fit));
}

function useRows(n) {
  const box = useRef(null);
  const [rows, setRows] = useState(1);
  useLayoutEffect(() => {
    const again = () => setRows(rowsFor(box.current, n));
    again();
    window.addEventListener("resize", again);
    return () => window.removeEventListener("resize", again);
  }, [n]);
  return [box, rows];
}

/**
 * `mode`: "play" (enabled: `allowed`, click plays), "pick" (enabled: `allowed`,
 * click toggles `picked`), or "look" (nothing enabled). `marked`: the cards
 * to show as come from the chien. `twoTaps`: a first tap only raises a card,
 * the second plays it (a setting, for phones).
 */
export function Hand({ hand, mode, allowed, picked, onCard, busy, marked = [], twoTaps = false }) {
  const cards = handOrder(hand);
  const [box, rows] = useRows(cards.length);
  const [armed, setArmed] = useState(null);
  const title = _("Your hand ({n})", { n: hand.length });
  const tap = (code) => {
    if (mode === "play" && twoTaps && armed !== code) {
      setArmed(code);
      return;
    }
    setArmed(null);
    onCard(code);
  };
  const one = (code) => {
    const enabled = mode !== "look" && allowed.includes(code) && !busy;
    const chosen = mode === "pick" && picked.includes(code);
    const dog = marked.includes(code);
    const cls = `card ${kindClass(code)}${chosen ? " chosen" : ""}${enabled ? " legal" : ""}${dog ? " from-dog" : ""}${
      armed === code ? " armed" : ""}`;
    return html`<li key=${code}>
      <button class=${cls} disabled=${!enabled} aria-pressed=${mode === "pick" ? String(chosen) : undefined}
        data-card=${code} onClick=${() => enabled && tap(code)}>${face(code)}
        <span class="visually-hidden">${spoken(code)}</span>
        ${dog && html`<span class="dog-mark" aria-hidden="true">◆</span><span class="sr-note">${_("(from the chien)")}</span>`}</button>
    </li>`;
  };
  const per = Math.ceil(cards.length / rows);
  const lines = Array.from({ length: rows }, (_x, i) => cards.slice(i * per, (i + 1) * per)).filter((l) => l.length);
  return html`<section class=${`hand-box mode-${mode}${rows > 1 ? " two-rows" : ""}`} aria-label=${title} ref=${box}>
    <h2 class="visually-hidden">${title}</h2>
    ${lines.map((line, i) => html`<ul class="hand" key=${i}>${line.map(one)}</ul>`)}
  </section>`;
}
