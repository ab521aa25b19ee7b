// The game page stays light. What the server sends, the modules joined and
// without comments (web/bundle.py) plus the page's style sheets, weighs at most
// 40 KB gzipped: tests/browser/test_offline.py measures that over HTTP. Here the
// sources behind it (the modules app.js imports and the sheets named in
// PAGE_STYLES of web/assets.py, comments included) are held to 48 KB gzipped, so
// that a module that grows shows up without a browser; and nothing comes from
// another site.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import zlib from 'node:zlib';

const STATIC = new URL('../../src/game2048/web/static/', import.meta.url);
const TEMPLATE = new URL('../../src/game2048/server/site/templates/play.html', import.meta.url);
const IMPORT = /(?:import|from)\s*['"](\.\/[\w./-]+\.js)['"]/g;

/** app.js and every module it imports, directly or not. */
function moduleGraph(entry) {
  const seen = new Set();
  const todo = [entry];
  while (todo.length) {
    const rel = todo.shift();
    if (seen.has(rel)) continue;
    seen.add(rel);
    const source = fs.readFileSync(new URL(rel, STATIC), 'utf8');
    for (const [, spec] of source.matchAll(IMPORT)) todo.push(path.posix.join(path.posix.dirname(rel), spec));
  }
  return [...seen];
}

test('the sources of the game page\'s JavaScript and CSS weigh at most 50 KB gzipped', () => {
  const assets = fs.readFileSync(new URL('../assets.py', STATIC), 'utf8');
  const sheets = [...assets.match(/^PAGE_STYLES = \(([^)]*)\)/m)[1].matchAll(/"(\w+)"/g)].map(([, name]) => `css/${name}.css`);
  assert.ok(sheets.length >= 3, 'the page\'s style sheets are named in web/assets.py');
  const files = [...moduleGraph('js/app.js'), ...sheets];
  const sizes = files.map((f) => [f, zlib.gzipSync(fs.readFileSync(new URL(f, STATIC)), { level: 6 }).length]);
  const total = sizes.reduce((sum, [, n]) => sum + n, 0);
  const raw = files.reduce((sum, f) => sum + fs.statSync(new URL(f, STATIC)).size, 0);
  console.log(`the game page's sources: ${files.length} JS and CSS files, ${raw} bytes, ${total} bytes gzipped`);
  assert.ok(total <= 50 * 1024, `${total} bytes gzipped`);
});

test('the page loads no framework and no third-party script', () => {
  const html = fs.readFileSync(TEMPLATE, 'utf8');
  const sources = [...html.matchAll(/<(?:script|link)[^>]+(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
  assert.ok(sources.length >= 4);
  for (const src of sources) assert.ok(/^\{\{ (asset\(|l\.absolute|x_default)/.test(src), src);
  // the one inline script is the game's own modules, joined by the server
  const inline = [...html.matchAll(/<script(?: type="module")?>([^<]*)<\/script>/g)].map((m) => m[1]);
  assert.deepEqual(inline, ['{{ script }}']);
});
