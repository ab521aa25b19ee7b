// What a screen reader hears: one announcement per move, with the new tile;
// notes that survive the next sentence; autoplay summed up every 2 s at most.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Announcer, SPAWN_WAIT_MS, SUMMARY_MS } from '../../src/game2048/web/static/js/announcer.js';
import { Game } from '../../src/game2048/web/static/js/engine.js';
import { translator } from './packs.mjs';

const tick = () => new Promise((r) => setTimeout(r, 0));

function announcer(lang = 'en') {
  const region = { textContent: '', heard: [] };
  const clock = { now: 0, timers: [] };
  const a = new Announcer(region, translator(lang), {
    now: () => clock.now,
    setTimer: (fn, ms) => { clock.timers.push({ fn, at: clock.now + ms }); return clock.timers.length - 1; },
    clearTimer: (id) => { if (clock.timers[id]) clock.timers[id].fn = null; },
  });
  // every text written to the region, in order (emptying it first is not an announcement)
  let text = '';
  Object.defineProperty(region, 'textContent', {
    get: () => text,
    set: (v) => { text = v; if (v) region.heard.push(v); },
  });
  const advance = (ms) => {
    clock.now += ms;
    for (const t of clock.timers) if (t.fn && t.at <= clock.now) { const fn = t.fn; t.fn = null; fn(); }
  };
  return { a, region, advance };
}

function moveOn(board, direction) {
  const game = Game.fromBoard(board, { seed: 7 });
  const result = game.move(direction);
  return { game, result, cells: game.cells };
}

test('a move is one announcement: direction, merges, points, score and where the new tile appeared', async () => {
  const { a, region } = announcer();
  const { game, result, cells } = moveOn([[2, 2, 0], [0, 0, 0], [0, 0, 4]], 'left');
  a.move('left', result, cells, game.score);
  await tick();
  const cell = result.spawn.cell;
  const where = `row ${Math.floor(cell / 3) + 1}, column ${(cell % 3) + 1}`;
  assert.deepEqual(region.heard, [`Moved left. Merged into 4. 4 points, score 4. New ${cells[cell]} at ${where}.`]);
});

test('a tile dealt after the slide is announced with its move, once it arrives', async () => {
  const { a, region, advance } = announcer();
  const { game, result, cells } = moveOn([[2, 2, 0], [0, 0, 0], [0, 0, 4]], 'left');
  a.move('left', { ...result, spawn: undefined }, cells, game.score);
  await tick();
  assert.deepEqual(region.heard, [], 'the sentence waits for its tile');
  a.spawned(8, 2, 3);
  await tick();
  assert.deepEqual(region.heard, ['Moved left. Merged into 4. 4 points, score 4. New 2 at row 3, column 3.']);
  // a tile that never comes does not keep the move unsaid
  a.move('left', { ...result, spawn: undefined }, cells, game.score);
  advance(SPAWN_WAIT_MS);
  await tick();
  assert.equal(region.heard.at(-1), 'Moved left. Merged into 4. 4 points, score 4.');
});

test('a note is said with the sentence that follows it in the same task', async () => {
  const { a, region } = announcer();
  a.note('This game is no longer ranked.');
  a.say('Hint: up.');
  await tick();
  assert.deepEqual(region.heard, ['Hint: up. This game is no longer ranked.']);
});

test('autoplay is summed up at most every two seconds, and once more when it stops', async () => {
  const { a, region, advance } = announcer('ru');
  a.summarise(true);
  const { result, cells } = moveOn([[2, 2, 0], [0, 0, 0], [0, 0, 4]], 'left');
  for (let i = 0; i < 40; i++) {
    a.move('left', result, cells, 100 + i);
    advance(100); // 40 moves in 4 s
    await tick();
  }
  // moves at 0, 0.1, … 3.9 s: one summary, at 2 s (the 21st move)
  assert.deepEqual(region.heard, ['Автоигра: 21 ход, счёт 120, самая большая плитка 4.']);
  a.summarise(false);
  await tick();
  assert.match(region.heard.at(-1), /^Автоигра: 40 ходов, счёт 139/);
  assert.equal(SUMMARY_MS, 2000);
});
