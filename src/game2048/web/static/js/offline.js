// Installs the service worker (/sw.js), which keeps this release's files so
// that the game opens and plays without a network after a first visit.

export function registerWorker(nav = globalThis.navigator) {
  if (!nav?.serviceWorker) return null;
  return nav.serviceWorker.register('/sw.js', { scope: '/' }).catch(() => null);
}
