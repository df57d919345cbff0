// The table: seats, the trick and the last trick, bidding, the écart with its
// rule, the chelem, the poignée, the hand, the result that waits with
// Continue, the invite link. What to offer comes from `legal`, never from our
// own reading of the rules.
import { useEffect, useState } from "preact/hooks";
import { _, ngettext } from "./i18n.js";
import { Card, CardList, Hand } from "./hand.js";
import { kindClass, label } from "./cards.js";
import { html } from "./ui.js";
import { useEscape } from "./keys.js";
import { Chat, Sheet } from "./sheet.js";
import { PastDeals } from "./history.js";
import {
  CONTRACT_ORDER, bidHelp, botLevel, callReason, contract, ecartProblem, myTurn,
  partnerLine, poigneeDefault, poigneeProblem, prompt, reading, readingNow, resultLines, seatName, seatState, signed, tableName, labelled,
} from "./words.js";
import { needText, poigneeChoice } from "./facts.js";
import { copyOrSelect, copyWords } from "./copylink.js";

// Where each seat sits, from ours (bottom) in playing order (counterclockwise).
const PLACES = {
  3: ["bottom", "right", "left"],
  4: ["bottom", "right", "top", "left"],
  5: ["bottom", "right", "top-right", "top-left", "left"],
};

function useNow(active) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!active) return undefined;
    const id = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(id);
  }, [active]);
  return now;
}

function Countdown({ at, words }) {
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
  if (deal && deal.dealer === seat) marks.push(html`<span class="mark" title=${_("Dealer")}>D</span>`);
  if (deal && deal.taker === seat) marks.push(html`<span class="mark" title=${_("taker")}>★</span>`);
  if (deal && deal.partner === seat) {
    marks.push(html`<span class="mark" title=${_("the taker's partner at five, once the called card is played")}>☆</span>`);
  }
  const bid = deal?.bids.find((b) => b.seat === seat);
  return html`<li class=${`seat seat-${place}${turn ? " turn" : ""}${s.away ? " away" : ""}`}
      aria-current=${turn ? "true" : undefined}>
    <span class="seat-name">${turn ? "▶ " : ""}${seatName(view, seat, true)}</span>
    ${marks}
    <span class="seat-state">${seatState(view, seat)}${s.cards ? ` · ${ngettext("{n} card", "{n} cards", s.cards)}` : ""}</span>
    ${bid && html`<span class="seat-bid">${contract(bid.bid)}</span>`}
    ${turn && html`<span class="visually-hidden">${_("whose turn")}</span>`}
    ${view.status === "between_deals" && s.kind === "human" && !view.ready.includes(seat) &&
      html`<span class="seat-reading">${_("still reading")}</span>`}
  </li>`;
}

function Trick({ view, trick, title }) {
  if (!trick) return null;
  return html`<figure class="trick" aria-label=${title}>
    <figcaption>${title}</figcaption>
    <ol class="trick-cards">
      ${trick.cards.map((code, i) => {
        const seat = (trick.leader + i) % view.seats.length;
        const won = trick.winner === seat;
        return html`<li key=${code}><span class="trick-who">${seatName(view, seat)}${won ? " ✓" : ""}</span>
          <${Card} code=${code} /></li>`;
      })}
    </ol>
  </figure>`;
}

function LastTrick({ view, trick, onClose }) {
  useEscape(onClose);
  return html`<${Trick} view=${view} trick=${trick} title=${_("Last trick")} />`;
}

function Bidding({ legal, move, busy }) {
  return html`<div class="choices" role="group" aria-label=${_("Bids")}>
    ${CONTRACT_ORDER.filter((b) => legal.bids.includes(b)).map(
      (b) => html`<button key=${b} disabled=${busy} onClick=${() => move({ t: "bid", bid: b })}
        aria-describedby=${`help-${b}`} data-bid=${b}>${contract(b)}
        <small id=${`help-${b}`}>${bidHelp(b)}</small></button>`,
    )}
  </div>`;
}

