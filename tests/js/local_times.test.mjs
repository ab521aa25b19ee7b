// Finish times on the server's pages are shown in the reader's time zone and format, not in UTC.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { localTime } from '../../src/game2048/web/static/js/local_times.js';

test("a moment is written in the reader's zone and the page's language", () => {
  const late = '2026-01-01T23:30:00+00:00';
  assert.match(localTime(late, 'en', 'Asia/Tokyo'), /Jan 2, 2026/);  // already the next day there
  assert.match(localTime(late, 'en', 'UTC'), /Jan 1, 2026/);
  assert.match(localTime(late, 'ru', 'UTC'), /янв/);
  assert.ok(!localTime(late, 'he', 'Asia/Jerusalem').includes('UTC'));
});

test('an unreadable moment leaves the server text as it is', () => {
  assert.equal(localTime('not a time', 'en'), '');
});
