// The hint button of the table (issue 36): at a casual table, on your turn,
// ask the server what the strong bot would do in your seat, and show its
// choice with a one-line reason in your language. Daily and tournament
// tables give no hints (the server refuses them: `no_hints`), so the button
// is not offered there. Self-contained (one call site in main.js): it hears
// its answer by wrapping the connection's message handler once.
import { useEffect, useState } from "preact/hooks";
import { _, N_ } from "./i18n.js";
import { html } from "./ui.js";
import { label } from "./cards.js";
import { contract } from "./words.js";

const SYMBOLS = { S: "♠", H: "♥", D: "♦", C: "♣" };
const DAILY = /^Daily \d{4}-\d\d-\d\d( \(practice\))?$/;

// The words of each reason code (docs/PROTOCOL.md, `hint`), the terminal client's msgids.
export const REASONS = {
  weak_hand: N_("the hand makes no contract"),
  trumps_and_bouts: N_("trumps and bouts"),
  long_suit: N_("long in {suit}"),
  strong_hand: N_("a hand of honours"),
  call_king: N_("the King of {suit}"),
  void_suit: N_("voids {suit} to trump it"),
  bank_points: N_("puts points away safe"),
  no_chelem: N_("no chelem without every trick sure"),
  show_poignee: N_("the poignée's bonus"),
  only_card: N_("the only card you may play"),
  save_petit: N_("saves the Petit in a trick your camp wins"),
  keep_petit: N_("keeps the Petit safe"),
  petit_au_bout: N_("the Petit in the last trick"),
  excuse: N_("the Excuse rather than a card worth points"),
  draw_trumps: N_("draws the defence's trumps"),
  cash_king: N_("cashes the King of {suit}"),
  win_trick: N_("takes the trick"),
  give_points: N_("gives points to your camp's trick"),
  cheap_card: N_("the trick is lost: the cheapest card"),
};

/** The line for a `hint` answer: the choice, then why. */
export function hintLine(answer) {
  let choice;
  if (answer.command === "bid") choice = contract(answer.choice[0]);
  else if (answer.command === "chelem") choice = answer.choice[0] === "yes" ? _("declare a chelem") : _("no chelem");
  else choice = answer.choice.map(label).join(" ");
  const words = REASONS[answer.reason];
  if (!words) return _("Hint: {choice}", { choice }); // a reason newer than this page
  const reason = _(words, { suit: SYMBOLS[answer.suit] || "" });
  return _("Hint: {choice} — {reason}", { choice, reason });
}

const asked = new WeakMap(); // connection -> {rid, answer, show}

function listen(conn) {
  let entry = asked.get(conn);
  if (entry) return entry;
  entry = { rid: null, answer: null, show: null };
  asked.set(conn, entry);
  const onMessage = conn.onMessage;
  conn.onMessage = (msg, sync) => {
    if (msg.t === "hint" && msg.rid === entry.rid) {
      entry.answer = msg;
      if (entry.show) entry.show(msg);
    }
    onMessage(msg, sync);
  };
  return entry;
}

export const casual = (view, tournament) => view.you !== null && !tournament && !DAILY.test(view.name);
const myDecision = (view) => {
  const l = view.legal;
  return Boolean(l.bids.length || l.calls.length || l.ecart.length || l.chelem || l.cards.length);
};

/** The "Hint" button and the hint's line, for a seated player at a casual table. */
export function HintButton({ view, conn, tournament = false }) {
  const [answer, setAnswer] = useState(null);
  const entry = conn ? listen(conn) : null;
  useEffect(() => {
    if (!entry) return undefined;
    entry.show = setAnswer;
    return () => { entry.show = null; };
  }, [entry]);
  // A hint answers one decision: the next view's decision needs its own.
  const d = view.deal;
  const key = `${view.table_id}/${d?.number}/${d?.phase}/${d?.bids.length}/${d?.tricks.length}/${d?.trick?.cards.length}`;
  useEffect(() => { setAnswer(null); }, [key]);
  if (!entry || !casual(view, tournament) || !myDecision(view)) return null;
  const ask = () => {
    entry.answer = null;
    entry.rid = conn.send({ t: "hint" });
  };
  return html`<span class="hint-box">
    <button class="hint-ask" onClick=${ask}>${_("Hint")}</button>
    ${answer && html`<span class="hint-line" role="status">${hintLine(answer)}</span>`}
  </span>`;
}
