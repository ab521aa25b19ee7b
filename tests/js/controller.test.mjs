// The game flow with every outside part faked: storage, server, drawing, dialogs,
// and who deals the tiles.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { ApiError } from '../../src/game2048/web/static/js/api.js';
import { GameController } from '../../src/game2048/web/static/js/controller.js';
import { Game, replay, slide } from '../../src/game2048/web/static/js/engine.js';
import { nextDailyTime } from '../../src/game2048/web/static/js/refusals.js';
import { LocalDealer } from '../../src/game2048/web/static/js/local_dealer.js';
import { ServerDealer } from '../../src/game2048/web/static/js/server_dealer.js';
import { translator } from './packs.mjs';
import { SafeStorage } from '../../src/game2048/web/static/js/storage.js';
import { SubmissionQueue } from '../../src/game2048/web/static/js/submissions.js';

const quiet = new Proxy({}, { get: () => () => {} });
const settle = () => new Promise((r) => setTimeout(r, 0));

/** The secret seed the fake server deals its n-th game from (32 hex digits, as the real one). */
const dealtSeed = (n) => (1000 + n).toString(16).padStart(32, '0');

/**
 * A server that deals like the real one: secret seeds, answers by `at`, holds answers on demand.
 * Its links are sockets (several requests in flight, chained moves) unless `http`.
 */
function fakeServer({ up = true, http = false } = {}) {
  const server = {
    up,
    http,
    offline: false, // the browser knows it is offline: every request fails at once
    issued: 0,
    games: new Map(),
    finished: [],
    records: [],
    holding: false,
    held: [],
    drops: 0, // the next requests that fail as a dropped connection
    batches: 0, // requests of keys sent together (skip_illegal)
    links: [],
    seen: [],
    refusedNames: new Map(), // name -> [status, code]: the finishes and records under it are refused
    refusals: 0,
    networkFull: false, // the network has used today's ranked tries: a daily game is dealt unranked
    async newGame(size, mode) {
      if (!server.up) throw new ApiError(0, 'offline');
      server.issued += 1;
      const id = `g${server.issued}`;
      const game = new Game(size, dealtSeed(server.issued));
      server.games.set(id, game);
      return { id, token: `t${server.issued}`, size, mode, date: null, board: game.board, score: 0, at: 0,
        undos_left: 3, over: false, won: false, tries_left: mode === 'daily' ? 2 : null,
        ranked: !(mode === 'daily' && server.networkFull) };
    },
    async finish(id, body) {
      if (!server.up) throw new ApiError(0, 'offline');
      server.refuseName(body.name);
      const game = server.games.get(id);
      server.finished.push({ id, ...body });
      // as the server: a game left before it ended (over, or won) is abandoned, kept unranked
      const abandoned = body.abandoned === true && !game.over && !game.won;
      const ranked = game.ranked && !abandoned;
      return { verified: true, ranked, score: game.score, max_tile: game.maxTile, rank: ranked ? 1 : null, seed: game.seed,
        unranked: abandoned ? 'abandoned' : null };
    },
    async record(body) {
      if (!server.up) throw new ApiError(0, 'offline');
      server.refuseName(body.name);
      server.records.push(body);
      return { id: `p${server.records.length}`, verified: true, ranked: false, score: body.score, max_tile: 2 };
    },
    refuseName(name) {
      const refusal = server.refusedNames.get(name);
      if (!refusal) return;
      server.refusals += 1;
      throw new ApiError(refusal[0], `name refused: ${refusal[1]}`, refusal[1]);
    },
    /** The answer to a message on `link`: a chained moves message goes on from the link's last moves answer. */
    answer(id, message, link = null) {
      if (message.op !== 'moves' || !link) return server.play(id, message);
      if (message.chain && link.chainAt === null) {
        return { op: 'moves', status: 409, error: 'the chain broke', code: 'chain_broken' };
      }
      const { chain, ...rest } = message;
      const answer = server.play(id, chain ? { ...rest, at: link.chainAt } : message);
      link.chainAt = answer.error === undefined ? answer.at : null;
      return answer;
    },
    play(id, message) {
      const game = server.games.get(id);
      const position = (tile = null) => ({ op: message.op, at: game.log.length, board: game.board, score: game.score,
        over: game.over, won: game.won, undos_left: game.undosLeft, ranked: game.ranked, tile });
      if (message.op === 'state') return { ...position(), log: game.log };
      if (message.at === undefined || message.chain !== undefined) return { op: 'moves', status: 422, error: 'at or chain' };
      game.answers ??= new Map(); // a retry gets the answer the first one got
      const asked = `${message.at} ${message.moves} ${Boolean(message.skip_illegal)}`;
      if (message.at < game.log.length && game.answers.has(asked)) return game.answers.get(asked);
      if (message.at < game.log.length && game.log.slice(message.at).startsWith(message.moves)) return position(game.lastTile);
      if (message.at !== game.log.length) return { op: 'moves', status: 409, error: 'fork' };
      const tileOf = (moved) => ({ row: Math.floor(moved.spawn.cell / game.size), col: moved.spawn.cell % game.size, value: moved.spawn.tile });
      if (message.skip_illegal) { // keys pressed before their tiles were known: each one the rules allow, with its tile
        let applied = '';
        const tiles = [];
        for (const letter of message.moves) {
          const moved = letter === 'Z' ? game.undo() : game.move(letter);
          if (!moved) continue;
          applied += letter;
          game.lastTile = letter === 'Z' ? null : tileOf(moved);
          tiles.push(game.lastTile);
        }
        server.batches += 1;
        const answer = { ...position(game.lastTile), applied, tiles };
        game.answers.set(asked, answer);
        return answer;
      }
      for (const letter of message.moves) {
        const moved = letter === 'Z' ? game.undo() : game.move(letter);
        if (!moved) return { op: 'moves', status: 422, error: 'illegal' };
        // as the server answers: where the last letter's tile landed, none after an undo
        game.lastTile = letter === 'Z' ? null : tileOf(moved);
      }
      const answer = position(game.lastTile);
      game.answers.set(asked, answer);
      return answer;
    },
    link(id) {
      const link = {
        pipelines: !server.http,
        chainAt: null, // as a socket's: where its last moves message left the game (null: refused, or none yet)
        request(message) {
          server.seen.push(message);
          if (server.offline) return Promise.resolve({ op: message.op, status: 0, error: 'offline', offline: true });
          if (server.drops > 0) {
            server.drops -= 1;
            link.chainAt = null; // the next message goes on a new socket
            return Promise.resolve({ status: 0, error: 'connection lost' });
          }
          const reply = () => server.answer(id, message, link);
          if (!server.holding) return Promise.resolve(reply());
          return new Promise((resolve) => server.held.push({ reply, resolve }));
        },
        later(fn) {
          setTimeout(fn, 0);
        },
      };
      server.links.push(link);
      return link;
    },
    /** Let the held answers through, one at a time. */
    async release() {
      while (server.held.length) {
        const { reply, resolve } = server.held.shift();
        resolve(reply());
        await settle();
      }
    },
    /**
     * The connection drops with messages held: the first `reached` of them reached the server and
     * were played, their answers lost; the rest never arrived. Each waiting request hears
     * {status: 0}, as SocketLink says when its socket closes, unless `closed` (the page went away).
     */
    drop(reached, { closed = false } = {}) {
      const held = server.held;
      server.held = [];
      held.slice(0, reached).forEach(({ reply }) => reply());
      for (const link of server.links) link.chainAt = null;
      if (!closed) for (const { resolve } of held) resolve({ status: 0, error: 'connection lost' });
    },
  };
  return server;
}

