// The review page: step through the graded moves on the game's own board,
// with the solver's best move and the played one shown as arrows; or, while
// the review is still being made, wait for it. The data comes from
// <script type="application/json" id="review-data"> (no inline script).
import { BoardView } from './board_view.js';
import { MyGames } from './my_games.js';
import { Graph } from './review_graph.js';
import { SafeStorage } from './storage.js';

const BAD = new Set(['mistake', 'blunder']);
const POLL_MS = 2000;

/** The index of the next (step 1) or previous (step -1) mistake or blunder after `at`, or -1. */
export function findMistake(moves, at, step) {
  for (let i = at + step; i >= 0 && i < moves.length; i += step) {
    if (BAD.has(moves[i].class)) return i;
  }
  return -1;
}

/**
 * A loss as a player reads it: the share of what the position was worth (to the solver: the
 * order of its tiles and its room) that the move gave up; "all of it" from 1 up.
 */
export function lossText(t, loss, locale = 'en') {
  if (loss >= 1) return t.loss_all ?? '100%';
  return new Intl.NumberFormat(locale, { style: 'percent', maximumSignificantDigits: 2 }).format(loss);
}

/** The sentence that says what move `i` of `moves` was, from the page's words `t`. */
export function describe(t, moves, i, locale = 'en') {
  const m = moves[i];
  const fill = { n: m.n, i: i + 1, count: moves.length, played: t[m.played], best: t[m.best],
    class: t[m.class], loss: lossText(t, m.loss, locale) };
  let text = t.status.replace(/\{(\w+)\}/g, (all, key) => (key in fill ? fill[key] : all));
  if (Number.isFinite(m.t) && t.played_at) {
    const when = { time: clockText(m.t), gap: secondsText(m.gap ?? 0, locale) };
    text += ` ${t.played_at.replace(/\{(\w+)\}/g, (all, key) => (key in when ? when[key] : all))}`;
  }
  return m.undone ? `${text} ${t.undone}` : text;
}

/** Milliseconds into a game as a clock: 0:07, 12:34, 1:02:03. */
export function clockText(ms) {
  const s = Math.floor(ms / 1000);
  const two = (v) => String(v).padStart(2, '0');
  const h = Math.floor(s / 3600);
  const m = Math.floor(s / 60) % 60;
  return h ? `${h}:${two(m)}:${two(s % 60)}` : `${m}:${two(s % 60)}`;
}

/** A wait between two moves in seconds, in the reader's number format ("0.4 seconds"). */
export function secondsText(ms, locale = 'en') {
  return new Intl.NumberFormat(locale, { style: 'unit', unit: 'second', unitDisplay: 'long',
    maximumFractionDigits: ms < 10_000 ? 1 : 0 }).format(ms / 1000);
}

/**
 * The index of the move a location hash names (`#m123`: the move at letter 123 of the log), or
 * of the listed move nearest before it; -1 if the hash names none.
 */
export function moveFromHash(moves, hash) {
  const found = /^#m(\d{1,7})$/.exec(hash ?? '');
  if (!found || !moves.length) return -1;
  const n = Number(found[1]);
  let at = 0;
  for (let i = 0; i < moves.length && moves[i].n <= n; i += 1) at = i;
  return at;
}

/** What a key does on the page: a step name, or null. `rtl` swaps the arrow keys. */
export function keyAction(event, rtl = false) {
  if (event.altKey || event.ctrlKey || event.metaKey) return null;
  const back = rtl ? 'ArrowRight' : 'ArrowLeft';
  const forward = rtl ? 'ArrowLeft' : 'ArrowRight';
  switch (event.key) {
    case back: return 'back';
    case forward: return 'forward';
    case 'Home': return 'first';
    case 'End': return 'last';
    case 'n': case 'N': return 'next-mistake';
    case 'p': case 'P': return 'prev-mistake';
    default: return null;
  }
}

