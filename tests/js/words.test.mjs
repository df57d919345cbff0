// The browser client's words at three and five players (clients/web/app/
// words.js): why these calls, the partner line, the écart as large as the chien.
// Run: node --test tests/js/
import { test } from "node:test";
import assert from "node:assert/strict";
import { callReason, ecartProblem, partnerLine } from "../../clients/web/app/words.js";

const seats = ["Alice", "Bob", "Chloé", "Denis", "Émile"].map((name, seat) => ({ seat, name, kind: "human" }));
const deal = (over) => ({
  players: 5, taker: 0, called: "KH", partner: null, chien: [], tricks: [], trick: null, result: null, ...over,
});
const view = (over, you = 0) => ({ you, seats, hand: [], ecart: [], deal: deal(over) });

test("the reason follows the rank that may be called", () => {
  assert.equal(callReason(["KS", "KH", "KD", "KC"]), "You call a King, of any suit.");
  assert.equal(callReason(["QS", "QH"]), "You hold all four Kings, so you call a Queen.");
  assert.equal(callReason(["JS"]), "You hold all four Kings, Queens and Knights, so you call a Jack.");
});

test("the partner is said only once the view says it", () => {
  assert.equal(partnerLine(view({}, 2)), "Alice calls K♥.");
  assert.equal(partnerLine(view({}, 0)), "You call K♥.");
  assert.equal(partnerLine(view({ partner: 1, phase: "play" }, 2)), "Bob is the partner: K♥");
  assert.equal(partnerLine(view({ partner: 2, phase: "play" }, 2)), "You are the partner: K♥");
  assert.equal(partnerLine(view({ partner: 1, phase: "done" }, 2)), "Bob was the partner: K♥");
  assert.equal(partnerLine(view({ partner: 2, phase: "done" }, 2)), "You were the partner: K♥");
  assert.equal(partnerLine(view({ chien: ["KH", "3S", "4S"] }, 3)), "Alice plays alone (K♥ called)");
  assert.equal(partnerLine(view({ called: null })), "");
});

test("the écart is as large as the chien", () => {
  const legal = { ecart: ["1S", "2S", "3S", "4S"], ecart_trumps: 0, ecart_size: 3 };
  assert.equal(ecartProblem(["1S", "2S", "3S"], legal), null);
  assert.equal(ecartProblem(["1S", "2S"], legal), "choose 1 more card");
  assert.equal(ecartProblem(["1S", "2S", "3S", "4S"], legal), "choose exactly 3 cards");
});

test("a daily day with nobody else to compare with says so; minus signs are real", async () => {
  const { daySummary, points } = await import("../../clients/web/app/words.js");
  const deal = (d, pts) => ({ deal: d, points: pts, percent: 50, players: 1, others: 0, beaten: 0, tied: 0 });
  const alone = { deals: [deal(1, -30), deal(2, 10)], percent: 50, points: -20 };
  assert.equal(daySummary(alone), "Your day: first to play today, −20 points in all.");
  const compared = { ...alone, deals: [{ ...deal(1, -30), players: 3, others: 2, beaten: 1 }, deal(2, 10)] };
  assert.equal(daySummary(compared), "Your day: 50.00% on average, −20 points in all.");
  assert.equal(points(-1), "−1 point");
  assert.equal(points(164), "+164 points");
});

test("table names the server made are worded again; others stay", async () => {
  const { tableName, labelled } = await import("../../clients/web/app/words.js");
  assert.equal(tableName("Bob's table"), "Bob's table");
  assert.equal(tableName("Alice's table"), "Alice's table");
  assert.equal(tableName("Daily 2026-12-06"), "Daily game 2026-12-06");
  assert.equal(tableName("Daily 2026-12-06 (practice)"), "Practice 2026-12-06");
  assert.equal(tableName("Friday night"), "Friday night");
  assert.equal(labelled("Bob", "garde"), "Bob: garde");
});

test("what happened is punctuated in the page's language (zh: 。 and ，)", async () => {
  const { readFileSync } = await import("node:fs");
  const { fileURLToPath } = await import("node:url");
  globalThis.document ??= { documentElement: {} };
  globalThis.fetch = async (url) => ({ ok: true, json: async () => JSON.parse(readFileSync(fileURLToPath(url), "utf-8")) });
  const { useLang } = await import("../../clients/web/app/i18n.js");
  const { announcements } = await import("../../clients/web/app/announce.js");
  const seat = (name) => ({ kind: "bot", name, connected: true, bot_level: "normal" });
  const deal = (tricks) => ({
    number: 1, dealer: 0, phase: "play", turn: 1, bids: [], taker: null, contract: null, called: null, partner: null,
    chien: [], chelem_declared: false, poignees: [], tricks, trick: null, hand_size: 24, players: 3, result: null,
  });
  const view = (tricks) => ({ you: 0, status: "playing", seats: [seat(null), seat("Bot Blaise"), seat("Bot Colette")], deal: deal(tricks) });
  const trick = { leader: 0, cards: ["1S", "2S", "3S"], winner: 2 };
  try {
    await useLang("zh");
    const [line] = announcements(view([]), view([trick]));
    assert.ok(line.includes("，") && line.includes("。") && !line.includes(", ") && !line.includes(". "), line);
    await useLang("fr");
    const [french] = announcements(view([]), view([trick]));
    assert.ok(french.includes(", ") && french.includes(". "), french);
  } finally {
    await useLang("en");
  }
});
