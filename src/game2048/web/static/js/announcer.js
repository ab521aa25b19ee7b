// Says what each move did through an ARIA live region, in the page's language.

export class Announcer {
  constructor(region, translator) {
    this.region = region;
    this.i18n = translator;
  }

  say(text) {
    // replacing the text node makes screen readers read it even if it repeats
    this.region.textContent = '';
    this.region.textContent = text;
  }

  /** Add to what is being said. */
  append(text) {
    this.region.textContent = `${this.region.textContent} ${text}`.trim();
  }

  /** A move's summary: direction, merges, points and score. */
  move(direction, result, cells, score) {
    const t = (k, v) => this.i18n.t(k, v);
    const parts = [t('sayMove', { dir: t(direction) })];
    if (result.merges.length) {
      const tiles = result.merges.map((c) => this.i18n.number(cells[c])).join(', ');
      parts.push(t('sayMerged', { tiles }));
      parts.push(t('sayPoints', { points: result.points, score }));
    }
    this.say(parts.join(' '));
  }
}