class Stepper {
  constructor(doc, data) {
    this.doc = doc;
    this.data = data;
    this.moves = data.moves;
    this.at = 0;
    this.board = doc.querySelector('[data-testid="board"]');
    this.view = new BoardView(this.board, { reducedMotion: () => true });
    this.best = doc.querySelector('[data-testid="best-arrow"]');
    this.played = doc.querySelector('[data-testid="played-arrow"]');
    this.status = doc.getElementById('review-status');
    this.buttons = [...doc.querySelectorAll('ol.moves button[data-i]')];
    const figure = doc.getElementById('review-graph');
    this.graph = figure && data.curve ? new Graph(doc, figure, data, (i) => this.go(i)) : null;
  }

  start() {
    this.doc.querySelectorAll('[data-step]').forEach((b) => {
      b.addEventListener('click', () => this.step(b.dataset.step));
    });
    this.buttons.forEach((b) => b.addEventListener('click', () => this.go(Number(b.dataset.i))));
    const win = this.doc.defaultView;
    // #m123 opens at move 123; a link to a move on the page (the costliest ones) goes there
    win?.addEventListener('hashchange', () => {
      const i = moveFromHash(this.moves, win.location.hash);
      if (i >= 0 && i !== this.at) this.go(i);
    });
    this.doc.getElementById('copy-link')?.addEventListener('click', () => this.#copyLink());
    this.tryBest = this.doc.getElementById('try-best');
    this.back = this.doc.getElementById('line-back');
    this.lineSteps = this.doc.getElementById('line-steps');
    this.tryBest?.addEventListener('click', () => this.#playBetter());
    this.back?.addEventListener('click', () => this.go(this.at));
    this.doc.addEventListener('keydown', (event) => {
      if (event.target.closest?.('input, textarea, select, [contenteditable="true"]')) return;
      const action = keyAction(event, this.doc.documentElement.dir === 'rtl');
      if (action && this.step(action) !== false) event.preventDefault();
    });
    const opened = moveFromHash(this.moves, win?.location.hash);
    this.go(Math.max(opened, 0), opened >= 0);
    if (opened >= 0) this.board.scrollIntoView({ block: 'nearest' });
  }

  /** The solver's move instead of the played one, and its line after it, on the board. */
  async #playBetter() {
    const m = this.moves[this.at];
    const { t } = this.data;
    const at = this.at;
    this.status.textContent = t.line_wait;
    this.back.hidden = false;
    this.line ??= import('./review_line.js').then(({ SolverLine }) => new SolverLine(this.data.id));
    const show = (steps, k) => {
      this.view.reset(this.data.size, steps[k].cells);
      this.best.hidden = true;
      this.played.hidden = true;
      this.lineSteps.querySelectorAll('button').forEach((b, j) => b.setAttribute('aria-pressed', String(j === k)));
    };
    const drawn = (steps) => {
      if (this.at !== at || this.back.hidden) return; // the player went back meanwhile
      this.lineSteps.replaceChildren(...steps.map((s, k) => {
        const b = this.doc.createElement('button');
        b.type = 'button';
        b.textContent = this.data.arrows[s.direction];
        b.setAttribute('aria-label', t.line_step.replace('{i}', k + 1).replace('{dir}', t[s.direction]));
        b.addEventListener('click', () => show(steps, k));
        return this.doc.createElement('li').appendChild(b).parentNode;
      }));
      show(steps, steps.length - 1);
      const line = steps.map((s) => this.data.arrows[s.direction]).join(' ');
      this.status.textContent = t.line_text.replace('{n}', m.n).replace('{line}', line);
    };
    try {
      await (await this.line).play(m.n, m.best, drawn);
    } catch {
      if (this.at === at && !this.back.hidden) this.status.textContent = t.line_failed;
    }
  }

  /** The address of the move on the board: this page's with `#m<n>`. */
  get link() {
    const { location } = this.doc.defaultView;
    return `${location.origin}${location.pathname}#m${this.moves[this.at].n}`;
  }

  async #copyLink() {
    const url = this.link;
    const { t } = this.data;
    try {
      await this.doc.defaultView.navigator.clipboard.writeText(url);
      this.status.textContent = t.link_copied.replace('{url}', url);
    } catch {
      this.status.textContent = t.link_here.replace('{url}', url); // no clipboard here: the link, to copy by hand
    }
  }

