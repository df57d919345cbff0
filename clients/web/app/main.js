// The browser client's entry point: the app's state, the connection wired to
// it, and the screens (name, lobby, table, leaderboard, profile, tournament).
import { render } from "preact";
import { LANGUAGES, _, chooseLang, lang, useLang } from "./i18n.js";
import { Connection, serverUrl } from "./conn.js";
import { KEY_RE, newKey, saveLang, savePrefs, savedLang, savedPrefs, storeFor } from "./store.js";
import { measure, play } from "./motion.js";
import { SuitSymbols } from "./faces.js";
import { html, learnServerTime } from "./ui.js";
import { Lobby } from "./lobby.js";
import { TableScreen } from "./table.js";
import { DailyResult, Leaderboard, Profile } from "./boards.js";
import { announcements } from "./announce.js";
import { byeText, errorText, labelled, leftReason } from "./words.js";
import { installKeys, useEscape } from "./keys.js";
import { Follower } from "./follower.js";
import { tableOf } from "./rounds.js";
import { TournamentBar, TournamentPanel } from "./tournament.js";
import { TournamentEntry } from "./tournament_forms.js";
import { learnRules } from "./facts.js";
import { HintButton, casual } from "./hint.js";

const server = serverUrl(window.location);
const store = storeFor(server);
const state = {
  name: store.name(),
  screen: "lobby", // or "leaderboard", "profile", "tournament" (the table shows whenever we sit)
  status: { phase: "connecting", reason: "", attempt: 0 },
  notices: [], // {id, text, kind: "error" | "info"}
  log: [], // {id, text}: what happened at the table
  spoken: "",
  daily: null,
  board: { period: "today", view: null },
  confirmLeave: false,
  nameProblem: "",
  keyLost: false,
  history: null, // the table's deal records, once asked (null: asking)
  own: {}, // period -> our leaderboard line (null: not listed), for the profile
  standings: false, // the tournament's page shown over its table
  otherTournament: false, // the tournament screen shows the forms, not the one followed
  prefs: savedPrefs(), // the page's settings (store.js PREFS), the one config of the table's look
  wonBy: null, // the seat that took the trick just finished, for the motion
  played: null, // the card we last played: shown in the trick until the server answers
};
let conn = null;
let ids = 0;
let invite = readInvite();

function readInvite() {
  const m = /^#(join|watch|tournament)=([A-Za-z0-9]{1,12})$/.exec(window.location.hash);
  return m ? { t: m[1], code: m[2].toUpperCase() } : null;
}

function notice(text, kind = "error") {
  const id = ++ids;
  state.notices = [...state.notices.slice(-3), { id, text, kind }];
  setTimeout(() => {
    state.notices = state.notices.filter((n) => n.id !== id);
    draw();
  }, 10000);
}

function say(lines) {
  if (!lines.length) return;
  state.log = [...state.log, ...lines.map((text) => ({ id: ++ids, text }))].slice(-40);
  state.spoken = lines.join(" ");
}

function onMessage(msg, sync) {
  switch (msg.t) {
    case "welcome":
      learnRules(msg.rules);
      learnServerTime(msg.now);
      if (msg.name && msg.name !== state.name) {
        state.name = msg.name;
        store.setName(msg.name);
      }
      state.nameProblem = "";
      follower.welcome(invite?.t === "tournament" ? invite.code : null);
      if (invite && (invite.t === "tournament" || !store.seat())) {
        if (invite.t !== "tournament") conn.send(invite);
        history.replaceState(null, "", window.location.pathname + window.location.search);
        invite = null;
      }
      break;
    case "tournament": {
      const show = follower.take(msg);
      if (show.open) state.otherTournament = false;
      if (show.open || show.standings) {
        if (conn.sync.tableId !== null) state.standings = true;
        else if (show.open || state.screen === "lobby") state.screen = "tournament";
      }
      break;
    }
    case "table":
    case "tpatch":
      state.wonBy = trickWinner(state.lastView, sync.table.view);
      if (sync.table.view) {
        if (state.lastView) say(announcements(state.lastView, sync.table.view));
        state.lastView = sync.table.view;
      }
      break;
    case "seated":
      state.lastView = null;
      state.log = [];
      state.screen = "lobby";
      break;
    case "left":
      state.lastView = null;
      state.daily = null;
      state.standings = false;
      if (!follower.left()) notice(leftReason(msg.reason || ""), "info");
      break;
    case "error": {
      const words = follower.refused(msg);
      if (words !== null) {
        if (words) notice(words);
      } else if (msg.code === "name_taken" || msg.code === "bad_name") {
        if (!conn.welcome) {
          state.nameProblem = errorText(msg.code, msg.message);
          state.name = "";
        } else notice(errorText(msg.code, msg.message));
      } else if (msg.code === "unknown_key") {
        state.keyLost = true;
      } else notice(errorText(msg.code, msg.message));
      break;
    }
    case "bye":
      notice(byeText(msg.code, msg.message), "info");
      break;
    case "history":
      state.history = msg.records;
      break;
    case "daily_result":
      state.daily = msg.result;
      break;
    case "leaderboard":
      if (msg.view.page === 0) state.own = { ...state.own, [msg.view.period]: msg.view.own };
      if (state.screen === "leaderboard") state.board = { period: msg.view.period, view: msg.view };
      break;
    case "player":
      state.name = msg.name;
      store.setName(msg.name);
      notice(_("You play as {name} now.", { name: msg.name }), "info");
      break;
    default:
  }
  draw();
}

