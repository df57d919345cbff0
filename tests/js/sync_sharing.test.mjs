// The synchroniser's patches share what they do not touch (clients/web/app/sync.js):
// the view before a patch stays whole for the page to compare with the view after.
import { test } from "node:test";
import assert from "node:assert/strict";
import { applyPatch } from "../../clients/web/app/sync.js";

test("a patch copies only the nodes on its paths: the rest is shared, the old view untouched", () => {
  const before = { deal: { trick: { cards: ["1S"] }, tricks: [{ cards: ["2S"] }] }, seats: [{ name: "A" }, { name: "B" }] };
  const after = applyPatch(before, [[["deal", "trick", "cards"], "append", ["3S"]]]);
  assert.deepEqual(after.deal.trick.cards, ["1S", "3S"]);
  assert.deepEqual(before.deal.trick.cards, ["1S"]);
  assert.notEqual(after.deal, before.deal);
  assert.equal(after.seats, before.seats); // not on the path: the same object
  assert.equal(after.deal.tricks, before.deal.tricks);
});
