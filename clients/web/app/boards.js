// The daily game's result, the leaderboards and the player's profile (name,
// player key export and import).
import { useEffect, useState } from "preact/hooks";
import { _, N_, ngettext } from "./i18n.js";
import { KEY_RE } from "./store.js";
import { Panel, days, html, percent, points } from "./ui.js";
import { daySummary, signed } from "./words.js";

export const PERIODS = { today: N_("Today"), yesterday: N_("Yesterday"), week: N_("7 days"), all: N_("All time") };
const EMPTY = {
  today: N_("Nobody has finished today's daily game yet: play it from the lobby to be the first."),
  yesterday: N_("Nobody played yesterday's daily game."),
  week: N_("Nobody has played 3 days of the last 7 yet (3 days to be listed)."),
  all: N_("Nobody has played 3 days yet (3 days to be listed)."),
};
const long = (period) => period === "week" || period === "all";
const second = (line, period) => (long(period) ? days(line.days) : points(line.points));

export function ownLine(line, period) {
  if (!line) {
    if (long(period)) return _("You are not listed yet (3 days of daily games to be listed).");
    if (period === "yesterday") return _("You did not finish yesterday's daily game.");
    return _("You are not on this board: play today's daily game from the lobby.");
  }
  return _("You: #{position}, {percent}, {second}.", { position: line.position, percent: percent(line.percent), second: second(line, period) });
}

export function DailyResult({ result, onClose, onBoard }) {
  return html`<${Panel} title=${_("Daily game {day}", { day: result.day })} onClose=${onClose}>
    ${!result.ranked && html`<p>${_("Practice (your ranked game of the day is already played): not ranked.")}</p>`}
    <ul class="daily-lines">${result.deals.map((d) => html`<li key=${d.deal}>${d.players <= 1
      ? _("Deal {deal}: {points}, the first result on this deal today", { deal: d.deal, points: points(d.points) })
      : ngettext("Deal {deal}: {points}, better than {percent} of {players} player", "Deal {deal}: {points}, better than {percent} of {players} players",
          d.players, { deal: d.deal, points: points(d.points), percent: percent(d.percent, 0), players: d.players })}</li>`)}</ul>
    <p class="daily-summary">${daySummary(result)}</p>
    <button onClick=${onBoard}>${_("Leaderboard")}</button>
  </${Panel}>`;
}

export function Leaderboard({ board, ask, onClose }) {
  const period = board.period;
  const view = board.view;
  const pageWords = view && (view.pages <= 1
    ? ngettext("{n} player", "{n} players", view.total)
    : ngettext("page {page} of {pages} · {n} player", "page {page} of {pages} · {n} players", view.total, { page: view.page + 1, pages: view.pages }));
  return html`<${Panel} title=${_("Leaderboard")} onClose=${onClose}>
    <div class="tabs" role="group" aria-label=${_("Period")}>
      ${Object.entries(PERIODS).map(([p, name]) => html`<button key=${p} class=${p === period ? "" : "secondary"}
        aria-pressed=${String(p === period)} onClick=${() => ask(p, 0)}>${_(name)}</button>`)}
    </div>
    ${!view ? html`<p>${_("Asking the server…")}</p>` : html`
      <p>${view.last_day && (view.first_day ? (view.first_day === view.last_day ? view.last_day : _("{first} to {last}", { first: view.first_day, last: view.last_day })) : _("every day to {last}", { last: view.last_day }))}
        ${" · "}${pageWords}</p>
      ${view.lines.length === 0 ? html`<p>${_(EMPTY[period])}</p>` : html`<div class="scroll" tabindex="0" role="region" aria-label=${_("Leaderboard")}><table class="board">
        <thead><tr><th scope="col">${_("#")}</th><th scope="col">${_("Player")}</th><th scope="col">${_("%")}</th>
          <th scope="col">${long(period) ? _("Days") : _("Points")}</th></tr></thead>
        <tbody>${view.lines.map((l) => html`<tr key=${l.position + l.name} class=${l.you ? "you" : ""}>
          <td class="num">${l.position}</td><td>${l.name}${l.you ? ` (${_("you")})` : ""}</td>
          <td class="num">${percent(l.percent)}</td><td class="num">${long(period) ? l.days : signed(l.points)}</td></tr>`)}</tbody>
      </table></div>`}
      <p>${ownLine(view.own, period)}</p>
      <div class="row-actions">
        <button class="secondary" disabled=${view.page <= 0} onClick=${() => ask(period, view.page - 1)}>${_("Previous page")}</button>
        <button class="secondary" disabled=${view.page + 1 >= view.pages} onClick=${() => ask(period, view.page + 1)}>${_("Next page")}</button>
        <button class="secondary" onClick=${() => ask(period, view.page)}>${_("Refresh")}</button>
      </div>`}
  </${Panel}>`;
}

