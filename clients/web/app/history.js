// Past deals: the table's `history` (deal records, docs/DEAL-RECORD.md), one
// line each, and a deal replayed trick by trick — who led, who played what,
// who took it. A record holds cards and bids only; who led and took each
// trick follows from the rules of play (`trickWinner`), as in the terminal
// client (clients/cli/history.py, which replays through the engine itself).
import { useState } from "preact/hooks";
import { _ } from "./i18n.js";
import { isTrump, suitOf, trumpNumber } from "./cards.js";
import { Card } from "./hand.js";
import { Panel, html } from "./ui.js";
import { contract, labelled, seatName, sheetAnnulled, sheetContract } from "./words.js";

const RANKS = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "C", "Q", "K"];

/** Which of a trick's cards wins it (index from its leader): the highest
 * trump, else the highest card of the suit led; the Excuse never, but when
 * it is led to the last trick of a declared chelem. */
export function trickWinner(cards, last = false, chelem = false) {
  if (last && chelem && cards[0] === "EX") return 0;
  const led = suitOf(cards.find((c) => c !== "EX") ?? "EX");
  let best = -1;
  let score = -1;
  cards.forEach((c, i) => {
    let s = -1;
    if (isTrump(c)) s = 100 + trumpNumber(c);
    else if (c !== "EX" && suitOf(c) === led) s = RANKS.indexOf(c.slice(0, -1));
    if (s > score) [best, score] = [i, s];
  });
  return best < 0 ? 0 : best;
}

/** One record read: bids by seat, the taker, and the tricks with their seats. */
export function pastDeal(record) {
  const n = record.players || 4; // records before three and five have no `players`
  const first = (record.dealer + 1) % n;
  const bids = (record.bids || []).map((bid, i) => ({ seat: (first + i) % n, bid }));
  const taking = bids.filter((b) => b.bid !== "pass");
  const taker = taking.length ? taking[taking.length - 1].seat : null;
  const chelem = !!record.chelem;
  let leader = chelem && taker !== null ? taker : first;
  const tricks = (record.tricks || []).map((cards, k, all) => {
    const win = trickWinner(cards, k === all.length - 1, chelem);
    const trick = { leader, cards: cards.map((code, i) => ({ seat: (leader + i) % n, code })), winner: (leader + win) % n };
    leader = trick.winner;
    return trick;
  });
  return { dealer: record.dealer, bids, taker, tricks };
}

function summary(view, line, index) {
  const head = _("#{index} deal {number}", { index, number: line ? line.number : index });
  if (!line) return head;
  const what = line.annulled ? sheetAnnulled(line.annulled)
    : `${sheetContract(line.contract, line.made)} (${seatName(view, line.taker)} ★)`;
  return `${head} · ${what}`;
}

function Replay({ view, deal, back }) {
  const [at, setAt] = useState(0);
  const total = deal.tricks.length;
  const trick = deal.tricks[Math.min(at, total - 1)];
  const bids = deal.bids.map((b) => labelled(seatName(view, b.seat), contract(b.bid).toLowerCase())).join(" · ");
  return html`<div class="replay">
    ${bids && html`<p>${_("Bids: {bids}", { bids })}</p>`}
    ${trick ? html`<figure class="trick" aria-label=${_("Trick {n} of {total}", { n: at + 1, total })}>
      <figcaption>${[
        _("Trick {n} of {total}", { n: at + 1, total }),
        _("{who} led", { who: seatName(view, trick.leader) }),
        trick.winner === view.you ? _("you took it") : _("{who} took it", { who: seatName(view, trick.winner) }),
      ].join(" · ")}</figcaption>
      <ol class="trick-cards">${trick.cards.map((c) => html`<li key=${c.code}>
        <span class="trick-who">${seatName(view, c.seat)}${c.seat === trick.winner ? " ✓" : ""}</span><${Card} code=${c.code} /></li>`)}</ol>
    </figure>` : html`<p>${_("Deal annulled")}</p>`}
    <div class="row-actions">
      <button class="secondary" disabled=${at <= 0} onClick=${() => setAt(at - 1)}>${_("Previous trick")}</button>
      <button class="secondary" disabled=${at >= total - 1} onClick=${() => setAt(at + 1)}>${_("Next trick")}</button>
      <button class="secondary" onClick=${back}>${_("Back")}</button>
    </div>
  </div>`;
}

/** The panel: `records` null while the server is asked. */
export function PastDeals({ view, records, onClose }) {
  const [open, setOpen] = useState(null);
  const title = _("Past deals");
  let body;
  if (records === null) body = html`<p>${_("Asking the server for this table's past deals…")}</p>`;
  else if (!records.length) body = html`<p>${_("No deal has finished at this table yet.")}</p>`;
  else if (open !== null) body = html`<${Replay} view=${view} deal=${pastDeal(records[open])} back=${() => setOpen(null)} />`;
  else {
    // The score sheet has a line per record, annulled attempts included.
    const lines = view.sheet.length === records.length ? view.sheet : [];
    body = html`<ol class="past">${records.map((r, i) => html`<li key=${i}>
      <button class="secondary" onClick=${() => setOpen(i)}>${summary(view, lines[i], i + 1)}</button></li>`)}</ol>`;
  }
  return html`<${Panel} title=${title} onClose=${onClose}>${body}</${Panel}>`;
}
