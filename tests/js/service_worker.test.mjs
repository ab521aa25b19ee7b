// The service worker (web/static/sw.js) run in a fake worker scope: it stores a
// release's files at install, drops older releases' caches when it activates,
// serves release files from the cache and pages from the network or, offline,
// from their last copy.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import vm from 'node:vm';

const SOURCE = fs.readFileSync(new URL('../../src/game2048/web/static/sw.js', import.meta.url), 'utf8');
const ORIGIN = 'http://game.test';

class FakeCache {
  constructor() { this.entries = new Map(); }
  key(request) { return new URL(typeof request === 'string' ? request : request.url, ORIGIN).href; }
  async put(request, response) { this.entries.set(this.key(request), response); }
  async add(url) { this.entries.set(this.key(url), await this.fetch(url)); }
  async addAll(urls) { for (const u of urls) await this.add(u); }
  async match(request, { ignoreSearch = false } = {}) {
    const key = this.key(request);
    if (!ignoreSearch) return this.entries.get(key);
    const bare = key.split('?')[0];
    for (const [k, v] of this.entries) if (k.split('?')[0] === bare) return v;
    return undefined;
  }
}

function worker(release, { caches = new Map(), online = { up: true } } = {}) {
  const handlers = {};
  const fetched = [];
  const fetch = async (request) => {
    const url = typeof request === 'string' ? request : request.url;
    fetched.push(url);
    if (!online.up) throw new TypeError('Failed to fetch');
    return { ok: true, body: `${url} from the network`, clone() { return this; } };
  };
  const cacheStorage = {
    async open(name) {
      if (!caches.has(name)) {
        const c = new FakeCache();
        c.fetch = fetch;
        caches.set(name, c);
      }
      return caches.get(name);
    },
    async keys() { return [...caches.keys()]; },
    async delete(name) { return caches.delete(name); },
    async match(request) {
      for (const c of caches.values()) {
        const hit = await c.match(request);
        if (hit) return hit;
      }
      return undefined;
    },
  };
  const self = {
    location: { origin: ORIGIN },
    clients: { claim: async () => {} },
    addEventListener: (type, fn) => { handlers[type] = fn; },
  };
  vm.runInNewContext(`const RELEASE = ${JSON.stringify(release)};\n${SOURCE}`, {
    self, caches: cacheStorage, fetch, URL, console,
  });
  const run = async (type, props = {}) => {
    let waited = null;
    let response = null;
    handlers[type]({ ...props, waitUntil: (p) => { waited = p; }, respondWith: (p) => { response = p; } });
    await waited;
    return response && (await response);
  };
  return { run, caches, fetched, online };
}

const V1 = { version: 'aaaaaaaaaaaa', files: ['/static/aaaaaaaaaaaa/js/app.js', '/static/aaaaaaaaaaaa/css/base.css'] };
const V2 = { version: 'bbbbbbbbbbbb', files: ['/static/bbbbbbbbbbbb/js/app.js'] };
const get = (path, mode = 'cors') => ({ request: { url: ORIGIN + path, method: 'GET', mode } });

test('installing stores the release files and the game page', async () => {
  const w = worker(V1);
  await w.run('install');
  const cache = w.caches.get('game2048-aaaaaaaaaaaa');
  assert.deepEqual([...cache.entries.keys()], V1.files.map((f) => ORIGIN + f));
  assert.ok(await w.caches.get('game2048-pages').match('/'));
});

test('a new release keeps its own cache and drops the old one when it takes over', async () => {
  const first = worker(V1);
  await first.run('install');
  await first.run('activate');
  const second = worker(V2, { caches: first.caches });
  await second.run('install');
  assert.ok(first.caches.has('game2048-aaaaaaaaaaaa'), 'the old release serves its pages until they close');
  await second.run('activate');
  assert.deepEqual([...first.caches.keys()].sort(), ['game2048-bbbbbbbbbbbb', 'game2048-pages']);
});

test('release files come from the cache; other requests are left alone', async () => {
  const w = worker(V1);
  await w.run('install');
  w.fetched.length = 0;
  const js = await w.run('fetch', get('/static/aaaaaaaaaaaa/js/app.js'));
  assert.match(js.body, /app\.js from the network/);
  assert.deepEqual(w.fetched, [], 'served from the cache');
  assert.equal(await w.run('fetch', get('/api/games')), null);
  assert.equal(await w.run('fetch', get('/api/games/abc', 'navigate')), null, 'an API answer opened as a page');
  assert.equal(await w.run('fetch', { request: { url: `${ORIGIN}/`, method: 'POST', mode: 'navigate' } }), null);
});

test('pages come from the network, and offline from their last copy', async () => {
  const w = worker(V1);
  await w.run('install');
  const fresh = await w.run('fetch', get('/?lang=he', 'navigate'));
  assert.equal(fresh.body, `${ORIGIN}/?lang=he from the network`);
  w.online.up = false;
  const offline = await w.run('fetch', get('/?lang=ru', 'navigate'));
  assert.equal(offline.body, `${ORIGIN}/?lang=he from the network`, 'the last copy of the game');
  const never = await w.run('fetch', get('/rules', 'navigate'));
  assert.equal(never.body, `${ORIGIN}/?lang=he from the network`, 'a page never seen falls back to the game');
});