/** The seat that took the trick that ended between two views, or null. */
function trickWinner(before, after) {
  const was = before?.deal?.tricks.length;
  const now = after?.deal?.tricks;
  if (!now || was === undefined || now.length !== was + 1) return null;
  return now[now.length - 1].winner;
}

function setPrefs(prefs) {
  state.prefs = prefs;
  savePrefs(prefs);
  showPrefs();
  draw();
}

/** The settings that are the whole page's: its theme and its deck, as classes of <html>. */
function showPrefs() {
  const c = document.documentElement.classList;
  c.toggle("theme-light", state.prefs.theme === "light");
  c.toggle("theme-dark", state.prefs.theme === "dark");
  c.toggle("four-colours", state.prefs.fourColours);
}

function connect() {
  if (conn) conn.close();
  if (!store.guest() && !store.player()) store.setPlayer({ key: newKey(), registered: false });
  conn = new Connection({ url: server, store, onMessage, onStatus: (s) => { state.status = s; draw(); } });
  follower.connected();
  conn.open(state.name);
}

const follower = new Follower({
  send: (command) => act(command),
  at: () => conn.sync.tableId,
  store,
});

const act = (command) => {
  const rid = conn.send(command);
  if (rid === null) notice(_("Not sent: not connected to the server right now."));
  return rid;
};
const move = (command) => {
  // The card played shows in the trick at once, before the server's answer
  // (table.js: only while that answer is awaited).
  state.played = command.t === "play" ? command.card : null;
  if (conn.move(command) === null && conn.status.phase !== "online") {
    notice(_("Not sent: not connected to the server right now."));
  }
  draw();
};
const go = (screen) => {
  state.screen = screen;
  if (screen === "profile") state.own = {};
  if (screen === "leaderboard") askBoard(state.board.period, 0);
  draw();
};
function askHistory() {
  state.history = null;
  act({ t: "history" });
}
function askBoard(period, page) {
  state.board = { period, view: state.board.period === period ? state.board.view : null };
  act({ t: "leaderboard", period, page });
  draw();
}

function leave(view) {
  if (view && view.you !== null && (view.status === "playing" || view.status === "between_deals") && !state.confirmLeave) {
    state.confirmLeave = true;
  } else {
    state.confirmLeave = false;
    act({ t: "leave" });
  }
  draw();
}

function NameForm() {
  const submit = (ev) => {
    ev.preventDefault();
    const name = ev.currentTarget.elements.name.value.trim().replace(/\s+/g, " ");
    if (!name || name.length > 24) {
      state.nameProblem = _("a name is 1 to 24 characters, not starting with “Bot ”");
      return draw();
    }
    state.name = name;
    store.setName(name);
    store.setGuest(ev.currentTarget.elements.guest.checked);
    const player = store.player();
    if (player && !player.registered) store.setPlayer({ ...player, key: newKey() }); // a fresh try at a free name
    connect();
    draw();
  };
  return html`<form class="card-box name-form" onSubmit=${submit} aria-labelledby="name-title">
    <h1 id="name-title">Atout</h1>
    <p>${_("French Tarot for 3, 4 or 5 players, in your browser.")}</p>
    <label>${_("Your name")} <input name="name" maxlength="24" autocomplete="nickname" required
      defaultValue=${store.name()} aria-describedby="name-problem" /></label>
    ${state.nameProblem && html`<p id="name-problem" class="problem" role="alert">${state.nameProblem}</p>`}
    <label class="choice"><input type="checkbox" name="guest" defaultChecked=${store.guest()} />
      ${_("Play as a guest")} <small>(${_("no player key: no kept name, no leaderboard")})</small></label>
    <button type="submit">${_("Play")}</button>
  </form>`;
}

