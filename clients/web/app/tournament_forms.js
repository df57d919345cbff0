// Entering a tournament from the lobby: join one by its code (with a team
// name when it has teams), or create one (the host's choices, §12.4) and, by
// default, join it at once. Guests are told why they cannot.
import { useState } from "preact/hooks";
import { _ } from "./i18n.js";
import { Panel, html } from "./ui.js";
import { BOT_LEVELS, botLevel } from "./words.js";
import { DEALS_MAX, FORMATS, FORMAT_HELP, MINUTES, ROUNDS_MAX, TEAM_NAME_MAX, readSettings } from "./rounds.js";

function JoinByCode({ ask }) {
  const go = (kind) => (ev) => {
    ev.preventDefault();
    const f = ev.currentTarget.form.elements;
    const code = f.tcode.value.trim();
    if (!code) return;
    if (kind === "join") ask({ t: "tournament_join", code, team: f.tteam.value.trim() });
    else ask({ t: "tournament", code });
  };
  return html`<form class="card-box" onSubmit=${go("join")} aria-labelledby="tjoin-title">
    <h2 id="tjoin-title">${_("Join a tournament")}</h2>
    <label>${_("Code")} <input name="tcode" maxlength="12" autocomplete="off" autocapitalize="characters" required /></label>
    <label>${_("Your team")} <input name="tteam" maxlength=${TEAM_NAME_MAX} autocomplete="off" aria-describedby="tteam-help" /></label>
    <p id="tteam-help" class="hint">${_("Only in a tournament with teams: the first to name a team makes it.")}</p>
    <div class="row-actions"><button type="submit" onClick=${go("join")}>${_("Join")}</button>
      <button type="button" class="secondary" onClick=${go("look")}>${_("Just look")}</button></div>
  </form>`;
}

function CreateForm({ ask, onDone }) {
  const [teams, setTeams] = useState(0);
  const [play, setPlay] = useState(true);
  const [problem, setProblem] = useState("");
  const submit = (ev) => {
    ev.preventDefault();
    const f = ev.currentTarget.elements;
    const read = readSettings({
      name: f.tname.value, rounds: f.rounds.value, deals: f.tdeals.value, minutes: f.minutes.value,
      format: f.format.value, team_size: teams, team: f.hteam ? f.hteam.value : "", play,
      bot_level: f.tbots.value, bots_fill: f.fill.checked,
    });
    if (read.problem) return setProblem(read.problem);
    setProblem("");
    // The form stays until the answer: the tournament's page replaces it, a refusal leaves it as typed.
    ask({ t: "tournament_create", settings: read.settings }, play ? { team: read.team } : null);
  };
  // defaultValue, not value: a redraw (a lobby patch) must not wipe what is typed.
  return html`<form class="card-box" onSubmit=${submit} aria-labelledby="tnew-title">
    <h2 id="tnew-title">${_("New tournament")}</h2>
    <label>${_("Name")} <input name="tname" maxlength="40" autocomplete="off" /></label>
    <label>${_("Rounds")} <input name="rounds" type="number" min="1" max=${ROUNDS_MAX} defaultValue="3" inputmode="numeric" /></label>
    <label>${_("Deals a round")} <input name="tdeals" type="number" min="1" max=${DEALS_MAX} defaultValue="4" inputmode="numeric" /></label>
    <fieldset><legend>${_("Format")}</legend>
      ${Object.keys(FORMATS).map((fmt) => html`<div key=${fmt}><label class="choice">
        <input type="radio" name="format" value=${fmt} defaultChecked=${fmt === "free"} aria-describedby=${`help-${fmt}`} />
        ${_(FORMATS[fmt])}</label>
        <p class="hint" id=${`help-${fmt}`}>${_(FORMAT_HELP[fmt])}</p></div>`)}
    </fieldset>
    <label>${_("Teams")} <select name="teams" onChange=${(e) => setTeams(Number(e.currentTarget.value))}>
      ${[0, 2, 4].map((n) => html`<option key=${n} value=${n} selected=${n === teams}>${n ? _("teams of {n}", { n }) : _("no teams")}</option>`)}
    </select></label>
    <label class="choice"><input type="checkbox" name="fill" aria-describedby="fill-help" />${_("Bots fill the tables")}</label>
    <p class="hint" id="fill-help">${_("every table seats four; otherwise tables of 3 or 5 take the players left over")}</p>
    <label>${_("Bots")} <select name="tbots">
      ${Object.keys(BOT_LEVELS).map((l) => html`<option key=${l} value=${l} selected=${l === "normal"}>${botLevel(l)}</option>`)}
    </select></label>
    <label>${_("Round time (minutes)")} <input name="minutes" type="number" min=${MINUTES[0]} max=${MINUTES[1]} defaultValue="30"
      inputmode="numeric" aria-describedby="minutes-help" /></label>
    <p id="minutes-help" class="hint">${_("after it, you may have bots finish the deals still unplayed")}</p>
    <label class="choice"><input type="checkbox" name="play" checked=${play} onChange=${(e) => setPlay(e.currentTarget.checked)} />
      ${_("I play in it too")}</label>
    ${play && teams > 0 && html`<label>${_("Your team")} <input name="hteam" maxlength=${TEAM_NAME_MAX} autocomplete="off" required /></label>`}
    ${problem && html`<p class="problem" role="alert">${problem}</p>`}
    <div class="row-actions"><button type="submit">${_("Create")}</button>
      <button type="button" class="secondary" onClick=${onDone}>${_("Cancel")}</button></div>
  </form>`;
}

export function TournamentEntry({ ask, guest, onBecomePlayer, onClose }) {
  const [creating, setCreating] = useState(false);
  return html`<${Panel} title=${_("Tournament")} onClose=${onClose}>
    ${guest && html`<div class="card-box guest" role="note">
      <p>${_("You play as a guest: a tournament ranks its players, so it is for players with a player key.")}</p>
      <button class="secondary" onClick=${onBecomePlayer}>${_("Play with a player key")}</button>
    </div>`}
    ${creating ? html`<${CreateForm} ask=${ask} onDone=${() => setCreating(false)} />`
      : html`<div class="row-actions"><button onClick=${() => setCreating(true)}>${_("New tournament")}</button></div>`}
    <${JoinByCode} ask=${ask} />
  </${Panel}>`;
}
