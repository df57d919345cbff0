// A tournament's page (docs/PROTOCOL.md §12): its code to share, what the
// host chose, where it stands, the players, the round's tables, the
// standings with your line marked, and the host's commands; and the bar that
// says where the tournament is while you sit at one of its tables.
import { useEffect, useRef, useState } from "preact/hooks";
import { _, lang, ngettext } from "./i18n.js";
import { Panel, html, serverNow, useNow } from "./ui.js";
import { signed } from "./words.js";
import { finishLine, inIt, score, settingsLine, stage, waitLine, waitingAt } from "./rounds.js";

/** A button that asks once more before it acts (removing a player, bots finishing a round). */
function Sure({ label, question, onYes, disabled, describedBy, primary = false }) {
  const [asking, setAsking] = useState(false);
  const no = useRef(null);
  useEffect(() => {
    if (asking && no.current) no.current.focus();
  }, [asking]);
  if (!asking) {
    return html`<button class=${primary ? "primary" : "secondary"} disabled=${disabled} aria-describedby=${describedBy}
      onClick=${() => setAsking(true)}>${label}</button>`;
  }
  return html`<span class="sure" role="group" aria-label=${question}>
    <span>${question}</span>
    <button onClick=${() => { setAsking(false); onYes(); }}>${_("Yes")}</button>
    <button class="secondary" ref=${no} onClick=${() => setAsking(false)}>${_("No")}</button>
  </span>`;
}

function Share({ code }) {
  const [copied, setCopied] = useState(false);
  const link = `${window.location.origin}${window.location.pathname}${window.location.search}#tournament=${code}`;
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(link);
      setCopied(true);
    } catch {
      setCopied(false); // no clipboard (plain http): the link stays selectable
    }
  };
  return html`<div class="share">
    <p>${_("Code: ")}<strong class="code" data-code>${code}</strong></p>
    <p class="hint">${_("Players join it from the lobby (Tournament) with this code, or from the terminal: atout tournament join {code}", { code })}</p>
    <label>${_("Invite link")} <input readonly value=${link} onFocus=${(e) => e.currentTarget.select()} /></label>
    <button class="secondary" onClick=${copy}>${copied ? _("Link copied") : _("Copy the link")}</button>
  </div>`;
}

function JoinHere({ view, act }) {
  const teams = view.settings.team_size > 0;
  const submit = (ev) => {
    ev.preventDefault();
    const team = teams ? ev.currentTarget.elements.team.value.trim() : "";
    act({ t: "tournament_join", code: view.code, team });
  };
  return html`<form class="row-actions" onSubmit=${submit}>
    ${teams && html`<label>${_("Your team")} <input name="team" maxlength="24" autocomplete="off" required /></label>`}
    <button type="submit">${_("Join the tournament")}</button>
  </form>`;
}

function HostControls({ view, act }) {
  const now = useNow(view.status === "playing");
  if (view.status === "gathering") {
    const n = view.players.filter((p) => !p.removed).length;
    return html`<div class="row-actions">
      <${Sure} primary label=${_("Start the tournament")} describedBy="start-help"
        question=${ngettext("Start the tournament with {n} player? Nobody can join once it has started.",
          "Start the tournament with {n} players? Nobody can join once it has started.", n)}
        onYes=${() => act({ t: "tournament_start", code: view.code })} />
      <p id="start-help" class="hint">${_("Start when everyone has joined: at least 3 players (2 when bots fill the tables).")}</p>
    </div>`;
  }
  if (view.status !== "playing" || view.finish_at == null) return null;
  // `now` is the server's time (ui.js `serverNow`); the hour shown is the page's own clock's.
  const at = new Date(view.finish_at * 1000 - serverNow() + Date.now()).toLocaleTimeString(lang(), { hour: "2-digit", minute: "2-digit" });
  const finish = finishLine(view, now, at);
  return html`<div class="row-actions">
    <${Sure} label=${_("Finish with bots")} disabled=${!finish.allowed} describedBy="finish-when"
      question=${_("Have bots play the deals still unplayed at every table of this round? The round then ends at once.")}
      onYes=${() => act({ t: "tournament_finish", code: view.code })} />
    <p id="finish-when" class="hint">${finish.text}</p>
  </div>`;
}

function Players({ view, me, act }) {
  const removable = view.you_host && view.status !== "finished";
  return html`<ul class="players">${view.players.map((p) => html`<li key=${p.player_id} class=${p.player_id === me ? "you" : ""}>
    <span>${p.name}${p.team ? ` (${p.team})` : ""}${p.player_id === view.host ? ` · ${_("host")}` : ""}${p.player_id === me ? ` · ${_("you")}` : ""}${p.removed ? ` · ${_("removed")}` : ""}</span>
    ${removable && !p.removed && p.player_id !== me && html`<${Sure} label=${_("Remove")} question=${view.status === "gathering"
      ? _("Remove {name}?", { name: p.name })
      : _("Remove {name} from the tournament? Their results so far still count; they get no seat from the next round on.", { name: p.name })}
      onYes=${() => act({ t: "tournament_remove", code: view.code, player_id: p.player_id })} />`}
  </li>`)}</ul>`;
}

function Tables({ view, me }) {
  return html`<ul class="tables">${view.tables.map((t) => {
    const mine = t.table_id === view.your_table || t.seats.some((s) => s.player_id === me);
    return html`<li key=${t.table_id} class=${`table-row${mine ? " you" : ""}`}>
      <div class="table-info">
        <strong>${t.finished ? _("Table {n} · done", { n: t.number }) : _("Table {n}", { n: t.number })}${mine ? ` · ${_("yours")}` : ""}</strong>
        <span>${ngettext("{n} player", "{n} players", t.players)}${t.finished ? "" : ` · ${_("playing")}`}</span>
        <span>${t.seats.map((s) => s.name).join(", ")}</span>
      </div>
    </li>`;
  })}</ul>`;
}

