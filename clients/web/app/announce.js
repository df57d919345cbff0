// What a person must hear as the game goes: bids, the contract, tricks
// taken, a deal's end. Worked out from two successive table views (pure),
// read out through a live region and listed in the table's log.
import { _, pgettext } from "./i18n.js";
import { label } from "./cards.js";
import { about, annulment, contract, labelled, partnerLine, resultLines, seatName } from "./words.js";

// Punctuation is the language's: Chinese ends a sentence with "。" and
// lists with "，", where English and French write ". " and ", ".
const stop = () => pgettext("between sentences", ". ");
const comma = () => pgettext("between list items", ", ");

export function announcements(before, after) {
  const out = [];
  if (!after) return out;
  const d1 = before?.deal ?? null;
  const d2 = after.deal;
  if (!d2) return out;
  const who = (seat) => seatName(after, seat);
  const you = (seat) => seat === after.you;
  const fresh = !d1 || d1.number !== d2.number || d1.dealer !== d2.dealer || d2.bids.length < d1.bids.length;
  if (fresh && d2.phase === "bidding") out.push(about("deals", who(d2.dealer), you(d2.dealer), { deal: d2.number }));
  const oldBids = fresh ? 0 : d1.bids.length;
  for (const b of d2.bids.slice(oldBids)) out.push(labelled(who(b.seat), contract(b.bid)));
  if (d2.taker !== null && (fresh || d1.taker === null) && d2.contract) {
    out.push(about("takes_contract", who(d2.taker), you(d2.taker), { contract: contract(d2.contract) }));
  }
  if (d2.called && (fresh || !d1.called)) out.push(about("calls", who(d2.taker), you(d2.taker), { card: label(d2.called) }));
  if (d2.partner !== null && d2.partner !== undefined && (fresh || d1.partner === null || d1.partner === undefined)) {
    out.push(partnerLine(after));
  }
  if (d2.chelem_declared && (fresh || !d1.chelem_declared)) out.push(about("declares_chelem", who(d2.taker), you(d2.taker)));
  for (const p of d2.poignees.slice(fresh ? 0 : d1.poignees.length)) {
    out.push(about("shows_poignee", who(p.seat), you(p.seat), { size: p.cards.length, cards: p.cards.map(label).join(" ") }));
  }
  const oldTricks = fresh ? 0 : d1.tricks.length;
  d2.tricks.slice(oldTricks).forEach((t, i) => {
    const n = oldTricks + i + 1;
    const cards = t.cards.map((c, j) => `${who((t.leader + j) % after.seats.length)} ${label(c)}`).join(comma());
    const key = n === d2.hand_size ? "takes_last_trick" : "takes_trick";
    out.push(`${cards}${stop()}${about(key, who(t.winner), you(t.winner), { trick: n })}`);
  });
  const ended = (d) => d && (d.phase === "done" || d.phase === "annulled");
  if (ended(d2) && (fresh || !ended(d1))) {
    if (d2.phase === "annulled") {
      const seat = d2.annulled_seat;
      out.push(annulment(d2.annulled, seat !== null ? who(seat) : null, seat !== null && you(seat)));
    } else {
      out.push(resultLines(after).join(stop()));
    }
  }
  if (after.status === "finished" && before?.status !== "finished") out.push(_("Game over"));
  return out;
}