/**
 * With `answers` (what the player types in the name dialog, in turn; undefined is Esc), the
 * queue sends the name the controller keeps, as the page does, and `asked` lists each time
 * the dialog opened ({current, problem}); without, every game is sent as Ada.
 */
function makeController({ store = new SafeStorage(null), server = fakeServer(), confirm = true, view = quiet,
  announcer = quiet, deal, name = 'Ada', answers = null, hud = quiet } = {}) {
  store.set('name', name);
  const overlays = { shown: null, options: {}, show(kind, options = {}) { this.shown = kind; this.options = options; } };
  const asked = [];
  const nickname = answers === null ? async () => 'Ada' : async (current, problem) => {
    asked.push({ current, problem });
    return answers.shift();
  };
  const confirmed = []; // the text each confirm dialog was asked with (null: the usual one)
  const dialogs = { open: false, confirm: async (text = null) => { confirmed.push(text); return confirm; }, nickname };
  const link = (id) => server.link(id);
  const queue = new SubmissionQueue(store, server, {
    name: answers === null ? () => 'Ada' : () => controller.nameToSend(),
    nameRefused: (entry, error) => controller.nameRefused(entry, error),
    setTimer: () => {},
    done: (e, a) => controller.submitted(e, a),
  });
  const controller = new GameController({
    store, api: server, overlays, dialogs, view,
    i18n: translator('en'),
    reader: quiet, hud, announcer,
    queue,
    deal: deal ?? {
      ranked: (size, mode) => server.newGame(size, mode).then((issued) => ServerDealer.fromIssued(issued, link)),
      practice: (size, seed) => LocalDealer.opening(size, seed),
      position: (board, score) => LocalDealer.position(board, score, 77),
      link,
    },
    perf: null,
  });
  return { controller, store, server, overlays, asked, confirmed };
}

/** Play up to n moves, each after the last one was answered. */
async function playSome(controller, n) {
  for (let i = 0; i < n && !controller.game.over; i++) {
    for (const d of ['left', 'down', 'right', 'up']) if (controller.move(d)) break;
    await controller.settled();
  }
}


/** A view that records every call made to it, as [name, ...args]. */
function recordingView() {
  const calls = [];
  return { calls, view: new Proxy({}, { get: (_, name) => (...args) => calls.push([name, ...args]) }) };
}

