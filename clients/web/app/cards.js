// Cards for eyes and ears: the label shown (K♠, 10♥, T21, EX, with the
// language's face letters), the name spoken ("King of hearts"), the order a
// hand is shown in. Colour is never the only sign of a suit: every suit card
// carries its symbol, trumps their T, the Excuse its name.
import { _, N_, pgettext } from "./i18n.js";

const SYMBOLS = { S: "♠", H: "♥", D: "♦", C: "♣" };
export const ENGLISH_RANKS = "KQCJ";
const SUIT_NAMES = { S: N_("spades"), H: N_("hearts"), D: N_("diamonds"), C: N_("clubs") };
const FACE_NAMES = { K: N_("King"), Q: N_("Queen"), C: N_("Knight"), J: N_("Jack"), 1: N_("Ace") };
export const BOUTS = ["T1", "T21", "EX"];

export function rankLetters() {
  // The catalogs' own letters for King, Queen, Knight, Jack (French: RDCV).
  const letters = pgettext("card letters", "KQCJ");
  return letters.length === 4 ? letters : ENGLISH_RANKS;
}

export const isTrump = (code) => code.startsWith("T");
export const trumpNumber = (code) => Number(code.slice(1));
export const suitOf = (code) => (code === "EX" ? "EX" : isTrump(code) ? "T" : code.slice(-1));

/** K♠, 10♥, T21, EX (French R♠ D♥ C♣ V♦). */
export function label(code) {
  if (code === "EX" || isTrump(code)) return code;
  const rank = code.slice(0, -1);
  const i = ENGLISH_RANKS.indexOf(rank);
  return (rank.length === 1 && i >= 0 ? rankLetters()[i] : rank) + SYMBOLS[code.slice(-1)];
}

/** The card's name in words: "King of hearts", "Trump 21", "the Excuse". */
export function spoken(code) {
  if (code === "EX") return _("the Excuse");
  if (code === "T1") return _("the Petit (trump 1)");
  if (code === "T21") return _("trump 21");
  if (isTrump(code)) return _("trump {n}", { n: trumpNumber(code) });
  const rank = code.slice(0, -1);
  const face = FACE_NAMES[rank];
  return _("{rank} of {suit}", { rank: face ? _(face) : rank, suit: _(SUIT_NAMES[code.slice(-1)]) });
}

const SUIT_ORDER = { S: 0, H: 1, C: 2, D: 3, T: 4, EX: 5 };
const RANKS = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "C", "Q", "K"];

/** Display order: suits ♠ ♥ ♣ ♦ (black and red alternate), high to low; trumps high to low; the Excuse. */
export function handOrder(codes) {
  const key = (c) => {
    const s = suitOf(c);
    if (s === "EX") return [5, 0];
    if (s === "T") return [4, -trumpNumber(c)];
    return [SUIT_ORDER[s], -RANKS.indexOf(c.slice(0, -1))];
  };
  return [...codes].sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    return x[0] - y[0] || x[1] - y[1];
  });
}

/** A CSS class for the card's kind: the suit's colour is a second sign, not the only one. */
export const kindClass = (code) => `card-${suitOf(code).toLowerCase()}`;

