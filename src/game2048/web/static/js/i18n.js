// Picks the language and fills the page's words: ?lang=, then the saved choice
// (the "lang" cookie the site's pages share), then the browser's languages.
import en from './i18n/en.js';
import he from './i18n/he.js';
import ru from './i18n/ru.js';
import th from './i18n/th.js';

export const LANGUAGES = Object.freeze({ en, he, ru, th });
export const DEFAULT_LANGUAGE = 'en';

/** The first supported language among candidates like 'he-IL' or 'ru'. */
export function pickLanguage(candidates) {
  for (const c of candidates) {
    const code = typeof c === 'string' ? c.toLowerCase().split('-')[0] : '';
    if (code === 'iw') return 'he';
    if (Object.hasOwn(LANGUAGES, code)) return code;
  }
  return DEFAULT_LANGUAGE;
}

export class Translator {
  constructor(lang = DEFAULT_LANGUAGE) {
    this.use(lang);
  }

  use(lang) {
    this.lang = Object.hasOwn(LANGUAGES, lang) ? lang : DEFAULT_LANGUAGE;
    this.pack = LANGUAGES[this.lang];
    this.numbers = new Intl.NumberFormat(this.lang === 'th' ? 'th-TH-u-nu-latn' : this.lang);
  }

  get dir() {
    return this.pack.dir;
  }

  /** The string `key` with {name} replaced from vars; numbers are formatted for the language. */
  t(key, vars = {}) {
    const text = this.pack.strings[key] ?? en.strings[key] ?? key;
    return text.replace(/\{(\w+)\}/g, (_, name) => {
      const v = vars[name];
      return typeof v === 'number' ? this.number(v) : String(v ?? '');
    });
  }

  number(n) {
    return this.numbers.format(n);
  }

  /**
   * Fill every element under root that names a string: data-i18n sets the text,
   * data-i18n-label the aria-label; data-i18n-vars holds JSON values for both.
   */
  apply(root, doc = root.ownerDocument ?? root) {
    const html = doc.documentElement;
    html.lang = this.lang;
    html.dir = this.dir;
    doc.title = this.t('pageTitle');
    for (const el of root.querySelectorAll('[data-i18n], [data-i18n-label]')) {
      const vars = el.dataset.i18nVars ? JSON.parse(el.dataset.i18nVars) : {};
      if (el.dataset.i18n) el.textContent = this.t(el.dataset.i18n, vars);
      if (el.dataset.i18nLabel) el.setAttribute('aria-label', this.t(el.dataset.i18nLabel, vars));
    }
  }
}