test('a new game is dealt by the server, whose seed the page does not know', async () => {
  const { controller } = makeController();
  controller.init();
  await settle();
  assert.equal(controller.session.id, 'g1');
  assert.equal(controller.game.seed, null);
  assert.equal(controller.game.ranked, true);
});

test('the next ranked game is asked for at the first move, not at load, and is used by New game', async () => {
  const { controller, server } = makeController();
  controller.init();
  await settle();
  assert.equal(server.issued, 1); // a visit that never moves costs the server one game
  await playSome(controller, 3);
  await settle();
  assert.equal(server.issued, 2); // asked once, at the first move
  controller.newGame();
  assert.equal(controller.session.id, 'g2'); // on the board at once, no waiting
  await settle();
  assert.equal(server.issued, 2);
  await playSome(controller, 1);
  await settle();
  assert.equal(server.issued, 3);
});

test('each tile comes from the server: the slide is drawn at once, the tile when the answer comes', async () => {
  const { calls, view } = recordingView();
  const { controller, server } = makeController({ view });
  controller.init();
  await settle();
  server.holding = true;
  const before = controller.game.board;
  const direction = ['left', 'down', 'right', 'up'].find((d) => slide(before, d).board.flat().join() !== before.flat().join());
  calls.length = 0;
  assert.equal(controller.move(direction), true);
  const [name, cells, result] = calls.find((c) => c[0] === 'play');
  assert.equal(name, 'play');
  assert.equal(result.spawn, null);
  assert.deepEqual(cells, slide(before, direction).board.flat()); // the slide alone
  assert.equal(calls.some((c) => c[0] === 'appear'), false);
  await server.release();
  const appear = calls.find((c) => c[0] === 'appear');
  const dealt = server.games.get('g1');
  assert.equal(dealt.cells[appear[1]], appear[2]);
  // where the answer says the tile landed: the page does not work it out from the boards
  assert.deepEqual([appear[1], appear[2]], [dealt.lastTile.row * 4 + dealt.lastTile.col, dealt.lastTile.value]);
  assert.deepEqual(controller.game.board, dealt.board);
});

test('the tile the server deals is announced when it arrives, with the move it belongs to', async () => {
  const said = [];
  const announcer = new Proxy({}, { get: (_, name) => (...args) => said.push([name, ...args]) });
  const { controller, server } = makeController({ announcer });
  controller.init();
  await settle();
  server.holding = true;
  const direction = ['left', 'down', 'right', 'up'].find((d) => controller.move(d));
  const move = said.find((c) => c[0] === 'move');
  assert.equal(move[1], direction);
  assert.equal(move[2].spawn, null); // the sentence waits for its tile
  assert.equal(said.some((c) => c[0] === 'spawned'), false);
  await server.release();
  const [, cell, value, size] = said.find((c) => c[0] === 'spawned');
  assert.equal(size, 4);
  assert.equal(controller.game.cells[cell], value);
  assert.equal(server.games.get('g1').cells[cell], value);
});

test('while the first ranked game is on its way the status says so, not "offline"', async () => {
  const { controller } = makeController({ server: fakeServer({ up: false }) });
  controller.init();
  assert.equal(controller.session.awaitingServer, true);
  await settle();
  assert.equal(controller.session.awaitingServer, false); // the server cannot be reached: a practice game
  assert.equal(controller.session.id, null);
  const up = makeController();
  up.controller.init();
  await settle();
  assert.equal(up.controller.session.id, 'g1');
  assert.equal(up.controller.session.awaitingServer, undefined); // the ranked game itself
});

test('New game and Daily game ask first, and pass their options on', async () => {
  const { controller, server } = makeController({ confirm: false });
  controller.init();
  await settle();
  await playSome(controller, 2);
  assert.equal(await controller.requestNewGame({ mode: 'daily' }), false);
  assert.equal(controller.session.id, 'g1');
  const yes = makeController({ server });
  yes.controller.init();
  await settle();
  await playSome(yes.controller, 2);
  assert.equal(await yes.controller.requestNewGame({ mode: 'daily' }), true);
  await settle();
  assert.equal(yes.controller.session.mode, 'daily');
});

/** The letters a fresh game of the fake server's n-th seed plays for `keys`: the keys the rules allow, in order. */
function legal(keys, n = 1) {
  const local = new Game(4, dealtSeed(n));
  return keys.filter((k) => (k === 'undo' ? local.undo() : local.move(k))).map((k) => (k === 'undo' ? 'Z' : k[0].toUpperCase())).join('');
}

/** Press `keys` ('undo' for Z) as a player does, each at once. */
function press(controller, keys) {
  for (const key of keys) assert.equal(key === 'undo' ? controller.undo() : controller.move(key), true, key);
}

/** The page and the server agree on the game. */
function sameAsServer(controller, server) {
  const dealt = server.games.get(controller.session.id);
  assert.deepEqual([controller.game.log, controller.game.board, controller.game.score, controller.game.undosLeft],
    [dealt.log, dealt.board, dealt.score, dealt.undosLeft]);
}

const KEYS = ['left', 'down', 'right', 'down', 'left', 'up', 'left', 'left', 'right'];

