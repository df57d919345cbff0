// Before a table starts: who may start it, and a quick-play table's wait for
// people (docs/PROTOCOL.md `quick`, `gather_until`): "Waiting for players ·
// bots fill the seats in 12 s", and "Start now" for anyone seated. The host
// of any other table gets "Start the game"; the others are told who starts.
import { useEffect, useState } from "preact/hooks";
import { _ } from "./i18n.js";
import { html, serverNow } from "./ui.js";

function useSeconds(at) {
  const left = () => (at === null ? 0 : Math.max(0, Math.ceil(at - serverNow() / 1000)));
  const [seconds, setSeconds] = useState(left);
  useEffect(() => {
    setSeconds(left());
    if (at === null) return undefined;
    const id = setInterval(() => setSeconds(left()), 500);
    return () => clearInterval(id);
  }, [at]);
  return seconds;
}

/** The start of a waiting table: the countdown of a quick-play table and the button to start. */
export function StartBar({ view, move, busy }) {
  const gathering = view.gather_until !== null && view.gather_until !== undefined;
  const seconds = useSeconds(gathering ? view.gather_until : null);
  const seated = view.you !== null;
  const mayStart = seated && (gathering || view.creator === view.you);
  return html`<div class="start-bar">
    ${gathering && html`<p class="gathering" role="timer" aria-live="off">${_("Waiting for players · bots fill the seats in {n} s", { n: seconds })}</p>`}
    ${mayStart && html`<button class="primary start" disabled=${busy} onClick=${() => move({ t: "start" })}>
      ${gathering ? _("Start now") : _("Start the game")}</button>`}
  </div>`;
}