function Standings({ lines, format, title, id }) {
  const teamCol = lines.some((l) => l.team && l.player_id !== null);
  return html`<div class="scroll" tabindex="0" role="region" aria-labelledby=${id}><table class="board standings">
    <caption id=${id}>${title}</caption>
    <thead><tr><th scope="col">${_("#")}</th><th scope="col">${_("Name")}</th>
      ${teamCol && html`<th scope="col">${_("Team")}</th>`}
      <th scope="col" class="num">${format === "duplicate" ? _("%") : _("Score")}</th>
      <th scope="col" class="num">${_("Points")}</th><th scope="col" class="num">${_("Deals")}</th></tr></thead>
    <tbody>${lines.map((l) => html`<tr key=${`${l.player_id}:${l.name}`} class=${l.you ? "you" : ""} aria-current=${l.you ? "true" : undefined}>
      <td class="num">${l.position}</td><td>${l.name}${l.you ? ` (${_("you")})` : ""}</td>
      ${teamCol && html`<td>${l.team}</td>`}
      <td class="num">${score(l.score, format)}</td><td class="num">${signed(l.points)}</td><td class="num">${l.deals}</td></tr>`)}</tbody>
  </table></div>`;
}

/** The results as files (§12.8), one table each, from the game server's own
 * port (which `?server=` may name). */
function Exports({ code, server, teams }) {
  const base = `${server.replace(/^ws/, "http")}tournaments/${code}`;
  // htm drops whitespace that holds a line break: the spaces are written out.
  return html`<p class="exports">${_("Results with every deal:")}${" "}
    <a href=${`${base}.csv`} download>${_("Standings (CSV)")}</a>${" · "}
    <a href=${`${base}.deals.csv`} download>${_("Every deal (CSV)")}</a>${" · "}
    ${teams && html`<a href=${`${base}.teams.csv`} download>${_("Teams (CSV)")}</a>${" · "}`}
    <a href=${`${base}.json`} download>JSON</a></p>`;
}

export function TournamentPanel({ view, me, act, at, onSit, onClose, onOther, server }) {
  const s = view.settings;
  const mine = inIt(view, me);
  const sit = view.your_table && view.your_table !== at;
  return html`<${Panel} title=${s.name || _("Tournament {code}", { code: view.code })} onClose=${onClose}
    label=${_("Tournament")}>
    <p class="stage" role="status">${stage(view)}</p>
    <p class="hint">${_("Host: {name}", { name: view.host_name })} · ${settingsLine(s)}</p>
    ${view.status === "gathering" && html`<${Share} code=${view.code} />`}
    <div class="row-actions">
      ${sit && html`<button class="primary" onClick=${onSit}>${_("Sit at your table")}</button>`}
      ${view.status === "gathering" && mine && html`<button class="secondary"
        onClick=${() => act({ t: "tournament_leave", code: view.code })}>${_("Leave tournament")}</button>`}
      ${onOther && html`<button class="secondary" onClick=${onOther}>${_("Another tournament")}</button>`}
    </div>
    ${view.status === "gathering" && !mine && html`<${JoinHere} view=${view} act=${act} />`}
    ${view.you_host && html`<${HostControls} view=${view} act=${act} />`}
    ${view.status !== "gathering" && view.standings.length > 0 && html`<section aria-label=${_("Standings")}>
      <${Standings} lines=${view.standings} format=${s.format} id="t-standings"
        title=${view.status === "finished" ? _("Final standings") : _("Standings")} />
      ${view.teams.length > 0 && html`<${Standings} lines=${view.teams} format=${s.format} title=${_("Teams")} id="t-teams" />`}
      ${server && html`<${Exports} code=${view.code} server=${server} teams=${view.settings.team_size > 0} />`}
    </section>`}
    ${view.tables.length > 0 && html`<section aria-labelledby="t-tables">
      <h3 id="t-tables">${_("Round {round}: the tables", { round: view.round })}</h3>
      <${Tables} view=${view} me=${me} /></section>`}
    <section aria-labelledby="t-players">
      <h3 id="t-players">${_("Players ({n})", { n: view.players.length })}</h3>
      ${view.players.length ? html`<${Players} view=${view} me=${me} act=${act} />` : html`<p>${_("Nobody has joined yet.")}</p>`}
    </section>
  </${Panel}>`;
}

/** One line over the lobby or the table: where the tournament stands, and the way to its page. */
export function TournamentBar({ view, at, onOpen, onSit, onForget, shown }) {
  const waiting = waitingAt(view, at);
  const sit = view.your_table && view.your_table !== at;
  const name = view.settings.name || view.code;
  return html`<section class="tournament-bar" aria-label=${_("Tournament")}>
    <p role="status"><strong>${name}</strong> · ${waiting ? waitLine(view) : stage(view)}</p>
    <span class="row-actions">
      ${sit && html`<button class="primary" onClick=${onSit}>${_("Sit at your table")}</button>`}
      <button class="secondary" onClick=${onOpen} aria-expanded=${shown === null ? undefined : String(shown)}>
        ${view.status === "gathering" ? _("Open") : _("Standings")}</button>
      ${view.status === "finished" && onForget && html`<button class="secondary" onClick=${onForget}>${_("Close")}</button>`}
    </span>
  </section>`;
}
