// The table: seats, the trick and the last trick, bidding, the écart with its
// rule, the chelem, the poignée, the hand, the result that waits with
// Continue, the invite link. What to offer comes from `legal`, never from our
// own reading of the rules.
import { useEffect, useState } from "preact/hooks";
import { _, ngettext } from "./i18n.js";
import { Card, CardList, Hand } from "./hand.js";
import { label } from "./cards.js";
import { face } from "./faces.js";
import { Countdown, Seats, Trick } from "./felt.js";
import { Settings } from "./settings.js";
import { html } from "./ui.js";
import { useEscape } from "./keys.js";
import { Chat, Sheet } from "./sheet.js";
import { PastDeals } from "./history.js";
import { StartBar } from "./waiting.js";
import {
  CONTRACT_ORDER, bidHelp, botLevel, callReason, contract, ecartProblem, myTurn,
  partnerLine, poigneeDefault, poigneeProblem, prompt, reading, readingNow, resultLines, seatName, seatState, signed, tableName, labelled,
} from "./words.js";
import { needText, poigneeChoice } from "./facts.js";
import { copyOrSelect, copyWords } from "./copylink.js";

function LastTrick({ view, trick, bottom, onClose }) {
  useEscape(onClose);
  return html`<div class="last-trick">
    <${Trick} view=${view} trick=${trick} bottom=${bottom} title=${_("Last trick")} className="last" />
    <button class="secondary close" onClick=${onClose}>${_("Close")}</button>
  </div>`;
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
        onClick=${() => move({ t: "call", card: c })} aria-describedby=${`note-${c}`}><span class="call-face card">${face(c)}</span><span>${label(c)}</span>
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

/** The log's last lines; once the game is over the result above says "Game
 * over", so the log does not say it a second time (the live region still
 * announces it: announce.js). */
function shownLog(view, log) {
  const over = _("Game over");
  return (view.status === "finished" ? log.filter((l) => l.text !== over) : log).slice(-6);
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
    <${StartBar} view=${view} move=${move} busy=${busy} />
  </section>`;
}

/** What the deal has shown, in a line over the felt: the called card, the
 * écart's trumps, our écart, the poignées, the tricks won and what is needed. */
function DealFacts({ view }) {
  const deal = view.deal;
  if (!deal) return null;
  return html`<div class="facts">
    ${deal.called && html`<p class="called">${partnerLine(view)}</p>`}
    ${deal.ecart_trumps.length > 0 && html`<p>${_("Écart trumps:")} <${CardList} codes=${deal.ecart_trumps} label=${_("Écart trumps:")} /></p>`}
    ${view.ecart.length > 0 && html`<p>${_("Your écart:")} <${CardList} codes=${view.ecart} label=${_("Your écart:")} /></p>`}
    ${deal.poignees.map((p) => html`<p key=${p.seat}>${_("Poignée {size}: {who}", { size: _(p.size), who: seatName(view, p.seat) })}</p>`)}
    ${deal.chelem_declared && html`<p>${_("Chelem declared!")}</p>`}
    ${deal.taker !== null && html`<p>${_("Tricks: taker {taker} · def {defense}", { taker: deal.tricks_won[0], defense: deal.tricks_won[1] })}${needText(view) ? ` · ${needText(view)}` : ""}</p>`}
  </div>`;
}

// The table's actions: an icon always (drawn by the style sheet, with no
// text of its own for a screen reader), the words beside it where there is
// room (the words stay the button's name and text for everyone).
function Action({ icon, text, pressed, disabled, onClick, extra = "" }) {
  return html`<button class="secondary action" aria-pressed=${pressed === undefined ? undefined : String(pressed)}
    disabled=${disabled} onClick=${onClick} data-icon=${icon}><span class="lbl">${text}${extra}</span></button>`;
}

export function TableScreen({
  view, move, act, busy, inviteUrl, onLeave, log, history, askHistory, again = true, prefs, setPrefs, waiting = null, played = null, hint = null,
}) {
  const [picked, setPicked] = useState([]);
  const [poignee, setPoignee] = useState(null);
  const [panel, setPanel] = useState(null); // "sheet" | "chat" | "last" | "past" | "settings"
  const legal = view.legal;
  const ecartKey = legal.ecart.join(",");
  useEffect(() => setPicked([]), [ecartKey]);
  useEffect(() => {
    if (!legal.poignee_sizes.length) setPoignee(null);
  }, [legal.poignee_sizes.length]);

  const deal = view.deal;
  const bottom = view.you ?? 0;
  // Our card on its way to the server: out of the hand and in the trick already.
  const sent = played && deal && deal.trick && view.hand.includes(played) ? played : null;
  const hand = sent ? view.hand.filter((c) => c !== sent) : view.hand;
  const trick = sent ? { ...deal.trick, cards: [...deal.trick.cards, sent] } : deal?.trick;
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
  const close = () => setPanel(null);
  // The chien face up on the felt from when it is shown until the first card is played.
  // (Not to the taker while discarding: their hand shows those cards, marked.)
  const dogShown = deal && deal.chien.length > 0 && deal.tricks.length === 0 && !(deal.trick && deal.trick.cards.length) &&
    !legal.ecart.length;
  const choosing = legal.bids.length > 0 || legal.calls.length > 0 || legal.chelem || legal.ecart.length > 0 ||
    (legal.poignee_sizes.length > 0 && myTurn(view));

  return html`<div class=${`table-screen players-${n}${view.you === null ? " spectating" : ""}`}>
    <header class="table-head">
      <div class="table-title">
        <h1 class="screen-title">${tableName(view.name)}</h1>
        <p class="table-meta">${head.join(" · ")}${view.you === null ? ` · ${_("Watching: hands stay hidden")}` : ""}</p>
      </div>
      <nav class="table-actions" aria-label=${_("At the table")}>
        <${Action} icon="Σ" text=${_("Score sheet")} pressed=${panel === "sheet"} onClick=${() => toggle("sheet")} />
        <${Action} icon="✉" text=${_("Chat")} extra=${view.chat.length ? ` (${view.chat.length})` : ""} pressed=${panel === "chat"}
          onClick=${() => toggle("chat")} />
        <${Action} icon="↶" text=${_("Last trick")} pressed=${panel === "last"} disabled=${!lastTrick} onClick=${() => toggle("last")} />
        <${Action} icon="☰" text=${_("Past deals")} pressed=${panel === "past"} disabled=${!view.sheet.length}
          onClick=${() => { if (panel !== "past") askHistory(); toggle("past"); }} />
        <${Action} icon="⚙" text=${_("Settings")} pressed=${panel === "settings"} onClick=${() => toggle("settings")} />
        <${Action} icon="⏏" text=${_("Leave")} onClick=${onLeave} />
      </nav>
    </header>
    <div class=${`felt felt-${n}`}>
      <${Seats} view=${view} bottom=${bottom} />
      <div class="centre">
        <div class="trick-area" data-trick="">
          ${deal && trick && html`<${Trick} view=${view} trick=${trick} bottom=${bottom} sent=${sent}
            title=${_("Trick {n}", { n: deal.tricks.length + 1 })} />`}
          ${dogShown && html`<div class="dog"><span class="dog-title">${_("Chien:")}</span>
            <${CardList} codes=${deal.chien} label=${_("Chien:")} /></div>`}
        </div>
        ${panel === "last" && lastTrick && html`<${LastTrick} view=${view} trick=${lastTrick} bottom=${bottom} onClose=${close} />`}
      </div>
      ${view.status === "waiting" && html`<div class="felt-over">
        <${Waiting} view=${view} move=${move} busy=${busy} inviteUrl=${inviteUrl} />
        <div class="waiting-spot">${waiting}</div>
      </div>`}
      ${over && deal && html`<div class="felt-over"><${Result} view=${view} move=${move} busy=${busy} again=${again} /></div>`}
      <section class="log" aria-label=${_("What happened")}>
        <h2 class="visually-hidden">${_("What happened")}</h2>
        <ol>${shownLog(view, log).map((l) => html`<li key=${l.id}>${l.text}</li>`)}</ol>
      </section>
      ${hint}
    </div>
    <div class=${`dock${choosing ? " choosing" : ""}`}>
      <${DealFacts} view=${view} />
      <p class="prompt" id="prompt">${prompt(view)}
        ${view.deadline !== null && html` <${Countdown} at=${view.deadline} words=${(s) => _("{s}s left", { s })} />`}</p>
      ${legal.bids.length > 0 && html`<${Bidding} legal=${legal} move=${move} busy=${busy} />`}
      ${legal.calls.length > 0 && html`<${CallBar} view=${view} move=${move} busy=${busy} />`}
      ${legal.chelem && html`<${Chelem} move=${move} busy=${busy} />`}
      ${legal.ecart.length > 0 && html`<${EcartBar} picked=${picked} legal=${legal} move=${move} busy=${busy} clear=${() => setPicked([])} />`}
      ${legal.poignee_sizes.length > 0 && myTurn(view) &&
        html`<${PoigneeBar} legal=${legal} players=${view.deal.players} poignee=${poignee} setPoignee=${setPoignee} move=${move} busy=${busy} />`}
    </div>
    ${view.you !== null && hand.length > 0 &&
      html`<${Hand} hand=${hand} mode=${mode} allowed=${allowed} picked=${poignee ? poignee.picked : picked}
        onCard=${onCard} busy=${busy} twoTaps=${prefs?.twoTaps} marked=${legal.ecart.length && deal ? deal.chien : []} />`}
    ${panel === "sheet" && html`<${Sheet} view=${view} onClose=${close} />`}
    ${panel === "chat" && html`<${Chat} view=${view} act=${act} onClose=${close} />`}
    ${panel === "past" && html`<${PastDeals} view=${view} records=${history} onClose=${close} />`}
    ${panel === "settings" && html`<${Settings} prefs=${prefs} setPrefs=${setPrefs} onClose=${close} />`}
  </div>`;
}
