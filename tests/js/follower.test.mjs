// The page following a tournament (clients/web/app/follower.js), with a
// recording `send` in place of the connection: what it sends on each
// tournament view, `left` and refusal, in order.
// Run: node --test tests/js/
import { test } from "node:test";
import assert from "node:assert/strict";
import { Follower } from "../../clients/web/app/follower.js";

function rig(at = null) {
  const sent = [];
  const kept = { code: null };
  const where = { at };
  const follower = new Follower({
    send: (command) => {
      sent.push(command);
      return sent.length; // the rid
    },
    at: () => where.at,
    store: { tournament: () => kept.code, setTournament: (code) => { kept.code = code; } },
  });
  return { follower, sent, kept, where };
}

const table = (id, finished = false) => ({ number: 1, table_id: id, players: 3, seats: [], finished, deals_played: 0 });
const view = (over) => ({
  code: "K7QM2X", settings: { rounds: 2 }, status: "playing", round: 1, players: [], tables: [table("a"), table("b")],
  waiting_for: 2, standings: [], teams: [], your_table: "a", your_seat: 0, finish_at: null, you_host: false, ...over,
});
const event = (v, rid = null) => ({ t: "tournament", view: v, rid });

test("the host joins the tournament it has just created, with its team", () => {
  const { follower, sent, kept } = rig();
  const rid = follower.ask({ t: "tournament_create", settings: {} }, { join: { team: "Reds" } });
  const shown = follower.take(event(view({ status: "gathering", round: 0, tables: [], your_table: null }), rid));
  assert.deepEqual(shown, { open: true, standings: false });
  assert.deepEqual(sent.at(-1), { t: "tournament_join", code: "K7QM2X", team: "Reds" });
  assert.equal(kept.code, "K7QM2X");
});

test("from the lobby the page joins its table; from a finished table it leaves first", () => {
  const { follower, sent, where } = rig();
  follower.take(event(view()));
  assert.deepEqual(sent, [{ t: "join", table_id: "a" }]);
  where.at = "a";
  // Our table is done, the other plays: the standings are shown, nothing sent.
  const waiting = follower.take(event(view({ tables: [table("a", true), table("b")], waiting_for: 1, your_table: null })));
  assert.deepEqual(waiting, { open: false, standings: true });
  assert.equal(sent.length, 1);
  // Round 2: leave, and only once `left` has come, join.
  follower.take(event(view({ round: 2, tables: [table("c"), table("d")], your_table: "d" })));
  assert.deepEqual(sent.at(-1), { t: "leave" });
  where.at = null;
  assert.equal(follower.left(), true);
  assert.deepEqual(sent.at(-1), { t: "join", table_id: "d" });
  // A `left` of our own (the player's Leave) is not a move.
  assert.equal(follower.left(), false);
});

test("a refused leave still takes the page to its next table, silently", () => {
  const { follower, sent, where } = rig("a");
  follower.take(event(view({ round: 2, tables: [table("c")], your_table: "c" })));
  const leave = sent.length;
  where.at = null; // that table closed meanwhile
  assert.equal(follower.refused({ t: "error", code: "not_at_table", rid: leave }), "");
  assert.deepEqual(sent.at(-1), { t: "join", table_id: "c" });
});

test("a guest is told why, in a tournament's words", () => {
  const { follower } = rig();
  const rid = follower.ask({ t: "tournament_join", code: "ABC123", team: "" });
  assert.equal(follower.refused({ t: "error", code: "guest", rid }),
    "Guests cannot enter a tournament: it is for players with a player key. [guest]");
  // Not ours: the usual words.
  assert.equal(follower.refused({ t: "error", code: "guest", rid: 99 }), null);
});

test("a join refused because the tournament has started shows it all the same", () => {
  const { follower, sent } = rig();
  const rid = follower.ask({ t: "tournament_join", code: "K7QM2X", team: "" });
  assert.equal(follower.refused({ t: "error", code: "tournament_started", rid }), null);
  assert.deepEqual(sent.at(-1), { t: "tournament", code: "K7QM2X" });
});

test("the kept tournament is asked for again after a reload, and forgotten quietly when gone", () => {
  const { follower, sent, kept } = rig();
  kept.code = "K7QM2X";
  follower.welcome(null);
  assert.deepEqual(sent.at(-1), { t: "tournament", code: "K7QM2X" });
  assert.equal(follower.refused({ t: "error", code: "no_such_tournament", rid: sent.length }), "");
  assert.equal(kept.code, null);
  // An invite link's tournament is shown when it answers.
  follower.welcome("ZZZ999");
  assert.deepEqual(follower.take(event(view({ code: "ZZZ999", your_table: null }), sent.length)).open, true);
});

test("a new connection forgets what the old one asked (its rids start again)", () => {
  const { follower, sent } = rig();
  follower.ask({ t: "tournament_create", settings: {} }, { join: { team: "" } });
  follower.connected();
  follower.take(event(view({ status: "gathering", round: 0, tables: [], your_table: null }), 1));
  assert.equal(sent.length, 1); // no join sent for an answer to another connection's rid 1
});
