// Keys beyond Tab and Enter, as in the terminal client: ←/→ move between the
// buttons of one row (the hand, the bids, the écart's and the table's
// actions), and Esc closes what is open over the screen (`useEscape`).
import { useLayoutEffect, useRef } from "preact/hooks";

// What Esc closes, the last opened on top: one Esc closes one thing.
const open = [];

const ROWS = ".hand-box, .choices, .tabs, .big-actions, .table-actions, .row-actions";

/** The next enabled button of the focused one's row, `step` away (wrapping). */
function neighbour(button, step) {
  const row = button.closest(ROWS);
  if (!row) return null;
  const buttons = Array.from(row.querySelectorAll("button")).filter((b) => !b.disabled);
  const at = buttons.indexOf(button);
  if (at < 0 || buttons.length < 2) return null;
  return buttons[(at + step + buttons.length) % buttons.length];
}

export function installKeys(doc) {
  doc.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape" && open.length && !ev.defaultPrevented) {
      ev.preventDefault();
      open[open.length - 1]();
      return;
    }
    if (ev.altKey || ev.ctrlKey || ev.metaKey || ev.shiftKey) return;
    if (ev.key !== "ArrowLeft" && ev.key !== "ArrowRight") return;
    const focused = doc.activeElement;
    if (!focused || focused.tagName !== "BUTTON") return; // inputs keep their arrows
    const next = neighbour(focused, ev.key === "ArrowLeft" ? -1 : 1);
    if (next) {
      ev.preventDefault();
      next.focus();
    }
  });
}

/** While mounted: Esc calls `onEscape` (the newest such caller only); on
 * unmount, the focus goes back to what had it when this opened (the button
 * that opened a panel), if that is still on the page. */
export function useEscape(onEscape) {
  const latest = useRef(onEscape);
  latest.current = onEscape;
  // A layout effect: Esc works from the moment the panel shows, not a frame later.
  useLayoutEffect(() => {
    if (!latest.current) return undefined;
    const entry = () => latest.current && latest.current();
    const opener = document.activeElement;
    open.push(entry);
    return () => {
      open.splice(open.indexOf(entry), 1);
      if (opener && opener !== document.body && opener.isConnected) opener.focus();
    };
  }, []);
}
