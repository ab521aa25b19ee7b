// The page's own JavaScript and CSS stay small: at most 60 KB gzipped, counted file by file.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import zlib from 'node:zlib';

const STATIC = new URL('../../src/game2048/web/static/', import.meta.url);

function files(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? files(full) : [full];
  });
}

test('JavaScript and CSS weigh at most 60 KB gzipped', () => {
  const assets = files(STATIC.pathname).filter((f) => /\.(js|css)$/.test(f));
  assert.ok(assets.length > 10);
  const bytes = assets.reduce((sum, f) => sum + zlib.gzipSync(fs.readFileSync(f), { level: 9 }).length, 0);
  assert.ok(bytes <= 60 * 1024, `${bytes} bytes gzipped`);
});

test('the page loads no framework and no third-party script', () => {
  const html = fs.readFileSync(new URL('index.html', STATIC), 'utf8');
  const sources = [...html.matchAll(/<(?:script|link)[^>]+(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
  for (const src of sources) assert.ok(src.startsWith('/static/') || src.startsWith('data:'), src);
});