test('every key goes to the server when pressed, several in flight, and the answers play out in order', async () => {
  const { calls, view } = recordingView();
  const { controller, server } = makeController({ view });
  controller.init();
  await settle();
  server.holding = true;
  calls.length = 0;
  press(controller, KEYS);
  const sent = server.seen.filter((m) => m.op === 'moves');
  // the first slides at once (the board is known) and goes with its at; the others are chained
  assert.deepEqual(sent.map((m) => [m.at, m.chain, m.skip_illegal]),
    [[0, undefined, undefined], ...KEYS.slice(1).map(() => [undefined, true, true])]);
  assert.deepEqual([controller.keys, controller.dealer.busy, calls.filter((c) => c[0] === 'play').length], [[], false, 1]);
  await server.release();
  await controller.settled();
  assert.equal(server.games.get('g1').log, legal(KEYS));
  sameAsServer(controller, server);
  // each key the server played: its slide, then its tile, once
  assert.equal(calls.filter((c) => c[0] === 'play').length, legal(KEYS).length);
  assert.equal(calls.filter((c) => c[0] === 'appear').length, legal(KEYS).length);
});

test('a key that meets a wall once its tile is known is dropped, as in the original game', async () => {
  const keys = ['left', 'left', 'left', 'left', 'down', 'down', 'down'];
  assert.ok(legal(keys).length < keys.length, 'some of these keys meet a wall');
  const { controller, server } = makeController();
  controller.init();
  await settle();
  server.holding = true;
  press(controller, keys);
  await server.release();
  await controller.settled();
  const answers = server.seen.filter((m) => m.op === 'moves').length;
  assert.equal(answers, keys.length); // each key once, none refused, none sent again
  assert.equal(server.games.get('g1').log, legal(keys));
  sameAsServer(controller, server);
});

test('a connection lost with three keys in flight: the state says which were played, the rest go again', async () => {
  const keys = ['left', 'down', 'right'];
  for (const reached of [0, 1, 2, 3]) {
    const { controller, server } = makeController();
    controller.init();
    await settle();
    server.holding = true;
    press(controller, keys);
    server.drop(reached);
    server.holding = false;
    press(controller, ['left']); // sent before the page heard of the drop: refused, the chain broken
    await settle();
    assert.equal(controller.dealer.busy, true);
    press(controller, ['up']); // pressed while the page finds out: it waits, then goes after them
    await controller.settled();
    // nothing lost, doubled or reordered, whichever of them had reached the server
    assert.equal(server.games.get('g1').log, legal([...keys, 'left', 'up']), `${reached} reached`);
    sameAsServer(controller, server);
    assert.equal(server.seen.filter((m) => m.op === 'state').length, 1);
    const again = server.seen.slice(server.seen.findIndex((m) => m.op === 'state') + 1);
    assert.equal(again[0].at, server.games.get('g1').log.length - again.length, 'a new chain starts from the state');
  }
});

test('an undo goes in the chain like a key, and the board goes back when it is answered', async () => {
  const keys = ['left', 'down', 'undo', 'right', 'undo', 'up'];
  const { controller, server } = makeController();
  controller.init();
  await settle();
  server.holding = true;
  press(controller, keys);
  assert.deepEqual(server.seen.filter((m) => m.op === 'moves').map((m) => m.moves), ['L', 'D', 'Z', 'R', 'Z', 'U']);
  await server.release();
  await controller.settled();
  assert.equal(server.games.get('g1').log, legal(keys));
  assert.equal(controller.game.undosLeft, 1);
  sameAsServer(controller, server);
});

test('a reload with keys in flight asks the state and sends again only the keys the server did not play', async () => {
  for (const reached of [0, 2, 4]) {
    const server = fakeServer();
    const { controller, store } = makeController({ server });
    controller.init();
    await settle();
    server.holding = true;
    press(controller, KEYS.slice(0, 4));
    assert.equal(store.get('game:4').served.inFlight.letters, 'LDRD'); // saved with the game
    server.drop(reached, { closed: true }); // the page went away: its answers are never heard
    server.holding = false;
    const again = makeController({ store, server }).controller;
    again.init();
    await again.settled();
    assert.equal(server.games.get('g1').log, legal(KEYS.slice(0, 4)), `${reached} reached`);
    sameAsServer(again, server);
  }
});

test('over plain HTTP one request is in flight, and the keys that waited go together', async () => {
  const { controller, server } = makeController({ server: fakeServer({ http: true }) });
  controller.init();
  await settle();
  server.holding = true;
  const keys = ['left', 'down', 'right', 'down', 'left', 'up'];
  for (const key of keys) assert.equal(controller.move(key), true);
  assert.equal(server.seen.filter((m) => m.op === 'moves').length, 1);
  await server.release();
  await controller.settled();
  // what the server played is the keys in the order pressed, less those that were illegal then
  assert.equal(server.games.get('g1').log, legal(keys));
  assert.equal(controller.game.log, legal(keys));
  // the keys that waited went in one request, not one round trip each
  assert.equal(server.batches, 1);
  assert.ok(server.seen.every((m) => m.chain === undefined));
  sameAsServer(controller, server);
});

