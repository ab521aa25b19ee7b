// The browser engine against the rules and against the Python engine, through
// the shared vectors file that both test suites read.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';

import crypto from 'node:crypto';

import { Blake2b } from '../../src/game2048/web/static/js/blake2b.js';
import {
  Game, MAX_UNDOS, RecordError, SIZES, TARGETS, canMove, gameKey, isSeed, maxTileFor, replay, secretWord, slide,
  slideRow, spawnChoice,
} from '../../src/game2048/web/static/js/engine.js';

// GAME2048_VECTORS may name another vectors file (for example, one just regenerated).
const VECTORS = process.env.GAME2048_VECTORS ?? new URL('../vectors/engine.json', import.meta.url);
const vectors = fs.existsSync(VECTORS) ? JSON.parse(fs.readFileSync(VECTORS, 'utf8')) : null;
const needVectors = vectors ? {} : { skip: 'tests/vectors/engine.json is missing' };

// The worked examples of the rules, all left moves.
const WORKED = [
  [[2, 2, 2, 2], [4, 4, 0, 0], 8],
  [[4, 2, 2, 0], [4, 4, 0, 0], 4],
  [[2, 2, 4, 0], [4, 4, 0, 0], 4],
  [[2, 2, 2, 0], [4, 2, 0, 0], 4],
  [[2, 0, 0, 2], [4, 0, 0, 0], 4],
  [[8, 4, 4, 8], [8, 8, 8, 0], 8],
  [[2, 4, 2, 4], [2, 4, 2, 4], 0],
];

test('worked examples of the rules slide as written', () => {
  for (const [before, after, points] of WORKED) {
    assert.deepEqual(slideRow(before), { line: after, points }, `slideRow(${before})`);
  }
});

test('a merged tile does not merge again in the same move', () => {
  assert.deepEqual(slideRow([4, 4, 4, 4]).line, [8, 8, 0, 0]);
  assert.deepEqual(slideRow([4, 4, 8, 0]).line, [8, 8, 0, 0]);
});

test('pairing starts at the wall being pushed toward', () => {
  assert.deepEqual(slide([[2, 2, 2, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]], 'right').board[0], [0, 0, 2, 4]);
  assert.deepEqual(slide([[4], [4], [4]].map((r) => [...r, 0, 0]), 'up').board.map((r) => r[0]), [8, 4, 0]);
});

test('an illegal move changes nothing, spawns nothing and is not logged', () => {
  const g = Game.fromBoard([[2, 4, 2], [4, 2, 4], [0, 0, 0]]);
  assert.equal(g.move('up'), null);
  assert.equal(g.log, '');
  assert.deepEqual(g.board, [[2, 4, 2], [4, 2, 4], [0, 0, 0]]);
});

test('the largest tile of each size is exact', () => {
  assert.equal(maxTileFor(6), 137438953472);
  const half = maxTileFor(6) / 2;
  assert.deepEqual(slideRow([half, half, 0, 0, 0, 0]), { line: [2 * half, 0, 0, 0, 0, 0], points: 2 * half });
});

test('game over needs a full board with no equal neighbours', () => {
  assert.equal(canMove([[2, 4, 2], [4, 2, 4], [2, 4, 2]]), false);
  assert.equal(canMove([[2, 4, 2], [4, 2, 4], [2, 4, 4]]), true);
  assert.equal(canMove([[2, 4, 2], [4, 0, 4], [2, 4, 2]]), true);
});

test('reaching the target wins once and the win is sticky', () => {
  for (const size of SIZES) {
    const half = TARGETS[size] / 2;
    const board = Array.from({ length: size }, () => new Array(size).fill(0));
    board[0][0] = half;
    board[0][1] = half;
    const g = Game.fromBoard(board);
    assert.equal(g.won, false);
    g.move('left');
    assert.equal(g.won, true, `size ${size}`);
    g.undo();
    assert.equal(g.won, true);
  }
});

test('undo restores board and score, at most three times, and unranks the game', () => {
  const g = new Game(4, 99);
  const seen = [];
  for (const d of ['left', 'up', 'right', 'down', 'left', 'up']) {
    const before = { board: g.board, score: g.score };
    if (g.move(d)) seen.push(before);
  }
  assert.equal(g.ranked, true);
  for (let i = 0; i < MAX_UNDOS; i++) {
    assert.equal(g.undo(), true);
    assert.deepEqual({ board: g.board, score: g.score }, seen.pop());
  }
  assert.equal(g.undo(), false);
  assert.equal(g.undosLeft, 0);
  assert.equal(g.ranked, false);
});

test('undoing a move and making it again brings the same tile', () => {
  const g = new Game(5, 4242);
  const d = g.legalMoves()[0];
  g.move(d);
  const after = g.board;
  g.undo();
  g.move(d);
  assert.deepEqual(g.board, after);
});

