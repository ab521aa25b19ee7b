// The browser game's parts that need no DOM: swipes, tile faces, saved games,
// storage, the submission queue and the language packs.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import fs from 'node:fs';

import { KEYMAP, swipeDirection } from '../../src/game2048/web/static/js/input.js';
import { LocalDealer } from '../../src/game2048/web/static/js/local_dealer.js';
import { newSession, restore, restoreBest, serialise } from '../../src/game2048/web/static/js/saved_game.js';
import { ServerDealer, unplayed } from '../../src/game2048/web/static/js/server_dealer.js';
import { SocketLink } from '../../src/game2048/web/static/js/socket_link.js';
import { SafeStorage } from '../../src/game2048/web/static/js/storage.js';
import { SubmissionQueue } from '../../src/game2048/web/static/js/submissions.js';
import { Api, ApiError } from '../../src/game2048/web/static/js/api.js';
import { NameKeys } from '../../src/game2048/web/static/js/name_keys.js';
import { tileFace } from '../../src/game2048/web/static/js/tile_face.js';
import { LANGUAGES, pack, translator } from './packs.mjs';

class MemoryBackend {
  constructor() { this.items = new Map(); }
  getItem(k) { return this.items.has(k) ? this.items.get(k) : null; }
  setItem(k, v) { this.items.set(k, String(v)); }
  removeItem(k) { this.items.delete(k); }
}

test('every key family maps to the four directions', () => {
  for (const keys of [['ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight'], ['w', 's', 'a', 'd'], ['k', 'j', 'h', 'l']]) {
    assert.deepEqual(keys.map((k) => KEYMAP[k]), ['up', 'down', 'left', 'right']);
  }
});

test('a swipe goes the way it travelled most, and a short one is no swipe', () => {
  assert.equal(swipeDirection(100, 20), 'right');
  assert.equal(swipeDirection(-100, 99), 'left');
  assert.equal(swipeDirection(10, -80), 'up');
  assert.equal(swipeDirection(0, 80), 'down');
  assert.equal(swipeDirection(5, 5), null);
});

test('long tile numbers shrink and break over two lines', () => {
  assert.deepEqual(tileFace(2), { text: '2', scale: 0.5, exp: 1 });
  assert.equal(tileFace(131072).text, '131072');
  assert.equal(tileFace(2 ** 37).text, '137438\n953472');
  assert.ok(tileFace(131072).scale < tileFace(2048).scale);
  assert.equal(tileFace(2 ** 37).exp, 37);
});

test('a saved practice game comes back as the same game', () => {
  const dealer = LocalDealer.opening(5, 31337);
  for (const d of ['left', 'up', 'right', 'down', 'left']) dealer.move(d);
  dealer.undo();
  const session = newSession(dealer);
  session.keepPlaying = true;
  const back = restore(JSON.parse(JSON.stringify(serialise(session))), 5);
  const { game } = dealer;
  assert.deepEqual([back.game.board, back.game.score, back.game.log, back.game.undosLeft], [game.board, game.score, game.log, 2]);
  assert.deepEqual([back.id, back.token, back.keepPlaying], [null, null, true]);
});

test('a saved position game comes back with its start score, and undo goes back to it', () => {
  const dealer = LocalDealer.position([[128, 128, 0], [0, 0, 0], [0, 0, 0]], 1000, 9);
  dealer.move('left');
  const back = restore(JSON.parse(JSON.stringify(serialise(newSession(dealer)))), 3);
  assert.equal(back.game.score, 1256);
  assert.equal(back.dealer.undo(), true);
  assert.equal(back.game.score, 1000);
});

