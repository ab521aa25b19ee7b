// The game flow with every outside part faked: storage, server, drawing, dialogs.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { ApiError } from '../../src/game2048/web/static/js/api.js';
import { GameController } from '../../src/game2048/web/static/js/controller.js';
import { replay } from '../../src/game2048/web/static/js/engine.js';
import { translator } from './packs.mjs';
import { SafeStorage } from '../../src/game2048/web/static/js/storage.js';
import { SubmissionQueue } from '../../src/game2048/web/static/js/submissions.js';

const quiet = new Proxy({}, { get: () => () => {} });

function fakeServer({ up = true } = {}) {
  const server = {
    up,
    issued: 0,
    finished: [],
    async newGame(size, mode) {
      if (!server.up) throw new ApiError(0, 'offline');
      server.issued += 1;
      return { id: `g${server.issued}`, seed: 1000 + server.issued, size, mode, token: `t${server.issued}` };
    },
    async finish(id, body) {
      if (!server.up) throw new ApiError(0, 'offline');
      server.finished.push({ id, ...body });
      return { verified: true, ranked: true, score: body.score, rank: 1 };
    },
  };
  return server;
}

function makeController({ store = new SafeStorage(null), api = fakeServer(), confirm = true } = {}) {
  store.set('name', 'Ada');
  const overlays = { shown: null, show(kind) { this.shown = kind; } };
  const dialogs = { open: false, confirm: async () => confirm, nickname: async () => 'Ada' };
  const controller = new GameController({
    store, api, overlays, dialogs,
    i18n: translator('en'),
    view: quiet, reader: quiet, hud: quiet, announcer: quiet,
    queue: new SubmissionQueue(store, api, { name: () => 'Ada', setTimer: () => {} }),
    perf: null,
  });
  return { controller, store, api, overlays };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

function playSome(controller, n) {
  for (let i = 0; i < n && !controller.game.over; i++) {
    for (const d of ['left', 'down', 'right', 'up']) if (controller.move(d)) break;
  }
}

test('a new game takes the server seed that arrives before its first move', async () => {
  const { controller } = makeController();
  controller.init();
  await settle();
  assert.equal(controller.session.id, 'g1');
  assert.equal(controller.game.seed, 1001);
});

test('without the server a game starts anyway, local and unranked', async () => {
  const { controller } = makeController({ api: fakeServer({ up: false }) });
  controller.init();
  await settle();
  playSome(controller, 5);
  assert.equal(controller.session.id, null);
  assert.ok(controller.game.log.length > 0);
});

test('every move is saved and a new controller resumes the same game', async () => {
  const { controller, store, api } = makeController();
  controller.init();
  await settle();
  playSome(controller, 6);
  controller.undo();
  const again = makeController({ store, api }).controller;
  again.init();
  assert.deepEqual([again.game.board, again.game.log, again.game.score, again.session.id],
    [controller.game.board, controller.game.log, controller.game.score, controller.session.id]);
});

test('a game abandoned for a new one is sent with its record', async () => {
  const { controller, api } = makeController();
  controller.init();
  await settle();
  playSome(controller, 6);
  const { log, score } = controller.game;
  controller.newGame();
  await settle();
  assert.equal(api.finished.length, 1);
  assert.deepEqual(api.finished[0], { id: 'g1', token: 't1', log, score, name: 'Ada', helped: false });
  assert.equal(replay(4, 1001, log).score, score);
});

test('a finished game that could not be sent waits in storage', async () => {
  const api = fakeServer();
  const { controller, store } = makeController({ api });
  controller.init();
  await settle();
  playSome(controller, 3);
  api.up = false;
  controller.newGame();
  await settle();
  assert.equal(store.get('queue').length, 1);
  api.up = true;
  await controller.queue.flush();
  assert.deepEqual(store.get('queue'), []);
  assert.equal(api.finished.length, 1);
});

test('R replaces a game in progress only when the player confirms', async () => {
  const { controller } = makeController({ confirm: false });
  controller.init();
  await settle();
  playSome(controller, 3);
  const log = controller.game.log;
  assert.equal(await controller.requestNewGame(), false);
  assert.equal(controller.game.log, log);
  controller.dialogs.confirm = async () => true;
  assert.equal(await controller.requestNewGame(), true);
  assert.equal(controller.game.log, '');
});

test('the win banner waits for keep playing and then never returns', () => {
  const { controller, overlays } = makeController();
  controller.init();
  controller.load([[128, 128, 0], [0, 0, 0], [0, 0, 0]]);
  assert.equal(controller.move('left'), true);
  assert.equal(overlays.shown, 'win');
  assert.equal(controller.move('right'), false);
  controller.keepPlaying();
  assert.equal(overlays.shown, null);
  assert.equal(controller.move('right') || controller.move('down'), true);
  assert.notEqual(overlays.shown, 'win');
});

test('corrupt saved data is dropped and a new game starts', () => {
  const store = new SafeStorage(null);
  store.set('size', 5);
  store.set('game:5', { v: 1, size: 5, seed: 3, log: 'ZZZZ', score: 0 });
  const { controller } = makeController({ store });
  controller.init();
  assert.equal(controller.game.size, 5);
  assert.equal(controller.game.log, '');
});
