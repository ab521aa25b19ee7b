// window.game2048: a small API for bots and tests (docs/browser-api.md).

export function automation(controller) {
  return Object.freeze({
    /**
     * {size, seed, board, score, log, won, over, undosLeft, ...}: a copy, safe to keep.
     * `seed` is null for a ranked game until it is finished (the server keeps it until then).
     */
    state() {
      const { game, session } = controller;
      return {
        size: game.size,
        seed: game.seed,
        board: game.board,
        score: game.score,
        log: game.log,
        won: game.won,
        over: game.over,
        undosLeft: game.undosLeft,
        maxTile: game.maxTile,
        moves: game.moves,
        ranked: game.ranked && Boolean(session.id),
        helped: game.helped,
        mode: session.mode,
        id: session.id,
        keepPlaying: session.keepPlaying,
      };
    },
    /**
     * Play 'up' | 'down' | 'left' | 'right'; true if the board changed, or if the move waits
     * behind one the server has not answered yet (see settled()); false if it was refused.
     */
    move(direction) {
      return controller.move(direction);
    },
    /** A promise that resolves once every move so far has been answered (a ranked game's tiles dealt). */
    settled() {
      return controller.settled();
    },
    undo() {
      return controller.undo();
    },
    keepPlaying() {
      controller.keepPlaying();
    },
    /** Start a new game; a given seed makes a local, unranked game. */
    newGame({ size = controller.size, seed = null, mode = 'classic' } = {}) {
      controller.newGame({ size, seed, mode });
    },
    /** Start an unranked practice game from a board (rows of tile values, 0 empty). */
    load(board, score = 0) {
      controller.load(board, score);
    },
  });
}
