// What a saved game looks like in storage, and the checks that decide whether
// saved data can be trusted. The game itself is stored as its record (seed and
// log) and rebuilt by replay, so a saved board can never break the rules.
import { SIZES, replay } from './engine.js';

export const FORMAT = 1;
const MAX_LOG = 200000;
const MODES = ['classic', 'daily'];

/**
 * A session is one game and what the page knows about it:
 * {game, mode, id, token, date, keepPlaying, submitted}. id and token are null
 * for a game the server never issued (offline or practice): it is never sent.
 */
export function newSession(game, { mode = 'classic', id = null, token = null, date = null } = {}) {
  return { game, mode, id, token, date, keepPlaying: false, submitted: false };
}

export function serialise(session) {
  const { game } = session;
  return {
    v: FORMAT,
    size: game.size,
    seed: game.seed,
    log: game.log,
    score: game.score,
    start: game.startBoard,
    helped: game.helped,
    mode: session.mode,
    id: session.id,
    token: session.token,
    date: session.date,
    keepPlaying: session.keepPlaying,
    submitted: session.submitted,
  };
}

const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
const isOptionalString = (v) => v === null || (typeof v === 'string' && v.length > 0 && v.length <= 200);

/** The session saved in `data` for board `size`, or null if anything about it is off. */
export function restore(data, size) {
  if (!isObject(data) || data.v !== FORMAT || data.size !== size || !SIZES.includes(size)) return null;
  if (typeof data.log !== 'string' || data.log.length > MAX_LOG || !/^[UDLRZ]*$/.test(data.log)) return null;
  if (!MODES.includes(data.mode) || !isOptionalString(data.id) || !isOptionalString(data.token)) return null;
  if (!isOptionalString(data.date) || (data.id === null) !== (data.token === null)) return null;
  for (const flag of ['helped', 'keepPlaying', 'submitted']) if (typeof data[flag] !== 'boolean') return null;
  if (data.start !== null && (!Array.isArray(data.start) || data.start.length !== size)) return null;
  let game;
  try {
    game = replay(size, data.seed, data.log, data.start);
  } catch {
    return null;
  }
  if (game.score !== data.score) return null;
  game.helped = data.helped;
  const session = newSession(game, data);
  session.keepPlaying = data.keepPlaying;
  session.submitted = data.submitted;
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
