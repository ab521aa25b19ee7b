// What a screen reader hears: one polite announcement per move (the move,
// its merges and points, where the new tile appeared), in the page's language.
//
// Everything said within one task is gathered and written to the live region
// once, at the end of the task, so a move's sentence, a win and a note such as
// "no longer ranked" arrive together instead of replacing each other.
//
// The new tile: move(…, result) says where it appeared when result.spawn is
// there (a local dealer knows at once). A dealer whose tile arrives later (the
// server) passes a result without spawn and then calls
//     announcer.spawned(cell, value, size)
// when the tile is on the board; the move's sentence waits for it up to
// SPAWN_WAIT_MS and is then said without it.
//
// During autoplay (summarise(true)) single moves are not read: a summary is,
// at most every SUMMARY_MS, and once more when autoplay stops.

export const SPAWN_WAIT_MS = 1000;
export const SUMMARY_MS = 2000;
export const NOTE_WAIT_MS = 100;

export class Announcer {
  constructor(region, translator, {
    now = () => Date.now(),
    setTimer = (fn, ms) => setTimeout(fn, ms),
    clearTimer = (id) => clearTimeout(id),
  } = {}) {
    this.region = region;
    this.i18n = translator;
    this.now = now;
    this.setTimer = setTimer;
    this.clearTimer = clearTimer;
    this.parts = [];
    this.notes = []; // said after the rest, and never replaced by say()
    this.scheduled = false;
    this.waiting = null; // {parts, timer}: a move's sentence waiting for its new tile
    this.summary = null; // {moves, score, tile, last} while autoplay runs
  }

  /** Say `text` (instead of whatever else was queued in this task). */
  say(text) {
    this.#release();
    this.parts = [text];
    this.#schedule();
  }

  /**
   * A remark to add to what is said next (a say() does not drop it): "no longer
   * ranked" goes with the undo or hint that caused it, even when that sentence
   * comes a few promise turns later. Said alone if nothing follows soon.
   */
  note(text) {
    this.notes.push(text);
    this.setTimer(() => this.#schedule(), NOTE_WAIT_MS);
  }

  /** Add to what is being said. */
  append(text) {
    if (this.waiting) this.waiting.parts.push(text);
    else {
      this.parts.push(text);
      this.#schedule();
    }
  }

  /** A move's summary: direction, merges, points and score; and the new tile if result.spawn is known. */
  move(direction, result, cells, score) {
    const size = Math.round(Math.sqrt(cells.length));
    if (this.summary) {
      this.#count(cells, score);
      return;
    }
    const t = (k, v) => this.i18n.t(k, v);
    const parts = [t('sayMove', { dir: t(direction) })];
    if (result.merges.length) {
      const tiles = result.merges.map((c) => this.i18n.number(cells[c])).join(', ');
      parts.push(t('sayMerged', { tiles }));
      parts.push(t('sayPoints', { n: result.points, score }));
    }
    this.#release();
    if (result.spawn) {
      parts.push(this.#tile(result.spawn.cell, cells[result.spawn.cell], size));
      this.parts = parts;
      this.#schedule();
    } else {
      this.parts = [];
      this.waiting = { parts, timer: this.setTimer(() => this.#release(), SPAWN_WAIT_MS) };
    }
  }

  /** The new tile of the last move arrived (for dealers that send it after the slide). */
  spawned(cell, value, size) {
    if (this.summary || !this.waiting) return;
    this.waiting.parts.push(this.#tile(cell, value, size));
    this.#release();
  }

  /** Autoplay on (true) or off (false): moves are summed up, not read one by one. */
  summarise(on) {
    if (on && !this.summary) this.summary = { moves: 0, score: 0, tile: 0, last: this.now() };
    if (!on && this.summary) {
      const s = this.summary;
      this.summary = null;
      if (s.moves) this.append(this.#summaryText(s));
    }
  }

  #count(cells, score) {
    const s = this.summary;
    s.moves += 1;
    s.score = score;
    s.tile = Math.max(...cells);
    if (this.now() - s.last >= SUMMARY_MS) {
      s.last = this.now();
      this.say(this.#summaryText(s));
    }
  }

  #summaryText(s) {
    return this.i18n.t('sayAutoplay', { n: s.moves, score: s.score, tile: s.tile });
  }

  #tile(cell, value, size) {
    return this.i18n.t('sayNewTile', {
      value: this.i18n.number(value), r: Math.floor(cell / size) + 1, c: (cell % size) + 1,
    });
  }

  // a sentence waiting for its tile goes out now, with what was added to it
  #release() {
    const w = this.waiting;
    if (!w) return;
    this.waiting = null;
    this.clearTimer(w.timer);
    this.parts = [...w.parts, ...this.parts];
    this.#schedule();
  }

  #schedule() {
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      if (this.waiting) return; // the notes go out with the waiting sentence
      const text = [...this.parts, ...this.notes].join(' ').trim();
      this.parts = [];
      this.notes = [];
      if (!text) return;
      // emptying first makes screen readers read the text even when it repeats
      this.region.textContent = '';
      this.region.textContent = text;
    });
  }
}
