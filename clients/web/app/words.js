// Words for a person, with the terminal client's own msgids (clients/cli/
// wording.py, table_facts.py): contracts, reasons, prompts, results, errors.
import { _, N_, ngettext, pgettext } from "./i18n.js";
import { isTrump, label, trumpNumber } from "./cards.js";
import { POIGNEE_NAMES } from "./facts.js";

export const CONTRACT_ORDER = ["pass", "prise", "garde", "garde_sans", "garde_contre"];
const CONTRACTS = {
  pass: N_("Pass"),
  prise: N_("Prise"),
  garde: N_("Garde"),
  garde_sans: N_("Garde sans"),
  garde_contre: N_("Garde contre"),
};
const BID_HELP = {
  pass: N_("no contract"),
  prise: N_("×1, you take the chien"),
  garde: N_("×2, you take the chien"),
  garde_sans: N_("×4, chien unseen, counts for you"),
  garde_contre: N_("×6, chien unseen, counts against you"),
};
const ANNULMENTS = { all_pass: N_("everyone passed"), petit_sec: N_("petit sec (the Petit alone)") };
const CHELEMS = {
  declared_made: N_("chelem declared and made"),
  undeclared_made: N_("chelem made (undeclared)"),
  declared_failed: N_("chelem declared, failed"),
  defense: N_("the defense took every trick"),
};
export const BOT_LEVELS = { random: N_("random"), easy: N_("easy"), normal: N_("normal"), strong: N_("strong") };

export const contract = (code) => (code ? _(CONTRACTS[code] || code) : "");
export const bidHelp = (code) => (BID_HELP[code] ? _(BID_HELP[code]) : "");
export const botLevel = (level) => (level ? _(BOT_LEVELS[level] || level) : "");
export const signed = (n) => (n > 0 ? `+${n}` : String(n).replace("-", "−"));

/** "+164 points", "−1 point": a signed score, with a real minus sign. */
export const points = (n) => ngettext("{points} point", "{points} points", Math.abs(n), { points: signed(n) });

/** 73.25 with the language's decimal separator. */
export const number = (value, decimals) =>
  Number(value).toFixed(decimals).replace(".", pgettext("decimal separator", "."));

export const percent = (value, decimals = 2) => _("{value}%", { value: number(value, decimals) });

/** The daily game's day in one line; the first to play today is compared with nobody. */
export function daySummary(result) {
  const first = result.deals.length > 0 && result.deals.every((d) => (d.others || 0) === 0 && d.players <= 1);
  if (first) return _("Your day: first to play today, {points} in all.", { points: points(result.points) });
  return _("Your day: {percent} on average, {points} in all.", { percent: percent(result.percent), points: points(result.points) });
}
/** A card-point count (40.5) with the language's decimal separator. */
const num = (x) =>
  typeof x === "number" ? String(Math.round(x * 10) / 10).replace(".", pgettext("decimal separator", ".")) : String(x ?? "");

/** "Bob: garde" as the language writes a label and its text (French "Bob : garde", Chinese "Bob：garde"). */
export const labelled = (label, text) => _("{label}: {text}", { label, text });

const ABOUT = {
  deals: [N_("Deal {deal}: you deal."), N_("Deal {deal}: {who} deals.")],
  takes_trick: [N_("You take trick {trick}."), N_("{who} takes trick {trick}.")],
  takes_last_trick: [N_("You take the last trick ({trick})."), N_("{who} takes the last trick ({trick}).")],
  takes_contract: [N_("You take the contract: {contract}."), N_("{who} takes the contract: {contract}.")],
  shows_poignee: [N_("You show a {size}-card poignée: {cards}"), N_("{who} shows a {size}-card poignée: {cards}")],
  declares_chelem: [N_("You declare a chelem!"), N_("{who} declares a chelem!")],
  petit_sec: [N_("you hold the Petit alone (petit sec)"), N_("{who} holds the Petit alone (petit sec)")],
  bidding: [N_("You are bidding…"), N_("{who} is bidding…")],
  ecart_wait: [N_("You take the chien and discard {n}…"), N_("{who} takes the chien and discards {n}…")],
  call_wait: [N_("You call a card…"), N_("{who} calls a card…")],
  calls: [N_("You call {card}."), N_("{who} calls {card}.")],
  is_partner: [N_("You are the partner: {card}"), N_("{who} is the partner: {card}")],
  was_partner: [N_("You were the partner: {card}"), N_("{who} was the partner: {card}")],
  plays_alone: [N_("You play alone ({card} called)"), N_("{who} plays alone ({card} called)")],
  chelem_wait: [N_("You decide on a chelem…"), N_("{who} decides on a chelem…")],
  to_play: [N_("Your turn…"), N_("{who} to play…")],
  away_to_play: [N_("You are away: a bot plays for you soon…"), N_("{who} is away: a bot plays for them soon…")],
  waits_for_start: [
    N_("Start when your friends are seated; empty seats get bots."),
    N_("Waiting for {who} to start the game."),
  ],
};

