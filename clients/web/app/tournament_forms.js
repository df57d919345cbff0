// Entering a tournament from the lobby: join one by its code (with a team
// name when it has teams), or create one (the host's choices, §12.4) and, by
// default, join it at once. Guests are told why they cannot.
import { useState } from "preact/hooks";
import { _ } from "./i18n.js";
import { Panel, html } from "./ui.js";
import { BOT_LEVELS, botLevel } from "./words.js";
import { DEALS_MAX, FORMATS, FORMAT_HELP, MINUTES, NAME_MAX, ROUNDS_MAX, SEATING, TEAM_NAME_MAX, defaultName, readSettings } from "./rounds.js";

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
    <label>${_("Code")} <input name="tcode" maxlength="12" autocomplete="off" autocapitalize="characters" required
      aria-describedby="tcode-help" /></label>
    <p id="tcode-help" class="hint">${_("Type the code the host sees on the tournament screen.")}</p>
    <label>${_("Your team")} <input name="tteam" maxlength=${TEAM_NAME_MAX} autocomplete="off" aria-describedby="tteam-help" /></label>
    <p id="tteam-help" class="hint">${_("only if it has teams")}</p>
    <div class="row-actions"><button type="submit" onClick=${go("join")}>${_("Join")}</button>
      <button type="button" class="secondary" onClick=${go("look")}>${_("Just look")}</button></div>
  </form>`;
}

function CreateForm({ ask, onDone, host }) {
  const [teams, setTeams] = useState(0);
  const [play, setPlay] = useState(true);
  const [problem, setProblem] = useState("");
  const submit = (ev) => {
    ev.preventDefault();
    const f = ev.currentTarget.elements;
    const read = readSettings({
      name: f.tname.value, rounds: f.rounds.value, deals: f.tdeals.value, minutes: f.minutes.value,
      format: f.format.value, team_size: teams, team: f.hteam ? f.hteam.value : "", play,
      bot_level: f.tbots.value, bots_fill: f.seating.value,
    });
    if (read.problem) return setProblem(read.problem);
    setProblem("");
    // The form stays until the answer: the tournament's page replaces it, a refusal leaves it as typed.
    ask({ t: "tournament_create", settings: read.settings }, play ? { team: read.team } : null);
  };
  // defaultValue, not value: a redraw (a lobby patch) must not wipe what is typed.
  return html`<form class="card-box" onSubmit=${submit} aria-labelledby="tnew-title">
    <h2 id="tnew-title">${_("New tournament")}</h2>
    <label>${_("Name")} <input name="tname" maxlength=${NAME_MAX} autocomplete="off" defaultValue=${defaultName(host)} /></label>
    <label>${_("Rounds")} <input name="rounds" type="number" min="1" max=${ROUNDS_MAX} defaultValue="3" inputmode="numeric" /></label>
    <label>${_("Deals")} <input name="tdeals" type="number" min="1" max=${DEALS_MAX} defaultValue="4" inputmode="numeric"
      aria-describedby="tdeals-help" /></label>
    <p id="tdeals-help" class="hint">${_("each round, at every table")}</p>
    <fieldset><legend>${_("Format")}</legend>
      ${Object.keys(FORMATS).map((fmt) => html`<div key=${fmt}><label class="choice">
        <input type="radio" name="format" value=${fmt} defaultChecked=${fmt === "free"} aria-describedby=${`help-${fmt}`} />
        ${_(FORMATS[fmt])}</label>
        <p class="hint" id=${`help-${fmt}`}>${_(FORMAT_HELP[fmt])}</p></div>`)}
    </fieldset>
    <label>${_("Teams")} <select name="teams" onChange=${(e) => setTeams(Number(e.currentTarget.value))}>
      ${[0, 2, 4].map((n) => html`<option key=${n} value=${n} selected=${n === teams}>${n ? _("teams of {n}", { n }) : _("no teams")}</option>`)}
    </select></label>
    <label>${_("Seating")} <select name="seating">
      ${["false", "true"].map((v) => html`<option key=${v} value=${v} selected=${v === "false"}>${_(SEATING[v])}</option>`)}
    </select></label>
    <label>${_("Bots")} <select name="tbots">
      ${Object.keys(BOT_LEVELS).map((l) => html`<option key=${l} value=${l} selected=${l === "normal"}>${botLevel(l)}</option>`)}
    </select></label>
    <label>${_("Time limit")} <input name="minutes" type="number" min=${MINUTES[0]} max=${MINUTES[1]} defaultValue="30"
      inputmode="numeric" aria-describedby="minutes-help" /></label>
    <p id="minutes-help" class="hint">${_("minutes, then bots may finish the round")}</p>
    <label class="choice"><input type="checkbox" name="play" checked=${play} onChange=${(e) => setPlay(e.currentTarget.checked)} />
      ${_("I play in it too")}</label>
    ${play && teams > 0 && html`<label>${_("Your team")} <input name="hteam" maxlength=${TEAM_NAME_MAX} autocomplete="off" required /></label>`}
    ${problem && html`<p class="problem" role="alert">${problem}</p>`}
    <div class="row-actions"><button type="submit">${_("Create")}</button>
      <button type="button" class="secondary" onClick=${onDone}>${_("Cancel")}</button></div>
  </form>`;
}

export function TournamentEntry({ ask, guest, onBecomePlayer, onClose, host }) {
  const [creating, setCreating] = useState(false);
  return html`<${Panel} title=${_("Tournament")} onClose=${onClose}>
    ${guest && html`<div class="card-box guest" role="note">
      <p>${_("You play as a guest: a tournament ranks its players, so it is for players with a player key.")}</p>
      <button class="secondary" onClick=${onBecomePlayer}>${_("Play with a player key")}</button>
    </div>`}
    ${creating ? html`<${CreateForm} ask=${ask} host=${host} onDone=${() => setCreating(false)} />`
      : html`<div class="row-actions"><button onClick=${() => setCreating(true)}>${_("New tournament")}</button></div>`}
    <${JoinByCode} ask=${ask} />
  </${Panel}>`;
}
