// Everything around the board that shows numbers or status: score with its
// "+N", best, the undo count, the ranked/unranked note, the hint arrow.

const ARROWS = { up: '↑', down: '↓', left: '←', right: '→' };

export class Hud {
  constructor(doc, translator) {
    this.doc = doc;
    this.i18n = translator;
    this.el = (id) => doc.getElementById(id);
  }

  /** Show the score; points > 0 floats a "+N" above it. */
  score(score, best, points = 0) {
    this.el('score').textContent = this.i18n.number(score);
    this.el('best').textContent = this.i18n.number(best);
    if (points > 0) {
      const plus = this.doc.createElement('span');
      plus.className = 'plus';
      plus.setAttribute('aria-hidden', 'true');
      plus.textContent = `+${this.i18n.number(points)}`;
      plus.addEventListener('animationend', () => plus.remove());
      this.el('score-box').append(plus);
      // with animations off there is no animationend: drop it soon anyway
      setTimeout(() => plus.remove(), 700);
    }
  }

  undo(left, enabled) {
    this.el('undo-count').textContent = this.i18n.t('undosLeft', { n: left });
    this.el('undo').disabled = !enabled;
  }

  /** The line under the controls: whether this game can be ranked, and why not. */
  status(session) {
    const { game } = session;
    const notes = [];
    if (session.mode === 'daily' && session.date) notes.push(this.i18n.t('dailyOf', { date: session.date }));
    if (game.startBoard) notes.push(this.i18n.t('practice'));
    else if (!session.id) notes.push(this.i18n.t('offline'));
    else if (game.helped) notes.push(this.i18n.t('usedHelp'));
    else if (game.undosLeft < 3) notes.push(this.i18n.t('usedUndo'));
    else notes.push(this.i18n.t('ranked'));
    const el = this.el('status');
    el.textContent = notes.join(' · ');
    el.dataset.ranked = String(game.ranked && Boolean(session.id));
    const mode = session.mode === 'daily' ? '&mode=daily' : '';
    this.el('leaderboard-link').href = `/leaderboard?size=${game.size}${mode}`;
  }

  hint(direction) {
    this.el('hint-out').textContent = direction
      ? this.i18n.t('hintSays', { arrow: ARROWS[direction], dir: this.i18n.t(direction) })
      : '';
  }

  message(text) {
    this.el('message').textContent = text;
  }

  autoplay(on) {
    this.el('autoplay').setAttribute('aria-pressed', String(on));
  }

  sizes(size) {
    for (const b of this.doc.querySelectorAll('[data-size]')) b.setAttribute('aria-pressed', String(Number(b.dataset.size) === size));
  }

  languages(lang) {
    for (const b of this.doc.querySelectorAll('[data-lang]')) b.setAttribute('aria-pressed', String(b.dataset.lang === lang));
  }
}
