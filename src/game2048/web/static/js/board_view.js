// Draws the board: the grid, the tiles, and their slide, appear and pop
// animations. It knows nothing of the rules: it is given the game's cells and
// what a move did (engine Game.move's result).
import { tileFace } from './tile_face.js';

export const SLIDE_MS = 100;

export class BoardView {
  /** `board` is the element with data-testid="board"; `reducedMotion()` says whether to skip animation. */
  constructor(board, {
    reducedMotion = () => false,
    setTimer = (fn, ms) => setTimeout(fn, ms),
    clearTimer = (id) => clearTimeout(id),
  } = {}) {
    this.board = board;
    this.doc = board.ownerDocument;
    this.reducedMotion = reducedMotion;
    this.setTimer = setTimer;
    this.clearTimer = clearTimer;
    this.grid = board.querySelector('.grid');
    this.layer = board.querySelector('.tiles');
    this.tiles = new Map(); // cell index -> tile element
    this.pending = null;
    this.size = 0;
  }

  /** Draw `cells` (flat row-major values) from scratch, without animation. */
  reset(size, cells) {
    this.flush();
    if (size !== this.size) {
      this.size = size;
      this.board.style.setProperty('--n', size);
      this.grid.replaceChildren(...cells.map(() => this.#element('cell')));
    }
    this.layer.replaceChildren();
    this.tiles.clear();
    cells.forEach((v, i) => { if (v) this.#place(i, v, ''); });
  }

  /**
   * Animate a move: tiles slide now, merged tiles pop and the new tile appears when the slide ends.
   * A move whose new tile is not known yet (the server deals it) has `spawn: null`: `appear` adds it.
   */
  play(cells, result) {
    this.flush();
    const next = new Map(this.tiles);
    const leaving = [];
    for (const { from } of result.moves) next.delete(from);
    for (const { from, to } of result.moves) {
      const el = this.tiles.get(from);
      if (!el) continue;
      this.#position(el, to);
      if (result.merges.includes(to)) leaving.push(el);
      else next.set(to, el);
    }
    this.tiles = next;
    const finish = () => {
      const later = this.pending?.later ?? [];
      this.pending = null;
      for (const el of leaving) el.remove();
      for (const cell of result.merges) this.#place(cell, cells[cell], 'merged');
      if (result.spawn) this.#place(result.spawn.cell, cells[result.spawn.cell], 'new');
      for (const show of later) show();
    };
    if (this.reducedMotion()) {
      finish();
    } else {
      this.pending = { finish, timer: this.setTimer(finish, SLIDE_MS) };
    }
  }

  /** A new tile dealt after its move: it appears when the slide ends, or now if it has. */
  appear(cell, value) {
    const show = () => this.#place(cell, value, 'new');
    if (this.pending) (this.pending.later ??= []).push(show);
    else show();
  }

  /** Finish any animation in progress at once (a new move arrived). */
  flush() {
    if (!this.pending) return;
    this.clearTimer(this.pending.timer);
    this.pending.finish();
  }

  #element(cls) {
    const el = this.doc.createElement('div');
    el.className = cls;
    return el;
  }

  #position(el, cell) {
    el.style.setProperty('--r', Math.floor(cell / this.size));
    el.style.setProperty('--c', cell % this.size);
  }

  #place(cell, value, effect) {
    this.tiles.get(cell)?.remove();
    const face = tileFace(value);
    const el = this.#element('tile');
    el.dataset.exp = Math.min(face.exp, 18);
    el.style.setProperty('--k', face.scale);
    this.#position(el, cell);
    const inner = this.#element(effect ? `tile-inner ${effect}` : 'tile-inner');
    inner.textContent = face.text;
    el.append(inner);
    this.layer.append(el);
    this.tiles.set(cell, el);
  }
}