test('keys sent together are drawn one by one as the server played them, none twice', async () => {
  for (const http of [true, false]) {
    const { calls, view } = recordingView();
    const { controller, server } = makeController({ view, server: fakeServer({ http }) });
    controller.init();
    await settle();
    server.holding = true;
    for (const key of ['left', 'right', 'left', 'right', 'up', 'down']) controller.move(key);
    calls.length = 0;
    await server.release();
    await controller.settled();
    const dealt = server.games.get('g1');
    const plays = calls.filter((c) => c[0] === 'play').length;
    const appears = calls.filter((c) => c[0] === 'appear');
    // the first key went alone, its slide drawn at once; each key played after it: its slide, then its tile
    assert.equal(plays, dealt.log.length - 1);
    assert.equal(appears.length, dealt.log.length);
    assert.deepEqual(controller.game.board, dealt.board);
    assert.equal(controller.game.score, dealt.score);
  }
});

test('a game left with keys in flight is finished with the log the server ends with', async () => {
  const { controller, server } = makeController();
  controller.init();
  await settle();
  await playSome(controller, 2);
  server.holding = true;
  press(controller, KEYS.slice(0, 4));
  controller.newGame();
  await settle();
  assert.equal(server.finished.length, 0); // not before its keys are answered: the log would stop short
  await server.release();
  await controller.queue.flush();
  assert.deepEqual(server.finished.map((f) => [f.id, f.log]), [['g1', server.games.get('g1').log]]);
});

test('a ranked game reloaded offline says that keys do nothing until the network is back', async () => {
  const messages = [];
  const hud = new Proxy({}, { get: (_, key) => (key === 'message' ? (m) => messages.push(m) : () => {}) });
  const server = fakeServer();
  const { controller, store } = makeController({ server });
  controller.init();
  await settle();
  await playSome(controller, 3);
  server.offline = true;
  const again = makeController({ store, server, hud }).controller;
  again.init();
  await settle();
  const t = translator('en');
  assert.equal(messages.at(-1), t.t('serverOffline'));
  const log = again.game.log;
  assert.equal(again.move('left') || again.move('down') || again.move('right'), false);
  assert.equal(again.keys.length, 0); // not kept to be played unseen later
  server.offline = false;
  await again.settled();
  assert.equal(messages.at(-1), '');
  assert.equal(again.move('left') || again.move('down') || again.move('right') || again.move('up'), true);
  await again.settled();
  assert.equal(again.game.log.length, log.length + 1);
  sameAsServer(again, server);
});

test('while the server cannot be reached the page says the moves wait, and takes it back when it answers', async () => {
  const messages = [];
  const hud = new Proxy({}, { get: (_, key) => (key === 'message' ? (m) => messages.push(m) : () => {}) });
  const { controller, server } = makeController({ hud });
  controller.init();
  await settle();
  server.drops = 1;
  await playSome(controller, 1);
  const t = translator('en');
  assert.ok(messages.includes(t.t('serverUnreachable')), messages.join(' | '));
  assert.equal(messages.at(-1), ''); // answered: the note is gone
  assert.equal(controller.game.log, server.games.get('g1').log);
});

test('after a dropped connection the move is sent again and the game goes on from at', async () => {
  const { controller, server } = makeController();
  controller.init();
  await settle();
  server.drops = 2;
  await playSome(controller, 3);
  const sent = server.seen.filter((m) => m.op === 'moves');
  assert.equal(sent.length, 5); // 2 lost, then each move once
  assert.equal(controller.game.log, server.games.get('g1').log);
  assert.equal(controller.dealer.at, 3);
});

test('every move is saved and a new controller resumes the same ranked game', async () => {
  const { controller, store, server } = makeController();
  controller.init();
  await settle();
  await playSome(controller, 6);
  controller.undo();
  await controller.settled();
  const again = makeController({ store, server }).controller;
  again.init();
  await again.settled();
  assert.deepEqual([again.game.board, again.game.log, again.game.score, again.session.id, again.game.undosLeft],
    [controller.game.board, controller.game.log, controller.game.score, controller.session.id, 2]);
  assert.ok(server.seen.some((m) => m.op === 'state')); // it asked the server where the game stands
});

test('a game abandoned for a new one is finished with its log, and the finish reveals the seed', async () => {
  const { controller, server } = makeController();
  controller.init();
  await settle();
  await playSome(controller, 6);
  const { log } = controller.game;
  controller.newGame();
  await settle();
  assert.equal(server.finished.length, 1);
  assert.deepEqual(server.finished[0], { id: 'g1', token: 't1', log, name: 'Ada', helped: false, abandoned: false,
    name_key: null });
  assert.equal(replay(4, dealtSeed(1), log).score, server.games.get('g1').score);
});

