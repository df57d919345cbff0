// The browser client's synchroniser against the shared vectors
// (tests/data/sync-vectors.json), which clients/sync.py passes too.
// Run: node --test tests/js/
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { applyPatch, PatchError, Sync } from "../../clients/web/app/sync.js";

const vectors = JSON.parse(
  readFileSync(new URL("../data/sync-vectors.json", import.meta.url), "utf8"),
);

test("the vectors are there", () => {
  assert.ok(vectors.patches.length >= 30);
  assert.ok(vectors.sessions.length >= 10);
});

for (const v of vectors.patches) {
  test(`patch: ${v.name}`, () => {
    const before = JSON.stringify(v.doc);
    if (v.result === null) {
      assert.throws(() => applyPatch(v.doc, v.patch), PatchError);
    } else {
      assert.deepEqual(applyPatch(v.doc, v.patch), v.result);
    }
    assert.equal(JSON.stringify(v.doc), before, "the document given is never changed");
  });
}

function stateOf(sync) {
  return {
    table: sync.table.view,
    table_seq: sync.table.seq,
    lobby: sync.lobby.view,
    lobby_seq: sync.lobby.seq,
    table_id: sync.tableId,
    seat: sync.seat,
    token: sync.token,
    table_awaiting_snapshot: sync.table.awaitingSnapshot,
    lobby_awaiting_snapshot: sync.lobby.awaitingSnapshot,
  };
}

for (const s of vectors.sessions) {
  test(`session: ${s.name}`, () => {
    const sync = new Sync();
    s.steps.forEach((step, i) => {
      const out = sync.take(structuredClone(step.in));
      assert.deepEqual(out, step.out, `commands after step ${i} (${step.in.t})`);
      assert.deepEqual(stateOf(sync), step.state, `state after step ${i} (${step.in.t})`);
    });
  });
}