function CallBar({ view, move, busy }) {
  const calls = view.legal.calls;
  const held = calls.filter((c) => view.hand.includes(c));
  return html`<div class="choices" role="group" aria-label=${_("Call a card")}>
    <p class="rule">${callReason(calls)}</p>
    <p class="hint">${_("Its holder becomes your partner, a secret until the card is played. In the chien or in your own hand, it leaves you alone against four.")}</p>
    ${calls.map(
      (c) => html`<button key=${c} data-call=${c} class=${held.includes(c) ? "secondary" : undefined} disabled=${busy}
        onClick=${() => move({ t: "call", card: c })} aria-describedby=${`note-${c}`}><span class=${kindClass(c)}>${label(c)}</span>
        <small id=${`note-${c}`}>${held.includes(c) ? _("in your hand: you would play alone") : _("its holder plays with you")}</small></button>`,
    )}
  </div>`;
}

function Chelem({ move, busy }) {
  return html`<div class="choices" role="group" aria-label=${_("Chelem")}>
    <button disabled=${busy} onClick=${() => move({ t: "chelem", declare: false })}>${_("No chelem")}</button>
    <button class="secondary" disabled=${busy} onClick=${() => move({ t: "chelem", declare: true })}>
      ${_("Declare a chelem")}</button>
  </div>`;
}

function EcartBar({ picked, legal, move, clear, busy }) {
  const problem = ecartProblem(picked, legal);
  return html`<div class="choices" role="group" aria-label=${_("Écart")}>
    <p class="rule">${_("never a King or a bout; trumps only when you have no other card")}</p>
    <p class="status-line" aria-live="polite">${problem ? _("Not yet: {problem}.", { problem }) : ngettext("Discard this card?", "Discard these {n} cards?", legal.ecart_size)}</p>
    ${legal.ecart_trumps > 0 && html`<p class="hint">${_("The trumps you discard are shown to everyone.")}</p>`}
    <button disabled=${!!problem || busy} onClick=${() => move({ t: "ecart", cards: picked })}>${_("Discard")}</button>
    <button class="secondary" disabled=${!picked.length} onClick=${clear}>${_("Clear")}</button>
  </div>`;
}

function PoigneeBar({ legal, players, poignee, setPoignee, move, busy }) {
  if (!poignee) {
    return html`<div class="choices" role="group" aria-label=${_("Poignée")}>
      ${legal.poignee_sizes.map(
        (n) => html`<button key=${n} class="secondary" onClick=${() => setPoignee({ size: n, picked: poigneeDefault(legal, n) })}>
          ${poigneeChoice(players, n)}</button>`,
      )}
    </div>`;
  }
  const problem = poigneeProblem(poignee.picked, legal, poignee.size);
  return html`<div class="choices" role="group" aria-label=${_("Poignée")}>
    <p>${_("Pick the {n} cards to show (the lowest trumps are chosen), then Show.", { n: poignee.size })}</p>
    <p class="status-line" aria-live="polite">${problem ? _("Not yet: {problem}.", { problem }) : _("Ready: press “Show” to show your poignée.")}</p>
    <button disabled=${!!problem || busy} onClick=${() => { move({ t: "poignee", cards: poignee.picked }); setPoignee(null); }}>
      ${_("Show")}</button>
    <button class="secondary" onClick=${() => setPoignee(null)}>${_("Cancel")}</button>
  </div>`;
}

function Result({ view, move, busy, again }) {
  const lines = resultLines(view);
  const names = reading(view).map((s) => seatName(view, s));
  const me = readingNow(view);
  const finished = view.status === "finished";
  const rank = view.ranking || [];
  return html`<section class="result" aria-labelledby="result-title">
    <h2 id="result-title">${finished ? _("Game over") : _("Last deal")}</h2>
    <ul class="result-lines">${lines.map((l, i) => html`<li key=${i}>${l}</li>`)}</ul>
    ${view.deal?.result?.scores && html`<p>${view.deal.result.scores.map((p, s) => `${seatName(view, s)} ${signed(p)}`).join(" · ")}</p>`}
    ${finished && html`<ol class="ranking">${rank.map((s) => html`<li key=${s}>${labelled(seatName(view, s, true), signed(view.scores[s]))}</li>`)}</ol>`}
    ${!finished && names.length > 0 && html`<p>${_("Still reading: {names}", { names: names.join(", ") })}</p>`}
    ${!finished && html`<p><${Countdown} at=${view.next_deal_at} words=${(s) => _("next deal in {seconds}s", { seconds: s })} /></p>`}
    ${me && html`<button class="primary" disabled=${busy} onClick=${() => move({ t: "ready" })}
      aria-describedby="continue-help">${_("Continue")}</button>
      <p id="continue-help" class="visually-hidden">${_("you have read the result: Enter or space")}</p>`}
    ${finished && view.you !== null && again && html`<button disabled=${busy} onClick=${() => move({ t: "again" })}>${_("Play again")}</button>`}
  </section>`;
}

