// Motion computed from the difference between two renders (the FLIP
// technique, as lichess's chessground animates from state differences): before
// a render, remember where each card is; after it, start each card that moved
// from its old place (a card played from the hand to the trick, the hand
// closing up), a card new to the trick from its player's plate, a newly dealt
// hand from the middle of the felt, and send the cards of a trick just won to
// the winner's plate. Cards are where they belong from the first frame (a tap
// is never kept waiting: the animation is only a transform on top); under
// `prefers-reduced-motion` nothing moves.

const DURATION = 280;
const EASE = "cubic-bezier(0.2, 0.7, 0.3, 1)";

const reduced = window.matchMedia("(prefers-reduced-motion: reduce)");
const still = () => reduced.matches;
// Motion turned off while cards fly: they land at once.
reduced.addEventListener?.("change", (e) => {
  if (e.matches) for (const a of document.getAnimations()) a.finish();
});

const cardsIn = (root, sel) => Array.from(root.querySelectorAll(sel));

/** Where things are before a render: null when nothing is to move. */
export function measure(root) {
  const table = root.querySelector(".table-screen");
  if (!table || still()) return null;
  const cards = new Map();
  for (const el of cardsIn(table, ".felt [data-card], .hand-box [data-card]")) {
    if (!cards.has(el.dataset.card)) cards.set(el.dataset.card, el.getBoundingClientRect());
  }
  const trick = cardsIn(table, "[data-trick] [data-card]").map((el) => ({
    code: el.dataset.card,
    box: el.getBoundingClientRect(),
    copy: el.cloneNode(true),
  }));
  return { cards, trick, hand: table.querySelectorAll(".hand-box [data-card]").length };
}

function slide(el, from, to, options = {}) {
  const dx = from.left - to.left;
  const dy = from.top - to.top;
  const sx = from.width / (to.width || 1);
  if (Math.abs(dx) < 1 && Math.abs(dy) < 1 && Math.abs(sx - 1) < 0.02) return;
  el.animate(
    [{ transform: `translate(${dx}px, ${dy}px) scale(${sx})`, transformOrigin: "0 0" }, { transform: "none", transformOrigin: "0 0" }],
    { duration: DURATION, easing: EASE, ...options },
  );
}

const plate = (table, seat) => table.querySelector(`.seat[data-seat="${seat}"]`);

/** After a render: move what moved. `winner`: the seat that took the trick just gone, if any. */
export function play(root, before, winner = null) {
  if (!before || still()) {
    document.querySelector(".ghosts")?.replaceChildren(); // motion turned off meanwhile: none left flying
    return;
  }
  const table = root.querySelector(".table-screen");
  if (!table) return;
  const felt = table.querySelector(".felt");
  const middle = felt ? felt.getBoundingClientRect() : null;
  const dealt = before.hand === 0;
  let k = 0;
  for (const el of cardsIn(table, ".felt [data-card], .hand-box [data-card]")) {
    const now = el.getBoundingClientRect();
    let from = before.cards.get(el.dataset.card);
    if (!from && el.closest("[data-trick]")) {
      // A card new to the trick comes from its player's plate, small, as from their hand.
      const p = plate(table, el.dataset.seat)?.getBoundingClientRect();
      if (p) from = { left: p.left + p.width / 2 - now.width * 0.3, top: p.top + p.height / 2 - now.height * 0.3, width: now.width * 0.6 };
    }
    if (!from && dealt && middle && el.closest(".hand-box")) {
      from = { left: middle.left + middle.width / 2, top: middle.top + middle.height / 2, width: now.width };
      slide(el, from, now, { delay: Math.min(k++ * 18, 400), fill: "backwards" });
      continue;
    }
    if (from) slide(el, from, now);
  }
  // The trick just won: its cards, gone from the page, fly to the winner's plate
  // (not the deal's last: the result takes the felt, and they would fly over it).
  const target = winner !== null ? plate(table, winner) : null;
  if (!target || !before.trick.length || table.querySelector(".felt-over .result")) return;
  const still_here = new Set(cardsIn(table, "[data-trick] [data-card]").map((el) => el.dataset.card));
  const to = target.getBoundingClientRect();
  let layer = document.querySelector(".ghosts");
  if (!layer) {
    layer = document.createElement("div");
    layer.className = "ghosts";
    layer.setAttribute("aria-hidden", "true");
    document.body.append(layer);
  }
  for (const { code, box, copy } of before.trick) {
    if (still_here.has(code)) continue;
    copy.removeAttribute("data-card");
    copy.removeAttribute("data-seat");
    copy.removeAttribute("role");
    copy.removeAttribute("aria-label");
    copy.classList.add("ghost");
    layer.append(copy);
    const size = { width: `${box.width}px`, height: `${box.height}px` };
    const anim = copy.animate(
      [
        { transform: `translate(${box.left}px, ${box.top}px)`, opacity: 1, ...size },
        { transform: `translate(${to.left + to.width / 2 - box.width / 4}px, ${to.top + to.height / 2 - box.height / 4}px) scale(0.5)`, opacity: 0, ...size },
      ],
      // "both": during the delay too each stands where its card lay (with
      // "forwards" alone it stood untransformed, at the window's top-left).
      { duration: DURATION + 120, easing: EASE, fill: "both", delay: 350 },
    );
    const gone = () => copy.remove();
    anim.onfinish = gone;
    anim.oncancel = gone;
    setTimeout(gone, DURATION + 1000); // and surely, should the page's timeline be held
  }
}
