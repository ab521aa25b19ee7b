// The name rule, exactly the server's (game2048.server.records.names): what a name is
// stored and shown as, or the code of its refusal. The class of each code point
// comes from name_table.js, generated from the server's Python, never from this
// browser's own Unicode data (a newer Unicode than the server's would keep
// characters the server refuses). tests/vectors/names.json binds the two.
import { NAME_MAX } from './limits.js';
import { CLASSES, RUNS } from './name_table.js';

export { NAME_MAX };

/** Classes of code points a name must not hold; each is refused as `name_` and the class. */
const REFUSED = new Set(['control', 'bidi', 'private_use', 'unassigned', 'invisible', 'ranked_mark']);

let starts = null; // the first code point of each run
let kinds = null;

function load() {
  starts = [];
  kinds = [];
  let at = 0;
  for (const [, length, letter] of RUNS.matchAll(/([0-9a-z]+)([A-Z])/g)) {
    starts.push(at);
    kinds.push(CLASSES[letter]);
    at += parseInt(length, 36);
  }
}

/** The class of one code point: a refusal code, or 'space', 'mark' or 'visible'. */
export function charClass(codePoint) {
  if (starts === null) load();
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= codePoint) lo = mid;
    else hi = mid - 1;
  }
  return kinds[lo];
}

const hex = (cp) => `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;

function refused(text) {
  for (const ch of text) {
    const cp = ch.codePointAt(0);
    const kind = charClass(cp);
    if (REFUSED.has(kind)) return { code: `name_${kind}`, char: hex(cp) };
  }
  return null;
}

/**
 * `{name}`: the name as the server stores it; or `{code, char?, length?}`: why the
 * server would refuse it (`char` the code point as U+XXXX, `length` in code points).
 * Lengths count code points, as the server does, not UTF-16 units.
 */
export function cleanName(typed) {
  const text = String(typed ?? '');
  // before NFKC: this browser's normalize() knows characters the server does not
  const before = refused(text);
  if (before) return before;
  const normal = text.normalize('NFKC');
  const after = refused(normal);
  if (after) return after;
  const spaced = Array.from(normal, (ch) => (charClass(ch.codePointAt(0)) === 'space' ? ' ' : ch)).join('');
  const name = spaced.split(' ').filter(Boolean).join(' ');
  if (!name) return { code: 'name_empty' };
  const length = [...name].length;
  if (length > NAME_MAX) return { code: 'name_too_long', length };
  if (![...name].some((ch) => charClass(ch.codePointAt(0)) === 'visible')) return { code: 'name_no_visible' };
  return { name };
}
