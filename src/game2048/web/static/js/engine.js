// The rules of 2048 for the browser: slides, seeded spawns, undo, the move log
// and replay. No DOM: the same module runs in the page and under Node, and the
// shared vectors (tests/vectors/engine.json) bind it to the Python engine.
//
// A board is an array of rows of tile values, 0 for an empty cell. Tile values
// stay below 2^38 and scores below 2^53, so plain numbers are exact; only the
// spawn generators need 64-bit arithmetic, done with BigInt (blake2b.js: halves).

import { Blake2b } from './blake2b.js';

export const SIZES = Object.freeze([3, 4, 5, 6]);
export const DEFAULT_SIZE = 4;
export const DIRECTIONS = Object.freeze(['up', 'down', 'left', 'right']);
/** The move-log alphabet: one letter per direction, and Z for undo. */
export const LETTERS = Object.freeze({ up: 'U', down: 'D', left: 'L', right: 'R' });
export const UNDO_LETTER = 'Z';
/** The tile that wins: 256 on 3x3, 2048 on every larger board. */
export const TARGETS = Object.freeze({ 3: 256, 4: 2048, 5: 2048, 6: 2048 });
export const MAX_UNDOS = 3;
/** A spawned tile is a 4 with probability FOUR_IN / SPAWN_OUT_OF, else a 2. */
export const FOUR_IN = 1;
export const SPAWN_OUT_OF = 10;
export const MAX_SEED = 2 ** 53;
/** Spawns 0 and 1 are the opening tiles. */
export const OPENING_TILES = 2;

const DIRECTION_OF_LETTER = Object.freeze({ U: 'up', D: 'down', L: 'left', R: 'right' });

/** The largest tile a size x size board can ever hold: 2^(size^2 + 1). */
export function maxTileFor(size) {
  checkSize(size);
  return 2 ** (size * size + 1);
}

export function checkSize(size) {
  if (!SIZES.includes(size)) throw new RangeError(`board size must be one of ${SIZES.join(', ')}, got ${size}`);
  return size;
}

/** Whether `seed` is a seed: an integer 0 <= seed < 2^53, or a secret seed (128 bits as 32 lowercase hex digits). */
export function isSeed(seed) {
  return (Number.isSafeInteger(seed) && seed >= 0) || (typeof seed === 'string' && /^[0-9a-f]{32}$/.test(seed));
}

export function checkSeed(seed) {
  if (isSeed(seed)) return seed;
  throw new RangeError(`a seed is an integer 0 <= seed < 2^53 or 32 lowercase hex digits, got ${String(seed).slice(0, 40)}`);
}

function checkDirection(direction) {
  const d = DIRECTION_OF_LETTER[direction] ?? direction;
  if (!DIRECTIONS.includes(d)) throw new RangeError(`direction must be one of ${DIRECTIONS.join(', ')}, got ${direction}`);
  return d;
}

// -- spawns (docs/spawns.md) ------------------------------------------------

const MASK64 = (1n << 64n) - 1n;
const TWO64 = 1n << 64n;
const GAMMA = 0x9e3779b97f4a7c15n;
const ATTEMPTS = 65536n;