function StatusBar() {
  const s = state.status;
  let text = "";
  if (s.phase === "connecting") text = _("connecting…");
  else if (s.phase === "reconnecting") text = labelled(_("reconnecting"), s.reason || "");
  else if (s.phase === "stopped") text = _("disconnected: {reason}", { reason: s.reason });
  return html`<div class=${`link link-${s.phase}`} role="status">
    ${text && html`<span>${text}</span>`}
    ${(s.phase === "reconnecting" || s.phase === "stopped") && state.name &&
      html` <button class="secondary" onClick=${() => conn.retry()}>${_("Reconnect")}</button>`}
  </div>`;
}

function LangPicker() {
  const change = async (ev) => {
    const code = ev.currentTarget.value;
    saveLang(code);
    await useLang(code);
    draw();
  };
  return html`<label class="lang">${_("Language")}
    <select onChange=${change} value=${lang()}>
      ${Object.entries(LANGUAGES).map(([code, name]) => html`<option value=${code} selected=${code === lang()}>${name}</option>`)}
    </select></label>`;
}

// The last person leaving a table of friends closes it: bots do not play on
// for nobody (a tournament or daily seat is kept, a bot playing it meanwhile).
const alone = (view) => view.seats.every((s, i) => i === view.you || s.kind !== "human");

function ConfirmLeave({ view, closes }) {
  const stay = () => {
    state.confirmLeave = false;
    draw();
  };
  useEscape(stay);
  return html`<div class="card-box confirm" role="alertdialog" aria-labelledby="leave-q">
    <p id="leave-q"><strong>${_("Leave this table?")}</strong> ${closes
      ? _("You are the last person at this table: it closes, and the game ends.")
      : _("A bot takes your seat until the end of the game.")}</p>
    <button onClick=${() => leave(view)}>${_("Leave")}</button>
    <button class="secondary" onClick=${stay}>${_("Stay")}</button>
  </div>`;
}

function tournamentParts(at) {
  const tv = follower.view;
  if (!tv) return {};
  const seated = at !== null;
  const open = () => {
    if (seated) {
      state.standings = !state.standings;
      draw();
    } else {
      state.otherTournament = false;
      go("tournament");
    }
  };
  const sit = () => {
    follower.sit(tv.your_table);
    draw();
  };
  const forget = () => {
    follower.forget();
    draw();
  };
  const ask = (command) => follower.ask(command, { open: false });
  return {
    tv,
    bar: html`<${TournamentBar} view=${tv} at=${at} onOpen=${open} onSit=${sit} onForget=${seated ? null : forget}
      shown=${seated ? state.standings : null} />`,
    panel: (onClose, onOther = null) => html`<${TournamentPanel} view=${tv} me=${conn.welcome?.player_id ?? null} act=${ask}
      at=${at} onSit=${sit} onClose=${onClose} onOther=${onOther} server=${server} />`,
  };
}

function becomePlayer() {
  store.setGuest(false);
  connect(); // makes this browser's player key
  notice(_("You play with a player key now: it is under Profile."), "info");
  draw();
}

