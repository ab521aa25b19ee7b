// The page's bounds are the server's: tests/vectors/limits.json is game2048.limits.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { DEFAULT_SIZE, LETTERS, MAX_SEED, MAX_UNDOS, SIZES, TARGETS, UNDO_LETTER } from '../../src/game2048/web/static/js/engine.js';
import { GAME_ID, MAX_LOG, MAX_MOVES, NAME_MAX } from '../../src/game2048/web/static/js/limits.js';

const LIMITS = JSON.parse(readFileSync(new URL('../vectors/limits.json', import.meta.url), 'utf8'));

test('the page states the bounds of records and requests as the server does', () => {
  assert.deepEqual({ max_log: MAX_LOG, max_moves: MAX_MOVES, name_max: NAME_MAX, game_id: GAME_ID.source },
    { max_log: LIMITS.max_log, max_moves: LIMITS.max_moves, name_max: LIMITS.name_max, game_id: `^${LIMITS.game_id}$` });
});

test('the engine states the rules\' facts as the library does', () => {
  assert.deepEqual([...SIZES], LIMITS.sizes);
  assert.equal(DEFAULT_SIZE, LIMITS.default_size);
  assert.deepEqual(Object.fromEntries(Object.entries(TARGETS).map(([k, v]) => [String(k), v])), LIMITS.targets);
  assert.equal(MAX_SEED, LIMITS.max_seed);
  assert.equal(MAX_UNDOS, LIMITS.max_undos);
  assert.equal(Object.values(LETTERS).join('') + UNDO_LETTER, LIMITS.alphabet);
});
