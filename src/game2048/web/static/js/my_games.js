// The games this browser finished, kept in its own storage for the My games page (/me): a
// little summary of each, and the id of its public record once the server has one. Nothing
// of it is sent anywhere; clearing it is the page's one button.

export const MY_GAMES_KEY = 'mine';
/** The newest games kept; older ones are dropped. */
export const MY_GAMES_MAX = 500;

export class MyGames {
  constructor(store, now = () => new Date()) {
    this.store = store;
    this.now = now;
  }

  get list() {
    const list = this.store.get(MY_GAMES_KEY);
    return Array.isArray(list) ? list.filter((g) => g && typeof g.key === 'string') : [];
  }

  /** A game on the board was finished (over, or ended for a new one) and sent: `key` is its entry's id. */
  finished(game, key, mode = 'classic') {
    if (game.startBoard || game.log === '') return; // a position played from, not a game of one's own
    const list = this.list.filter((g) => g.key !== key);
    list.push({
      key, id: null, size: game.size, score: game.score, maxTile: game.maxTile, moves: game.moves,
      ranked: game.ranked, mode, at: this.now().toISOString(),
    });
    this.store.set(MY_GAMES_KEY, list.slice(-MY_GAMES_MAX));
  }

  /**
   * The server kept the game as the public record `id` (its replay and review are there), and
   * says where a ranked game stands: listed on its board, or being checked, held, moved, hidden.
   */
  published(key, id, ranked, standing = 'listed') {
    this.#update((g) => g.key === key, { id, ranked: Boolean(ranked), standing });
  }

  /** The record `id` now stands at `standing` (the /me page asked the server again). */
  placed(id, standing) {
    this.#update((g) => g.id === id, { standing });
  }

  #update(which, fields) {
    const list = this.list;
    const game = list.find(which);
    if (!game) return;
    Object.assign(game, fields);
    this.store.set(MY_GAMES_KEY, list);
  }

  /** The review page graded record `id`: its accuracy joins the game's summary. */
  reviewed(id, accuracy) {
    const list = this.list;
    const game = list.find((g) => g.id === id);
    if (!game || game.accuracy === accuracy) return;
    game.accuracy = accuracy;
    this.store.set(MY_GAMES_KEY, list);
  }

  clear() {
    this.store.remove(MY_GAMES_KEY);
  }
}
