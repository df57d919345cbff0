// Cards drawn as cards: each face an SVG made here (no picture copied from
// anywhere): the index in the top-left corner (what shows of a card under its
// neighbour in a fanned hand) and again upside down, a large sign in the
// middle: the suit's, a framed letter for a court card, the number large on a
// trump, a star in a ring for the Excuse. Suit signs are paths in one <symbol>
// each (`SuitSymbols`, put once in the page); the colours come from the style
// sheet (`.pip-h` ...), so a four-colour deck and dark mode are a class away.
// The face is a picture only (aria-hidden): the element around it carries the
// card's name.
import { ENGLISH_RANKS, isTrump, rankLetters, suitOf, trumpNumber } from "./cards.js";
import { html } from "./ui.js";

const SUIT_PATHS = {
  H: "M50 92C22 70 4 52 4 31C4 15 16 4 30 4c10 0 16 6 20 14c4-8 10-14 20-14c14 0 26 11 26 27c0 21-18 39-46 61z",
  D: "M50 2L88 50L50 98L12 50z",
  S: "M50 3C38 24 6 40 6 63c0 13 10 22 22 22c9 0 15-4 19-9c-1 10-5 16-13 20h32c-8-4-12-10-13-20c4 5 10 9 19 9c12 0 22-9 22-22C94 40 62 24 50 3z",
  C: "M50 5a19 19 0 1 1 0 38a19 19 0 1 1 0-38zM29 38a19 19 0 1 1 0 38a19 19 0 1 1 0-38zM71 38a19 19 0 1 1 0 38a19 19 0 1 1 0-38zM46 44h8l6 52H40z",
};

/** The four suit signs, once per page: the faces `<use>` them. */
export function SuitSymbols() {
  return html`<svg class="symbols" aria-hidden="true" focusable="false" width="0" height="0">
    ${Object.entries(SUIT_PATHS).map(([s, d]) => html`<symbol id=${`suit-${s}`} viewBox="0 0 100 100"><path d=${d} /></symbol>`)}
  </svg>`;
}

/** The rank as the index shows it: 10, 7, R (French King), 21 for a trump. */
export function indexOf(code) {
  if (code === "EX") return "★";
  if (isTrump(code)) return String(trumpNumber(code));
  const rank = code.slice(0, -1);
  const i = ENGLISH_RANKS.indexOf(rank);
  if (rank.length === 1 && i >= 0) return rankLetters()[i];
  return rank === "1" ? "1" : rank;
}

/** The card's face: an <svg> (60 × 90 units). */
export function face(code) {
  const suit = suitOf(code);
  const idx = indexOf(code);
  const corner = (x, y, rotate) => html`<g transform=${rotate ? `rotate(180 30 45)` : undefined}>
      <text x=${x} y=${y} class="idx" text-anchor="middle">${idx}</text>
      ${suit.length === 1 && suit !== "T" && html`<use href=${`#suit-${suit}`} x=${x - 5.5} y=${y + 2} width="11" height="11" />`}
    </g>`;
  let middle;
  if (suit === "T") {
    middle = html`<rect x="13" y="18" width="34" height="54" rx="4" class="trump-band" />
      <text x="30" y="55" class=${`trump-num${idx.length > 1 ? " two" : ""}`} text-anchor="middle">${idx}</text>`;
  } else if (suit === "EX") {
    middle = html`<circle cx="30" cy="46" r="17" class="excuse-ring" />
      <path class="excuse-star" d="M30 31l4.4 9.6 10.5 1.2-7.8 7.1 2.2 10.3L30 54l-9.3 5.2 2.2-10.3-7.8-7.1 10.5-1.2z" />`;
  } else if (ENGLISH_RANKS.includes(code.slice(0, -1))) {
    middle = html`<rect x="14" y="20" width="32" height="50" rx="3" class="court" />
      <text x="30" y="50" class="court-letter" text-anchor="middle">${idx}</text>
      <use href=${`#suit-${suit}`} x="23" y="54" width="14" height="14" />`;
  } else {
    middle = html`<use href=${`#suit-${suit}`} x="15" y="27" width="30" height="30" />`;
  }
  return html`<svg class=${`face pip-${suit.toLowerCase()}`} viewBox="0 0 60 90" aria-hidden="true" focusable="false">
    <rect x="1" y="1" width="58" height="88" rx="5" class="face-bg" />
    ${corner(suit === "T" || suit === "EX" ? 10 : 9, 14, false)}
    ${middle}
    ${corner(suit === "T" || suit === "EX" ? 10 : 9, 14, true)}
  </svg>`;
}
