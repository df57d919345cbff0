// The connection to the server: one WebSocket speaking atout.v1.json, hello,
// resume, reconnection with backoff, and the synchroniser between the wire
// and the app. The app sees messages and the state of the link, never the socket.
import { Sync } from "./sync.js";
import { closed, offline } from "./words.js";

const SUBPROTOCOL = "atout.v1.json";
// Commands that change a table: one at a time, until the view answers it
// (the next patch) or an error does. A click twice, or a click during a
// drop, must not send a move twice.
const MOVES = new Set(["bid", "call", "ecart", "chelem", "poignee", "play", "start", "again", "ready"]);
const NO_RETRY_ERRORS = new Set(["bad_name", "name_taken", "unknown_key", "bad_key", "incompatible_version"]);

/** The server's WebSocket address: this page's host, or a `?server=ws://…` override (ws/wss only). */
export function serverUrl(location) {
  const asked = new URLSearchParams(location.search).get("server");
  if (asked) {
    try {
      const url = new URL(asked);
      if ((url.protocol === "ws:" || url.protocol === "wss:") && !url.username && !url.password) {
        return `${url.protocol}//${url.host}/`;
      }
    } catch {
      // not a URL: fall through to the page's own server
    }
  }
  return `${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}/`;
}

export class Connection {
  constructor({ url, store, onMessage, onStatus }) {
    this.url = url;
    this.store = store;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.sync = new Sync();
    this.ws = null;
    this.rid = 0;
    this.attempt = 0;
    this.timer = null;
    this.status = { phase: "connecting", reason: "", attempt: 0 };
    this.pendingMove = null; // rid of the move on its way
    this.resumeRid = null;
    this.stopped = false;
    this.welcome = null;
    // The device says it lost its network: the socket is dead even if no
    // close has come (none will, without a network), so say so now and
    // reconnect as soon as the network is back.
    this.offline = () => {
      if (this.ws) this.lost(this.ws, null, offline());
    };
    window.addEventListener("offline", this.offline);
  }

  setStatus(status) {
    this.status = status;
    this.onStatus(status);
  }

  open(name) {
    this.name = name;
    this.stopped = false;
    this.bye = null;
    clearTimeout(this.timer);
    this.setStatus({ phase: this.attempt ? "reconnecting" : "connecting", reason: "", attempt: this.attempt });
    let ws;
    try {
      ws = new WebSocket(this.url, [SUBPROTOCOL]);
    } catch (err) {
      this.setStatus({ phase: "stopped", reason: String(err.message || err), attempt: 0 });
      return;
    }
    this.ws = ws;
    ws.onopen = () => this.hello();
    ws.onmessage = (ev) => this.take(ev.data);
    ws.onclose = (ev) => this.lost(ws, ev.code);
    ws.onerror = () => {}; // the close that follows says what happened
  }

  hello() {
    const player = this.store.guest() ? null : this.store.player();
    this.send({
      t: "hello",
      version: 1,
      name: this.name,
      client: "atout-web",
      key: player ? player.key : null,
      register: player ? !player.registered : false,
    });
  }

  take(data) {
    let msg;
    try {
      msg = JSON.parse(data);
    } catch {
      return; // the server sends only JSON; a broken frame is not ours to show
    }
    if (!msg || typeof msg !== "object") return;
    for (const command of this.sync.take(msg)) this.send(command);
    switch (msg.t) {
      case "welcome": {
        this.attempt = 0;
        this.welcome = msg;
        const player = this.store.guest() ? null : this.store.player();
        if (player && !player.registered) this.store.setPlayer({ ...player, registered: true });
        this.setStatus({ phase: "online", reason: "", attempt: 0 });
        const seat = this.store.seat();
        if (seat) {
          const held = this.sync.table.view !== null && this.sync.tableId === seat.table_id;
          this.resumeRid = this.send({ t: "resume", token: seat.token, last_seq: held ? this.sync.table.seq : -1 });
        }
        break;
      }
      case "seated":
        if (msg.seat !== null && msg.token) {
          this.store.setSeat({ token: msg.token, table_id: msg.table_id, seat: msg.seat });
        }
        break;
      case "left":
        this.store.setSeat(null);
        break;
      case "table":
      case "tpatch":
        if (this.pendingMove !== null && !this.sync.table.awaitingSnapshot) this.pendingMove = null;
        break;
      case "error":
        if (msg.rid !== null && msg.rid === this.pendingMove) this.pendingMove = null;
        if (msg.rid !== null && msg.rid === this.resumeRid && msg.code !== "already_seated") {
          // The seat is gone (table closed, seat handed over): forget the token.
          if (msg.code !== "unavailable" && msg.code !== "rate_limited") this.store.setSeat(null);
        }
        if (NO_RETRY_ERRORS.has(msg.code)) this.stopped = true;
        break;
      case "bye":
        this.bye = msg;
        break;
      default:
    }
    this.onMessage(msg, this.sync);
  }

  /** Send a command with a fresh rid; returns the rid, or null when not sent. */
  send(command) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return null;
    this.rid += 1;
    const msg = { ...command, rid: this.rid };
    this.ws.send(JSON.stringify(msg));
    return this.rid;
  }

  /** A move (play, bid…): not sent while the previous one is on its way or the line is down. */
  move(command) {
    if (this.pendingMove !== null || this.status.phase !== "online") return null;
    const rid = this.send(command);
    if (MOVES.has(command.t)) this.pendingMove = rid;
    return rid;
  }

  lost(ws, code, why = null) {
    if (ws !== this.ws) return;
    this.ws = null;
    this.pendingMove = null;
    if (why) ws.close();
    const [said, again] = closed(code);
    const reason = why || said;
    if (this.stopped || !again || this.bye?.code === "replaced") {
      this.setStatus({ phase: "stopped", reason, attempt: 0, code });
      return;
    }
    this.attempt += 1;
    // 0.5 s, 1, 2, 4, 8, then every 10 s, with a little jitter so a restarted
    // server is not hit by every browser in the same instant.
    const delay = Math.min(10000, 500 * 2 ** (this.attempt - 1)) * (0.8 + 0.4 * Math.random());
    this.setStatus({ phase: "reconnecting", reason, attempt: this.attempt, at: Date.now() + delay });
    this.timer = setTimeout(() => this.again(), delay);
  }

  // Reconnect, unless the device knows it has no network: then wait for the
  // network to come back instead of failing again every few seconds.
  again() {
    if (navigator.onLine !== false) {
      this.open(this.name);
      return;
    }
    this.setStatus({ ...this.status, reason: offline(), at: null });
    window.addEventListener("online", () => {
      if (this.ws === null && !this.stopped) this.open(this.name);
    }, { once: true });
  }

  /** Reconnect now (the "Reconnect" button), or after a stop. */
  retry() {
    this.bye = null;
    if (this.ws) this.ws.close();
    this.ws = null;
    this.attempt = Math.max(this.attempt, 1);
    this.open(this.name);
  }

  close() {
    this.stopped = true;
    window.removeEventListener("offline", this.offline);
    clearTimeout(this.timer);
    if (this.ws) this.ws.close(1000);
  }
}
