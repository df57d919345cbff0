// A tournament as the page follows it (docs/PROTOCOL.md §12): which table to
// sit at on each view, and the words for where the tournament stands. Pure:
// views in, decisions and words out (tests/js/rounds.test.mjs).
import { _, N_, ngettext, pgettext } from "./i18n.js";
import { BOT_LEVELS } from "./words.js";

export const FORMATS = { free: N_("free"), duplicate: N_("duplicate") };
export const FORMAT_HELP = {
  free: N_("each table plays its own deals; points count"),
  duplicate: N_("every table plays the same cards; each result is compared with the others on them"),
};
export const ROUNDS_MAX = 12;
export const DEALS_MAX = 24;
export const TEAM_NAME_MAX = 24;
export const MINUTES = [1, 1440]; // round_timeout: 60 s to a day

/**
 * What to do on a tournament view, sitting at table `at` (null: at none),
 * having last moved to `followed`: `join` is the table to sit at now (null:
 * stay), `followed` what to remember. A player who leaves their table on
 * purpose is not dragged back to it on the next view: only a table the page
 * has not moved to yet is joined by itself (the bar offers to sit again).
 */
export function follow(view, at, followed) {
  const id = view?.your_table ?? null;
  if (id === null || id === followed) return { join: null, followed };
  if (id === at) return { join: null, followed: id };
  const table = (view.tables || []).find((t) => t.table_id === id);
  if (table && table.finished) return { join: null, followed };
  return { join: id, followed: id };
}

/** The round's table we sit at (`at`), or null when `at` is none of them. */
export const tableOf = (view, at) => (at === null || !view ? null : (view.tables || []).find((t) => t.table_id === at) || null);

/** Our table is in this tournament's round and has played its deals. */
export const waitingAt = (view, at) => view?.status === "playing" && tableOf(view, at)?.finished === true;

/** Whether the player whose id is `me` is in it (and not removed). */
export const inIt = (view, me) => !!me && (view?.players || []).some((p) => p.player_id === me && !p.removed);

const decimals = (value, n) => Number(value).toFixed(n).replace(".", pgettext("decimal separator", "."));

/** A standings line's score: points (free; decimals only when a table of 3 or 5 made some) or a percentage (duplicate). */
export function score(value, format) {
  if (format === "duplicate") return _("{value}%", { value: decimals(value, 2) });
  const whole = Number.isInteger(value);
  return (value > 0 ? "+" : value < 0 ? "−" : "") + decimals(Math.abs(value), whole ? 0 : 2);
}

/** Where the tournament stands, in one line. */
export function stage(view) {
  const rounds = view.settings.rounds;
  if (view.status === "gathering") {
    return ngettext("Gathering players: {n} joined so far", "Gathering players: {n} joined so far", view.players.length);
  }
  if (view.status === "finished") return ngettext("Over after {n} round: the standings are final.", "Over after {n} rounds: the standings are final.", view.round);
  if (!view.waiting_for) return _("Round {round} of {rounds}: seating the next round…", { round: view.round, rounds });
  return ngettext("Round {round} of {rounds}: {n} table still playing", "Round {round} of {rounds}: {n} tables still playing",
    view.waiting_for, { round: view.round, rounds });
}

/** At our finished table, while the round goes on. */
export function waitLine(view) {
  if (!view.waiting_for) return _("Round {round} of {rounds}: seating the next round…", { round: view.round, rounds: view.settings.rounds });
  return ngettext("Round {round} of {rounds}: waiting for {n} table", "Round {round} of {rounds}: waiting for {n} tables",
    view.waiting_for, { round: view.round, rounds: view.settings.rounds });
}

/** What the host chose, in one line. */
export function settingsLine(s) {
  const minutes = Math.round(s.round_timeout / 60);
  return [
    ngettext("{n} round", "{n} rounds", s.rounds),
    ngettext("{n} deal a round", "{n} deals a round", s.deals),
    _(FORMATS[s.format] || s.format),
    s.team_size ? _("teams of {n}", { n: s.team_size }) : _("no teams"),
    s.bots_fill ? _("bots fill the tables") : _("tables of 3 to 5"),
    _("bots {level}", { level: _(BOT_LEVELS[s.bot_level] || s.bot_level) }),
    ngettext("bots may finish a round after {n} minute", "bots may finish a round after {n} minutes", minutes),
  ].join(" · ");
}

/** The settings a create form asks for, or the problem with them (words). */
export function readSettings(f) {
  const whole = (v) => (String(v).trim() === "" ? NaN : Number(v));
  const rounds = whole(f.rounds);
  const deals = whole(f.deals);
  const minutes = whole(f.minutes);
  const teamSize = Number(f.team_size) || 0;
  if (![rounds, deals, minutes].every(Number.isInteger)) return { problem: _("Rounds, deals and minutes are whole numbers.") };
  if (rounds < 1 || rounds > ROUNDS_MAX) return { problem: _("A tournament has 1 to {n} rounds.", { n: ROUNDS_MAX }) };
  if (deals < 1 || deals > DEALS_MAX) return { problem: _("A round has 1 to {n} deals.", { n: DEALS_MAX }) };
  if (minutes < MINUTES[0] || minutes > MINUTES[1]) {
    return { problem: _("Bots may finish a round after {min} to {max} minutes.", { min: MINUTES[0], max: MINUTES[1] }) };
  }
  const team = String(f.team || "").trim();
  if (teamSize && f.play && (!team || team.length > TEAM_NAME_MAX)) {
    return { problem: _("Name your team: 1 to {n} characters.", { n: TEAM_NAME_MAX }) };
  }
  return {
    settings: {
      name: String(f.name || "").trim(),
      rounds,
      deals,
      format: f.format === "duplicate" ? "duplicate" : "free",
      team_size: teamSize,
      bot_level: BOT_LEVELS[f.bot_level] ? f.bot_level : "normal",
      bots_fill: !!f.bots_fill,
      round_timeout: minutes * 60,
    },
    team: teamSize ? team : "",
  };
}

/** Seconds until the host may have bots finish the round (0: now), or null when no round is under way. */
export const untilFinish = (view, nowMs) => (view.finish_at == null ? null : Math.max(0, Math.ceil(view.finish_at - nowMs / 1000)));

/** "12 min", "45 s": how long to wait, roughly. */
export function wait(seconds) {
  if (seconds >= 120) return ngettext("{n} minute", "{n} minutes", Math.ceil(seconds / 60));
  return ngettext("{n} second", "{n} seconds", seconds);
}