test('a game over is finished and its seed shown once the server answers', async () => {
  const { controller, server } = makeController();
  controller.init();
  await settle();
  controller.newGame({ size: 3 });
  await settle();
  await playSome(controller, 3000);
  assert.equal(controller.game.over, true);
  await controller.queue.flush();
  assert.equal(server.finished.at(-1).id, controller.session.id);
  assert.equal(controller.game.seed, server.games.get(controller.session.id).seed);
  assert.equal(replay(3, controller.game.seed, controller.game.log).score, controller.game.score);
});

/** Play to the end of the game, keeping playing past a win. */
async function playToEnd(controller) {
  while (!controller.game.over) {
    if (controller.waitingAtWin) controller.keepPlaying();
    await playSome(controller, 1);
  }
}

test('game over links the review once the server kept the game, and a reload keeps the link', async () => {
  const { controller, server, overlays, store } = makeController();
  controller.init();
  await settle();
  controller.newGame({ size: 3 });
  await settle();
  server.up = false; // the finish waits: no record yet, so no link
  await playToEnd(controller);
  assert.equal(overlays.shown, 'over');
  assert.equal(overlays.options.recordId ?? null, null);
  server.up = true;
  await controller.queue.flush();
  assert.equal(overlays.shown, 'over');
  assert.equal(overlays.options.recordId, controller.session.id);
  const again = makeController({ store, server });
  again.controller.init();
  assert.equal(again.overlays.shown, 'over');
  assert.equal(again.overlays.options.recordId, controller.session.id);
});

test('a practice game over links the review of the record the server kept', async () => {
  const { controller, server, overlays } = makeController({ server: fakeServer({ up: false }) });
  controller.init();
  await settle();
  controller.newGame({ size: 3, seed: 12 });
  await playToEnd(controller);
  server.up = true;
  await controller.queue.flush();
  assert.equal(server.records.length, 1);
  assert.equal(overlays.options.recordId, 'p1');
});

test('a daily game over has no review link while its day lasts (its record is hidden)', async () => {
  const server = fakeServer();
  const finish = server.finish;
  server.finish = async (id, body) => ({ ...(await finish(id, body)), seed: null });
  const { controller, overlays } = makeController({ server });
  controller.init();
  await settle();
  controller.newGame({ size: 3, mode: 'daily' });
  await settle();
  assert.equal(controller.session.mode, 'daily');
  await playToEnd(controller);
  await controller.queue.flush();
  assert.equal(server.finished.at(-1).id, controller.session.id);
  assert.equal(overlays.shown, 'over');
  assert.equal(overlays.options.recordId ?? null, null);
});

test('without the server a practice game starts anyway, and goes to the records queue when done', async () => {
  const { controller, server, store } = makeController({ server: fakeServer({ up: false }) });
  controller.init();
  await settle();
  await playSome(controller, 5);
  assert.equal(controller.session.id, null);
  const { seed, log, score } = controller.game;
  controller.newGame();
  await settle();
  assert.equal(store.get('queue').length, 1);
  server.up = true;
  await controller.queue.flush();
  assert.deepEqual(server.records, [{ size: 4, seed, log, score, start: null, name: 'Ada', name_key: null }]);
  assert.deepEqual(store.get('queue'), []);
});

test('a finish that could not be sent waits in storage and is sent later', async () => {
  const server = fakeServer();
  const { controller, store } = makeController({ server });
  controller.init();
  await settle();
  await playSome(controller, 3);
  server.up = false;
  controller.newGame();
  await settle();
  assert.equal(store.get('queue').length, 1);
  server.up = true;
  await controller.queue.flush();
  assert.deepEqual(store.get('queue'), []);
  assert.equal(server.finished.length, 1);
});

