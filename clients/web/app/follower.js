// The tournament this page follows: its latest view, the answers to our
// tournament commands, and the moves from table to table as the rounds go
// (docs/PROTOCOL.md §12.2: leave the finished table, then join
// `your_table`). The decisions are rounds.js's; this holds what they need.
import { _ } from "./i18n.js";
import { follow, waitingAt } from "./rounds.js";

const KEPT_RIDS = 32;
// A join refused with these is about a tournament we may be in already: show it.
const SHOW_ANYWAY = new Set(["already_joined", "tournament_started", "tournament_finished"]);

export class Follower {
  /** `send(command)` -> rid or null; `at()` -> the table we sit at, or null. */
  constructor({ send, at, store }) {
    this.send = send;
    this.at = at;
    this.store = store;
    this.view = null;
    this.followed = null; // the your_table we last moved to
    this.connected();
  }

  /** A new connection: its rids start again, so nothing asked before is waited for. */
  connected() {
    this.asked = new Map(); // rid -> {code, open, quiet, join: {team} | null}
    this.pendingJoin = null; // a table to join once the one we are at is left
    this.leaveRid = null;
  }

  /** Send a tournament command; `open`: show the tournament once answered;
   * `join`: then join it (the host, right after creating); `quiet`: a
   * refusal is not shown (asking again after a reload). */
  ask(command, { open = true, join = null, quiet = false } = {}) {
    const rid = this.send(command);
    if (rid === null) return null;
    this.asked.set(rid, { code: command.code ?? null, open, quiet, join });
    if (this.asked.size > KEPT_RIDS) this.asked.delete(this.asked.keys().next().value);
    return rid;
  }

  /** After each welcome: follow the kept tournament again (the server follows per connection). */
  welcome(code) {
    const kept = code || this.store.tournament();
    if (kept) this.ask({ t: "tournament", code: kept }, { open: !!code, quiet: !code });
  }

  /** A `tournament` event. `open`: it answers a command that asked to show
   * it; `standings`: now is the time to show them (our table has just
   * finished its round, or the tournament has just finished). */
  take(msg) {
    const asked = msg.rid !== null ? this.asked.get(msg.rid) : undefined;
    if (asked) this.asked.delete(msg.rid);
    const before = this.view?.code === msg.view.code ? this.view : null;
    const at = this.at();
    const standings = (!waitingAt(before, at) && waitingAt(msg.view, at))
      || (before !== null && before.status !== "finished" && msg.view.status === "finished");
    this.view = msg.view;
    this.store.setTournament(msg.view.code);
    if (asked?.join) this.ask({ t: "tournament_join", code: msg.view.code, team: asked.join.team });
    const next = follow(msg.view, at, this.followed);
    this.followed = next.followed;
    if (next.join) this.sit(next.join);
    return { open: !!asked?.open, standings };
  }

  /** Sit at `table`: leave the one we are at first (answered by `left`). */
  sit(table) {
    this.followed = table;
    if (this.at() !== null && this.at() !== table) {
      this.pendingJoin = table;
      this.leaveRid = this.send({ t: "leave" });
    } else if (this.at() === null) this.send({ t: "join", table_id: table });
  }

  /** A `left`: true when it was our move to the next table (no need to say it). */
  left() {
    const table = this.pendingJoin;
    if (table === null) return false;
    this.pendingJoin = null;
    this.leaveRid = null;
    this.send({ t: "join", table_id: table });
    return true;
  }

  /** An `error`: the words to show instead of the usual ones, "" for none, null for the usual. */
  refused(msg) {
    if (msg.rid !== null && msg.rid === this.leaveRid && this.pendingJoin !== null) {
      this.left(); // not at that table any more: sit at the next one all the same
      return "";
    }
    const asked = msg.rid !== null ? this.asked.get(msg.rid) : undefined;
    if (!asked) return null;
    this.asked.delete(msg.rid);
    if (asked.quiet) {
      // The kept one is gone, or not for us (a guest now): forget it, say nothing.
      if (msg.code !== "unavailable" && msg.code !== "rate_limited") this.store.setTournament(null);
      return "";
    }
    if (msg.code === "guest") return `${_("Guests cannot enter a tournament: it is for players with a player key.")} [guest]`;
    if (SHOW_ANYWAY.has(msg.code) && asked.code) this.ask({ t: "tournament", code: asked.code });
    return null;
  }

  /** Stop showing a tournament (a finished one, from the lobby's bar). */
  forget() {
    this.view = null;
    this.followed = null;
    this.store.setTournament(null);
  }
}
