// The language buttons, ?lang= in the address, and the "lang" cookie that the
// site's other pages read too.

export class LanguageChooser {
  constructor(doc, location) {
    this.doc = doc;
    this.location = location;
  }

  /** ?lang= if given, else the saved choice, else null (the browser decides). */
  requested() {
    const param = new URLSearchParams(this.location.search).get('lang');
    if (param) return param;
    const match = /(?:^|;\s*)lang=([a-z]{2})/.exec(this.doc.cookie);
    return match ? match[1] : null;
  }

  /** Call `fn(lang)` when a language button is pressed; the choice is remembered. */
  onChoose(fn) {
    for (const b of this.doc.querySelectorAll('[data-lang]')) {
      b.addEventListener('click', () => {
        const lang = b.dataset.lang;
        this.doc.cookie = `lang=${lang}; path=/; max-age=31536000; SameSite=Lax`;
        const url = new URL(this.location.href);
        if (url.searchParams.has('lang')) {
          url.searchParams.set('lang', lang);
          globalThis.history?.replaceState(null, '', url);
        }
        fn(lang);
      });
    }
  }
}