test('a saved ranked game comes back as what the server last dealt, and asks again', () => {
  const seen = [];
  const link = (id) => ({ request: (m) => { seen.push([id, m]); return new Promise(() => {}); }, later() {} });
  const issued = { id: 'g1', token: 'tok', size: 4, mode: 'daily', date: '2026-01-02', board: [[2, 0, 0, 0], [0, 0, 0, 0], [0, 0, 4, 0], [0, 0, 0, 0]], score: 0 };
  const dealer = ServerDealer.fromIssued(issued, link);
  const data = JSON.parse(JSON.stringify(serialise(newSession(dealer))));
  assert.equal(JSON.stringify(data).includes('seed'), false);
  const back = restore(data, 4, { link });
  assert.deepEqual([back.id, back.token, back.mode, back.date, back.game.board, back.game.seed],
    ['g1', 'tok', 'daily', '2026-01-02', issued.board, null]);
  dealer.move('left'); // unanswered when the page closes: the server's state says whether it was played
  const saved = JSON.parse(JSON.stringify(serialise(newSession(dealer))));
  assert.deepEqual([saved.served.cells, saved.served.log, saved.served.inFlight], [issued.board.flat(), '', { letters: 'L' }]);
  const again = restore(saved, 4, { link });
  assert.deepEqual([again.game.board, again.dealer.unanswered], [issued.board, 'L']);
  again.dealer.sync();
  assert.equal(again.dealer.busy, true);
  assert.deepEqual(seen.at(-1), ['g1', { op: 'state', token: 'tok' }]);
});

test('the keys the server played are matched in order to the keys sent; the rest go again', () => {
  const cases = [
    // sent, the server's log beyond the last answer, still to send
    ['LDR', '', 'LDR'],
    ['LDR', 'LD', 'R'],
    ['LDR', 'LDR', ''],
    ['LLD', 'LD', ''], // the second L met a wall: dropped, and it stays dropped
    ['LLD', 'L', 'LD'], // one L played: the other, sent again on the same board, is dropped again if it was
    ['LZR', 'LZ', 'R'],
    ['LDR', 'DR', ''], // the L met a wall
    ['LDR', 'U', null], // not these keys: another tab played
    ['L', 'LU', null],
  ];
  for (const [sent, played, rest] of cases) assert.equal(unplayed(sent, played), rest, `${sent} ${played}`);
});

/** A WebSocket stand-in: `open()`, `answer(data)` and `close()` play the server's part. */
function fakeSockets() {
  const sockets = [];
  class FakeSocket {
    constructor(url) { this.url = url; this.readyState = 0; this.sent = []; sockets.push(this); }
    send(text) { this.sent.push(JSON.parse(text)); }
    close() { this.readyState = 3; this.onclose(); }
    open() { this.readyState = 1; this.onopen(); }
    answer(data) { this.onmessage({ data: JSON.stringify(data) }); }
  }
  return { sockets, FakeSocket };
}

