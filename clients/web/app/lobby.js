// The lobby: open tables (join, watch), quick play, a new table (public or
// private), joining by invite code, the daily game, tournaments, the leaderboard,
// the profile.
import { useState } from "preact/hooks";
import { _, ngettext } from "./i18n.js";
import { html } from "./ui.js";
import { BOT_LEVELS, botLevel, tableName } from "./words.js";
import { defaultDeals } from "./facts.js";

const STATUS = { waiting: "waiting", playing: "playing", between_deals: "playing", finished: "game over", closed: "closed" };

// The terminal client's words: at five, what makes it different.
const sizeChoice = (n) => (n === 5 ? _("5 players, a called King") : _("{n} players", { n }));
const tableSize = (n) => ngettext("{n} player", "{n} players", n ?? 4);

function TableRow({ t, act }) {
  const seats = [
    ngettext("{n} human", "{n} humans", t.humans),
    ngettext("{n} bot", "{n} bots", t.bots),
    ngettext("{n} free", "{n} free", t.free),
  ].join(" · ");
  return html`<li class="table-row">
    <div class="table-info">
      <strong class="table-name">${tableName(t.name)}</strong>
      <span>${_(STATUS[t.status] || t.status)} · ${tableSize(t.players)} · ${seats} · ${ngettext("{n} deal", "{n} deals", t.deals)}${" · "}
        ${_("bots {level}", { level: botLevel(t.bot_level) })}</span>
    </div>
    <div class="row-actions">
      <button onClick=${() => act({ t: "join", table_id: t.table_id })}
        aria-label=${_("Join {table}", { table: tableName(t.name) })}>${_("Join")}</button>
      <button class="secondary" onClick=${() => act({ t: "watch", table_id: t.table_id })}
        aria-label=${_("Watch {table}", { table: tableName(t.name) })}>${_("Watch")}</button>
    </div>
  </li>`;
}

function NewTable({ act, onDone }) {
  const [priv, setPriv] = useState(false);
  const [problem, setProblem] = useState("");
  const submit = (ev) => {
    ev.preventDefault();
    const f = ev.currentTarget.elements;
    const deals = Number(f.deals.value);
    const timer = Number(f.timer.value || 0);
    if (!Number.isInteger(deals) || !Number.isInteger(timer)) return setProblem(_("Deals and turn timer are whole numbers."));
    if (deals < 1 || deals > 40) return setProblem(_("A game has 1 to {deals} deals.", { deals: 40 }));
    if (timer < 0 || timer > 600) return setProblem(_("The turn timer is 0 (none) to {seconds} seconds.", { seconds: 600 }));
    const players = Number(f.players.value);
    act({ t: "create", name: f.name.value.trim(), private: priv, deals, bot_level: f.bots.value, turn_timer: timer, players });
    onDone();
  };
  // The deals follow the size (each seat deals twice, as in the terminal
  // client) unless the person typed another number.
  const sizeChanged = (ev) => {
    const deals = ev.currentTarget.form.elements.deals;
    const was = deals.dataset.players || "4";
    const now = ev.currentTarget.value;
    if (deals.value === String(defaultDeals(Number(was)))) deals.value = String(defaultDeals(Number(now)));
    deals.dataset.players = now;
  };
  // defaultValue, not value: Preact puts a `value` back on every redraw (a
  // lobby patch, a status change), wiping what the person typed.
  return html`<form class="card-box" onSubmit=${submit} aria-labelledby="new-title">
    <h2 id="new-title">${_("New table")}</h2>
    <label>${_("Name")} <input name="name" maxlength="40" autocomplete="off" /></label>
    <fieldset><legend>${_("Who")}</legend>
      <label class="choice"><input type="radio" name="who" checked=${!priv} onChange=${() => setPriv(false)} />
        ${_("public: listed in the lobby")}</label>
      <label class="choice"><input type="radio" name="who" checked=${priv} onChange=${() => setPriv(true)} />
        ${_("private: invite code only")}</label>
    </fieldset>
    <label>${_("Players")} <select name="players" onChange=${sizeChanged}>
      ${[3, 4, 5].map((n) => html`<option key=${n} value=${n} selected=${n === 4}>${sizeChoice(n)}</option>`)}
    </select></label>
    <label>${_("Deals")} <input name="deals" type="number" min="1" max="40" defaultValue=${defaultDeals(4)} inputmode="numeric"
      aria-describedby="deals-help" /></label>
    <p id="deals-help" class="hint">${_("each player deals twice")}</p>
    <label>${_("Bots")} <select name="bots">
      ${Object.keys(BOT_LEVELS).map((l) => html`<option value=${l} selected=${l === "normal"}>${botLevel(l)}</option>`)}
    </select></label>
    <label>${_("Turn timer")} <input name="timer" type="number" min="0" max="600" defaultValue="0" inputmode="numeric"
      aria-describedby="timer-help" /></label>
    <p id="timer-help" class="hint">${_("seconds a move (0: none)")}</p>
    ${problem && html`<p class="problem" role="alert">${problem}</p>`}
    <div class="row-actions"><button type="submit">${_("Create")}</button>
      <button type="button" class="secondary" onClick=${onDone}>${_("Cancel")}</button></div>
  </form>`;
}

