// The page's settings, in a panel over the table: light or dark (or as the
// system says), a four-colour deck, and "tap twice to play"; below them the
// table's help: what the marks on the felt mean, and the keys.
import { _ } from "./i18n.js";
import { Panel, html } from "./ui.js";

export function Settings({ prefs, setPrefs, onClose }) {
  const set = (change) => setPrefs({ ...prefs, ...change });
  return html`<${Panel} title=${_("Settings")} onClose=${onClose}>
    <label>${_("Colours")}
      <select value=${prefs.theme} onChange=${(e) => set({ theme: e.currentTarget.value })}>
        <option value="auto" selected=${prefs.theme === "auto"}>${_("as the system says")}</option>
        <option value="light" selected=${prefs.theme === "light"}>${_("light")}</option>
        <option value="dark" selected=${prefs.theme === "dark"}>${_("dark")}</option>
      </select></label>
    <label class="choice"><input type="checkbox" checked=${prefs.fourColours}
      onChange=${(e) => set({ fourColours: e.currentTarget.checked })} />
      ${_("Four-colour deck")} <small>(${_("diamonds blue, clubs green")})</small></label>
    <label class="choice"><input type="checkbox" checked=${prefs.twoTaps}
      onChange=${(e) => set({ twoTaps: e.currentTarget.checked })} />
      ${_("Tap twice to play")} <small>(${_("the first tap raises the card")})</small></label>
    <${Help} />
  <//>`;
}

function Help() {
  const rows = [
    ["D", _("the dealer")],
    ["★", _("the taker")],
    ["☆", _("the taker's partner at five, once the called card is played")],
    ["▶", _("whose turn")],
    ["◆", _("a card from the chien, while you discard")],
    ["← →", _("move along the hand, the bids or the buttons")],
    ["Enter", _("play the card, or press the button")],
    ["Esc", _("close what is open")],
  ];
  return html`<h3>${_("Help")}</h3>
    <dl class="help">${rows.map(([k, v]) => html`<div key=${k}><dt>${k}</dt><dd>${v}</dd></div>`)}</dl>`;
}