/** Our line on each board ("#3, 61.50%, +120 points"), as the terminal client's profile shows it. */
function OwnPlaces({ own }) {
  return html`<section class="card-box" aria-labelledby="places-title">
    <h3 id="places-title">${_("On the server's leaderboards")}</h3>
    <dl class="places">${Object.entries(PERIODS).map(([period, label]) => {
      const line = own[period];
      const value = line === undefined ? _("Asking the server…") : line === null ? _("not listed")
        : _("#{position}, {percent}, {second}", { position: line.position, percent: percent(line.percent), second: second(line, period) });
      return html`<div key=${period}><dt>${_("{period}:", { period: _(label) })}</dt> <dd>${value}</dd></div>`;
    })}</dl>
  </section>`;
}

export function Profile({ name, player, act, onImport, onClose, own }) {
  const [shown, setShown] = useState(false);
  useEffect(() => {
    // Page 0 of each board carries our own line (`own`), listed or not.
    if (player && own) for (const period of Object.keys(PERIODS)) act({ t: "leaderboard", period, page: 0 });
  }, [player?.key]);
  const [problem, setProblem] = useState("");
  const rename = (ev) => {
    ev.preventDefault();
    const next = ev.currentTarget.elements.newname.value.trim();
    if (next) act({ t: "rename", name: next });
  };
  const importKey = (ev) => {
    ev.preventDefault();
    const key = ev.currentTarget.elements.key.value.trim().toLowerCase();
    if (!KEY_RE.test(key)) return setProblem(_("a player key is 32 hex digits (0-9, a-f)"));
    setProblem("");
    onImport(key);
  };
  return html`<${Panel} title=${_("Profile")} onClose=${onClose}>
    <p>${_("Name")}: <strong>${name}</strong></p>
    ${player ? html`<form class="card-box" onSubmit=${rename}>
      <label>${_("New name")} <input name="newname" maxlength="24" autocomplete="nickname" /></label>
      <button type="submit">${_("Rename")}</button>
    </form>` : html`<p class="guest">${_("You play as a guest: guests enter no leaderboard.")}</p>`}
    ${player && own && html`<${OwnPlaces} own=${own} />`}
    <section class="card-box" aria-labelledby="key-title">
      <h3 id="key-title">${_("Your player key")}</h3>
      <p>${_("It keeps your name and your place on the leaderboards. It is a secret: whoever has it plays as you. Copy it to play from another browser or from the terminal client (atout key import).")}</p>
      ${shown && player ? html`<p><code class="key" data-key>${player.key}</code></p>` : ""}
      ${player && html`<button class="secondary" aria-expanded=${String(shown)} onClick=${() => setShown(!shown)}>
        ${shown ? _("Hide the key") : _("Show the key")}</button>`}
      <form onSubmit=${importKey}>
        <label>${_("Use a key from elsewhere")} <input name="key" maxlength="40" autocomplete="off" spellcheck="false" /></label>
        ${problem && html`<p class="problem" role="alert">${problem}</p>`}
        <button type="submit">${_("Import the key")}</button>
      </form>
    </section>
  </${Panel}>`;
}
