// What the browser keeps for a server: the player key, the name, the seat's
// resume token (so a reload, a dropped line or a server restart gets the seat
// back), the tournament followed, the language. All in localStorage, keyed by the server's address.

const get = (k) => {
  try {
    return JSON.parse(localStorage.getItem(k) ?? "null");
  } catch {
    return null;
  }
};
const put = (k, v) => {
  try {
    if (v === null || v === undefined) localStorage.removeItem(k);
    else localStorage.setItem(k, JSON.stringify(v));
  } catch {
    // Storage full or refused (private mode): the game goes on, only unkept.
  }
};

export const KEY_RE = /^[0-9a-f]{32}$/;

export function newKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export function storeFor(server) {
  const k = (what) => `atout:${what}:${server}`;
  return {
    /** {key, registered} or null. */
    player: () => get(k("player")),
    setPlayer: (p) => put(k("player"), p),
    /** {token, table_id, seat} or null. */
    seat: () => get(k("seat")),
    setSeat: (s) => put(k("seat"), s),
    /** The code of the tournament followed (its view is asked again after a reload). */
    tournament: () => get(k("tournament")),
    setTournament: (code) => put(k("tournament"), code),
    /** Playing as a guest here: no player key sent (as `atout connect --guest`). */
    guest: () => get(k("guest")) === true,
    setGuest: (g) => put(k("guest"), g ? true : null),
    name: () => get("atout:name") || "",
    setName: (n) => put("atout:name", n),
  };
}

export const savedLang = () => get("atout:lang");
export const saveLang = (l) => put("atout:lang", l);

// The page's own settings, one object for the whole page (main.js holds it
// and hands it down): the colour theme ("auto" follows the system), the
// four-colour deck, and "tap twice to play" for phones.
export const PREFS = { theme: "auto", fourColours: false, twoTaps: false };
export const savedPrefs = () => ({ ...PREFS, ...(get("atout:prefs") || {}) });
export const savePrefs = (p) => put("atout:prefs", p);
