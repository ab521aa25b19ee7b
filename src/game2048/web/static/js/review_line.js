// The better move played out on the review's board: the game's own record (public once it is
// finished) replayed to the move, the solver's move played instead, with the tile the game's
// own generator deals there, and then a few more of the solver's moves (POST /api/hint, one
// search each). Loaded when the player first asks for it.
import { LETTERS, replay } from './engine.js';

/** Moves the solver plays after the better one. */
export const LINE_MOVES = 3;

export class SolverLine {
  constructor(gameId, fetch = globalThis.fetch.bind(globalThis)) {
    this.gameId = gameId;
    this.fetch = fetch;
    this.record = null;
  }

  async #json(path, body) {
    const answer = await this.fetch(path, body === undefined ? {} : {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
    });
    if (!answer.ok) throw new Error(`HTTP ${answer.status}`);
    return answer.json();
  }

  /**
   * The line from the board before letter `n`: [{direction, cells}], the first step `best` itself.
   * `step(steps)` hears the line as it grows (each of the solver's moves is one request).
   */
  async play(n, best, step = () => {}) {
    this.record ??= await this.#json(`/api/games/${encodeURIComponent(this.gameId)}`);
    const { size, seed, log, start } = this.record;
    const game = replay(size, seed, log.slice(0, n - 1), start?.board ?? null);
    if (!game.move(LETTERS[best])) return [];
    const steps = [{ direction: best, cells: game.cells.slice() }];
    step(steps);
    for (let k = 0; k < LINE_MOVES && !game.over; k += 1) {
      const { move } = await this.#json('/api/hint', { size, board: game.board });
      if (!move || !game.move(LETTERS[move])) break;
      steps.push({ direction: move, cells: game.cells.slice() });
      step(steps);
    }
    return steps;
  }
}