  step(action) {
    const last = this.moves.length - 1;
    const target = {
      first: 0,
      back: this.at - 1,
      forward: this.at + 1,
      last,
      'next-mistake': findMistake(this.moves, this.at, 1),
      'prev-mistake': findMistake(this.moves, this.at, -1),
    }[action];
    if (target === undefined || target < 0 || target > last) return false;
    this.go(target);
    return true;
  }

  go(i, scroll = true) {
    this.at = i;
    const m = this.moves[i];
    this.view.reset(this.data.size, this.data.boards[i]);
    if (this.back) this.back.hidden = true; // back on the game's own board
    this.lineSteps?.replaceChildren();
    if (this.tryBest) this.tryBest.hidden = m.played === m.best;
    this.board.setAttribute('aria-label', this.data.t.board_label.replace('{n}', m.n));
    this.#arrow(this.best, m.best, false);
    this.#arrow(this.played, m.played, m.played === m.best);
    this.played.dataset.class = m.class;
    this.status.textContent = describe(this.data.t, this.moves, i, this.doc.documentElement.lang || 'en');
    this.graph?.show(i);
    const win = this.doc.defaultView;
    // the address says which move is on the board, so it can be kept or shared (no new history entry)
    if (win?.history && scroll) win.history.replaceState(null, '', `#m${m.n}`);
    this.buttons.forEach((b) => b.removeAttribute('aria-current'));
    const button = this.buttons[i];
    if (button) {
      button.setAttribute('aria-current', 'step');
      if (scroll) button.scrollIntoView({ block: 'nearest', inline: 'nearest' });
    }
    this.doc.querySelectorAll('[data-step]').forEach((b) => {
      const s = b.dataset.step;
      b.disabled = (s === 'first' || s === 'back') ? i === 0
        : (s === 'forward' || s === 'last') ? i === this.moves.length - 1
          : findMistake(this.moves, i, s === 'next-mistake' ? 1 : -1) < 0;
    });
  }

  #arrow(el, direction, hide) {
    el.hidden = hide;
    el.dataset.dir = direction;
    el.textContent = this.data.arrows[direction];
  }
}

function waitForReview(doc, box, win) {
  const bar = doc.getElementById('review-bar');
  const words = doc.getElementById('review-progress');
  const ask = async () => {
    let answer;
    try {
      answer = await win.fetch(`/api/games/${encodeURIComponent(box.dataset.game)}/review`,
        { headers: { Accept: 'application/json' } });
    } catch {
      win.setTimeout(ask, POLL_MS * 3);  // offline for a moment: ask again later
      return;
    }
    if (answer.status === 200) {
      win.location.reload();
    } else if (answer.status === 202) {
      const { done, total } = await answer.json();
      if (bar) { bar.max = Math.max(total, 1); bar.value = done; }
      if (words) words.textContent = words.dataset.template.replace('{done}', done).replace('{total}', total);
      win.setTimeout(ask, POLL_MS);
    } else {
      box.replaceChildren(Object.assign(doc.createElement('p'), { textContent: box.dataset.failed }));
    }
  };
  win.setTimeout(ask, POLL_MS);
}

export function main(doc = document, win = window) {
  const data = doc.getElementById('review-data');
  if (data) {
    const review = JSON.parse(data.textContent);
    new Stepper(doc, review).start();
    // My games notes the accuracy of a game of this browser's that was reviewed (nothing is sent)
    if (review.id && typeof review.accuracy === 'number') {
      new MyGames(new SafeStorage(SafeStorage.browserBackend(win))).reviewed(review.id, review.accuracy);
    }
    return;
  }
  const box = doc.getElementById('review-pending');
  if (box && box.dataset.status !== 'failed') waitForReview(doc, box, win);
}

if (typeof document !== 'undefined') main();
