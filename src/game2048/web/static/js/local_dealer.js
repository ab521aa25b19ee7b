// Practice games: the tiles are drawn here from a seed (offline play, a chosen
// seed, a position from load()). Never ranked; when finished they are sent as
// practice records, which the server replays and keeps.
import { Game, replay } from './engine.js';

export class LocalDealer {
  /** `startScore`: the score a position game began with (Game.fromBoard's score). */
  constructor(game, { startScore = 0 } = {}) {
    this.game = game;
    this.startScore = startScore;
    this.busy = false;
    this.onDealt = () => {};
  }

  static opening(size, seed) {
    return new LocalDealer(new Game(size, seed));
  }

  static position(board, score, seed) {
    return new LocalDealer(Game.fromBoard(board, { score, seed }), { startScore: score });
  }

  /** The move with its new tile at once (engine Game.move's result), or null if it changes nothing. */
  move(direction) {
    return this.game.move(direction);
  }

  undo() {
    return this.game.undo();
  }

  settled() {
    return Promise.resolve();
  }

  /**
   * The solver's move ({move, scores}) for the board. A game from an opening sends its seed and
   * log too: the server replays them, so the board is no ranked game's and autoplay keeps its pace;
   * a loaded position is a bare board, asked at a person's pace.
   */
  hint(api) {
    const { size, board, seed, log, startBoard } = this.game;
    return api.hint(size, board, startBoard ? {} : { seed, log });
  }

  sync() {}

  close() {}

  /** What goes to POST /api/records when the game is done. */
  finishEntry() {
    const { game } = this;
    return {
      kind: 'record', id: `practice-${game.seed}-${game.log.length}-${game.score}`,
      record: {
        size: game.size, seed: game.seed, log: game.log, score: game.score,
        start: game.startBoard ? { board: game.startBoard, score: this.startScore } : null,
      },
    };
  }

  toJSON() {
    const { game } = this;
    return { seed: game.seed, log: game.log, score: game.score, start: game.startBoard, startScore: this.startScore };
  }

  /** The dealer of a saved practice game, rebuilt by replay; null if it does not replay to its score. */
  static restore(data, size) {
    const startScore = data.startScore ?? 0;
    if (!Number.isSafeInteger(startScore) || startScore < 0) return null;
    if (data.start !== null && (!Array.isArray(data.start) || data.start.length !== size)) return null;
    let game;
    try {
      if (data.start === null) {
        game = replay(size, data.seed, data.log);
      } else {
        // a position game starts from its board and score (replay() starts a position at 0 points)
        game = Game.fromBoard(data.start, { score: startScore, seed: data.seed });
        if (game.size !== size || !/^[UDLRZ]*$/.test(data.log)) return null;
        for (const letter of data.log) if (!(letter === 'Z' ? game.undo() : game.move(letter))) return null;
      }
    } catch {
      return null;
    }
    if (game.score !== data.score) return null;
    return new LocalDealer(game, { startScore });
  }
}
