// What the rules say at this table, from the server's own values: the
// `welcome`'s per-size rules (docs/PROTOCOL.md §3.3 `SizeRules`) and the
// deal's `taker_bouts`. The page keeps no copy of a target, a poignée size or
// a bonus: a copy was wrong at three and five players. Pure, but for the
// rules learnt from the last `welcome` (`learnRules`).
import { _, N_ } from "./i18n.js";
import { BOUTS } from "./cards.js";

let known = [];

/** Keep the rules of each table size the server sent in `welcome.rules`. */
export function learnRules(rules) {
  known = Array.isArray(rules) ? rules : [];
}

/** The rules of a table of `players`, or null (a server too old to send them). */
export function rulesFor(players, rules = known) {
  return rules.find((r) => r.players === players) || null;
}

/** A new table's counted deals at this size: each seat deals twice. */
export function defaultDeals(players, rules = known) {
  return rulesFor(players, rules)?.deals ?? 2 * players;
}

export const POIGNEE_NAMES = { simple: N_("simple"), double: N_("double"), triple: N_("triple") };

/** The poignée of `cards` trumps at this size: { size, cards, bonus }, or null. */
export function poigneeRule(players, cards, rules = known) {
  return rulesFor(players, rules)?.poignees.find((p) => p.cards === cards) || null;
}

/** The button that shows a poignée of `cards` trumps, in words. */
export function poigneeChoice(players, cards, rules = known) {
  const rule = poigneeRule(players, cards, rules);
  if (!rule) return _("Show a poignée of {n}", { n: cards });
  return _("Show poignée {name} ({n}, +{bonus})", { name: _(POIGNEE_NAMES[rule.size]), n: cards, bonus: rule.bonus });
}

/** The card points the taker needs, as this view may know them:
 * `{ points, exact }`. Once the deal is over, the result's own target. The
 * taker counts the bouts its camp has won (`deal.taker_bouts`, the server's
 * count: the Excuse stays with the camp that played it, a partner's tricks
 * once the partner is known) and those in its hand. Anyone else gets
 * `{ points: null }`: the taker's hand is not theirs to see. */
export function takerNeed(view, rules = known) {
  const deal = view.deal;
  if (!deal || deal.taker === null || deal.taker === undefined) return null;
  if (deal.phase === "bidding" || deal.phase === "annulled") return null;
  const result = deal.result;
  if (result && !("annulled" in result) && Number.isFinite(result.target)) return { points: result.target, exact: true };
  if (view.you === null || view.you === undefined || view.you !== deal.taker) return { points: null, exact: false };
  const targets = rulesFor(deal.players, rules)?.targets;
  if (!targets || !Array.isArray(deal.taker_bouts)) return { points: null, exact: false };
  const held = new Set(deal.taker_bouts);
  for (const c of view.hand || []) if (BOUTS.includes(c)) held.add(c);
  return { points: targets[held.size], exact: true };
}

/** "You need 41" for the taker (or anyone once the deal is over); else what
 * a taker needs by bouts. */
export function needText(view, rules = known) {
  const need = takerNeed(view, rules);
  if (!need) return "";
  const mine = view.you !== null && view.you === view.deal.taker;
  if (need.points !== null) return mine ? _("You need {points}", { points: need.points }) : _("Needs {points}", { points: need.points });
  const targets = rulesFor(view.deal.players, rules)?.targets;
  if (!targets) return "";
  return _("Needs {points} with 0/1/2/3 bouts", { points: targets.join("/") });
}
