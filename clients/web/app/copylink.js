// Copying the invite link. The clipboard API exists only in a secure context
// (https, or the machine itself): over plain http on a LAN address it is
// missing, so the link is selected in its field and the page says to press
// Ctrl-C (⌘C on a Mac). Pure but for the two browser calls it is given.
import { _ } from "./i18n.js";

/** Copy `text`, else select `field`: "copied" or "select". */
export async function copyOrSelect(text, field, clipboard = globalThis.navigator?.clipboard, secure = globalThis.isSecureContext) {
  if (clipboard && secure !== false) {
    try {
      await clipboard.writeText(text);
      return "copied";
    } catch {
      // refused (no permission): select it instead
    }
  }
  if (field) {
    field.focus();
    field.select();
  }
  return "select";
}

/** What the button says after `outcome` (null: not tried yet). */
export function copyWords(outcome, mac = /Mac|iPhone|iPad/.test(globalThis.navigator?.platform || "")) {
  if (outcome === "copied") return _("Link copied");
  if (outcome === "select") return mac ? _("Link selected: press ⌘C to copy it") : _("Link selected: press Ctrl-C to copy it");
  return _("Copy the link");
}