/** The sentence `key` about `who`, or about you. */
export function about(key, who, you, fields = {}) {
  const [mine, theirs] = ABOUT[key];
  return _(you ? mine : theirs, { who, ...fields });
}

export function annulment(reason, who, you) {
  let text = ANNULMENTS[reason] ? _(ANNULMENTS[reason]) : reason || "";
  if (reason === "petit_sec" && (who || you)) text = about("petit_sec", who || "", you);
  return _("Deal annulled: {reason}; the next dealer deals.", { reason: text });
}

// The names the server makes for a table (docs/PROTOCOL.md `create`, §11):
// in English on the wire, worded again here as the terminal client does
// (clients/cli/table_names.py). Any other name is a person's and stays.
const CREATOR = /^(.+)'s table$/;
const DAILY = /^Daily (\d{4}-\d\d-\d\d)( \(practice\))?$/;
const VOWEL = /^[aeiouyhàâäéèêëîïôöùûüÿœæ]/i;

/** A table's name in the page's language, when the server made it. */
export function tableName(name) {
  const daily = DAILY.exec(name || "");
  if (daily) return daily[2] ? _("Practice {day}", { day: daily[1] }) : _("Daily game {day}", { day: daily[1] });
  const creator = CREATOR.exec(name || "");
  if (!creator) return name || "";
  const who = creator[1];
  if (VOWEL.test(who)) return pgettext("a name starting with a vowel", "{name}'s table", { name: who });
  return _("{name}'s table", { name: who });
}

/** A seat's name as shown: a bot's ("Bot Denis", the server's English word)
 * in the page's word for a bot, as its level is. No person's name starts with
 * "Bot " (the server refuses it). */
export function playerName(name) {
  if (name.startsWith("Bot ") && name.length > 4) return pgettext("a bot's name", "Bot {name}", { name: name.slice(4) });
  return name;
}

/** A seat's name; your own is "You" unless `own` asks for your name. */
export function seatName(view, seat, own = false) {
  if (seat === null || seat === undefined) return "?";
  const s = view.seats?.[seat];
  if (seat === view.you && !(own && s?.name)) return _("You");
  if (s?.name) return playerName(s.name);
  return pgettext("a place at the table", "Seat {n}", { n: seat + 1 });
}

const playing = (view) => view.status === "playing" || view.status === "between_deals";

export function seatState(view, seat) {
  const s = view.seats[seat];
  if (s.kind === "empty") return _("free seat");
  if (s.kind === "bot") return _("bot {level}", { level: botLevel(s.bot_level) }).trim();
  // No bot plays before the game starts (nor after it): away, nothing more.
  if (s.away || !s.connected) return playing(view) ? _("away: a bot stands in") : _("away");
  return seat === view.you ? _("you") : _("online");
}

export function myTurn(view) {
  return view.status === "playing" && view.deal && view.you !== null && view.deal.turn === view.you;
}

/** Between deals: the human seats still reading the result. */
export function reading(view) {
  if (view.status !== "between_deals") return [];
  return view.seats.filter((s) => s.kind === "human" && !view.ready.includes(s.seat)).map((s) => s.seat);
}

export const readingNow = (view) => view.you !== null && reading(view).includes(view.you);

export function ecartPrompt(forced, size) {
  if (forced) {
    return ngettext(
      "Discard {size} (no King, no bout): {n} trump forced, shown face up.",
      "Discard {size} (no King, no bout): {n} trumps forced, shown face up.",
      forced,
      { size },
    );
  }
  return _("Discard {size} cards ({rule}).", { size, rule: _("no King, no bout; trumps only if you must, shown face up") });
}

