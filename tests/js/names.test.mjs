// The page cleans a name exactly as the server does: the cases are the shared
// vectors (tests/vectors/names.json), which tests/server/records/test_names.py reads too.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';

import { ApiError } from '../../src/game2048/web/static/js/api.js';
import { NAME_MAX, charClass, cleanName } from '../../src/game2048/web/static/js/names.js';
import { RUNS, UNICODE_VERSION } from '../../src/game2048/web/static/js/name_table.js';
import { LANGUAGES, pack } from './packs.mjs';

const VECTORS = JSON.parse(fs.readFileSync(new URL('../vectors/names.json', import.meta.url), 'utf8'));

test('every shared name case is stored or refused as the server does', () => {
  for (const { typed, why, ...want } of VECTORS.cases) {
    assert.deepEqual(cleanName(typed), want.stored !== undefined ? { name: want.stored } : { code: want.refused,
      ...(want.char ? { char: want.char } : {}), ...(want.length ? { length: want.length } : {}) }, why);
  }
});

test('the page takes the length limit from the server, and the vectors agree', () => {
  assert.equal(NAME_MAX, VECTORS.name_max);
});

test('the limit counts code points, not UTF-16 units', () => {
  const fox = '\u{1F98A}';
  assert.equal(fox.repeat(NAME_MAX).length, 2 * NAME_MAX);
  assert.deepEqual(cleanName(fox.repeat(NAME_MAX)), { name: fox.repeat(NAME_MAX) });
  assert.deepEqual(cleanName(fox.repeat(NAME_MAX + 1)), { code: 'name_too_long', length: NAME_MAX + 1 });
});

test('the table covers every code point once, in the server\'s Unicode', () => {
  let total = 0;
  for (const [, length] of RUNS.matchAll(/([0-9a-z]+)([A-Z])/g)) total += parseInt(length, 36);
  assert.equal(total, 0x110000);
  assert.match(UNICODE_VERSION, /^\d+\.\d+\.\d+$/);
  assert.equal(charClass(0), 'control');
  assert.equal(charClass(0x41), 'visible');
  assert.equal(charClass(0x10ffff), 'unassigned');
});

test('a character this browser knows but the server does not is refused, not normalised', () => {
  // U+1FAE8 SHAKING FACE came with Unicode 15.0: this engine may know it, the table does not
  assert.deepEqual(cleanName('\u{1FAE8}'), { code: 'name_unassigned', char: 'U+1FAE8' });
});

test('the anonymous name of every language is one the server takes', () => {
  for (const lang of LANGUAGES) {
    const { anonymous } = pack(lang).strings;
    assert.deepEqual(cleanName(anonymous), { name: anonymous }, lang);
  }
});

test('every refusal of a name is told in every language, with its character or numbers', () => {
  for (const lang of LANGUAGES) {
    const { strings } = pack(lang);
    for (const code of VECTORS.codes) {
      const key = code.replace(/_([a-z])/g, (_, c) => c.toUpperCase());
      assert.equal(typeof strings[key], 'string', `${lang} ${key}`);
      const refusal = VECTORS.cases.find((c) => c.refused === code);
      if (refusal.char) assert.ok(strings[key].includes('{char}'), `${lang} ${key}`);
      if (refusal.length) assert.ok(strings[key].includes('{max}') && strings[key].includes('{length}'), `${lang} ${key}`);
    }
    assert.equal(typeof strings.nameRefused, 'string');
  }
});

test('a refusal of the name is told apart from a refusal of the game', () => {
  for (const code of [...VECTORS.codes, 'name_held']) assert.ok(new ApiError(422, 'no', code).nameRefused, code);
  for (const code of [undefined, null, 'daily_tries_used', 'invisible']) {
    assert.ok(!new ApiError(422, 'no', code).nameRefused, String(code));
  }
});