/** An Api stand-in whose requests wait until the test answers them, in order (`answer(data)`, `refuse(status)`). */
function slowApi() {
  const asked = [];
  const held = [];
  const hold = (kind, body) => new Promise((resolve, reject) => {
    asked.push([kind, body]);
    held.push({ resolve, reject });
  });
  return {
    asked,
    socketUrl: (id) => `ws://game.test/api/games/${id}/play`,
    moves: (id, body) => hold('moves', body),
    state: (id, token) => hold('state', { token }),
    answer: (data) => held.shift().resolve(data),
    refuse: (status) => held.shift().reject(Object.assign(new Error('refused'), { status, code: null })),
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

test('a socket holds several requests in flight, answered in order; when it closes each one left hears status 0', async () => {
  const { sockets, FakeSocket } = fakeSockets();
  const api = slowApi();
  const link = new SocketLink(api, 'g1', { WebSocketImpl: FakeSocket });
  assert.equal(link.pipelines, true);
  const first = link.request({ op: 'state', token: 't' }); // over HTTP while the socket opens
  const [socket] = sockets;
  socket.open();
  api.answer({ at: 0 });
  assert.deepEqual(await first, { op: 'state', at: 0 });
  socket.answer({ op: 'state' }); // the socket's own first message (the token), answered to nobody
  const answers = [1, 2, 3].map((n) => link.request({ op: 'moves', token: 't', at: n }));
  assert.deepEqual(socket.sent.map((m) => m.at ?? m.op), ['state', 1, 2, 3]);
  socket.answer({ at: 1 });
  assert.deepEqual(await answers[0], { at: 1 });
  socket.close();
  assert.deepEqual(await Promise.all(answers.slice(1)).then((all) => all.map((a) => a.status)), [0, 0]);
  const again = link.request({ op: 'state', token: 't' }); // over HTTP again while a new socket opens
  assert.equal(sockets.length, 2);
  assert.deepEqual(api.asked.at(-1), ['state', { token: 't' }]);
  api.answer({ at: 4 });
  assert.deepEqual(await again, { op: 'state', at: 4 });
});

test('while the socket opens, keys go over HTTP one at a time; a chained one takes the at the one before it answered', async () => {
  const { sockets, FakeSocket } = fakeSockets();
  const api = slowApi();
  const link = new SocketLink(api, 'g1', { WebSocketImpl: FakeSocket });
  const key = (letter) => ({ op: 'moves', token: 't', chain: true, moves: letter, skip_illegal: true });
  const answers = [link.request({ op: 'moves', token: 't', at: 0, moves: 'L', skip_illegal: true }),
    link.request(key('D')), link.request(key('R'))];
  assert.deepEqual(api.asked, [['moves', { token: 't', at: 0, moves: 'L', skip_illegal: true }]]); // the rest wait for its answer
  api.answer({ at: 1, applied: 'L' });
  assert.deepEqual(await answers[0], { op: 'moves', at: 1, applied: 'L' });
  await settle();
  assert.deepEqual(api.asked[1], ['moves', { token: 't', at: 1, moves: 'D', skip_illegal: true }]);
  const [socket] = sockets;
  socket.open(); // the R waits for D's answer still; the socket says the token meanwhile
  assert.deepEqual(socket.sent, [{ op: 'state', token: 't' }]);
  api.answer({ at: 1, applied: '' }); // D met a wall
  await answers[1];
  await settle();
  assert.deepEqual(socket.sent[1], { op: 'moves', token: 't', at: 1, moves: 'R', skip_illegal: true });
  const next = link.request(key('U')); // the socket carries the chain now
  assert.deepEqual(socket.sent[2], key('U'));
  socket.answer({ op: 'state' });
  socket.answer({ at: 2 });
  socket.answer({ at: 3 });
  assert.deepEqual([(await answers[2]).at, (await next).at], [2, 3]);
  assert.equal(api.asked.length, 2);
});

test('a key refused over HTTP breaks the chain: the chained keys behind it are refused without being sent', async () => {
  const { sockets, FakeSocket } = fakeSockets();
  const api = slowApi();
  const link = new SocketLink(api, 'g1', { WebSocketImpl: FakeSocket });
  const chained = { op: 'moves', token: 't', chain: true, moves: 'D', skip_illegal: true };
  const answers = [link.request({ op: 'moves', token: 't', at: 3, moves: 'L', skip_illegal: true }),
    link.request(chained), link.request(chained)];
  api.refuse(409);
  const refused = await Promise.all(answers);
  assert.deepEqual(refused.map((a) => a.status), [409, 409, 409]);
  assert.deepEqual(refused.slice(1).map((a) => a.code), ['chain_broken', 'chain_broken']);
  assert.equal(api.asked.length, 1);
  sockets[0].open();
  const broken = link.request(chained); // still broken on the socket: it was never sent
  assert.equal((await broken).code, 'chain_broken');
  link.request({ op: 'moves', token: 't', at: 5, moves: 'U' }); // a new chain starts at a known at
  link.request(chained);
  assert.deepEqual(sockets[0].sent.slice(1).map((m) => [m.at, m.chain]), [[5, undefined], [undefined, true]]);
});

test('saved data that is broken, foreign, old or tampered is refused', () => {
  const good = serialise(newSession(LocalDealer.opening(4, 1)));
  const practice = (change) => ({ ...good, practice: { ...good.practice, ...change } });
  const link = () => ({ request: () => new Promise(() => {}), later() {} });
  const served = serialise(newSession(ServerDealer.fromIssued(
    { id: 'g', token: 't', size: 4, mode: 'classic', board: [[2, 2, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]], score: 0 }, link)));
  const ranked = (change) => ({ ...served, served: { ...served.served, ...change } });
  const bad = [
    null, 'text', [], { ...good, v: 1 }, { ...good, v: 0 }, { ...good, size: 5 }, practice({ log: 'LQ' }), practice({ seed: -3 }),
    practice({ seed: 2 ** 53 }), practice({ score: 10 }), { ...good, served: served.served }, { ...good, helped: 'no' },
    { ...good, mode: 'blitz' }, practice({ start: [[2]] }), { grid: { size: 4 }, score: 0 },
    ranked({ cells: [3, 0] }), ranked({ at: 5 }), ranked({ token: null }), ranked({ log: 'X' }), ranked({ undosLeft: 4 }),
    ranked({ inFlight: { letters: '' } }), ranked({ inFlight: { letters: 'LX' } }), ranked({ inFlight: 'L' }),
    ranked({ inFlight: { letters: 'L'.repeat(65) } }), ranked({ inFlight: undefined }),
  ];
  assert.notEqual(restore(good, 4), null);
  assert.notEqual(restore(served, 4, { link }), null);
  assert.notEqual(restore(ranked({ inFlight: { letters: 'LDZR' } }), 4, { link }), null); // keys sent before a reload
  for (const data of bad) assert.equal(restore(data, 4, { link }), null, JSON.stringify(data));
});

test('a saved review link that is not a game id is dropped, and the game kept', () => {
  const session = newSession(LocalDealer.opening(4, 1));
  session.submitted = true;
  for (const [recordId, kept] of [['p_1-A', 'p_1-A'], ['../x', null], [42, null], [undefined, null]]) {
    const back = restore({ ...serialise(session), recordId }, 4);
    assert.equal(back.recordId, kept);
  }
});

test('best scores keep only sane numbers', () => {
  assert.deepEqual(restoreBest({ 3: 100, 4: -1, 5: 'x', 6: 1.5, 7: 99 }), { 3: 100 });
  assert.deepEqual(restoreBest('junk'), {});
});

test('storage reads unreadable values as absent and falls back to memory', () => {
  const backend = new MemoryBackend();
  const store = new SafeStorage(backend);
  backend.setItem('game2048:x', '{oops');
  assert.equal(store.get('x'), undefined);
  store.set('y', { a: 1 });
  assert.deepEqual(store.get('y'), { a: 1 });
  const refusing = { getItem() { throw new Error('no'); }, setItem() { throw new Error('full'); }, removeItem() {} };
  const fallback = new SafeStorage(refusing);
  assert.equal(fallback.set('z', 5), false);
  assert.equal(fallback.get('z'), 5);
});

test('a failed submission stays queued until the server takes it', async () => {
  const store = new SafeStorage(new MemoryBackend());
  const timers = [];
  let up = false;
  const sent = [];
  const api = {
    async finish(id, body) {
      if (!up) throw new ApiError(0, 'offline');
      sent.push([id, body]);
      return { verified: true, ranked: true, score: body.score, rank: 1 };
    },
  };
  const done = [];
  const queue = new SubmissionQueue(store, api, {
    name: () => 'Ada', done: (e, a) => done.push(a), setTimer: (fn) => timers.push(fn),
  });
  await queue.add({ kind: 'finish', id: 'g7', token: 't', log: 'LR', helped: false, abandoned: true });
  assert.equal(queue.entries.length, 1);
  assert.equal(timers.length, 1);
  up = true;
  timers.shift()();
  await queue.flush();
  assert.equal(queue.entries.length, 0);
  // kept as it was: an abandoned daily try is still said to be one when it goes at last
  assert.deepEqual(sent, [['g7', { token: 't', log: 'LR', name: 'Ada', helped: false, abandoned: true, name_key: null }]]);
  assert.equal(done[0].rank, 1);
});

test('a submission refused for its name stays queued until a name the server takes', async () => {
  const store = new SafeStorage(new MemoryBackend());
  let name = 'Mac';
  const sent = [];
  const api = {
    async finish(id, body) {
      if (body.name === 'Mac') throw new ApiError(422, 'name must not contain private-use characters', 'name_private_use');
      sent.push([id, body.name]);
      return { verified: true, ranked: true, score: 4, rank: 1 };
    },
  };
  const refused = [];
  const done = [];
  const queue = new SubmissionQueue(store, api, {
    name: async () => name, done: (e, a) => done.push(a), nameRefused: (e, err) => refused.push([e.id, err.code]),
    setTimer: () => {},
  });
  await queue.add({ kind: 'finish', id: 'g1', token: 't', log: 'L', helped: false });
  assert.deepEqual(refused, [['g1', 'name_private_use']]);
  assert.deepEqual(queue.entries.map((e) => e.id), ['g1']);
  assert.deepEqual(done, []); // not an answer for the game
  name = 'Bo';
  await queue.flush();
  assert.deepEqual(sent, [['g1', 'Bo']]);
  assert.equal(queue.entries.length, 0);
});

test('a submission waits for the nickname, and a refused one is dropped', async () => {
  const store = new SafeStorage(new MemoryBackend());
  let name = null;
  const api = { async finish() { throw new ApiError(409, 'this game is already finished'); } };
  const done = [];
  const queue = new SubmissionQueue(store, api, { name: () => name, done: (e, a) => done.push(a), setTimer: () => {} });
  await queue.add({ id: 'g1', token: 't', log: 'L', score: 0, helped: false });
  assert.equal(queue.entries.length, 1);
  name = 'Bo';
  await queue.flush();
  assert.equal(queue.entries.length, 0);
  assert.equal(done[0].status, 409);
});

const PLURALS = JSON.parse(fs.readFileSync(new URL('../vectors/plurals.json', import.meta.url), 'utf8')).categories;

test('every language has every string, and Hebrew is right to left', () => {
  const en = pack('en');
  const keys = Object.keys(en.strings).sort();
  for (const code of LANGUAGES) {
    const p = pack(code);
    assert.deepEqual(Object.keys(p.strings).sort(), keys, code);
    for (const k of keys) {
      const text = p.strings[k];
      // a plural string has its "other" form, and only forms the language has
      const forms = typeof text === 'object' ? text : { other: text };
      assert.equal(typeof en.strings[k], typeof text, `${code}.${k}: plural in one language, not in another`);
      assert.ok(forms.other?.trim(), `${code}.${k}`);
      const categories = new Intl.PluralRules(p.locale).resolvedOptions().pluralCategories;
      for (const form of Object.keys(forms)) assert.ok(categories.includes(form), `${code}.${k}.${form}`);
      for (const f of Object.values(forms)) assert.ok(!/ {2}/.test(f), `${code}.${k} has a double space`);
    }
  }
  assert.equal(pack('he').dir, 'rtl');
  assert.deepEqual(['en', 'ru', 'th'].map((c) => pack(c).dir), ['ltr', 'ltr', 'ltr']);
});

test('counted words agree with their number in every language', () => {
  assert.equal(translator('en').t('sayUndo', { n: 1, score: 8 }), 'Move taken back. Score 8. 1 undo left.');
  assert.equal(translator('en').t('sayUndo', { n: 2, score: 8 }), 'Move taken back. Score 8. 2 undos left.');
  const ru = translator('ru');
  assert.equal(ru.t('sayPoints', { n: 4, score: 12 }), '4 очка, счёт 12.');
  assert.equal(ru.t('sayPoints', { n: 8, score: 20 }), '8 очков, счёт 20.');
  assert.equal(ru.t('sayPoints', { n: 1, score: 1 }), '1 очко, счёт 1.');
  assert.equal(ru.t('undosLeft', { n: 2 }), 'осталось 2');
  assert.equal(translator('th').t('sayPoints', { n: 4, score: 1024 }), 'ได้ 4 คะแนน รวม 1,024');
});

test('numbers read as Intl writes them in every language, though small ones skip making Intl.NumberFormat', () => {
  for (const code of LANGUAGES) {
    const i18n = translator(code);
    const intl = new Intl.NumberFormat(pack(code).locale);
    for (const n of [0, 1, 7, 64, 512, 999]) assert.equal(i18n.number(n), intl.format(n), `${code} ${n}`);
    assert.equal(i18n.numbers, null, 'nothing under 1000 needed the formatter');
    for (const n of [1000, 1024, 131072, 3932100, 2.5]) assert.equal(i18n.number(n), intl.format(n), `${code} ${n}`);
  }
});

test('the browser plural rules are the ones the server renders with (shared vectors)', () => {
  for (const code of LANGUAGES) {
    const rules = new Intl.PluralRules(pack(code).locale);
    for (const [n, category] of Object.entries(PLURALS[code])) assert.equal(rules.select(Number(n)), category, `${code} ${n}`);
  }
});

test('a link tries no connection while the browser is offline, and does once it is back', async () => {
  const opened = [];
  class FakeSocket {
    constructor(url) { opened.push(url); this.readyState = 0; }
    send() {}
    close() {}
  }
  const api = { socketUrl: (id) => `ws://game.test/api/games/${id}/play` };
  let online = false;
  const link = new SocketLink(api, 'g1', { WebSocketImpl: FakeSocket, online: () => online });
  const answer = await link.request({ op: 'state', token: 't' });
  assert.deepEqual([answer.status, opened], [0, []]);
  online = true;
  link.request({ op: 'state', token: 't' });
  assert.deepEqual(opened, ['ws://game.test/api/games/g1/play']);
});

test('the first finish under a name keeps its key, and later finishes under it send it', async () => {
  const store = new SafeStorage(new MemoryBackend());
  const keys = new NameKeys(store);
  const sent = [];
  const key = 'a'.repeat(32);
  const api = {
    async finish(id, body) {
      sent.push(body.name_key);
      return { verified: true, ranked: true, score: 4, rank: 1, name_key: sent.length === 1 ? key : null };
    },
  };
  const queue = new SubmissionQueue(store, api, { name: () => 'Ada', keys: async () => keys, setTimer: () => {} });
  await queue.add({ kind: 'finish', id: 'g1', token: 't', log: 'L', helped: false });
  await queue.add({ kind: 'finish', id: 'g2', token: 't', log: 'L', helped: false });
  assert.deepEqual(sent, [null, key]);
  assert.equal(keys.get('Ada'), key);
  assert.equal(keys.set('Ada', 'not a key'), false); // a pasted code of the wrong shape is not kept
  assert.equal(keys.set('Bo', ` ${'B'.repeat(32)} `), true);
  assert.equal(keys.get('Bo'), 'b'.repeat(32));
});

test('the names kept are listed in order as recovery codes, a code is read as people copy it, and a name let go is forgotten', () => {
  const store = new SafeStorage(new MemoryBackend());
  store.set('nameKeys', { Zed: 'c'.repeat(32), Ada: 'a'.repeat(32), Broken: 'not a key' });
  const keys = new NameKeys(store);
  assert.deepEqual(keys.entries(), [['Ada', 'a'.repeat(32)], ['Zed', 'c'.repeat(32)]]);
  assert.equal(NameKeys.code(` ${'AB12'.repeat(4)} ${'cd34'.repeat(4)}\n`), `${'ab12'.repeat(4)}${'cd34'.repeat(4)}`);
  assert.equal(NameKeys.code('g'.repeat(32)), null);
  assert.equal(NameKeys.code('a'.repeat(31)), null);
  assert.equal(NameKeys.code(42), null);
  keys.remove('Zed');
  assert.deepEqual(keys.entries().map(([name]) => name), ['Ada']);
  assert.equal(keys.get('Zed'), null);
  keys.remove('nobody'); // nothing to forget: nothing changes
  assert.equal(keys.get('Ada'), 'a'.repeat(32));
});

test('a refusal keeps the fields the server sent with its code', async () => {
  const api = new Api({
    fetch: async () => ({ ok: false, status: 429, json: async () => ({ error: 'used', code: 'daily_tries_used', per: 'browser', limit: 3, size: 4, next_day: '2026-03-02T00:00:00+00:00' }) }),
  });
  await assert.rejects(api.newGame(4, 'daily'), (e) => e.code === 'daily_tries_used' && e.fields.limit === 3
    && e.fields.per === 'browser' && e.fields.next_day.startsWith('2026-03-02') && !('error' in e.fields));
});

test('a ranked game asks for its hint through itself, and a practice game about its board', async () => {
  const asked = [];
  const api = {
    async gameHint(id, body) { asked.push(['game', id, body]); return { move: 'left', scores: {} }; },
    async hint(size, board) { asked.push(['bare', size, board.length]); return { move: 'up', scores: {} }; },
  };
  const issued = { id: 'g1', token: 't1', size: 4, mode: 'classic', board: [[2, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 2, 0, 0]], score: 0 };
  const ranked = ServerDealer.fromIssued(issued, () => ({ request: () => new Promise(() => {}), close() {} }));
  assert.equal((await ranked.hint(api)).move, 'left'); // the controller marks the game helped (markHelped)
  assert.equal((await LocalDealer.opening(4, 7).hint(api)).move, 'up');
  assert.deepEqual(asked, [['game', 'g1', { token: 't1', at: 0 }], ['bare', 4, 4]]);
});
