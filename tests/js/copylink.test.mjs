// Copying the invite link (clients/web/app/copylink.js): with the clipboard
// when the page has it, else the link selected and words to copy it by hand
// (plain http on a LAN address has no clipboard API). Run: node --test tests/js/
import { test } from "node:test";
import assert from "node:assert/strict";
import { copyOrSelect, copyWords } from "../../clients/web/app/copylink.js";

const field = () => {
  const calls = [];
  return { calls, focus: () => calls.push("focus"), select: () => calls.push("select") };
};

test("the clipboard copies when the page is a secure context", async () => {
  const written = [];
  const f = field();
  const outcome = await copyOrSelect("http://x/#j=AB", f, { writeText: async (t) => written.push(t) }, true);
  assert.equal(outcome, "copied");
  assert.deepEqual(written, ["http://x/#j=AB"]);
  assert.deepEqual(f.calls, []);
  assert.equal(copyWords(outcome), "Link copied");
});

test("without a clipboard (plain http) the link is selected and the page says how to copy", async () => {
  const f = field();
  assert.equal(await copyOrSelect("http://192.168.1.20:8765/#j=AB", f, undefined, false), "select");
  assert.deepEqual(f.calls, ["focus", "select"]);
  assert.equal(copyWords("select", false), "Link selected: press Ctrl-C to copy it");
  assert.equal(copyWords("select", true), "Link selected: press ⌘C to copy it");
  assert.equal(copyWords(null), "Copy the link");
});

test("a refused clipboard falls back to the selection", async () => {
  const f = field();
  const refusing = { writeText: async () => { throw new Error("NotAllowedError"); } };
  assert.equal(await copyOrSelect("u", f, refusing, true), "select");
  assert.deepEqual(f.calls, ["focus", "select"]);
});
