// Keys and swipes turned into game commands. The key map is defined here once.

/** Key -> direction: arrows, WASD and vim's K H J L. */
export const KEYMAP = Object.freeze({
  ArrowUp: 'up', ArrowDown: 'down', ArrowLeft: 'left', ArrowRight: 'right',
  w: 'up', s: 'down', a: 'left', d: 'right',
  k: 'up', j: 'down', h: 'left', l: 'right',
});
export const NEW_GAME_KEY = 'r';
/** A swipe must travel this many CSS pixels to count. */
export const SWIPE_MIN = 24;

/** The direction of a swipe from (dx, dy), or null if it is too short. */
export function swipeDirection(dx, dy, min = SWIPE_MIN) {
  if (Math.max(Math.abs(dx), Math.abs(dy)) < min) return null;
  if (Math.abs(dx) > Math.abs(dy)) return dx > 0 ? 'right' : 'left';
  return dy > 0 ? 'down' : 'up';
}

export class Input {
  /**
   * `handlers`: move(direction), newGame(), anyKey(). Keys typed into a field,
   * keys with Ctrl, Alt or Meta, and keys while a dialog is open are left alone.
   */
  constructor(doc, board, handlers, { dialogOpen = () => false, now = () => performance.now() } = {}) {
    this.handlers = handlers;
    this.dialogOpen = dialogOpen;
    this.now = now;
    this.start = null;
    this.lastSwipe = -Infinity;
    doc.addEventListener('keydown', (e) => this.#key(e));
    board.addEventListener('pointerdown', (e) => {
      this.#down(e.clientX, e.clientY, e);
      // keep hearing this pointer when a swipe ends outside the board
      if (e.isPrimary && board.setPointerCapture) {
        try {
          board.setPointerCapture(e.pointerId);
        } catch {
          // the pointer is already gone: its swipe is lost, nothing breaks
        }
      }
    });
    board.addEventListener('pointerup', (e) => this.#up(e.clientX, e.clientY));
    board.addEventListener('pointercancel', () => { this.start = null; });
    // Touch events: for browsers without pointer events, and to stop scrolling
    // and back-navigation where touch-action alone is not honoured.
    const opts = { passive: false };
    board.addEventListener('touchstart', (e) => {
      if (e.touches.length === 1) this.#down(e.touches[0].clientX, e.touches[0].clientY, null);
    }, opts);
    board.addEventListener('touchmove', (e) => e.preventDefault(), opts);
    board.addEventListener('touchend', (e) => {
      const touch = e.changedTouches[0];
      if (touch) this.#up(touch.clientX, touch.clientY);
    }, opts);
  }

  #key(e) {
    if (this.dialogOpen() || e.defaultPrevented) return;
    const tag = e.target?.tagName;
    if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT') return;
    // Enter or Space on a button is that button's click, not a key of its own
    if (tag === 'BUTTON' && (e.key === 'Enter' || e.key === ' ')) return;
    this.handlers.anyKey?.(e);
    if (e.ctrlKey || e.altKey || e.metaKey) return;
    const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
    const direction = KEYMAP[key];
    if (direction) {
      e.preventDefault();
      this.handlers.move(direction);
    } else if (key === NEW_GAME_KEY && !e.shiftKey) {
      e.preventDefault();
      this.handlers.newGame();
    }
  }

  #down(x, y, pointerEvent) {
    if (pointerEvent && !pointerEvent.isPrimary) return;
    // a touch also fires pointer events: one gesture, one start
    if (!this.start || this.now() - this.start.t > 40) this.start = { x, y, t: this.now() };
  }

  #up(x, y) {
    const start = this.start;
    this.start = null;
    if (!start || this.now() - this.lastSwipe < 60) return;
    const direction = swipeDirection(x - start.x, y - start.y);
    if (direction) {
      this.lastSwipe = this.now();
      this.handlers.anyKey?.(null);
      this.handlers.move(direction);
    }
  }
}