function ByCode({ act }) {
  const go = (kind) => (ev) => {
    ev.preventDefault();
    const code = ev.currentTarget.form.elements.code.value.trim();
    if (code) act({ t: kind, code });
  };
  return html`<form class="card-box" onSubmit=${go("join")} aria-labelledby="code-title">
    <h2 id="code-title">${_("Join a table by its invite code")}</h2>
    <label>${_("Code")} <input name="code" maxlength="12" autocomplete="off" autocapitalize="characters"
      aria-describedby="code-help" /></label>
    <p id="code-help" class="hint">${_("Type the code your friend sees at the table.")}</p>
    <div class="row-actions"><button type="submit" onClick=${go("join")}>${_("Sit down")}</button>
      <button type="button" class="secondary" onClick=${go("watch")}>${_("Watch")}</button></div>
  </form>`;
}

// Quick play's table size, kept while the page lives (a table and back).
let quickPlayers = 4;

export function Lobby({ lobby, act, go, player }) {
  const [creating, setCreating] = useState(false);
  const [players, setPlayers] = useState(quickPlayers);
  const choose = (ev) => {
    quickPlayers = Number(ev.currentTarget.value);
    setPlayers(quickPlayers);
  };
  const tables = lobby?.tables || [];
  // The first lobby is the one the server last published, from before this
  // page said hello: its count leaves the page out ("0 online") until the
  // next lobby patch (~0.1 s). A page in the lobby is online: 0 is no count.
  return html`<div class="lobby">
    <h1 class="screen-title">${_("In the lobby")}
      ${lobby?.players_online > 0 && html` <small>${_("{n} online", { n: lobby.players_online })}</small>`}</h1>
    <nav class="big-actions" aria-label=${_("In the lobby")}>
      <span class="quick-play"><button onClick=${() => act({ t: "quick", players })}>${_("Quick play")}</button>
        <label>${_("Players")} <select name="quick-players" onChange=${choose}>
          ${[3, 4, 5].map((n) => html`<option key=${n} value=${n} selected=${n === players}>${sizeChoice(n)}</option>`)}
        </select></label></span>
      <button onClick=${() => setCreating(true)} aria-expanded=${creating}>${_("New table")}</button>
      <button onClick=${() => act({ t: "daily" })} disabled=${!player}>${_("Daily")}</button>
      <button onClick=${() => go("tournament")}>${_("Tournament")}</button>
      <button class="secondary" onClick=${() => go("leaderboard")}>${_("Leaderboard")}</button>
      <button class="secondary" onClick=${() => go("profile")}>${_("Profile")}</button>
    </nav>
    ${creating && html`<${NewTable} act=${act} onDone=${() => setCreating(false)} />`}
    <${ByCode} act=${act} />
    <section aria-labelledby="open-title">
      <h2 id="open-title">${_("Open tables")}</h2>
      ${tables.length
        ? html`<ul class="tables">${tables.map((t) => html`<${TableRow} key=${t.table_id} t=${t} act=${act} />`)}</ul>`
        : html`<p>${_("No open table yet: start one, or use quick play.")}</p>`}
    </section>
  </div>`;
}