/** One line saying what is happening, or what you are asked to do. */
export function prompt(view) {
  const deal = view.deal;
  const status = view.status;
  if (status === "waiting") {
    if (view.you === null) return _("Watching: the game has not started yet.");
    if (view.gather_until != null) return _("Quick play: anyone seated may start now.");  // waiting.js counts down
    return about("waits_for_start", seatName(view, view.creator), view.creator === view.you);
  }
  // Over: the result's own heading says "Game over" just below; once is enough.
  if (status === "finished") return "";
  if (status === "closed") return _("This table is closed.");
  if (!deal) return "";
  if (deal.phase === "annulled") {
    const seat = deal.annulled_seat;
    return annulment(deal.annulled, seat !== null ? seatName(view, seat) : null, seat !== null && seat === view.you);
  }
  if (deal.phase === "done" || status === "between_deals") {
    if (view.you === null) return _("Deal over: the next deal comes when the players have read the result.");
    return readingNow(view)
      ? _("Deal over: read the result, then Continue (Enter).")
      : _("Deal over: waiting for the others to read the result.");
  }
  const turn = deal.turn;
  const mine = myTurn(view);
  switch (deal.phase) {
    case "bidding":
      return mine
        ? _("Your bid: each player speaks once, higher than the bids before.")
        : about("bidding", seatName(view, turn), false);
    case "ecart":
      return mine
        ? ecartPrompt(view.legal.ecart_trumps, view.legal.ecart_size)
        : about("ecart_wait", seatName(view, turn), false, { n: ecartSize(view) });
    case "call":
      return mine ? _("Call a card") : about("call_wait", seatName(view, turn), false);
    case "chelem":
      return mine
        ? _("Declare a chelem (all {n} tricks)? +400 if made, −200 if not.", { n: deal.hand_size })
        : about("chelem_wait", seatName(view, turn), false);
    case "play":
      if (mine) {
        return view.legal.poignee_sizes.length
          ? _("Your turn: play a card, or show a poignée first.")
          : _("Your turn: play a card.");
      }
      if (turn !== null && view.seats[turn].away) return about("away_to_play", seatName(view, turn), false);
      return about("to_play", seatName(view, turn), false);
    default:
      return "";
  }
}

/** How many cards the chien holds (and the taker discards): 6, or 3 at five. */
export const ecartSize = (view) => view.legal.ecart_size || view.deal?.chien.length || 6;

/** Why the taker may call these cards and no others (the terminal client's words). */
export function callReason(calls) {
  const ranks = new Set(calls.map((c) => c.slice(0, -1)));
  const rank = ["K", "Q", "C", "J"].find((r) => ranks.has(r)) || "K";
  if (rank === "Q") return _("You hold all four Kings, so you call a Queen.");
  if (rank === "C") return _("You hold all four Kings and Queens, so you call a Knight.");
  if (rank === "J") return _("You hold all four Kings, Queens and Knights, so you call a Jack.");
  return _("You call a King, of any suit.");
}

/** The seat that played `card` in this deal, if played yet. */
function playedBy(deal, card) {
  for (const trick of deal.trick ? [...deal.tricks, deal.trick] : deal.tricks) {
    const i = trick.cards.indexOf(card);
    if (i >= 0) return (trick.leader + i) % deal.players;
  }
  return null;
}

/** At five, once called: "Bob is the partner: K♥" ("was" once over), "Alice plays alone (K♥
 * called)", or "Alice calls K♥." while the partner is still a secret. The
 * partner comes from the view (or the result) only: the page never guesses
 * what this seat may not know. */
export function partnerLine(view) {
  const deal = view.deal;
  if (!deal || !deal.called || deal.taker === null) return "";
  const card = label(deal.called);
  const result = deal.result && !("annulled" in deal.result) ? deal.result : null;
  const partner = deal.partner ?? (result && Number.isInteger(result.partner) ? result.partner : null);
  // "is" while the deal goes on, "was" once it is over.
  const tense = deal.phase === "done" ? "was_partner" : "is_partner";
  if (partner !== null) return about(tense, seatName(view, partner), partner === view.you, { card });
  const alone =
    (result && "partner" in result && result.partner === null) ||
    deal.chien.includes(deal.called) ||
    playedBy(deal, deal.called) === deal.taker ||
    (view.you === deal.taker && (view.hand.includes(deal.called) || view.ecart.includes(deal.called)));
  if (alone) return about("plays_alone", seatName(view, deal.taker), deal.taker === view.you, { card });
  return about("calls", seatName(view, deal.taker), deal.taker === view.you, { card });
}

export function ecartProblem(picked, legal) {
  if (picked.some((c) => !legal.ecart.includes(c))) return _("only the highlighted cards may go to the écart");
  const trumps = picked.filter(isTrump).length;
  const need = legal.ecart_trumps;
  const exact = (n) => ngettext("discard exactly {n} trump", "discard exactly {n} trumps", n);
  if (trumps > need) {
    return need === 0 ? _("trumps may go to the écart only when you lack other cards") : exact(need);
  }
  const size = legal.ecart_size;
  if (picked.length < size) return ngettext("choose {n} more card", "choose {n} more cards", size - picked.length);
  if (picked.length > size) return ngettext("choose exactly {n} card", "choose exactly {n} cards", size);
  if (trumps < need) return exact(need);
  return null;
}

