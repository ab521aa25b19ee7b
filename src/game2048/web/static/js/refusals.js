// What the server refused, in the player's words. The page never shows the server's English
// `error`: it writes each refusal from its own strings by the answer's stable `code`, with the
// figures the answer carries beside it (numbers in the player's format, a time in local time,
// a wait in the language's own units). A code it does not know gets a general sentence.

// code -> the string that says it (i18n/<lang>.json)
const KEYS = {
  daily_tries_used: 'refusedDailyTries',
  rate_limited: 'refusedBusy',
  hints_paced: 'refusedHintsPaced',
  cpu_spent: 'refusedBusy',
  review_queue_full: 'refusedBusy',
  reviews_waiting: 'refusedReviews',
  game_finished: 'refusedFinished',
  game_gone: 'refusedGone',
  day_over: 'refusedDayOver',
  log_full: 'refusedLogFull',
  forked: 'refusedForked',
  store_unavailable: 'refusedStoreDown',
  names_per_day: 'refusedNamesPerDay',
};

/** A wait of `seconds` in the language's words ("30 seconds", "2 минуты"). */
function wait(seconds, locale) {
  const minutes = seconds >= 90;
  const unit = minutes ? 'minute' : 'second';
  const value = minutes ? Math.ceil(seconds / 60) : Math.max(1, Math.ceil(seconds));
  return new Intl.NumberFormat(locale, { style: 'unit', unit, unitDisplay: 'long' }).format(value);
}

/** An ISO 8601 time as the player's local time of day ("02:00", "2:00 AM"). */
export function clock(iso, locale) {
  const when = new Date(iso);
  if (Number.isNaN(when.getTime())) return '';
  return new Intl.DateTimeFormat(locale, { hour: 'numeric', minute: '2-digit' }).format(when);
}

/**
 * The sentence for a refusal: an ApiError (its `fields` the answer's JSON) or a socket's
 * answer ({status, code, ...fields}). Status 0 is a server that could not be reached.
 */
export function explain(refusal, i18n) {
  const fields = { ...(refusal?.fields ?? {}), ...(refusal ?? {}) };
  const { status = 0, code = null } = fields;
  if (status === 0 && !code) return i18n.t(fields.offline ? 'refusedOffline' : 'refusedUnreachable');
  if (typeof code === 'string' && code.startsWith('name_')) return i18n.t('nameRefused');
  const key = KEYS[code];
  if (!key) return i18n.t('refusedOther');
  const vars = {};
  if (Number.isInteger(fields.size)) vars.size = `${fields.size}×${fields.size}`;
  if (Number.isInteger(fields.limit)) vars.n = fields.limit;
  if (Number.isInteger(fields.tries)) vars.n = fields.tries;
  if (Number.isInteger(fields.waiting)) vars.n = fields.waiting;
  if (Number.isInteger(fields.max)) vars.max = fields.max;
  if (typeof fields.next_at === 'string') vars.time = clock(fields.next_at, i18n.locale);
  if (Number.isFinite(fields.retry_after)) vars.wait = wait(fields.retry_after, i18n.locale);
  else vars.wait = wait(60, i18n.locale);
  return i18n.t(key, vars);
}

/** When the next daily game opens (the next UTC midnight), as the player's local time of day. */
export function nextDailyTime(locale, now = new Date()) {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return clock(new Date(next).toISOString(), locale);
}
