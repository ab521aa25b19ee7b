// Everything around the board that shows numbers or status: score with its
// "+N", best, the undo count, the ranked/unranked note, the hint arrow.
// Score and Best are plain text, not live regions: the move's announcement
// already says the score, and a bare number read after it helps no one.

const ARROWS = { up: '↑', down: '↓', left: '←', right: '→' };

export class Hud {
  /** `onRankLost()` is called once when the game on the board stops being ranked (undo, hint, autoplay). */
  constructor(doc, translator, { onRankLost = () => {} } = {}) {
    this.doc = doc;
    this.i18n = translator;
    this.onRankLost = onRankLost;
    this.el = (id) => doc.getElementById(id);
    this.ranked = null; // {session, ranked}: what the status line last showed
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

  /** The undo count; a spent undo button stays focusable (aria-disabled), so focus never drops to the page. */
  undo(left, enabled) {
    this.el('undo-count').textContent = this.i18n.t('undosLeft', { n: left });
    this.el('undo').setAttribute('aria-disabled', String(!enabled));
  }

  /** The line under the controls: whether this game can be ranked, and why not. */
  status(session) {
    const { game } = session;
    const notes = [];
    if (session.mode === 'daily' && session.date) notes.push(this.i18n.t('dailyOf', { date: session.date }));
    if (game.startBoard) notes.push(this.i18n.t('practice'));
    else if (!session.id && session.awaitingServer) notes.push(this.i18n.t('pending'));
    else if (!session.id) notes.push(this.i18n.t('offline'));
    else if (game.unranked) notes.push(this.i18n.t('unrankedTry'));
    else if (game.helped) notes.push(this.i18n.t('usedHelp'));
    else if (game.undosLeft < 3) notes.push(this.i18n.t('usedUndo'));
    else notes.push(this.i18n.t('ranked'));
    const el = this.el('status');
    el.textContent = notes.join(' · ');
    const ranked = game.ranked && Boolean(session.id);
    el.dataset.ranked = String(ranked);
    if (this.ranked?.session === session && this.ranked.ranked && !ranked) this.onRankLost();
    this.ranked = { session, ranked };
    const mode = session.mode === 'daily' ? '&mode=daily' : '';
    this.el('leaderboard-link').href = `/leaderboard?size=${game.size}${mode}`;
  }

  hint(direction) {
    this.el('hint-out').textContent = direction
      ? this.i18n.t('hintShown', { arrow: ARROWS[direction], dir: this.i18n.t(direction) })
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
}
