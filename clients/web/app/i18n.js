// The page's language: English (the msgids) or a catalog from i18n/<lang>.json,
// exported from the terminal client's gettext catalogs (one source of truth:
// python -m clients.cli.catalogs export-json). Text is translated when shown.

export const LANGUAGES = { en: "English", fr: "Français", zh: "简体中文", ko: "한국어" };

// Plural rules of the four languages, as their catalogs' Plural-Forms say
// (a test checks the exported expressions are these): no eval under the CSP.
const PLURALS = { en: (n) => (n !== 1 ? 1 : 0), fr: (n) => (n > 1 ? 1 : 0), zh: () => 0, ko: () => 0 };

let current = "en";
let messages = {};

export function lang() {
  return current;
}

/** The language to speak: the saved choice, else the browser's, else English. */
export function chooseLang(saved, browser = navigator.languages || []) {
  if (saved && LANGUAGES[saved]) return saved;
  for (const tag of browser) {
    const code = String(tag).toLowerCase().split(/[-_]/)[0];
    if (LANGUAGES[code]) return code;
  }
  return "en";
}

export async function useLang(code) {
  const next = LANGUAGES[code] ? code : "en";
  let table = {};
  if (next !== "en") {
    const res = await fetch(new URL(`../i18n/${next}.json`, import.meta.url));
    if (!res.ok) throw new Error(`i18n/${next}.json: HTTP ${res.status}`);
    table = (await res.json()).messages;
  }
  current = next;
  messages = table;
  document.documentElement.lang = next === "zh" ? "zh-Hans" : next;
}

/** `{name}` fields filled in from `fields`. */
export function fmt(text, fields = {}) {
  return text.replace(/\{([a-z_]+)\}/g, (all, name) => (name in fields ? String(fields[name]) : all));
}

export function _(msgid, fields) {
  const found = messages[msgid];
  const text = typeof found === "string" && found ? found : msgid;
  return fields ? fmt(text, fields) : text;
}

export function ngettext(singular, plural, n, fields) {
  const rule = PLURALS[current] || PLURALS.en;
  const found = messages[singular];
  let text;
  if (Array.isArray(found) && found.every((s) => s)) text = found[Math.min(rule(n), found.length - 1)];
  else text = PLURALS.en(n) ? plural : singular;
  return fmt(text, { n, ...fields });
}

export function pgettext(context, msgid, fields) {
  const found = messages[`${context}\u0004${msgid}`];
  const text = typeof found === "string" && found ? found : msgid;
  return fields ? fmt(text, fields) : text;
}

/** Marks a constant for the catalogs; it is translated where it is shown. */
export const N_ = (msgid) => msgid;