/** A first choice of `size` cards to show: the lowest trumps but the Petit, then the Petit, then the Excuse. */
export function poigneeDefault(legal, size) {
  const trumps = legal.poignee_cards.filter(isTrump).sort((a, b) => trumpNumber(a) - trumpNumber(b));
  const picked = trumps.filter((c) => c !== "T1").slice(0, size);
  if (picked.length < size && trumps.includes("T1")) picked.push("T1");
  if (picked.length < size && legal.poignee_cards.includes("EX")) picked.push("EX");
  return picked;
}

export function poigneeProblem(picked, legal, size) {
  if (picked.some((c) => !legal.poignee_cards.includes(c))) return _("a poignée shows trumps (and the Excuse) only");
  if (picked.length !== size) {
    return ngettext("show exactly {n} card ({chosen} chosen)", "show exactly {n} cards ({chosen} chosen)", size, {
      chosen: picked.length,
    });
  }
  if (picked.includes("EX") && legal.poignee_cards.some((c) => isTrump(c) && !picked.includes(c))) {
    return _("the Excuse may stand in for a trump only when you show every trump");
  }
  return null;
}

const side = (s) => (s === "taker" ? _("taker") : s === "defense" ? _("defense") : String(s));

/** The finished deal in short lines (contract, points, bonuses). */
export function resultLines(view) {
  const r = view.deal?.result;
  if (!r) return [];
  if ("annulled" in r) return [_("Deal annulled"), ANNULMENTS[r.annulled] ? _(ANNULMENTS[r.annulled]) : ""];
  const fields = { margin: num(r.margin), points: num(r.points), target: num(r.target) };
  const lines = [
    labelled(contract(r.contract), seatName(view, r.taker)),
    r.made ? _("made by {margin} ({points}/{target})", fields) : _("down by {margin} ({points}/{target})", fields),
    ngettext("{n} bout", "{n} bouts", r.bouts || 0),
  ];
  if (r.petit_au_bout) lines.push(_("petit au bout: {side}", { side: side(r.petit_au_bout) }));
  for (const p of r.poignees || []) {
    const size = POIGNEE_NAMES[p.size] ? _(POIGNEE_NAMES[p.size]) : p.size;
    lines.push(_("poignée {size}: {who}", { size, who: seatName(view, p.seat) }));
  }
  if (r.chelem) lines.push(CHELEMS[r.chelem] ? _(CHELEMS[r.chelem]) : String(r.chelem));
  return lines;
}

export function sheetContract(code, made) {
  return made ? _("{contract} made", { contract: contract(code) }) : _("{contract} down", { contract: contract(code) });
}

export function sheetAnnulled(reason) {
  if (reason === "all_pass") return _("annulled: all passed");
  if (reason === "petit_sec") return _("annulled: petit sec");
  return _("annulled: {reason}", { reason });
}

export const cardsText = (codes) => codes.map(label).join(" ");

// -- the connection ---------------------------------------------------------------

// WebSocket close codes (docs/PROTOCOL.md §6.3) -> what happened, and whether to reconnect.
const CLOSE_CODES = {
  1000: [N_("the server closed the connection"), true],
  1001: [N_("the server is going away"), true],
  1006: [N_("the connection was lost"), true],
  1011: [N_("the server hit an error"), true],
  1012: [N_("the server is restarting"), true],
  1013: [N_("the server is full; trying again"), true],
  4001: [N_("your seat was taken back from another window"), false],
  4002: [N_("the connection was too slow to keep up"), true],
  4003: [N_("this client is too old for the server: please update Atout"), false],
  4004: [N_("the server did not get our hello in time"), true],
  4005: [N_("this client sent too many messages too fast, so the server closed it"), false],
  4006: [N_("you were idle in the lobby for a long time, so the server closed the connection"), false],
};

export const offline = () => _("no network: waiting for it to come back");

export function closed(code) {
  const known = CLOSE_CODES[code];
  if (known) return [_(known[0]), known[1]];
  if (code === null || code === undefined) return [_("the connection was lost"), true];
  return [_("the connection closed (code {code})", { code }), true];
}

const LEFT_REASONS = [
  N_("You stopped watching."),
  N_("You left the table."),
  N_("The table closed."),
  N_("Your tournament seat waits for you: a bot plays it until you are back."),
  N_("The host had bots finish the round."),
];

export function leftReason(reason) {
  const sentence = `${reason.slice(0, 1).toUpperCase()}${reason.slice(1)}.`;
  return LEFT_REASONS.includes(sentence) ? _(sentence) : sentence;
}

