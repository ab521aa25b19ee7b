// Hint and autoplay: a refused hint says why in the player's words; no answer says the server is needed.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { ApiError } from '../../src/game2048/web/static/js/api.js';
import { Assistant } from '../../src/game2048/web/static/js/assistant.js';
import { Game } from '../../src/game2048/web/static/js/engine.js';
import { translator } from './packs.mjs';

const quiet = new Proxy({}, { get: () => () => {} });

/** An assistant over a practice game whose hints the server answers with `answer` (a function). */
function assistant(answer, lang = 'en') {
  const said = [];
  let helped = false;
  const game = new Game(4, 7);
  const controller = {
    game, session: { id: null, game }, waitingAtWin: false, settled: async () => {},
    dealer: { hint: answer }, markHelped: () => { helped = true; }, move: () => false,
  };
  const hud = { hint() {}, autoplay() {}, message: (text) => said.push(text) };
  const a = new Assistant({ api: {}, controller, hud, announcer: quiet, i18n: translator(lang), wait: async () => {} });
  return { a, said, helped: () => helped };
}

test("a practice game's hints past their pace are said as such, with the wait, in every language", async () => {
  for (const lang of ['en', 'he', 'ru', 'th']) {
    const paced = new ApiError(429, 'too many requests', 'hints_paced', { retry_after: 40 });
    const { a, said, helped } = assistant(async () => { throw paced; }, lang);
    assert.equal(await a.hint(), null);
    const i18n = translator(lang);
    assert.equal(said.length, 1);
    assert.notEqual(said[0], i18n.t('hintNone'), lang);
    assert.notEqual(said[0], i18n.t('refusedBusy', { wait: '' }), lang);
    assert.ok(said[0].includes('40') && !/\{\w+\}/.test(said[0]), said[0]);
    assert.equal(helped(), false, 'a refused hint helped nothing');
  }
});

test('a hint with no answer at all says hints need the server; a given one marks the game helped', async () => {
  const lost = assistant(async () => { throw new ApiError(0, 'network'); });
  assert.equal(await lost.a.hint(), null);
  assert.deepEqual(lost.said, [translator('en').t('hintNone')]);
  const given = assistant(async () => ({ move: 'left', scores: { left: 1 } }));
  assert.equal(await given.a.hint(), 'left');
  assert.equal(given.helped(), true);
});

test('autoplay stops at a refused hint and says why', async () => {
  const { a, said } = assistant(async () => { throw new ApiError(429, 'x', 'hints_paced', { retry_after: 30 }); });
  await a.start();
  assert.equal(a.running, false);
  assert.match(said.join(' '), /30 seconds/);
});