function Waiting({ view, move, busy, inviteUrl }) {
  const [copied, setCopied] = useState(null);
  const copy = async () => setCopied(await copyOrSelect(inviteUrl, document.getElementById("invite-link")));
  return html`<section class="waiting" aria-labelledby="waiting-title">
    <h2 id="waiting-title">${_("Waiting to start")}</h2>
    ${view.invite_code && html`<p>${_("Invite code: ")}<strong class="code">${view.invite_code}</strong></p>
      <label>${_("Invite link")} <input id="invite-link" readonly value=${inviteUrl} onFocus=${(e) => e.currentTarget.select()} /></label>
      <button class="secondary" onClick=${copy} aria-live="polite">${copyWords(copied)}</button>`}
    ${view.you !== null && view.creator === view.you &&
      html`<button class="primary" disabled=${busy} onClick=${() => move({ t: "start" })}>${_("Start the game")}</button>`}
  </section>`;
}

function DealFacts({ view }) {
  const deal = view.deal;
  if (!deal) return null;
  return html`<div class="facts">
    ${deal.bids.length > 0 && html`<p>${labelled(_("Bids"), deal.bids.map((b) => `${seatName(view, b.seat)} ${contract(b.bid)}`).join(" · "))}</p>`}
    ${deal.chien.length > 0 && html`<p>${_("Chien:")} <${CardList} codes=${deal.chien} label=${_("Chien:")} /></p>`}
    ${deal.ecart_trumps.length > 0 && html`<p>${_("Écart trumps:")} <${CardList} codes=${deal.ecart_trumps} label=${_("Écart trumps:")} /></p>`}
    ${view.ecart.length > 0 && html`<p>${_("Your écart:")} <${CardList} codes=${view.ecart} label=${_("Your écart:")} /></p>`}
    ${deal.poignees.map((p) => html`<p key=${p.seat}>${_("Poignée {size}: {who}", { size: _(p.size), who: seatName(view, p.seat) })}
      <${CardList} codes=${p.cards} label=${_("Poignée")} /></p>`)}
    ${deal.called && html`<p class="called">${partnerLine(view)}</p>`}
    ${deal.chelem_declared && html`<p>${_("Chelem declared!")}</p>`}
    ${deal.taker !== null && html`<p>${_("Tricks: taker {taker} · def {defense}", { taker: deal.tricks_won[0], defense: deal.tricks_won[1] })} · ${needText(view)}</p>`}
  </div>`;
}

