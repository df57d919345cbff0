// The page's settings, in a panel over the table: light or dark (or as the
// system says), a four-colour deck, and "tap twice to play".
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
  <//>`;
}
