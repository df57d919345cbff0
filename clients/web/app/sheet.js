// The score sheet and the chat of a table.
import { useEffect, useRef, useState } from "preact/hooks";
import { _, ngettext } from "./i18n.js";
import { Panel, html } from "./ui.js";
import { seatName, sheetAnnulled, sheetContract, signed, tableName } from "./words.js";

export function Sheet({ view, onClose }) {
  const played = view.sheet.filter((l) => !l.annulled).length;
  const title = _("Score sheet");
  return html`<${Panel} title=${title} onClose=${onClose}>
    <p>${ngettext("{table} · {played} of {n} deal played", "{table} · {played} of {n} deals played", view.deals, { table: tableName(view.name), played })}</p>
    ${view.sheet.length === 0
      ? html`<p>${_("no deal finished yet")}</p>`
      : html`<div class="scroll" tabindex="0" role="region" aria-label=${title}><table class=${`sheet seats-${view.seats.length}`} role="table">
        <caption class="visually-hidden">${title}</caption>
        <thead><tr role="row"><th scope="col" role="columnheader">${_("Deal")}</th>
          <th scope="col" role="columnheader" class="sheet-contract">${_("Contract")}</th>
          ${view.seats.map((s) => html`<th scope="col" role="columnheader" key=${s.seat}>${seatName(view, s.seat)}</th>`)}</tr></thead>
        <tbody>${view.sheet.map((l, i) => html`<tr key=${i} role="row">
          <th scope="row" role="rowheader">${l.number}</th>
          <td role="cell" class="sheet-contract">${l.annulled ? sheetAnnulled(l.annulled) : `${sheetContract(l.contract, l.made)} (${seatName(view, l.taker)} ★)`}</td>
          ${l.scores.map((p, s) => html`<td key=${s} role="cell" class="num">${signed(p)}</td>`)}</tr>`)}</tbody>
        <tfoot><tr role="row"><th scope="row" role="rowheader" colspan="2">${_("Total")}</th>
          ${view.scores.map((p, s) => html`<td key=${s} role="cell" class="num">${signed(p)}</td>`)}</tr></tfoot>
      </table></div>`}
  </${Panel}>`;
}

export function Chat({ view, act, onClose }) {
  const [text, setText] = useState("");
  const list = useRef(null);
  useEffect(() => {
    if (list.current) list.current.scrollTop = list.current.scrollHeight;
  }, [view.chat.length]);
  const send = (ev) => {
    ev.preventDefault();
    const line = text.trim();
    if (line && act({ t: "chat", text: line }) !== null) setText("");
  };
  return html`<${Panel} title=${_("Chat")} onClose=${onClose}>
    <ol class="chat scroll" ref=${list} aria-live="polite" tabindex="0" aria-label=${_("Chat")}>
      ${view.chat.length === 0 && html`<li>${_("no message yet")}</li>`}
      ${view.chat.map((c, i) => html`<li key=${i}><strong>${c.name}</strong>: ${c.text}</li>`)}
    </ol>
    ${view.you === null
      ? html`<p>${_("Spectators read the chat; sit down to write.")}</p>`
      : html`<form onSubmit=${send} class="chat-form">
        <label class="visually-hidden" for="chat-line">${_("say something…")}</label>
        <input id="chat-line" maxlength="200" autocomplete="off" placeholder=${_("say something…")} value=${text}
          onInput=${(e) => setText(e.currentTarget.value)} />
        <button type="submit">${_("Send")}</button>
      </form>`}
  </${Panel}>`;
}