test('R replaces a game in progress only when the player confirms', async () => {
  const { controller } = makeController({ confirm: false });
  controller.init();
  await settle();
  await playSome(controller, 3);
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

test('a position game is sent as a practice record from its start', async () => {
  const { controller, server } = makeController();
  controller.init();
  controller.load([[128, 128, 0], [0, 0, 0], [0, 0, 0]], 1000);
  controller.move('left');
  const { log, score } = controller.game;
  controller.newGame();
  await controller.queue.flush();
  const sent = server.records.at(-1);
  assert.deepEqual(sent.start, { board: [[128, 128, 0], [0, 0, 0], [0, 0, 0]], score: 1000 });
  assert.equal(sent.log, log);
  assert.equal(sent.score, score);
  assert.equal(score, 1256);
});

test('the controller plays any dealer it is handed: the seam', async () => {
  // a dealer that deals a 2 in the first empty cell, after a delay, and knows nothing else
  const made = [];
  const fake = (size) => {
    const game = new Game(size, 5);
    const dealer = {
      game, busy: false, onDealt: () => {}, id: null, token: null,
      move(direction) {
        const result = game.move(direction);
        if (!result) return null;
        dealer.busy = true;
        setTimeout(() => { dealer.busy = false; dealer.onDealt({ type: 'tile', cell: result.spawn.cell, value: game.cells[result.spawn.cell] }); }, 1);
        return { ...result, spawn: null };
      },
      undo: () => false,
      settled: () => new Promise((r) => setTimeout(r, 5)),
      sync() {},
      finishEntry: () => ({ kind: 'record', id: 'x', record: {} }),
      toJSON: () => ({ seed: 5, log: game.log, score: game.score, start: null }),
    };
    made.push(dealer);
    return dealer;
  };
  const { controller } = makeController({
    server: fakeServer({ up: false }),
    deal: { ranked: () => Promise.reject(new ApiError(0, 'offline')), practice: fake, position: fake, link: () => null },
  });
  controller.init();
  await settle();
  assert.equal(controller.dealer, made.at(-1));
  assert.equal(controller.move('left') || controller.move('right'), true);
  controller.move('up');
  controller.move('down');
  await controller.settled();
  assert.equal(controller.keys.length, 0);
  assert.ok(controller.game.log.length >= 2);
});

test('corrupt saved data is dropped and a new game starts', () => {
  const store = new SafeStorage(null);
  store.set('size', 5);
  store.set('game:5', { v: 2, size: 5, practice: { seed: 3, log: 'ZZZZ', score: 0, start: null }, served: null,
    mode: 'classic', date: null, helped: false, keepPlaying: false, submitted: false });
  const { controller } = makeController({ store });
  controller.init();
  assert.equal(controller.game.size, 5);
  assert.equal(controller.game.log, '');
});

// -- names ------------------------------------------------------------------

/** Let the dialogs, the name rule's loading and the queue's rounds run. */
async function settleLong() {
  for (let i = 0; i < 20; i++) await settle();
}

/** A ranked game of a few moves, then New game: its finish goes to the queue. */
async function finishOne(controller) {
  controller.init();
  await settle();
  await playSome(controller, 4);
  const { id } = controller.session;
  controller.newGame();
  await settleLong();
  return id;
}

test('a finish refused for its name stays queued, the player is asked for another, and it is sent under it', async () => {
  const server = fakeServer();
  server.refusedNames.set('Ada', [422, 'name_invisible']); // say the server's rule came to differ
  const messages = [];
  const hud = new Proxy({}, { get: (_, key) => (key === 'message' ? (m) => messages.push(m) : () => {}) });
  const { controller, store, asked } = makeController({ server, answers: ['Bo'], hud });
  const id = await finishOne(controller);
  assert.equal(server.refusals, 1);
  assert.equal(asked.length, 1);
  assert.equal(asked[0].current, 'Ada'); // the refused name, to edit
  assert.equal(asked[0].problem, translator('en').t('nameRefused')); // a reason the page cannot name itself
  assert.ok(messages.includes(translator('en').t('nameQueued')));
  await controller.queue.flush();
  assert.deepEqual(server.finished.map((f) => [f.id, f.name]), [[id, 'Bo']]);
  assert.deepEqual(store.get('queue'), []);
  assert.equal(store.get('name'), 'Bo');
});

test('a finish recorded under a name it could not hold today says so beside the score', async () => {
  const server = fakeServer();
  const finish = server.finish;
  const notHeld = { error: 'English words', code: 'names_per_day', limit: 3, next_at: '2026-12-03T00:00:00Z' };
  server.finish = async (id, body) => ({ ...(await finish(id, body)), name_key: null, name_not_held: notHeld });
  const messages = [];
  const hud = new Proxy({}, { get: (_, key) => (key === 'message' ? (m) => messages.push(m) : () => {}) });
  const { controller, store } = makeController({ server, hud });
  await finishOne(controller);
  const said = messages.find((m) => m.startsWith('Score ') && m.includes('recorded'));
  assert.ok(said?.includes('not yours yet') && said.includes('3 new names'), messages.join(' | '));
  assert.ok(!said.includes('English words'), said); // the page's own words, never the server's
  assert.deepEqual(store.get('queue'), []); // the game was recorded: nothing waits
  assert.equal(store.get('nameKeys'), undefined); // and no key was kept
});

test('a finish refused for its name is never dropped: dismissed, it waits, and a later name sends it', async () => {
  const server = fakeServer();
  server.refusedNames.set('Ada', [409, 'name_held']);
  const store = new SafeStorage(null);
  const { controller, asked } = makeController({ server, store, answers: [undefined] }); // Esc
  const id = await finishOne(controller);
  assert.equal(asked.length, 1);
  assert.deepEqual(store.get('queue').map((e) => e.id), [id]); // kept, in storage
  assert.equal(store.get('name'), undefined); // the refused name is forgotten: later games do not hit it
  await controller.queue.flush();
  assert.equal(server.refusals, 1); // nothing is sent without a name
  // a reload keeps the game queued; the Name button gives a name, and the game goes
  const again = makeController({ server, store, name: undefined, answers: ['Cy'] });
  again.controller.init();
  await settle();
  await again.controller.askName();
  await settleLong();
  assert.deepEqual(server.finished.map((f) => [f.id, f.name]), [[id, 'Cy']]);
  assert.deepEqual(store.get('queue'), []);
});

test('a saved name the server refuses (saved before the rule) is never sent: the player is told why', async () => {
  const server = fakeServer();
  const { controller, store, asked } = makeController({ server, name: 'Mac\uf8ff', answers: ['Mac'] });
  const id = await finishOne(controller);
  await controller.queue.flush();
  assert.equal(server.refusals, 0);
  assert.deepEqual(asked.map((a) => a.current), ['Mac\uf8ff']);
  assert.equal(asked[0].problem, translator('en').t('namePrivateUse', { char: 'U+F8FF' }));
  assert.deepEqual(server.finished.map((f) => [f.id, f.name]), [[id, 'Mac']]);
  assert.deepEqual(store.get('queue'), []);
});

test('a name the rule refuses is asked for again with the reason, and the clean form is kept', async () => {
  const { controller, store, asked } = makeController({ answers: ['Ada\u202e', 'x'.repeat(30), '  \uff22\uff4f  '] });
  controller.init();
  await controller.askName();
  const en = translator('en');
  assert.deepEqual(asked.map((a) => a.problem),
    ['', en.t('nameBidi', { char: 'U+202E' }), en.t('nameTooLong', { max: 24, length: 30 })]);
  assert.deepEqual(asked.map((a) => a.current), ['Ada', 'Ada\u202e', 'x'.repeat(30)]);
  assert.equal(store.get('name'), 'Bo');
});

test('24 emoji are a name of 24 characters, though 48 UTF-16 units', async () => {
  const fox = '\u{1F98A}';
  const { controller, store } = makeController({ answers: [`${fox.repeat(24)}  `] });
  controller.init();
  await controller.askName();
  assert.equal(store.get('name'), fox.repeat(24));
});

/** A hud that keeps each message it is given. */
function messageHud() {
  const messages = [];
  return { messages, hud: new Proxy({}, { get: (_, name) => (name === 'message' ? (t) => messages.push(t) : () => {}) }) };
}

test('a daily try left for a new one is sent as abandoned, and the note of the tries left stays', async () => {
  const { messages, hud } = messageHud();
  const { controller, server, confirmed } = makeController({ hud });
  controller.init();
  await settle();
  controller.newGame({ mode: 'daily' });
  await settle();
  await playSome(controller, 3);
  const first = controller.session.id;
  assert.equal(await controller.requestNewGame({ mode: 'daily' }), true);
  assert.equal(confirmed.at(-1), translator('en').t('confirmAbandon')); // told before: no place on the board
  await settle();
  await controller.queue.flush();
  const sent = server.finished.find((f) => f.id === first);
  assert.equal(sent.abandoned, true);
  assert.notEqual(controller.session.id, first);
  const said = messages.filter(Boolean);
  assert.match(said.at(-1), /2 more tries today/); // the new try's note is what the line says
  assert.ok(!said.some((m) => /recorded/.test(m)), said.join(' | '));
});

test('a daily try that ended, and a classic game replaced, are not abandoned', async () => {
  const { messages, hud } = messageHud();
  const { controller, server, confirmed } = makeController({ hud });
  controller.init();
  await settle();
  await playSome(controller, 3);
  const classic = controller.session.id;
  assert.equal(await controller.requestNewGame(), true);
  assert.equal(confirmed.at(-1), null); // the usual words: its score is sent
  await settle();
  await controller.queue.flush();
  assert.equal(server.finished.find((f) => f.id === classic).abandoned, false);
  controller.newGame({ size: 3, mode: 'daily' });
  await settle();
  await playToEnd(controller);
  const ended = controller.session.id;
  controller.newGame({ size: 3, mode: 'daily' });
  await settle();
  await controller.queue.flush();
  assert.equal(server.finished.find((f) => f.id === ended).abandoned, false);
  assert.ok(messages.some((m) => /recorded, rank 1/.test(m)), messages.join(' | '));
});

test("past the network's ranked tries a daily try is played unranked, the player told so, after a reload too", async () => {
  const { messages, hud } = messageHud();
  const { controller, server, store, confirmed } = makeController({ hud });
  controller.init();
  await settle();
  server.networkFull = true;
  controller.newGame({ mode: 'daily' });
  await settle();
  assert.equal(controller.session.mode, 'daily');
  assert.equal(controller.game.ranked, false);
  const en = translator('en');
  assert.equal(messages.at(-1), en.t('dailyTriesLeftUnranked', { n: 2, time: nextDailyTime(en.locale) }));
  assert.notEqual(messages.at(-1), en.t('dailyTriesLeft', { n: 2, time: nextDailyTime(en.locale) }));
  await playSome(controller, 3);
  assert.equal(await controller.requestNewGame({ mode: 'daily' }), true);
  assert.equal(confirmed.at(-1), null); // no ranking to lose: the usual words
  const again = makeController({ store, server });
  again.controller.init();
  await settle();
  assert.equal(again.controller.session.mode, 'daily');
  assert.equal(again.controller.game.unranked, true);
  assert.equal(again.controller.game.ranked, false);
  server.networkFull = false;
  again.controller.newGame({ mode: 'daily' });
  await settle();
  assert.equal(again.controller.game.ranked, true); // the next ranked try, when there is one
});
