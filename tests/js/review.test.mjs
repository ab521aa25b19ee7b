// The review page's stepping rules, which need no DOM: the next mistake, the
// sentence for a move, and what each key does.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { clockText, describe, findMistake, keyAction } from '../../src/game2048/web/static/js/review.js';

const moves = [
  { n: 1, played: 'left', best: 'left', loss: 0, class: 'best' },
  { n: 2, played: 'up', best: 'down', loss: 0.05, class: 'mistake' },
  { n: 3, played: 'up', best: 'left', loss: 0.002, class: 'good' },
  { n: 5, played: 'right', best: 'down', loss: 0.9, class: 'blunder', undone: true },
  { n: 6, played: 'down', best: 'left', loss: 0.015, class: 'inaccuracy' },
];

test('the next and previous mistake skip good moves and inaccuracies', () => {
  assert.equal(findMistake(moves, -1, 1), 1);
  assert.equal(findMistake(moves, 1, 1), 3);
  assert.equal(findMistake(moves, 3, 1), -1);
  assert.equal(findMistake(moves, 4, -1), 3);
  assert.equal(findMistake(moves, 1, -1), -1);
});

test('a move is described with its number, its place, both directions, its class and loss', () => {
  const t = { status: 'Move {n} ({i} of {count}): played {played}, best {best}. {class}, loss {loss}.',
    undone: 'Undone.', up: 'up', down: 'down', left: 'left', right: 'right',
    mistake: 'Mistake', blunder: 'Blunder', good: 'Good' };
  assert.equal(describe(t, moves, 1), 'Move 2 (2 of 5): played up, best down. Mistake, loss 5%.');
  assert.equal(describe(t, moves, 3), 'Move 5 (4 of 5): played right, best down. Blunder, loss 90%. Undone.');
  assert.equal(describe(t, moves, 2), 'Move 3 (3 of 5): played up, best left. Good, loss 0.2%.');
  assert.equal(describe({ ...t, loss_all: 'all of it' }, [{ ...moves[3], loss: 7.5 }], 0).split('loss ')[1],
    'all of it. Undone.');
});

test('a move that kept its arrival says when it reached the server and after how long', () => {
  const t = { status: 'Move {n}.', played_at: 'Sent {time} in, {gap} after the one before.' };
  const timed = [{ ...moves[0], t: 65_400, gap: 1_250 }];
  assert.equal(describe(t, timed, 0), 'Move 1. Sent 1:05 in, 1.3 seconds after the one before.');
  assert.equal(describe(t, [moves[0]], 0), 'Move 1.', 'a game without times says nothing of them');
  assert.equal(clockText(3_723_000), '1:02:03');
  assert.match(describe(t, timed, 0, 'ru'), /1,3/);
});

test('arrows step (swapped right to left), Home and End jump, N and P find mistakes', () => {
  const key = (k, extra = {}) => keyAction({ key: k, ...extra });
  assert.deepEqual(['ArrowLeft', 'ArrowRight', 'Home', 'End', 'n', 'P'].map((k) => key(k)),
    ['back', 'forward', 'first', 'last', 'next-mistake', 'prev-mistake']);
  assert.equal(keyAction({ key: 'ArrowLeft' }, true), 'forward');
  assert.equal(keyAction({ key: 'ArrowRight' }, true), 'back');
  assert.equal(key('ArrowLeft', { ctrlKey: true }), null);
  assert.equal(key('x'), null);
});
