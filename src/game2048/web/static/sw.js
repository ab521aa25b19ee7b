// The service worker: the game opens and plays without a network after one
// visit. The server serves it at /sw.js with a first line of its own,
//   const RELEASE = {"version": "<release>", "files": ["/static/<release>/…", …]};
// so each release is a new worker (the browser sees new bytes), with a cache of
// its own: it stores the release's files at install, takes over when the old
// worker's pages are gone (or at once on a first visit), and deletes the
// caches of older releases when it activates.
//
// - /static/<release>/… never change: cache first.
// - Pages (/, and the site's pages once seen): network first, the last copy
//   when offline; a page never seen falls back to the game.
// - Everything else goes to the network untouched: the API (/api/…, even opened
//   as a page) is never kept, and WebSockets never pass through a worker.
/* global RELEASE */

const CACHE = `game2048-${RELEASE.version}`;
const PAGES = 'game2048-pages';

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    await cache.addAll(RELEASE.files);
    const pages = await caches.open(PAGES);
    try {
      await pages.add('/');
    } catch {
      // the page is stored when it is next fetched
    }
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    const names = await caches.keys();
    await Promise.all(names.filter((n) => n.startsWith('game2048-') && n !== CACHE && n !== PAGES).map((n) => caches.delete(n)));
    await self.clients.claim();
  })());
});

async function fromNetworkThenCache(request) {
  const pages = await caches.open(PAGES);
  const url = new URL(request.url);
  try {
    const response = await fetch(request);
    if (response.ok) await pages.put(url.pathname === '/' ? '/' : request, response.clone());
    return response;
  } catch (error) {
    const copy = await pages.match(url.pathname === '/' ? '/' : request, { ignoreSearch: true })
      ?? await pages.match('/');
    if (copy) return copy;
    throw error;
  }
}

async function fromCacheThenNetwork(request) {
  const copy = await caches.match(request);
  if (copy) return copy;
  const response = await fetch(request);
  if (response.ok) {
    const cache = await caches.open(CACHE);
    await cache.put(request, response.clone());
  }
  return response;
}

self.addEventListener('fetch', (event) => {
  const { request } = event;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (url.pathname.startsWith('/api/')) return; // answers about games are never kept
  if (request.mode === 'navigate') {
    event.respondWith(fromNetworkThenCache(request));
  } else if (url.pathname.startsWith(`/static/${RELEASE.version}/`)) {
    event.respondWith(fromCacheThenNetwork(request));
  }
});
