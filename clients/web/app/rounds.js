// A tournament as the page follows it (docs/PROTOCOL.md §12): which table to
// sit at on each view, and the words for where the tournament stands. Pure:
// views in, decisions and words out (tests/js/rounds.test.mjs).
import { _, N_, ngettext, pgettext } from "./i18n.js";
import { BOT_LEVELS } from "./words.js";

// The terminal client's words where they say the same (one translation each).
export const FORMATS = { free: N_("Free"), duplicate: N_("Duplicate") };
export const FORMAT_HELP = { free: N_("free: points, each table its own deals"), duplicate: N_("duplicate: the same deals at every table") };
export const SEATING = { false: N_("tables of 3, 4 or 5"), true: N_("tables of 4, bots filling") };
export const ROUNDS_MAX = 12;
export const DEALS_MAX = 24;
export const TEAM_NAME_MAX = 24;
export const MINUTES = [1, 1440]; // round_timeout: 60 s to a day
export const NAME_MAX = 40;

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

const seating = (view) => _("Round {round} of {rounds} is over: the next round is being seated…", { round: view.round, rounds: view.settings.rounds });

/** Where the tournament stands, in one line. */
export function stage(view) {
  const n = view.players.length;
  if (view.status === "gathering") {
    return view.you_host
      ? ngettext("Gathering: {n} player so far; start when everyone is here.", "Gathering: {n} players so far; start when everyone is here.", n)
      : ngettext("Gathering: {n} player so far; {host} starts the tournament.", "Gathering: {n} players so far; {host} starts the tournament.", n,
        { host: view.host_name || _("the host") });
  }
  if (view.status === "finished") return ngettext("Finished after {n} round: the final standings.", "Finished after {n} rounds: the final standings.", view.round);
  if (!view.waiting_for) return seating(view);
  return ngettext("Round {round} of {rounds}: {n} table still playing.", "Round {round} of {rounds}: {n} tables still playing.",
    view.waiting_for, { round: view.round, rounds: view.settings.rounds });
}

/** At our finished table, while the round goes on. */
export function waitLine(view) {
  if (!view.waiting_for) return seating(view);
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
    _(SEATING[!!s.bots_fill]),
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
    return { problem: _("The time limit is {min} to {max} minutes.", { min: MINUTES[0], max: MINUTES[1] }) };
  }
  const team = String(f.team || "").trim();
  if (teamSize && f.play && !team) return { problem: _("A tournament of teams: name yours.") };
  if (teamSize && f.play && team.length > TEAM_NAME_MAX) return { problem: _("A team's name is at most {n} characters.", { n: TEAM_NAME_MAX }) };
  return {
    settings: {
      name: String(f.name || "").trim(),
      rounds,
      deals,
      format: f.format === "duplicate" ? "duplicate" : "free",
      team_size: teamSize,
      bot_level: BOT_LEVELS[f.bot_level] ? f.bot_level : "normal",
      bots_fill: f.bots_fill === true || f.bots_fill === "true",
      round_timeout: minutes * 60,
    },
    team: teamSize ? team : "",
  };
}

/** Seconds until the host may have bots finish the round (0: now), or null when no round is under way. */
export const untilFinish = (view, nowMs) => (view.finish_at == null ? null : Math.max(0, Math.ceil(view.finish_at - nowMs / 1000)));

/** Whether the host may have bots finish the round now, else when (in the page's time) and in how many minutes. */
export function finishLine(view, nowMs, timeText) {
  const left = untilFinish(view, nowMs);
  if (left === null) return null;
  if (left === 0) return { allowed: true, text: _("Bots may finish this round's unplayed deals now.") };
  const n = Math.ceil(left / 60);
  return { allowed: false, text: ngettext("Finish with bots from {time} (in {n} minute).", "Finish with bots from {time} (in {n} minutes).", n, { time: timeText }) };
}

/** The name the create form offers: the terminal client's default. */
export const defaultName = (host) => _("{name}'s tournament", { name: host }).slice(0, NAME_MAX);
