// The console's words. They live in the service's message catalogs (service/i18n) and
// arrive as strings.js, generated from them (service/api/console.py): English and every
// language a catalog speaks. Rulings and problems come from the service in the language
// the page asks for (Accept-Language); these are the page's own.

import { LANGS, STRINGS } from "./strings.js";

export { LANGS };

let current = "en";

export function setLang(lang) {
  current = LANGS.includes(lang) ? lang : "en";
}

export function lang() {
  return current;
}

/** The browser's preferred language among ours: the first of navigator.languages we have. */
export function preferredLang(languages) {
  for (const tag of languages || []) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (LANGS.includes(base)) return base;
  }
  return "en";
}

/** A string of the page in the current language, with {params} filled in. */
export function t(key, params = {}) {
  const text = STRINGS[current][key] ?? STRINGS.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => (name in params ? String(params[name]) : `{${name}}`));
}
