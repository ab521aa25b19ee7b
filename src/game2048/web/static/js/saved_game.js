// What a saved game looks like in storage, and the checks that decide whether
// saved data can be trusted. A practice game is stored as its record (seed and
// log) and rebuilt by replay; a ranked game as what the server last dealt
// (board, score, log), which the server confirms when the page talks to it
// again. Anything that does not hold together is dropped.
import { SIZES } from './engine.js';
import { GAME_ID, MAX_LOG } from './limits.js';
import { LocalDealer } from './local_dealer.js';
import { ServerDealer } from './server_dealer.js';

export const FORMAT = 2;
const MODES = ['classic', 'daily'];

/**
 * A session is one game and what the page knows about it: {dealer, mode, id,
 * token, date, keepPlaying, submitted, recordId}. id and token are null for a
 * practice game (the page deals its tiles); a ranked game's come from the
 * server. recordId names the finished game's public record once the server
 * has kept it (null before, and for a daily game while its day lasts).
 */
export function newSession(dealer, { mode = dealer.mode ?? 'classic', date = dealer.date ?? null } = {}) {
  return {
    dealer, mode, id: dealer.id ?? null, token: dealer.token ?? null, date, keepPlaying: false, submitted: false,
    recordId: null,
    /** The game on the board, whoever deals it. */
    get game() {
      return this.dealer.game;
    },
  };
}

export function serialise(session) {
  const { dealer } = session;
  const ranked = session.id !== null;
  return {
    v: FORMAT,
    size: dealer.game.size,
    helped: dealer.game.helped,
    mode: session.mode,
    date: session.date,
    keepPlaying: session.keepPlaying,
    submitted: session.submitted,
    recordId: session.recordId,
    served: ranked ? dealer.toJSON() : null,
    practice: ranked ? null : dealer.toJSON(),
  };
}

/** Whether `v` has the shape of a game id the server gives out (letters, digits, - and _). */
export const isGameId = (v) => typeof v === 'string' && GAME_ID.test(v);

const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
const isOptionalString = (v) => v === null || (typeof v === 'string' && v.length > 0 && v.length <= 200);

/**
 * The session saved in `data` for board `size`, or null if anything about it is off.
 * `link(id)` opens the connection of a ranked game; `onDealt` hears its dealer.
 */
export function restore(data, size, { link, onDealt } = {}) {
  if (!isObject(data) || data.v !== FORMAT || data.size !== size || !SIZES.includes(size)) return null;
  if (!MODES.includes(data.mode) || !isOptionalString(data.date)) return null;
  for (const flag of ['helped', 'keepPlaying', 'submitted']) if (typeof data[flag] !== 'boolean') return null;
  if ((data.served === null) === (data.practice === null)) return null;
  const saved = data.served ?? data.practice;
  if (!isObject(saved) || typeof saved.log !== 'string' || saved.log.length > MAX_LOG) return null;
  let dealer;
  if (data.served) {
    if (!isOptionalString(saved.id) || !isOptionalString(saved.token) || !link) return null;
    dealer = ServerDealer.restore(saved, size, link, { mode: data.mode, date: data.date, onDealt });
  } else {
    dealer = LocalDealer.restore(saved, size);
  }
  if (!dealer) return null;
  dealer.game.helped = data.helped;
  const session = newSession(dealer, { mode: data.mode, date: data.date });
  session.keepPlaying = data.keepPlaying;
  session.submitted = data.submitted;
  // a link, not the game: a bad one is dropped and the game kept
  session.recordId = data.submitted && isGameId(data.recordId) ? data.recordId : null;
  return session;
}

/** Best scores per size from storage, keeping only sane numbers. */
export function restoreBest(data) {
  const best = {};
  if (!isObject(data)) return best;
  for (const size of SIZES) {
    const v = data[size];
    if (Number.isSafeInteger(v) && v > 0) best[size] = v;
  }
  return best;
}
