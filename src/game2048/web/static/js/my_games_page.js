// The My games page (/me): the games this browser finished, from its own storage (my_games.js),
// drawn as tables: the best per board, the accuracy of the reviewed games over time, and every
// game with its replay and review. The server only serves the page; it knows nothing of this.
// Below them, the names this browser holds with their recovery codes (my_names.js).
import { Api } from './api.js';
import { MyGames } from './my_games.js';
import { myNames } from './my_names.js';
import { NameKeys } from './name_keys.js';
import { SafeStorage } from './storage.js';

const doc = document;
const words = JSON.parse(doc.getElementById('me-strings').textContent);
const lang = doc.documentElement.lang || 'en';
const numbers = new Intl.NumberFormat(lang);
const dates = new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'short' });
const store = new SafeStorage(SafeStorage.browserBackend(window));
const mine = new MyGames(store);
const say = (text) => {
  doc.getElementById('me-status').textContent = text;
};

const cell = (text, className = '') => {
  const td = doc.createElement('td');
  if (className) td.className = className;
  td.textContent = text;
  return td;
};
const link = (href, text) => Object.assign(doc.createElement('a'), { href, textContent: text });
const when = (g) => {
  const d = new Date(g.at);
  const td = doc.createElement('td');
  const time = doc.createElement('time');
  time.dateTime = Number.isNaN(d.getTime()) ? '' : d.toISOString();
  time.textContent = Number.isNaN(d.getTime()) ? '–' : dates.format(d);
  td.append(time);
  return td;
};
const board = (g) => `${g.size}×${g.size}${g.mode === 'daily' ? `, ${words.daily}` : ''}`;
const links = (g) => {
  const td = cell('', 'links');
  if (!g.id) td.textContent = words.me_not_sent;
  else td.append(link(`/games/${encodeURIComponent(g.id)}`, words.replay), ' · ', link(`/games/${encodeURIComponent(g.id)}/review`, words.review_link));
  return td;
};
const row = (...cells) => {
  const tr = doc.createElement('tr');
  tr.append(...cells);
  return tr;
};

function draw() {
  const games = mine.list;
  doc.getElementById('me-empty').hidden = games.length > 0;
  doc.getElementById('me-data').hidden = games.length === 0;
  doc.getElementById('me-count').textContent = numbers.format(games.length);

  const bySize = new Map();
  for (const g of games) {
    const s = bySize.get(g.size) ?? { games: 0, score: 0, tile: 0 };
    s.games += 1;
    s.score = Math.max(s.score, g.score || 0);
    s.tile = Math.max(s.tile, g.maxTile || 0);
    bySize.set(g.size, s);
  }
  doc.getElementById('me-best').replaceChildren(...[...bySize].sort((a, b) => a[0] - b[0]).map(([size, s]) => {
    const th = doc.createElement('th');
    th.scope = 'row';
    th.textContent = `${size}×${size}`;
    return row(th, cell(numbers.format(s.games), 'num'), cell(numbers.format(s.score), 'num'), cell(numbers.format(s.tile), 'num'));
  }));

  const reviewed = games.filter((g) => g.id && typeof g.accuracy === 'number');
  doc.getElementById('me-no-reviews').hidden = reviewed.length > 0;
  doc.getElementById('me-accuracy-wrap').hidden = reviewed.length === 0;
  const share = new Intl.NumberFormat(lang, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  doc.getElementById('me-accuracy').replaceChildren(...reviewed.map((g) => {
    const review = cell('');
    review.append(link(`/games/${encodeURIComponent(g.id)}/review`, words.review_link));
    return row(when(g), cell(board(g)), cell(share.format(g.accuracy), 'num'), review);
  }));

  doc.getElementById('me-games').replaceChildren(...games.slice().reverse().map((g) => row(
    when(g), cell(board(g)), cell(numbers.format(g.score || 0), 'num'), links(g),
    cell(numbers.format(g.maxTile || 0), 'num extra'), cell(numbers.format(g.moves || 0), 'num extra'),
    standingCell(g),
  )));
}

/** "Yes" for a ranked game on its board; else where it stands, with a link to why. */
function standingCell(g) {
  if (!g.ranked) return cell(words.no, 'extra');
  const standing = g.standing ?? 'listed';
  if (standing === 'listed') return cell(words.yes, 'extra');
  const td = cell(words[`me_standing_${standing}`] ?? words.no, 'extra');
  if (g.id && (standing === 'held' || standing === 'moved')) {
    td.append(' ', link(`/games/${encodeURIComponent(g.id)}/review`, words.standing_why));
  }
  return td;
}

/** Games still being checked or held: asked again (the newest 20), drawn again when one moved. */
async function refresh() {
  const waiting = mine.list.filter((g) => g.id && g.ranked && (g.standing === 'checking' || g.standing === 'held'));
  const answers = await Promise.all(waiting.slice(-20).map((g) => fetch(`/api/games/${encodeURIComponent(g.id)}`)
    .then((r) => (r.ok ? r.json() : null)).catch(() => null)));
  let moved = false;
  for (const record of answers) {
    const before = waiting.find((g) => g.id === record?.id);
    if (before && typeof record.standing === 'string' && record.standing !== before.standing) {
      mine.placed(record.id, record.standing);
      moved = true;
    }
  }
  if (moved) draw();
}

doc.getElementById('me-clear').addEventListener('click', () => {
  mine.clear();
  draw();
  say(words.me_cleared);
  doc.querySelector('#me-empty a')?.focus();
});
draw();
myNames(doc, {
  keys: new NameKeys(store), api: new Api(), words, lang, say, store, confirm: (text) => window.confirm(text),
});
refresh();
