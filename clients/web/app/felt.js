// The felt: the seats around it in playing order and the trick in its
// middle, each card in front of the seat that played it. Tarot goes
// counter-clockwise, so from ours (at the bottom) the next seat sits on our
// right, then across, then on our left. A place is a name of the felt's
// grid (style.css): `you`, `right`, `top`, `left`, and at three and five the
// corners `tr`, `tl`.
import { _, ngettext } from "./i18n.js";
import { Card, CardList } from "./hand.js";
import { html, useNow } from "./ui.js";
import { contract, seatName, seatState } from "./words.js";

export const PLACES = {
  3: ["you", "tr", "tl"],
  4: ["you", "right", "top", "left"],
  5: ["you", "right", "tr", "tl", "left"],
};

/** The felt's place of `seat`, seen from `bottom` (our seat, or 0 for a spectator). */
export function placeOf(seat, bottom, n) {
  return (PLACES[n] || PLACES[4])[(seat - bottom + n) % n];
}

export function Countdown({ at, words }) {
  const now = useNow(at !== null);
  if (at === null) return null;
  const seconds = Math.max(0, Math.ceil(at - now / 1000));
  return html`<span class="countdown">${words(seconds)}</span>`;
}

function Seat({ view, seat, place }) {
  const s = view.seats[seat];
  const deal = view.deal;
  const turn = deal && deal.turn === seat && view.status === "playing";
  const marks = [];
  if (deal && deal.dealer === seat) marks.push(html`<span class="mark dealer" title=${_("Dealer")}>D</span>`);
  if (deal && deal.taker === seat) marks.push(html`<span class="mark taker" title=${_("taker")}>★</span>`);
  if (deal && deal.partner === seat) {
    marks.push(html`<span class="mark partner" title=${_("the taker's partner at five, once the called card is played")}>☆</span>`);
  }
  const bid = deal?.bids.find((b) => b.seat === seat);
  const poignee = deal && deal.tricks.length === 0 ? deal.poignees.find((p) => p.seat === seat) : null;
  const away = s.away || (s.kind === "human" && !s.connected);
  return html`<li class=${`seat at-${place}${turn ? " turn" : ""}${away ? " away" : ""}${s.kind === "bot" ? " bot" : ""}`}
      data-seat=${seat} data-you=${seat === view.you ? "" : undefined} aria-current=${turn ? "true" : undefined}>
    <span class="seat-name">${seatName(view, seat, true)}</span>
    <span class="seat-marks">${marks}${bid && html`<span class="seat-bid">${contract(bid.bid)}</span>`}
      ${deal && deal.called && deal.taker === seat && html`<span class="seat-called">${_("calls")} <${Card} code=${deal.called} small /></span>`}</span>
    <span class="seat-state">${seatState(view, seat)}${s.cards ? ` · ${ngettext("{n} card", "{n} cards", s.cards)}` : ""}</span>
    ${turn && html`<span class="seat-turn">${_("whose turn")}${view.deadline !== null &&
      html` <${Countdown} at=${view.deadline} words=${(sec) => _("{s}s left", { s: sec })} />`}</span>`}
    ${view.status === "between_deals" && s.kind === "human" && !view.ready.includes(seat) &&
      html`<span class="seat-reading">${_("still reading")}</span>`}
    ${poignee && html`<${CardList} className="poignee-pop" codes=${poignee.cards} label=${_("Poignée")} />`}
  </li>`;
}

export function Seats({ view, bottom }) {
  const n = view.seats.length;
  return html`<ul class=${`seats seats-${n}`} aria-label=${_("Seats")}>
    ${view.seats.map((_s, i) => {
      const seat = (bottom + i) % n;
      return html`<${Seat} key=${seat} view=${view} seat=${seat} place=${placeOf(seat, bottom, n)} />`;
    })}
  </ul>`;
}

/** A trick on the felt: each card at its player's side of the middle
 * (`sent`: our card shown before the server has taken it). */
export function Trick({ view, trick, title, bottom, className = "", sent = null }) {
  if (!trick) return null;
  const n = view.seats.length;
  return html`<figure class=${`trick ${className}`} aria-label=${title}>
    <figcaption>${title}</figcaption>
    <ol class=${`trick-cards trick-${n}`}>
      ${trick.cards.map((code, i) => {
        const seat = (trick.leader + i) % n;
        const won = trick.winner === seat;
        return html`<li key=${code} class=${`at-${placeOf(seat, bottom, n)}${won ? " won" : ""}${code === sent ? " sent" : ""}`}>
          <span class="trick-who">${seatName(view, seat)}${won ? " ✓" : ""}</span>
          <${Card} code=${code} seat=${seat} /></li>`;
      })}
    </ol>
  </figure>`;
}
