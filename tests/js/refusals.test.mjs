// Refusals are said in the player's language from their code, never in the server's English.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { ApiError } from '../../src/game2048/web/static/js/api.js';
import { explain, nextDailyTime } from '../../src/game2048/web/static/js/refusals.js';
import { translator } from './packs.mjs';

const LANGS = ['en', 'he', 'ru', 'th'];
const daily = () => new ApiError(429, "you have started today's 4x4 daily game 3 times", 'daily_tries_used',
  { size: 4, tries: 3, retry_after: 3600, next_at: '2026-12-03T00:00:00Z' });

test('the daily limit is said with its size, count and local time, in every language', () => {
  const time = (locale) => new Intl.DateTimeFormat(locale, { hour: 'numeric', minute: '2-digit' })
    .format(new Date('2026-12-03T00:00:00Z'));
  for (const lang of LANGS) {
    const i18n = translator(lang);
    const text = explain(daily(), i18n);
    assert.ok(text.includes('4×4'), text);
    assert.ok(text.includes(time(i18n.locale)), text);
    assert.ok(!text.includes('UTC') && !text.includes('4x4'), text);
  }
  assert.match(explain(daily(), translator('en')), /3 times/);
});

test('a wait is written in the language, and every known code has its own string', () => {
  const codes = ['rate_limited', 'hints_paced', 'cpu_spent', 'review_queue_full', 'reviews_waiting',
    'game_finished', 'game_gone', 'day_over', 'log_full', 'forked', 'store_unavailable', 'names_per_day'];
  for (const lang of LANGS) {
    const i18n = translator(lang);
    const other = i18n.t('refusedOther');
    for (const code of codes) {
      const text = explain({ status: 409, code, retry_after: 30, waiting: 2, max: 200000 }, i18n);
      assert.notEqual(text, other, `${lang} ${code}`);
      assert.ok(!/\{\w+\}/.test(text), text);
    }
  }
  assert.match(explain({ status: 429, code: 'rate_limited', retry_after: 30 }, translator('en')), /30 seconds/);
  assert.match(explain({ status: 429, code: 'rate_limited', retry_after: 120 }, translator('ru')), /2 минуты/);
});

test('an unknown code gets the general sentence, and no answer at all says the server is unreachable', () => {
  for (const lang of LANGS) {
    const i18n = translator(lang);
    assert.equal(explain(new ApiError(422, 'some English words', 'what_is_this'), i18n), i18n.t('refusedOther'));
    assert.equal(explain(new ApiError(500, 'internal error'), i18n), i18n.t('refusedOther'));
    assert.equal(explain(new ApiError(0, 'network'), i18n), i18n.t('refusedUnreachable'));
    assert.equal(explain({ status: 0, offline: true }, i18n), i18n.t('refusedOffline'));
    assert.equal(explain(new ApiError(422, 'x', 'name_held'), i18n), i18n.t('nameRefused'));
  }
});

test('the next daily game opens at the next UTC midnight, said in local time', () => {
  const late = new Date('2026-12-02T23:59:00Z');
  const expected = new Intl.DateTimeFormat('en', { hour: 'numeric', minute: '2-digit' })
    .format(new Date('2026-12-03T00:00:00Z'));
  assert.equal(nextDailyTime('en', late), expected);
  assert.equal(nextDailyTime('en', new Date('2026-12-02T00:00:00Z')), expected);
});

test('a name not held for the day is said with the count and the local time, in every language', () => {
  const notHeld = { code: 'names_per_day', limit: 3, next_at: '2026-12-03T00:00:00Z' };
  for (const lang of LANGS) {
    const i18n = translator(lang);
    const text = explain(notHeld, i18n);
    const time = new Intl.DateTimeFormat(i18n.locale, { hour: 'numeric', minute: '2-digit' })
      .format(new Date(notHeld.next_at));
    assert.notEqual(text, i18n.t('refusedOther'), lang);
    assert.ok(text.includes(time) && !/\{\w+\}/.test(text), text);
    assert.ok(text.includes('3'), text);
  }
  assert.match(explain(notHeld, translator('en')), /3 new names today/);
  assert.match(explain({ ...notHeld, limit: 5 }, translator('ru')), /5 новых имён/);
});
