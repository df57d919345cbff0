// Keeping the views in step with the server (docs/PROTOCOL.md §5): the pure
// part of the connection. Messages in, views and commands out, no socket.
// It answers the same vectors (tests/data/sync-vectors.json) as the Python
// synchroniser, clients/sync.py.

/** A patch that does not fit the document: the client is out of step. */
export class PatchError extends Error {}

const isMap = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const isIndex = (k) => typeof k === "number" && Number.isInteger(k);

function copy(value) {
  // Views are JSON documents: a JSON round trip is a faithful deep copy.
  return value === undefined ? null : JSON.parse(JSON.stringify(value));
}

// A patch copies only what it changes: the nodes on each op's path are
// copied (shallow, one level each), everything beside them is shared with the
// document before. The old document stays whole (what was, for the page's
// announcements and motion, which compare before and after), and a patch
// costs the length of its paths, not the size of the view.
const shallow = (node) => (Array.isArray(node) ? node.slice() : { ...node });

/** The node at `steps` in `work`, each node on the way copied once (`fresh` remembers). */
function walkOwn(work, steps, fresh) {
  let node = work;
  for (const step of steps) {
    let child;
    if (isMap(node)) {
      if (typeof step !== "string" || !Object.hasOwn(node, step)) {
        throw new PatchError(`no key ${JSON.stringify(step)}`);
      }
      child = node[step];
    } else if (Array.isArray(node)) {
      if (!isIndex(step) || step < 0 || step >= node.length) {
        throw new PatchError(`no index ${JSON.stringify(step)}`);
      }
      child = node[step];
    } else {
      throw new PatchError("cannot step into a scalar");
    }
    if (child !== null && typeof child === "object" && !fresh.has(child)) {
      child = shallow(child);
      fresh.add(child);
      node[step] = child;
    }
    node = child;
  }
  return node;
}

function append(target, value) {
  if (!Array.isArray(target)) throw new PatchError("append to a non-array");
  if (!Array.isArray(value)) throw new PatchError("append of a non-array");
  target.push(...copy(value));
}

/** `patch` applied to `doc` (§5.3): a new document, or a PatchError; `doc` is untouched. */
export function applyPatch(doc, patch) {
  if (!Array.isArray(patch)) throw new PatchError("a patch is an array of ops");
  const fresh = new Set();
  let work = doc !== null && typeof doc === "object" ? shallow(doc) : doc;
  if (work !== null && typeof work === "object") fresh.add(work);
  for (const op of patch) {
    // [path, op, value]; a "del" may leave out its null value, as the
    // Python decoder allows.
    if (!Array.isArray(op) || op.length < 2 || op.length > 3 || !Array.isArray(op[0])) {
      throw new PatchError("an op is [path, op, value]");
    }
    const [path, kind, value = null] = op;
    if (path.length === 0) {
      if (kind === "set") {
        work = copy(value);
        fresh.clear();
        if (work !== null && typeof work === "object") fresh.add(work);
      } else if (kind === "append") append(work, value);
      else throw new PatchError(`cannot ${kind} the whole document`);
      continue;
    }
    if (kind === "append") {
      append(walkOwn(work, path, fresh), value);
      continue;
    }
    const parent = walkOwn(work, path.slice(0, -1), fresh);
    const key = path[path.length - 1];
    if (kind === "set") {
      if (isMap(parent) && typeof key === "string") parent[key] = copy(value);
      else if (Array.isArray(parent) && isIndex(key) && key >= 0 && key < parent.length) {
        parent[key] = copy(value);
      } else throw new PatchError(`cannot set ${JSON.stringify(key)}`);
    } else if (kind === "del") {
      if (!isMap(parent) || typeof key !== "string" || !Object.hasOwn(parent, key)) {
        throw new PatchError(`no key ${JSON.stringify(key)} to delete`);
      }
      delete parent[key];
    } else {
      throw new PatchError(`unknown op ${JSON.stringify(kind)}`);
    }
  }
  return work;
}

/** One stream of views (a seat's, the spectators', or the lobby's). */
class Stream {
  constructor() {
    this.drop();
  }
  drop() {
    this.view = null;
    this.seq = -1;
    this.awaitingSnapshot = false;
  }
  snapshot(seq, view) {
    // Authoritative whatever its seq (it may go back after a server restart).
    this.view = view;
    this.seq = seq;
    this.awaitingSnapshot = false;
  }
  /** Apply a patch; true when a snapshot must be asked for. */
  patch(seq, ops) {
    if (this.awaitingSnapshot) return false; // the snapshot asked for covers it
    if (this.view !== null && seq === this.seq + 1) {
      try {
        this.view = applyPatch(this.view, ops);
        this.seq = seq;
        return false;
      } catch (err) {
        if (!(err instanceof PatchError)) throw err;
      }
    }
    this.view = null;
    this.awaitingSnapshot = true;
    return true;
  }
}

/** The table and lobby views of one connection, and whose seat it holds. */
export class Sync {
  constructor() {
    this.table = new Stream();
    this.lobby = new Stream();
    this.tableId = null;
    this.seat = null;
    this.token = null;
    this.snapshotsAsked = 0;
  }

  /** Take one decoded server message; returns the commands to send because of it. */
  take(msg) {
    switch (msg.t) {
      case "table":
        this.table.snapshot(msg.seq, msg.view);
        this.seat = msg.view?.you ?? null;
        return [];
      case "tpatch":
        return this.table.patch(msg.seq, msg.patch) ? this.ask() : [];
      case "lobby":
        this.lobby.snapshot(msg.seq, msg.view);
        return [];
      case "lpatch":
        // Sent before we sat down: a snapshot now would fetch the table's.
        if (this.tableId !== null) return [];
        return this.lobby.patch(msg.seq, msg.patch) ? this.ask() : [];
      case "seated": {
        const seat = msg.seat ?? null;
        // A new seat starts afresh; resuming the same seat keeps the view
        // for the missed patches to apply to.
        if (msg.table_id !== this.tableId || seat !== this.seat) this.table.drop();
        this.tableId = msg.table_id;
        this.seat = seat;
        if (msg.token) this.token = msg.token;
        return [];
      }
      case "left":
        this.table.drop();
        this.tableId = null;
        this.seat = null;
        return [];
      default:
        return [];
    }
  }

  ask() {
    this.snapshotsAsked += 1;
    return [{ t: "snapshot" }];
  }
}