test('replay reproduces a played game and rejects bad records', () => {
  const g = new Game(3, 7);
  for (let i = 0; i < 40 && !g.over; i++) g.move(g.legalMoves()[i % g.legalMoves().length]);
  const r = replay(3, 7, g.log);
  assert.deepEqual([r.board, r.score, r.over], [g.board, g.score, g.over]);
  assert.throws(() => replay(3, 7, 'X'), RecordError);
  assert.throws(() => replay(3, 7, 'Z'), (e) => e instanceof RecordError && e.position === 0);
  assert.throws(() => replay(7, 7, ''), RangeError);
});

test('spawn draws match the shared vectors', needVectors, () => {
  for (const v of vectors.spawn) {
    const got = spawnChoice(v.seed, v.index, v.empty);
    assert.deepEqual([got.ordinal, got.tile], [v.ordinal, v.tile], JSON.stringify(v));
  }
});

test('BLAKE2b is the one of RFC 7693, across block boundaries', () => {
  const abc = new Blake2b().word(new TextEncoder().encode('abc'));
  assert.equal(abc, 0x0d4d1c983fa580ban); // RFC 7693 appendix A: the digest starts ba 80 a5 3f 98 1c 4d 0d
  for (const n of [0, 1, 111, 127, 128, 129, 256, 257, 1000]) {
    const message = new Uint8Array(n).map((_, i) => (i * 7 + n) & 255);
    const want = crypto.createHash('blake2b512').update(message).digest().readBigUInt64LE(0);
    assert.equal(new Blake2b().word(message), want, `${n} bytes`);
  }
});

test('secret seeds are 32 lowercase hex digits, integer seeds 0 <= seed < 2^53', needVectors, () => {
  assert.ok(isSeed('00112233445566778899aabbccddeeff') && isSeed(0) && isSeed(2 ** 53 - 1));
  for (const seed of vectors.bad_seeds) {
    assert.equal(isSeed(seed), false, JSON.stringify(seed));
    assert.throws(() => replay(4, seed, ''), RangeError, JSON.stringify(seed));
    if (seed !== null) assert.throws(() => new Game(4, seed), RangeError, JSON.stringify(seed));
  }
});

test('secret seed words are keyed BLAKE2b of index and attempt, as in Python', needVectors, () => {
  for (const v of vectors.secret_words) {
    assert.equal(secretWord(gameKey(v.seed), v.index, v.attempt), BigInt(v.word), JSON.stringify(v));
  }
});

test('secret seed draws match the shared vectors', needVectors, () => {
  for (const v of vectors.secret_spawn) {
    const got = spawnChoice(v.seed, v.index, v.empty);
    assert.deepEqual([got.ordinal, got.tile], [v.ordinal, v.tile], JSON.stringify(v));
  }
});

test('a rejected attempt is followed by the next one, as in the shared vectors', needVectors, () => {
  assert.ok(vectors.secret_rejections.some((v) => v.rejected > 1));
  for (const v of vectors.secret_rejections) {
    const got = spawnChoice(v.seed, v.index, v.empty, gameKey(v.seed), BigInt(v.limit));
    assert.deepEqual([got.ordinal, got.tile], [v.ordinal, v.tile], JSON.stringify(v));
    assert.notDeepEqual(spawnChoice(v.seed, v.index, v.empty), got);
  }
});

test('a game with a secret seed replays, and undo brings the same tile again', () => {
  const seed = '0f1e2d3c4b5a69788796a5b4c3d2e1f0';
  const g = new Game(4, seed);
  for (let i = 0; i < 60 && !g.over; i++) g.move(g.legalMoves()[i % g.legalMoves().length]);
  const after = g.board;
  const last = g.log.at(-1);
  g.undo();
  g.move(last);
  assert.deepEqual(g.board, after);
  const r = replay(4, seed, g.log);
  assert.deepEqual([r.board, r.score, r.seed, r.record()], [g.board, g.score, seed, g.record()]);
  assert.notDeepEqual(new Game(4, seed.replace('0f', '0e')).board, new Game(4, seed).board);
});

test('row slides match the shared vectors', needVectors, () => {
  for (const v of vectors.slide_row) assert.deepEqual(slideRow(v.line), { line: v.result, points: v.points });
});

test('board slides match the shared vectors', needVectors, () => {
  for (const v of vectors.slide) {
    assert.deepEqual(slide(v.board, v.direction), { board: v.result, points: v.points }, JSON.stringify(v));
  }
});

test('replayed games of every size match the shared vectors', needVectors, () => {
  const sizes = new Set();
  for (const v of vectors.games) {
    const g = replay(v.size, v.seed, v.log);
    sizes.add(v.size);
    const got = { board: g.board, score: g.score, over: g.over, won: g.won, max_tile: g.maxTile, undos_left: g.undosLeft, ranked: g.ranked };
    const want = { board: v.board, score: v.score, over: v.over, won: v.won, max_tile: v.max_tile, undos_left: v.undos_left, ranked: v.ranked };
    assert.deepEqual(got, want, `game size ${v.size} seed ${v.seed}`);
  }
  assert.deepEqual([...sizes].sort(), [...SIZES]);
});

test('bad records fail at the same position as in Python', needVectors, () => {
  for (const v of vectors.bad_records) {
    assert.throws(() => replay(v.size, v.seed, v.log), (e) => e instanceof RecordError && e.position === v.position, JSON.stringify(v));
  }
});
