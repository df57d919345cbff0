// Following a tournament's rounds in the browser (clients/web/app/rounds.js):
// which table to sit at on each view, the host's form read into settings,
// and the lines that say where the tournament stands.
// Run: node --test tests/js/
import { test } from "node:test";
import assert from "node:assert/strict";
import { finishLine, follow, readSettings, score, settingsLine, stage, untilFinish, waitLine, waitingAt } from "../../clients/web/app/rounds.js";

const settings = { name: "Friday", rounds: 3, deals: 4, format: "free", team_size: 0, bot_level: "normal", bots_fill: false, round_timeout: 1800 };
const table = (id, finished = false) => ({ number: 1, table_id: id, players: 4, seats: [], finished, deals_played: finished ? 4 : 0 });
const view = (over) => ({
  code: "K7QM2X", settings, status: "playing", round: 1, players: [], tables: [table("a"), table("b")],
  waiting_for: 2, standings: [], teams: [], your_table: "a", your_seat: 0, finish_at: null, you_host: false, ...over,
});

test("a new table of ours is joined once, from the lobby or from the table before", () => {
  assert.deepEqual(follow(view(), null, null), { join: "a", followed: "a" });
  // Round 2 seated while we sit at our finished table of round 1: move.
  const round2 = view({ round: 2, tables: [table("c"), table("d")], your_table: "d" });
  assert.deepEqual(follow(round2, "a", "a"), { join: "d", followed: "d" });
  // The same view again (a follower gets copies): no second move.
  assert.deepEqual(follow(round2, null, "d"), { join: null, followed: "d" });
});

test("a player who left their table on purpose is not dragged back", () => {
  assert.deepEqual(follow(view(), "a", null), { join: null, followed: "a" });
  assert.deepEqual(follow(view(), null, "a"), { join: null, followed: "a" });
});

test("nothing to sit at: before the start, a finished table, no table", () => {
  assert.equal(follow(view({ your_table: null }), null, null).join, null);
  assert.equal(follow(view({ tables: [table("a", true)] }), null, null).join, null);
  assert.equal(follow(null, null, null).join, null);
});

test("the waiting line counts the tables still playing", () => {
  const v = view({ tables: [table("a", true), table("b")], waiting_for: 1, your_table: null });
  assert.equal(waitingAt(v, "a"), true);
  assert.equal(waitingAt(v, "b"), false);
  assert.equal(waitingAt(v, "elsewhere"), false);
  assert.equal(waitLine(v), "Round 1 of 3: waiting for 1 table");
  assert.equal(waitLine(view({ round: 2, waiting_for: 3 })), "Round 2 of 3: waiting for 3 tables");
  assert.equal(stage(v), "Round 1 of 3: 1 table still playing.");
  assert.equal(stage(view({ waiting_for: 0 })), "Round 1 of 3 is over: the next round is being seated…");
  assert.equal(waitLine(view({ waiting_for: 0 })), "Round 1 of 3 is over: the next round is being seated…");
  assert.equal(stage(view({ status: "finished", round: 3 })), "Finished after 3 rounds: the final standings.");
});

test("the gathering says who starts", () => {
  const gathering = { status: "gathering", round: 0, players: [{}, {}], host_name: "Alice" };
  assert.equal(stage(view({ ...gathering, you_host: true })), "Gathering: 2 players so far; start when everyone is here.");
  assert.equal(stage(view(gathering)), "Gathering: 2 players so far; Alice starts the tournament.");
});

test("scores: points, with decimals only when a table of 3 or 5 made some; percentages", () => {
  assert.equal(score(219, "free"), "+219");
  assert.equal(score(-49.5, "free"), "−49.50");
  assert.equal(score(0, "free"), "0");
  assert.equal(score(62.5, "duplicate"), "62.50%");
});

test("the host's choices in one line", () => {
  assert.equal(
    settingsLine({ ...settings, team_size: 2, bots_fill: true }),
    "3 rounds · 4 deals a round · Free · teams of 2 · tables of 4, bots filling · bots normal · bots may finish a round after 30 minutes",
  );
});

test("the create form read into settings, or its problem", () => {
  const form = { name: " Friday ", rounds: "2", deals: "1", minutes: "5", format: "duplicate", team_size: 2, team: " Reds ", play: true, bot_level: "easy", bots_fill: "true" };
  assert.deepEqual(readSettings(form), {
    settings: { name: "Friday", rounds: 2, deals: 1, format: "duplicate", team_size: 2, bot_level: "easy", bots_fill: true, round_timeout: 300 },
    team: "Reds",
  });
  assert.equal(readSettings({ ...form, rounds: "13" }).problem, "A tournament has 1 to 12 rounds.");
  assert.equal(readSettings({ ...form, deals: "0" }).problem, "A round has 1 to 24 deals.");
  assert.equal(readSettings({ ...form, minutes: "" }).problem, "Rounds, deals and minutes are whole numbers.");
  assert.equal(readSettings({ ...form, minutes: "2000" }).problem, "The time limit is 1 to 1440 minutes.");
  assert.equal(readSettings({ ...form, team: " " }).problem, "A tournament of teams: name yours.");
  assert.equal(readSettings({ ...form, team: "x".repeat(25) }).problem, "A team's name is at most 24 characters.");
  assert.equal(readSettings({ ...form, bots_fill: "false" }).settings.bots_fill, false);
  // A host who does not play names no team.
  assert.equal(readSettings({ ...form, team: "", play: false }).team, "");
  assert.equal(readSettings({ ...form, team_size: 0 }).team, "");
});

test("the host may have bots finish once finish_at is past", () => {
  assert.equal(untilFinish(view({ finish_at: 1000 }), 999_000), 1);
  assert.equal(untilFinish(view({ finish_at: 1000 }), 1_000_500), 0);
  assert.equal(untilFinish(view({ finish_at: null }), 0), null);
  assert.deepEqual(finishLine(view({ finish_at: 1000 }), 999_000, "21:30"), { allowed: false, text: "Finish with bots from 21:30 (in 1 minute)." });
  assert.deepEqual(finishLine(view({ finish_at: 1000 }), 820_000, "21:30"), { allowed: false, text: "Finish with bots from 21:30 (in 3 minutes)." });
  assert.equal(finishLine(view({ finish_at: 1000 }), 1_000_000, "21:30").allowed, true);
  assert.equal(finishLine(view({ finish_at: null }), 0, ""), null);
});