// Every server error code (§6.1, §11.5) in words (tests/test_web_errors.py
// checks none is missing); a code from a newer server shows the server's
// English message. The code is always shown.
const ERROR_CODES = {
  incompatible_version: N_("this client is too old for the server: please update Atout"),
  hello_first: N_("the server expected a hello first (a client bug)"),
  rate_limited: N_("too fast: wait a moment and try again"),
  not_your_turn: N_("it is not your turn"),
  illegal_card: N_("that card cannot be played now"),
  spectator: N_("you are watching"),
  no_such_table: N_("no open table has that id or code"),
  table_full: N_("that table has no free seat"),
  seat_taken: N_("someone sits there already"),
  wait_for_deal_end: N_("a bot plays that seat until the end of the deal"),
  table_closed: N_("that table is closed"),
  bad_token: N_("your seat is gone (the table closed or was given up)"),
  too_many_tables: N_("the server has too many tables; try later"),
  not_creator: N_("only the player who opened the table can start it"),
  bad_chat: N_("a chat line is 1 to 200 characters"),
  name_taken: N_("another player has that name: choose another"),
  unknown_key: N_("this server does not know your player key: import the right one, or make a new player"),
  bad_key: N_("a player key is 32 hex digits (0-9, a-f)"),
  bad_name: N_("a name is 1 to 24 characters, not starting with “Bot ”"),
  guest: N_("guests have no daily game nor profile"),
  daily_private: N_("that is someone's daily game: it can be watched once finished"),
  unavailable: N_("the server could not answer just now; try again"),
  malformed: N_("the server could not read what this client sent (a client bug)"),
  unknown_message: N_("the server does not know that command (a client bug)"),
  invalid_message: N_("a command had a missing or wrong field (a client bug)"),
  already_hello: N_("this client said hello twice (a client bug)"),
  already_seated: N_("you are at a table already: leave it first"),
  not_at_table: N_("you are not at a table"),
  no_hints: N_("hints are for casual tables only"),
  bad_table: N_("those table settings are out of range"),
  bad_seat: N_("there is no such seat"),
  already_started: N_("the game has started already"),
  not_finished: N_("the game is not over yet"),
  not_between_deals: N_("no result is waiting to be read"),
  unexpected: N_("the table did not expect that command"),
  internal: N_("the server hit a bug: nothing was done; try again"),
  wrong_phase: N_("that is not possible at this point of the deal"),
  bad_bid: N_("that bid is not allowed: bid higher than the bids before"),
  bad_ecart: N_("that écart is not allowed: as many cards as the chien, no King, no bout, trumps only if you must"),
  bad_call: N_("that card may not be called: a King, or a Queen only when you hold all four Kings"),
  bad_players: N_("a table seats 3, 4 or 5 players"),
  bad_chelem: N_("that chelem answer was not understood"),
  bad_poignee: N_("that poignée cannot be shown"),
  card_not_in_hand: N_("you do not hold that card"),
  unknown_card: N_("there is no such card"),
  bad_deck: N_("that deal record is not a full deck"),
  daily_again: N_("a daily game is played once: Daily starts a practice game"),
  bad_period: N_("there is no such leaderboard"),
  bad_tournament: N_("those tournament settings are not allowed"),
  no_such_tournament: N_("no tournament has that code"),
  tournament_started: N_("that tournament has started"),
  tournament_finished: N_("that tournament is over"),
  already_joined: N_("you are in that tournament already"),
  not_joined: N_("that player is not in the tournament"),
  not_host: N_("only the tournament's host may do that"),
  team_full: N_("that team is full"),
  too_few_players: N_("not enough players to seat"),
  too_early: N_("the round's time is not up yet"),
  tournament_table: N_("that table belongs to a tournament round"),
};

// Why the server says goodbye (§6.2): the same words as its close code's.
const BYE_CODES = { no_hello: 4004, flooding: 4005, idle: 4006, replaced: 4001, restarting: 1012 };

/** One line for a `bye` event: words a person understands, then its code. */
export function byeText(code, message) {
  const text = BYE_CODES[code] ? _(CLOSE_CODES[BYE_CODES[code]][0]) : String(message || "").trim();
  return `${text.slice(0, 1).toUpperCase()}${text.slice(1)} [${code}]`;
}

/** One line for an `error` event: words a person understands, then its code. */
export function errorText(code, message) {
  let text = ERROR_CODES[code] ? _(ERROR_CODES[code]) : String(message || "").trim();
  if (!text) text = _("the server refused that");
  return `${text.slice(0, 1).toUpperCase()}${text.slice(1)} [${code}]`;
}
