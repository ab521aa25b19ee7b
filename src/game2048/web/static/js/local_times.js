// Times on server-drawn pages in the reader's own time zone and date format: each
// <time datetime="…" data-local> is written again by Intl in the page's language. The
// server's text (UTC) stays for a browser without scripts.

/** The text of an ISO moment in `lang`'s format and this browser's time zone ('' if unreadable). */
export function localTime(iso, lang, timeZone = undefined) {
  const moment = new Date(iso);
  if (Number.isNaN(moment.getTime())) return '';
  return new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'short', timeZone }).format(moment);
}

/** Rewrite every `time[data-local]` under `root`. */
export function localiseTimes(root = document) {
  const lang = root.documentElement?.lang || undefined;
  for (const el of root.querySelectorAll('time[datetime][data-local]')) {
    const text = localTime(el.getAttribute('datetime'), lang);
    if (text) el.textContent = text;
  }
}

if (typeof document !== 'undefined') localiseTimes(document);