function App() {
  const sync = conn?.sync;
  const view = sync?.table.view;
  const seated = sync && sync.tableId !== null;
  const t = conn ? tournamentParts(sync.tableId) : {};
  let main;
  if (!state.name || !conn) main = html`<${NameForm} />`;
  else if (state.keyLost) {
    main = html`<section class="card-box" role="alert">
      <p>${_("this server does not know your player key: import the right one, or make a new player")}</p>
      <button onClick=${() => { store.setPlayer(null); state.keyLost = false; connect(); draw(); }}>${_("Make a new player")}</button>
      <${Profile} name=${state.name} player=${store.player()} act=${act} onImport=${importKey} onClose=${null} />
    </section>`;
  } else if (seated && view) {
    const inviteUrl = view.invite_code
      ? `${window.location.origin}${window.location.pathname}${window.location.search}#join=${view.invite_code}` : "";
    const ours = t.tv ? tableOf(t.tv, sync.tableId) !== null : false;
    const called = t.tv && t.tv.your_table && t.tv.your_table !== sync.tableId;
    main = html`${(ours || called) && t.bar}
      ${t.tv && state.standings && t.panel(() => { state.standings = false; draw(); })}
      <${TableScreen} view=${view} act=${act} move=${move} busy=${conn.pendingMove !== null || state.status.phase !== "online"}
      inviteUrl=${inviteUrl} onLeave=${() => leave(view)} log=${state.log}
      history=${state.history} askHistory=${askHistory} again=${!ours} prefs=${state.prefs} setPrefs=${setPrefs}
      played=${conn.pendingMove !== null ? state.played : null}
      hint=${html`<${HintButton} view=${view} conn=${conn} tournament=${ours} />`} />
      ${state.confirmLeave && html`<${ConfirmLeave} view=${view} closes=${casual(view, ours) && alone(view)} />`}
      ${state.daily && html`<${DailyResult} result=${state.daily} onClose=${() => { state.daily = null; draw(); }}
        onBoard=${() => { state.daily = null; leave(null); go("leaderboard"); }} />`}`;
  } else if (seated) main = html`<p class="boot">${_("loading the table…")}</p>`;
  else if (state.screen === "leaderboard") {
    main = html`<${Leaderboard} board=${state.board} ask=${askBoard} onClose=${() => go("lobby")} />`;
  } else if (state.screen === "profile") {
    main = html`<${Profile} name=${state.name} player=${store.guest() ? null : store.player()} act=${act} onImport=${importKey}
      onClose=${() => go("lobby")} own=${state.own} />`;
  } else if (state.screen === "tournament") {
    main = t.tv && !state.otherTournament
      ? t.panel(() => go("lobby"), () => { state.otherTournament = true; draw(); })
      : html`<${TournamentEntry} ask=${(command, join) => follower.ask(command, { join })} guest=${store.guest()} host=${state.name}
        onBecomePlayer=${becomePlayer} onClose=${() => go("lobby")} />`;
  } else if (!sync.lobby.view) main = html`<p class="boot">${_("connecting…")}</p>`;
  else {
    main = html`${t.bar}<${Lobby} lobby=${sync.lobby.view} act=${act} go=${go} player=${store.guest() ? null : store.player()} />`;
  }
  return html`<${SuitSymbols} /><header class="top">
      <span class="brand">Atout</span>
      ${state.name && html`<span class="who">${state.name}</span>`}
      <${LangPicker} />
    </header>
    ${conn && html`<${StatusBar} />`}
    <div class="notices">${state.notices.map((n) => html`<p key=${n.id} class=${`notice ${n.kind}`}
      role=${n.kind === "error" ? "alert" : "status"}>${n.text}</p>`)}</div>
    <main id="main">${main}</main>
    <div class="visually-hidden" aria-live="polite" aria-atomic="true" id="announce">${state.spoken}</div>`;
}

function importKey(key) {
  if (!KEY_RE.test(key)) return;
  store.setPlayer({ key, registered: true });
  store.setGuest(false);
  store.setSeat(null);
  state.keyLost = false;
  connect();
  notice(_("Player key saved: you play as its player now."), "info");
  draw();
}

const root = document.getElementById("app");
function draw() {
  const before = measure(root);
  // At a table the page is one screen (style.css `.at-table`); a class, not
  // a :has() rule, which the browser would look at again on every change.
  root.classList.toggle("at-table", !!(conn && conn.sync.tableId !== null && conn.sync.table.view));
  render(html`<${App} />`, root);
  play(root, before, state.wonBy);
  state.wonBy = null;
}

window.addEventListener("hashchange", () => {
  invite = readInvite();
  if (invite && conn && conn.status.phase === "online" && !conn.sync.tableId) {
    conn.send(invite);
    invite = null;
    history.replaceState(null, "", window.location.pathname + window.location.search);
  }
});

async function boot() {
  try {
    await useLang(chooseLang(savedLang()));
  } catch {
    await useLang("en");
  }
  root.textContent = "";
  if (state.name) connect();
  draw();
}

installKeys(document);
showPrefs();
boot();
// Kept files for a quick start next time (sw.js); a page served without one still plays.
if ("serviceWorker" in navigator && window.isSecureContext) {
  navigator.serviceWorker.register("sw.js").catch(() => {});
}
