// The page's words in one language. The server picks the language (?lang=,
// then the "lang" cookie, then Accept-Language, then English), renders the
// page in it and embeds that language's pack (i18n/<lang>.json, the one source
// of the game's strings, which the server's template reads too) as a JSON data
// block: the browser never loads the other languages.
//
// A string is text with {name} placeholders, or an object of plural forms
// chosen by Intl.PluralRules for the value of {n}: {"one": "…", "few": "…",
// "other": "…"}; a missing form falls back to "other".

export const DEFAULT_LANGUAGE = 'en';

/** The pack the server embedded in the page (<script type="application/json" id="strings">). */
export function embeddedPack(doc) {
  return JSON.parse(doc.getElementById('strings').textContent);
}

export class Translator {
  /** `pack`: {lang, name, dir, locale, strings}, as in i18n/<lang>.json (plus its lang code). */
  constructor(pack) {
    this.pack = pack;
    this.lang = pack.lang ?? DEFAULT_LANGUAGE;
    this.locale = pack.locale ?? this.lang;
    this.plurals = new Intl.PluralRules(this.locale);
    // Making an Intl.NumberFormat takes Chromium some 15 ms (60 on a slow phone), half of
    // the page's start: it is made when a number first needs it (see number()).
    this.numbers = null;
  }

  get dir() {
    return this.pack.dir;
  }

  /** The string `key` with {name} replaced from vars; numbers are formatted for the language. */
  t(key, vars = {}) {
    let text = this.pack.strings[key] ?? key;
    if (typeof text === 'object') text = text[this.plurals.select(Number(vars.n ?? 0))] ?? text.other;
    return text.replace(/\{(\w+)\}/g, (_, name) => {
      const v = vars[name];
      return typeof v === 'number' ? this.number(v) : String(v ?? '');
    });
  }

  /** Whether the pack has a string for `key`. */
  has(key) {
    return Object.hasOwn(this.pack.strings, key);
  }

  number(n) {
    // 0 to 999 are written alike in every language of the site: digits 0-9, nothing to group
    // (tests/js checks every pack; a language written with other digits would need a flag here)
    if (Number.isInteger(n) && n >= 0 && n < 1000) return String(n);
    this.numbers ??= new Intl.NumberFormat(this.locale);
    return this.numbers.format(n);
  }
}