/** The SplitMix64 finaliser on a BigInt in [0, 2^64). */
export function mix64(x) {
  x = ((x ^ (x >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
  x = ((x ^ (x >> 27n)) * 0x94d049bb133111ebn) & MASK64;
  return x ^ (x >> 31n);
}

/** A game's key: mix64(seed), or for a secret seed BLAKE2b keyed with its 16 bytes. */
export function gameKey(seed) {
  if (typeof checkSeed(seed) === 'number') return mix64(BigInt(seed));
  return new Blake2b(Uint8Array.from(seed.match(/../g), (h) => parseInt(h, 16)), 8);
}

/** Attempt `attempt` (0, 1, ...) of spawn `index` of a game with a secret seed: a 64-bit BigInt. */
export function secretWord(key, index, attempt) {
  const view = new DataView(new ArrayBuffer(16));
  view.setBigUint64(0, BigInt(index), true);
  view.setBigUint64(8, BigInt(attempt), true);
  return key.word(new Uint8Array(view.buffer));
}

/**
 * Spawn `index` of game `seed` on a board with `empty` empty cells:
 * the tile (2 or 4) goes on the `ordinal`-th empty cell in row-major order.
 * `key` may pass gameKey(seed); `limit`, for tests only, lowers the rejection limit.
 * spawnChoice(12345, 0, 16) -> {ordinal: 2, tile: 2}
 */
export function spawnChoice(seed, index, empty, key = gameKey(seed), limit = undefined) {
  if (!(empty > 0)) throw new RangeError('no empty cell to spawn on');
  const m = BigInt(SPAWN_OUT_OF * empty);
  limit ??= TWO64 - (TWO64 % m);
  const secret = typeof seed === 'string';
  const first = BigInt(index) * ATTEMPTS;
  for (let attempt = 0n; attempt < ATTEMPTS; attempt++) {
    const z = secret ? secretWord(key, index, attempt) : mix64((key + (first + attempt + 1n) * GAMMA) & MASK64);
    if (z < limit) {
      const r = Number(z % m);
      return { ordinal: Math.floor(r / SPAWN_OUT_OF), tile: r % SPAWN_OUT_OF < FOUR_IN ? 4 : 2 };
    }
  }
  throw new Error('unreachable: every attempt rejected');
}

// -- slides -----------------------------------------------------------------

/**
 * Slide one line toward index 0; each tile merges at most once, pairing from index 0.
 * slideRow([2, 2, 2, 0]) -> {line: [4, 2, 0, 0], points: 4}
 */
export function slideRow(line) {
  const { line: out, points } = slideTraced(line);
  return { line: out, points };
}

// Like slideRow, and says where each tile went: from[i] lists the indices
// whose tiles ended at i (two of them for a merge).
function slideTraced(line) {
  const out = new Array(line.length).fill(0);
  const from = [];
  let points = 0;
  let k = 0;
  let pending = -1; // index of a tile waiting for a partner
  for (let i = 0; i < line.length; i++) {
    const v = line[i];
    if (!v) continue;
    if (pending >= 0 && line[pending] === v) {
      out[k] = v * 2;
      from[k] = [pending, i];
      points += v * 2;
      k++;
      pending = -1;
    } else {
      if (pending >= 0) {
        out[k] = line[pending];
        from[k] = [pending];
        k++;
      }
      pending = i;
    }
  }
  if (pending >= 0) {
    out[k] = line[pending];
    from[k] = [pending];
  }
  return { line: out, points, from };
}

// For each size and direction, the lines of flat cell indices, each ordered
// from the wall being pushed toward.
const LINES = new Map();
function linesOf(n, direction) {
  const key = `${n}${direction}`;
  let lines = LINES.get(key);
  if (!lines) {
    lines = [];
    for (let a = 0; a < n; a++) {
      const line = [];
      for (let b = 0; b < n; b++) {
        if (direction === 'left') line.push(a * n + b);
        else if (direction === 'right') line.push(a * n + (n - 1 - b));
        else if (direction === 'up') line.push(b * n + a);
        else line.push((n - 1 - b) * n + a);
      }
      lines.push(line);
    }
    LINES.set(key, lines);
  }
  return lines;
}

// Move a flat board; returns {cells, points, moves, merges} where moves lists
// {from, to} for every tile that changed place or merged, and merges the cells
// that hold a merged tile.
function moveFlat(cells, n, direction) {
  const next = new Array(n * n).fill(0);
  const moves = [];
  const merges = [];
  let points = 0;
  for (const line of linesOf(n, direction)) {
    const result = slideTraced(line.map((i) => cells[i]));
    points += result.points;
    result.from.forEach((sources, k) => {
      const to = line[k];
      next[to] = result.line[k];
      for (const s of sources) if (line[s] !== to || sources.length > 1) moves.push({ from: line[s], to });
      if (sources.length > 1) merges.push(to);
    });
  }
  return { cells: next, points, moves, merges };
}

function toFlat(board) {
  const n = board.length;
  if (!n || board.some((row) => !Array.isArray(row) || row.length !== n)) {
    throw new RangeError('a board must be a non-empty square array of rows');
  }
  return board.flat();
}

function toRows(cells, n) {
  const rows = [];
  for (let r = 0; r < n; r++) rows.push(cells.slice(r * n, r * n + n));
  return rows;
}

/**
 * Slide a whole board one way without spawning.
 * slide([[2,0,0],[2,0,0],[4,0,0]], 'up') -> {board: [[4,0,0],[4,0,0],[0,0,0]], points: 4}
 */
export function slide(board, direction) {
  const cells = toFlat(board);
  const { cells: next, points } = moveFlat(cells, board.length, checkDirection(direction));
  return { board: toRows(next, board.length), points };
}

function flatCanMove(cells, n) {
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < n; c++) {
      const v = cells[r * n + c];
      if (!v) return true;
      if (c + 1 < n && cells[r * n + c + 1] === v) return true;
      if (r + 1 < n && cells[(r + 1) * n + c] === v) return true;
    }
  }
  return false;
}

/** True if some direction changes the board (an empty cell or an equal neighbour pair). */
export function canMove(board) {
  return flatCanMove(toFlat(board), board.length);
}

function isTile(v) {
  return v === 0 || (Number.isSafeInteger(v) && v >= 2 && Number.isInteger(Math.log2(v)));
}

// -- the game ---------------------------------------------------------------

/** A random (integer) seed for a game started without the server. */
export function randomSeed() {
  const words = new Uint32Array(2);
  globalThis.crypto.getRandomValues(words);
  return (words[0] & 0x1fffff) * 2 ** 32 + words[1];
}

/**
 * One game: move() and undo() change it; board, score, log, won, over,
 * undosLeft and ranked describe it. Spawn k (0 and 1 open the game, then one
 * per move in play) depends only on (seed, k, board), so undoing a move and
 * making it again brings the same tile.
 */
const NO_OPENING = Symbol('no opening tiles');

export class Game {
  constructor(size = DEFAULT_SIZE, seed = randomSeed(), opening = undefined) {
    this.#setup(size, seed);
    if (opening === NO_OPENING) return;
    for (let index = 0; index < OPENING_TILES; index++) this.#spawn(index);
  }

  /**
   * A game from any position (for tests, analysis and bots). Spawns are numbered
   * as if the board were an opening: the first move brings spawn 2.
   */
  static fromBoard(board, { score = 0, seed = 0 } = {}) {
    const n = board.length;
    checkSize(n);
    const cells = toFlat(board);
    if (!cells.every(isTile)) throw new RangeError('a tile must be 0 or a power of two >= 2');
    if (cells.some((v) => v > maxTileFor(n))) throw new RangeError(`no tile on a ${n}x${n} board can exceed ${maxTileFor(n)}`);
    if (!Number.isSafeInteger(score) || score < 0) throw new RangeError('score must be a non-negative integer');
    const game = new Game(n, seed, NO_OPENING);
    game.#cells = cells;
    game.score = score;
    game.won = Math.max(...cells) >= game.target;
    game.startBoard = toRows(cells, n);
    return game;
  }

  #cells;
  #history;
  #log;
  #key;

  #setup(size, seed) {
    this.size = checkSize(size);
    this.seed = checkSeed(seed);
    this.score = 0;
    this.undosLeft = MAX_UNDOS;
    this.won = false;
    /** Set by callers when a hint or autoplay chose a move: unranks the game. */
    this.helped = false;
    /** The position a fromBoard game started from; null for a seeded opening. */
    this.startBoard = null;
    this.target = TARGETS[size];
    this.#key = gameKey(seed);
    this.#cells = new Array(size * size).fill(0);
    this.#history = [];
    this.#log = [];
  }

  // Returns {cell, tile}: where spawn `index` went.
  #spawn(index) {
    const empties = [];
    this.#cells.forEach((v, i) => { if (!v) empties.push(i); });
    const { ordinal, tile } = spawnChoice(this.seed, index, empties.length, this.#key);
    const cell = empties[ordinal];
    this.#cells[cell] = tile;
    return { cell, tile };
  }

  /**
   * Play one move ('up', 'down', 'left', 'right' or a log letter). Returns null,
   * changing nothing, if the move would not change the board; otherwise what
   * happened, for drawing: {direction, points, moves: [{from, to}], merges: [cell],
   * spawn: {cell, tile}} with cells as flat row-major indices.
   */
  move(direction) {
    const d = checkDirection(direction);
    const { cells, points, moves, merges } = moveFlat(this.#cells, this.size, d);
    if (!moves.length) return null;
    this.#history.push({ cells: this.#cells, score: this.score });
    this.#cells = cells;
    this.score += points;
    this.#log.push(LETTERS[d]);
    if (!this.won && points && merges.some((i) => cells[i] >= this.target)) this.won = true;
    // the k-th move in play brings spawn k + 1 (0 and 1 opened the game)
    const spawn = this.#spawn(OPENING_TILES - 1 + this.#history.length);
    return { direction: d, points, moves, merges, spawn };
  }

  /** Take back the last move in play; false if there is none or the 3 undos are used. */
  undo() {
    if (!this.#history.length || this.undosLeft === 0) return false;
    const last = this.#history.pop();
    this.#cells = last.cells;
    this.score = last.score;
    this.undosLeft -= 1;
    this.#log.push(UNDO_LETTER);
    return true;
  }

  /** Whether undo() would do something now. */
  get canUndo() {
    return this.#history.length > 0 && this.undosLeft > 0;
  }

  get board() {
    return toRows(this.#cells, this.size);
  }

  /** The board as one flat row-major array (a copy). */
  get cells() {
    return this.#cells.slice();
  }

  /** The record of the game: U D L R for moves, Z for undo. */
  get log() {
    return this.#log.join('');
  }

  /** Moves in play (a move taken back does not count). */
  get moves() {
    return this.#history.length;
  }

  get over() {
    return !flatCanMove(this.#cells, this.size);
  }

  get maxTile() {
    return Math.max(...this.#cells);
  }

  /** False once undo was used or a solver helped: such games are kept, never ranked. */
  get ranked() {
    return this.undosLeft === MAX_UNDOS && !this.helped && !this.startBoard;
  }

  /** The directions that would change the board, in up, down, left, right order. */
  legalMoves() {
    return DIRECTIONS.filter((d) => moveFlat(this.#cells, this.size, d).moves.length > 0);
  }

  record() {
    return { size: this.size, seed: this.seed, log: this.log };
  }
}

/** A game record the rules do not allow; `position` is the 0-based log index. */
export class RecordError extends Error {
  constructor(position, reason) {
    super(`bad record at move ${position}: ${reason}`);
    this.name = 'RecordError';
    this.position = position;
    this.reason = reason;
  }
}

/**
 * Rebuild the game recorded as (size, seed, log). Throws RecordError for an
 * unknown letter, an illegal move, a move after game over, a fourth undo or an
 * undo with nothing to take back; RangeError for a bad size or seed.
 * `start` (optional) replays a game that began from that board (Game.fromBoard).
 */
export function replay(size, seed, log, start = null) {
  if (typeof log !== 'string') throw new RecordError(0, 'the log must be a string');
  const game = start ? Game.fromBoard(start, { seed }) : new Game(size, seed);
  if (game.size !== size) throw new RangeError('the start board does not match the size');
  for (let i = 0; i < log.length; i++) {
    const letter = log[i];
    if (letter in DIRECTION_OF_LETTER) {
      if (!game.move(letter)) {
        throw new RecordError(i, game.over ? `move '${letter}' after game over` : `move '${letter}' does not change the board`);
      }
    } else if (letter === UNDO_LETTER) {
      if (game.undosLeft === 0) throw new RecordError(i, 'a fourth undo (3 per game)');
      if (!game.undo()) throw new RecordError(i, 'undo with no move to take back');
    } else {
      throw new RecordError(i, `unknown letter '${letter}' (expected U, D, L, R or Z)`);
    }
  }
  return game;
}
