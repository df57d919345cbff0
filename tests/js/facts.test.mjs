// What the rules say at this table (clients/web/app/facts.js), from the
// server's values: the taker's "You need N" over the reference deals at 3, 4
// and 5 players (tests/data/need-views.json, the server's own views of the
// taker, written by tests/support/need_views.py), the poignées and a new
// table's deals by size. Run: node --test tests/js/
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { defaultDeals, needText, poigneeChoice, takerNeed } from "../../clients/web/app/facts.js";

const recorded = JSON.parse(readFileSync(new URL("../data/need-views.json", import.meta.url), "utf-8"));
const rules = recorded.rules;

test("the taker's target is the server's, after every trick and at the end", () => {
  const sizes = new Set();
  let looks = 0;
  for (const { name, views } of recorded.deals) {
    assert.ok(views.length > 0, name);
    for (const { expected, ...view } of views) {
      const need = takerNeed(view, rules);
      assert.equal(need.points, expected, `${name}, ${view.deal.phase}, ${view.deal.taker_bouts}`);
      assert.equal(needText(view, rules), `You need ${expected}`);
      sizes.add(view.deal.players);
      looks += 1;
    }
    const end = views.at(-1);
    assert.equal(end.deal.phase, "done", name);
    assert.equal(takerNeed(end, rules).points, end.deal.result.target, name);
  }
  assert.deepEqual([...sizes].sort(), [3, 4, 5]);
  assert.ok(looks > 200);
});

test("the Excuse the taker played counts, the Petit lost does not", () => {
  const view = (taker_bouts, hand) => ({ you: 0, hand, deal: { players: 4, taker: 0, phase: "play", taker_bouts, result: null } });
  assert.equal(takerNeed(view(["EX"], ["T21", "3S"]), rules).points, 41);
  assert.equal(takerNeed(view([], ["T21"]), rules).points, 51);
  assert.equal(takerNeed(view(["T1", "T21"], ["EX"]), rules).points, 36);
});

test("others learn the target only from the result", () => {
  const deal = { players: 5, taker: 1, phase: "play", taker_bouts: ["T21"], result: null };
  assert.deepEqual(takerNeed({ you: 0, hand: ["T1"], deal }, rules), { points: null, exact: false });
  assert.equal(needText({ you: 0, hand: [], deal }, rules), "Needs 56/51/41/36 with 0/1/2/3 bouts");
  const over = { ...deal, phase: "done", result: { target: 41 } };
  assert.equal(needText({ you: null, hand: [], deal: over }, rules), "Needs 41");
  assert.equal(takerNeed({ you: 0, hand: [], deal: { ...deal, phase: "bidding" } }, rules), null);
});

test("poignées are named and paid by the table's size", () => {
  assert.equal(poigneeChoice(3, 13, rules), "Show poignée simple (13, +20)");
  assert.equal(poigneeChoice(3, 18, rules), "Show poignée triple (18, +40)");
  assert.equal(poigneeChoice(4, 10, rules), "Show poignée simple (10, +20)");
  assert.equal(poigneeChoice(5, 8, rules), "Show poignée simple (8, +20)");
  assert.equal(poigneeChoice(5, 13, rules), "Show poignée triple (13, +40)");
  assert.ok(!poigneeChoice(5, 13, []).includes("undefined"));
});

test("a new table's deals: each seat deals twice", () => {
  assert.deepEqual([3, 4, 5].map((n) => defaultDeals(n, rules)), [6, 8, 10]);
});