export function TableScreen({ view, move, act, busy, inviteUrl, onLeave, log, history, askHistory, again = true }) {
  const [picked, setPicked] = useState([]);
  const [poignee, setPoignee] = useState(null);
  const [panel, setPanel] = useState(null); // "sheet" | "chat" | "last" | "past"
  const legal = view.legal;
  const ecartKey = legal.ecart.join(",");
  useEffect(() => setPicked([]), [ecartKey]);
  useEffect(() => {
    if (!legal.poignee_sizes.length) setPoignee(null);
  }, [legal.poignee_sizes.length]);

  const deal = view.deal;
  const bottom = view.you ?? 0;
  const n = view.seats.length;
  const lastTrick = deal && deal.tricks.length ? deal.tricks[deal.tricks.length - 1] : null;
  let mode = "look";
  let allowed = [];
  let onCard = () => {};
  if (legal.ecart.length) {
    mode = "pick";
    allowed = legal.ecart;
    onCard = (c) => setPicked((p) => (p.includes(c) ? p.filter((x) => x !== c) : [...p, c]));
  } else if (poignee) {
    mode = "pick";
    allowed = legal.poignee_cards;
    onCard = (c) => setPoignee((p) => ({ ...p, picked: p.picked.includes(c) ? p.picked.filter((x) => x !== c) : [...p.picked, c] }));
  } else if (legal.cards.length) {
    mode = "play";
    allowed = legal.cards;
    onCard = (c) => move({ t: "play", card: c });
  }
  const over = view.status === "between_deals" || view.status === "finished";
  const head = [
    view.private ? _("(private)") : "",
    deal ? _("deal {n}/{total}", { n: deal.number, total: view.deals }) : ngettext("{n} deal", "{n} deals", view.deals),
    _("bots {level}", { level: botLevel(view.bot_level) }),
    view.turn_timer ? _("{s}s a move", { s: view.turn_timer }) : "",
    view.spectators ? ngettext("{n} watching", "{n} watching", view.spectators) : "",
  ].filter(Boolean);
  const toggle = (name) => setPanel((p) => (p === name ? null : name));

  return html`<div class=${`table-screen${view.you === null ? " spectating" : ""}`}>
    <header class="table-head">
      <h1 class="screen-title">${tableName(view.name)}</h1>
      <p class="table-meta">${head.join(" · ")}${view.you === null ? ` · ${_("Watching: hands stay hidden")}` : ""}</p>
      <nav class="table-actions" aria-label=${_("At the table")}>
        <button class="secondary" aria-pressed=${String(panel === "sheet")} onClick=${() => toggle("sheet")}>${_("Score sheet")}</button>
        <button class="secondary" aria-pressed=${String(panel === "chat")} onClick=${() => toggle("chat")}>
          ${_("Chat")}${view.chat.length ? ` (${view.chat.length})` : ""}</button>
        <button class="secondary" aria-pressed=${String(panel === "last")} disabled=${!lastTrick} onClick=${() => toggle("last")}>
          ${_("Last trick")}</button>
        <button class="secondary" aria-pressed=${String(panel === "past")} disabled=${!view.sheet.length}
          onClick=${() => { if (panel !== "past") askHistory(); toggle("past"); }}>${_("Past deals")}</button>
        <button class="secondary" onClick=${onLeave}>${_("Leave")}</button>
      </nav>
    </header>
    <ul class=${`seats seats-${n}`} aria-label=${_("Seats")}>
      ${view.seats.map((_s, i) => {
        const seat = (bottom + i) % n;
        return html`<${Seat} key=${seat} view=${view} seat=${seat} place=${(PLACES[n] || PLACES[4])[i]} />`;
      })}
    </ul>
    <div class="middle">
      <p class="prompt" id="prompt">${prompt(view)}
        ${view.deadline !== null && html` <${Countdown} at=${view.deadline} words=${(s) => _("{s}s left", { s })} />`}</p>
      ${deal && deal.trick && html`<${Trick} view=${view} trick=${deal.trick} title=${_("Trick {n}", { n: deal.tricks.length + 1 })} />`}
      ${panel === "last" && lastTrick && html`<${LastTrick} view=${view} trick=${lastTrick} onClose=${() => setPanel(null)} />`}
      ${view.status === "waiting" && html`<${Waiting} view=${view} move=${move} busy=${busy} inviteUrl=${inviteUrl} />`}
      ${over && deal && html`<${Result} view=${view} move=${move} busy=${busy} again=${again} />`}
      ${legal.bids.length > 0 && html`<${Bidding} legal=${legal} move=${move} busy=${busy} />`}
      ${legal.calls.length > 0 && html`<${CallBar} view=${view} move=${move} busy=${busy} />`}
      ${legal.chelem && html`<${Chelem} move=${move} busy=${busy} />`}
      ${legal.ecart.length > 0 && html`<${EcartBar} picked=${picked} legal=${legal} move=${move} busy=${busy} clear=${() => setPicked([])} />`}
      ${legal.poignee_sizes.length > 0 && myTurn(view) &&
        html`<${PoigneeBar} legal=${legal} players=${view.deal.players} poignee=${poignee} setPoignee=${setPoignee} move=${move} busy=${busy} />`}
      <${DealFacts} view=${view} />
    </div>
    ${view.you !== null && view.hand.length > 0 &&
      html`<${Hand} hand=${view.hand} mode=${mode} allowed=${allowed} picked=${poignee ? poignee.picked : picked}
        onCard=${onCard} busy=${busy} />`}
    ${panel === "sheet" && html`<${Sheet} view=${view} onClose=${() => setPanel(null)} />`}
    ${panel === "chat" && html`<${Chat} view=${view} act=${act} onClose=${() => setPanel(null)} />`}
    ${panel === "past" && html`<${PastDeals} view=${view} records=${history} onClose=${() => setPanel(null)} />`}
    <section class="log" aria-label=${_("What happened")}>
      <h2 class="visually-hidden">${_("What happened")}</h2>
      <ol>${log.slice(-6).map((l) => html`<li key=${l.id}>${l.text}</li>`)}</ol>
    </section>
  </div>`;
}
