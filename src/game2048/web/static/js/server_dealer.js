// Ranked games: the server deals every tile and keeps the seed until the game
// is finished. Each key is sent when pressed. With nothing in flight the board
// is known: the slide is drawn at once and the move sent with its `at`, its tile
// coming with the answer. Keys pressed while moves are in flight are chained
// (`chain: true`, skip_illegal: a key that meets a wall once the tiles before it
// are known is dropped) and each answer is played out in order. When the chain
// breaks (a lost connection, a refusal) the game's state tells which of the keys
// were played (unplayed()); the others go again from its `at`. Over plain HTTP
// one request is in flight and the keys pressed meanwhile go together (moveMany).
import { Game, LETTERS, MAX_UNDOS, TARGETS } from './engine.js';
import { MAX_MOVES } from './limits.js';

const SAVED_KEYS = new RegExp(`^[UDLRZ]{1,${MAX_MOVES}}$`);

/** A game in play on the server as this page knows it: the engine Game's face, without a seed. */
export class ServedGame {
  constructor({ size, cells, score = 0, log = '', undosLeft = MAX_UNDOS, won = false, over = false, moves = 0 }) {
    Object.assign(this, { size, cells: cells.slice(), score, log, undosLeft, won, over, moves });
    this.seed = null; // revealed by the finish
    this.helped = false;
    this.unranked = false; // dealt unranked: a daily try past its network's ranked tries
    this.startBoard = null;
    this.target = TARGETS[size];
  }

  get board() {
    const rows = [];
    for (let r = 0; r < this.size; r++) rows.push(this.cells.slice(r * this.size, (r + 1) * this.size));
    return rows;
  }

  get maxTile() {
    return Math.max(...this.cells);
  }

  get canUndo() {
    return this.moves > 0 && this.undosLeft > 0;
  }

  get ranked() {
    return this.undosLeft === MAX_UNDOS && !this.helped && !this.unranked;
  }
}

/** Moves in play from a log: each undo takes one back. */
function movesOf(log) {
  let n = 0;
  for (const letter of log) n += letter === 'Z' ? -1 : 1;
  return n;
}

/**
 * The keys of `sent` still to play once the server played `played` (its log past the last
 * answer), or null if those are not these keys in order. A key dropped at a wall changed
 * nothing, so each letter played is matched to the earliest key left that equals it:
 * unplayed('LLDR', 'LD') === 'R', unplayed('L', 'U') === null.
 */
export function unplayed(sent, played) {
  let next = 0;
  for (const letter of played) {
    const i = sent.indexOf(letter, next);
    if (i === -1) return null;
    next = i + 1;
  }
  return sent.slice(next);
}

const transient = (status) => status === 0 || status === 429 || status >= 500;

export class ServerDealer {
  /**
   * `issued` is the answer of POST /api/games (or a saved game); `link(id)` opens the
   * connection to the game (a SocketLink, or a fake in tests); `onDealt(event)` hears
   * what the server did: {type: 'tile', cell, value} (the tile of a move slid here),
   * {type: 'steps', steps} (keys sent before their board was known, as the server
   * played them), {type: 'reset'} (undo, or the page caught up with the server),
   * {type: 'unreachable', offline} or {type: 'lost', message} (the server refuses the
   * game for good: unknown, wrong token, finished). `unanswered`: keys sent before a
   * reload and not answered (sync() finds out which were played).
   */
  constructor({ id, token, mode = 'classic', date = null, game, at = 0, unanswered = '', link, onDealt = () => {} }) {
    Object.assign(this, { id, token, mode, date, game, at, unanswered, link, onDealt });
    this.flight = []; // sent, not answered yet, in order: {letters, slid, skip, state}
    this.slidFrom = null; // the board the server last answered, while a move slid here waits for its tile
    // after a refusal or a lost connection: {retry} (a lone move goes again) or {drop, wait} (the
    // chain broke: the state is asked once the rest of it is answered, after a pause if `wait`)
    this.recovery = null;
    this.waiters = [];
    this.lost = false;
  }

  static fromIssued(issued, link) {
    const size = issued.size;
    const game = new ServedGame({ size, cells: issued.board.flat(), score: issued.score });
    const dealer = new ServerDealer({ id: String(issued.id), token: String(issued.token), mode: issued.mode === 'daily' ? 'daily' : 'classic',
      date: typeof issued.date === 'string' ? issued.date : null, game, link: link(String(issued.id)) });
    dealer.triesLeft = Number.isSafeInteger(issued.tries_left) ? issued.tries_left : null;
    game.unranked = issued.ranked === false;
    return dealer;
  }

  /**
   * Keys must wait before they come here: over plain HTTP while a request is in flight, while
   * the page works out where the game stands, or with a full request's worth of keys in flight.
   */
  get busy() {
    if (this.recovery) return true;
    if (!this.flight.length) return false;
    return !this.#chains || this.#lettersInFlight() >= MAX_MOVES;
  }

  /** Something was sent that the server has not answered yet. */
  get pending() {
    return this.flight.length > 0 || this.recovery !== null;
  }

  /** Resolves when nothing is in flight. */
  settled() {
    return this.pending ? new Promise((resolve) => this.waiters.push(resolve)) : Promise.resolve();
  }

  /**
   * Send the move. With nothing in flight it slides now: the result has no `spawn` (a 'tile'
   * event brings the server's), or is null if the board would not change. With moves in flight
   * it is chained: {direction, later: true}, and a 'steps' event says whether it was played.
   */
  move(direction) {
    const { game } = this;
    if (this.busy || this.lost) return null;
    if (this.flight.length) {
      this.#send(LETTERS[direction], { chain: true });
      return { direction, later: true };
    }
    const probe = Game.fromBoard(game.board, { score: game.score });
    const result = probe.move(direction);
    if (!result) return null;
    const cells = probe.cells;
    cells[result.spawn.cell] = 0; // the local engine's tile is not the one the server deals
    this.slidFrom = { cells: game.cells, score: game.score, won: game.won };
    game.cells = cells;
    game.score = probe.score;
    game.moves += 1;
    if (!game.won && result.merges.some((i) => cells[i] >= game.target)) game.won = true;
    const letter = LETTERS[result.direction];
    game.log += letter; // the player has made the move: it is in the record, its tile is on the way
    this.#send(letter, { slid: cells });
    return { ...result, spawn: null };
  }

  /** The solver's move ({move, scores}), asked through the game: the server marks it helped. */
  hint(api) {
    return api.gameHint(this.id, { token: this.token, at: this.at });
  }

  /**
   * Send keys that waited, in one request: the server plays each the rules allow once the tiles
   * before it are known and drops the others; a 'steps' event brings one step per key played
   * ({direction, result, slid, cell, value}). How many it took (a request's worth at most).
   */
  moveMany(directions) {
    if (this.busy || this.lost || !directions.length) return 0;
    const room = this.#chains ? MAX_MOVES - this.#lettersInFlight() : MAX_MOVES;
    const letters = directions.slice(0, room).map((d) => LETTERS[d]).join('');
    this.#send(letters, { skip: true, chain: this.flight.length > 0 });
    return letters.length;
  }

  /** Send an undo; the board goes back when the answer comes (a 'reset' event). */
  undo() {
    if (this.busy || this.lost) return false;
    if (this.flight.length) {
      if (this.game.undosLeft === 0) return false;
      this.#send('Z', { chain: true }); // dropped by the server if there is nothing left to take back by then
      return true;
    }
    if (!this.game.canUndo) return false;
    this.game.log += 'Z';
    this.#send('Z', {});
    return true;
  }

  /** What the finish sends: the log as this page has it (the server checks it against its own). */
  finishEntry() {
    return { kind: 'finish', id: this.id, token: this.token, log: this.game.log, helped: this.game.helped };
  }

  toJSON() {
    const { game } = this;
    const known = this.slidFrom ?? game; // as the server last answered: a move slid here has no tile yet
    // keys sent and not answered: after a reload the game's state tells which of them were played
    const letters = this.recovery?.drop ? '' : this.unanswered + this.flight.map((sent) => sent.letters).join('');
    return {
      id: this.id, token: this.token, at: this.at, cells: known.cells, score: known.score, log: game.log.slice(0, this.at),
      undosLeft: game.undosLeft, won: known.won, over: game.over, inFlight: letters ? { letters } : null,
      unranked: game.unranked,
    };
  }

  /** A dealer for a saved game, or null if the saved data does not hold together. */
  static restore(data, size, link, extra = {}) {
    const ok = data && typeof data.id === 'string' && typeof data.token === 'string'
      && Array.isArray(data.cells) && data.cells.length === size * size
      && data.cells.every((v) => Number.isSafeInteger(v) && v >= 0 && (v === 0 || (v >= 2 && (v & (v - 1)) === 0)))
      && typeof data.log === 'string' && /^[UDLRZ]*$/.test(data.log) && data.at === data.log.length
      && Number.isSafeInteger(data.score) && data.score >= 0
      && [0, 1, 2, 3].includes(data.undosLeft) && typeof data.won === 'boolean' && typeof data.over === 'boolean'
      && (data.inFlight === null || (typeof data.inFlight?.letters === 'string' && SAVED_KEYS.test(data.inFlight.letters)));
    if (!ok) return null;
    const game = new ServedGame({ size, cells: data.cells, score: data.score, log: data.log, undosLeft: data.undosLeft,
      won: data.won, over: data.over, moves: movesOf(data.log) });
    game.unranked = data.unranked === true;
    const unanswered = data.inFlight?.letters ?? '';
    return new ServerDealer({ id: data.id, token: data.token, game, at: data.at, unanswered, link: link(data.id), ...extra });
  }

  /** The page is done with this game: let the connection go once nothing is in flight. */
  close() {
    this.settled().then(() => this.link.close?.());
  }

  /**
   * Ask the server where the game stands and take its word (after a reload, or when out of
   * step); keys sent before a reload and not answered then go again if the server did not play them.
   */
  sync() {
    if (this.pending || this.lost) return;
    this.recovery = { drop: false, wait: false };
    this.#askState();
  }

  // -- talking to the server ------------------------------------------------

  /** Whether the link carries chained moves (a socket; plain HTTP does not). */
  get #chains() {
    return this.link.pipelines === true;
  }

  #lettersInFlight() {
    return this.flight.reduce((n, sent) => n + sent.letters.length, 0);
  }

  #send(letters, { slid = null, skip = false, chain = false }) {
    const sent = { letters, slid, skip: skip || chain, chain };
    this.flight.push(sent);
    this.#request(this.#moves(sent), sent);
  }

  #moves(sent) {
    const message = { op: 'moves', token: this.token };
    if (sent.chain) message.chain = true;
    else message.at = this.at;
    message.moves = sent.letters;
    return sent.skip ? { ...message, skip_illegal: true } : message;
  }

  #askState() {
    const sent = { letters: '', state: true };
    this.flight.push(sent);
    this.#request({ op: 'state', token: this.token }, sent);
  }

  #request(message, sent) {
    const answered = (answer) => {
      if (this.flight[0] !== sent) return; // answers come in order: never, unless the page was closed meanwhile
      this.flight.shift();
      this.#answered(answer, sent);
    };
    this.link.request(message).then(answered, () => answered({ status: 0, error: 'network' }));
  }

  #answered(answer, sent) {
    if (this.recovery && !sent.state) {
      // sent after a message that was refused or lost: the chain broke there, so this one was
      // refused (or lost) too; the game's state will say what became of its keys
      this.unanswered += sent.letters;
      if (!this.flight.length) this.#recover();
      return;
    }
    if (!answer || answer.error !== undefined) {
      this.#refused(answer ?? { status: 0, error: 'no answer' }, sent);
      return;
    }
    const { game } = this;
    const cells = answer.board.flat();
    let event = { type: 'reset', undo: sent.letters === 'Z' };
    let rest = '';
    if (sent.state) {
      rest = this.#unplayed(answer.log);
    } else if (sent.skip) {
      event = this.#steps(answer, sent);
    }
    const { tile } = answer; // where the server's tile landed (none after an undo)
    if (sent.slid && tile) {
      const cell = tile.row * game.size + tile.col;
      // the slide the page drew is the server's, but for that tile; anything else redraws the board
      if (cells.every((v, i) => i === cell || v === sent.slid[i])) event = { type: 'tile', cell, value: tile.value };
    }
    // the answer's log: the server's (after a sync), else what was answered plus these letters
    game.log = sent.state ? answer.log : game.log.slice(0, this.at) + (sent.skip ? answer.applied ?? '' : sent.letters);
    game.moves = movesOf(game.log);
    const known = this.slidFrom ?? game; // won stays won, but not a win only the page's own slide drew
    Object.assign(game, { cells, score: answer.score, over: answer.over, won: answer.won || known.won, undosLeft: answer.undos_left });
    if (answer.helped === true) game.helped = true;
    this.at = answer.at;
    this.slidFrom = null;
    if (sent.state) {
      this.recovery = null;
      this.unanswered = '';
      this.#sendAgain(rest); // before the event: keys pressed meanwhile go after these
    }
    this.onDealt(event);
    this.#wake();
  }

  /** The keys left to play after a state answer whose log is `log`: none if the server went another way. */
  #unplayed(log) {
    if (this.recovery?.drop || !this.unanswered) return '';
    const known = this.game.log.slice(0, this.at);
    return (log.startsWith(known) && unplayed(this.unanswered, log.slice(known.length))) || '';
  }

  /** Keys whose first is sent with the state's `at`: each its own chained message, or together over HTTP. */
  #sendAgain(letters) {
    if (!letters) return;
    if (!this.#chains) {
      this.#send(letters, { skip: true });
      return;
    }
    [...letters].forEach((letter, i) => this.#send(letter, { skip: true, chain: i > 0 }));
  }

  #refused(answer, sent) {
    const { status } = answer;
    if (status === 0) this.onDealt({ type: 'unreachable', offline: answer.offline === true }); // the page says so meanwhile
    if (sent.state) {
      if (transient(status)) {
        this.link.later(() => this.#askState()); // not an answer about the game: ask again
        return;
      }
      this.#lose(answer);
      return;
    }
    if (transient(status) && !this.flight.length) {
      // alone in flight: the same keys go again from `at` (the server answers a retry as it did the first time)
      this.recovery = { retry: true, drop: false };
      this.unanswered = sent.letters; // what a reload meanwhile would have to find out about
      this.link.later(() => {
        this.recovery = null;
        this.unanswered = '';
        this.#send(sent.letters, { slid: sent.slid, skip: sent.skip });
      });
      return;
    }
    if (transient(status) || answer.code === 'chain_broken') {
      // the keys in flight behind it are refused too; the game's state will say which were played
      this.recovery = { drop: false, wait: transient(status) };
      this.unanswered += sent.letters;
    } else if (status === 409 || status === 422) {
      // out of step with the server (another tab, a lost answer from long ago): take its word,
      // and the keys sent after these with it
      this.recovery = { drop: true, wait: false };
    } else {
      this.#lose(answer);
      return;
    }
    if (!this.flight.length) this.#recover();
  }

  /** Every answer to the broken chain is in: ask where the game stands (after a pause if the server could not be reached). */
  #recover() {
    if (this.recovery.wait) this.link.later(() => this.#askState());
    else this.#askState();
  }

  #lose(answer) {
    this.flight = [];
    this.recovery = null;
    this.unanswered = '';
    this.game.log = this.game.log.slice(0, this.at); // the letters sent were not played
    this.lost = true;
    this.onDealt({ type: 'lost', message: answer.error ?? `HTTP ${answer.status}`, refusal: answer });
    this.#wake();
  }

  /** The keys the server played of a message, as slides drawn here and the tiles it dealt. */
  #steps(answer, sent) {
    const { size } = this.game;
    let board = this.game.board;
    let { score } = this.game;
    const steps = [];
    const applied = typeof answer.applied === 'string' ? answer.applied : '';
    for (let i = 0; i < applied.length; i++) {
      const tile = answer.tiles?.[i];
      const probe = Game.fromBoard(board, { score });
      const result = applied[i] === 'Z' ? null : probe.move(applied[i]);
      if (!result || !tile) return { type: 'reset', undo: applied.endsWith('Z') }; // not what this page can follow
      const slid = probe.cells;
      slid[result.spawn.cell] = 0;
      const cell = tile.row * size + tile.col;
      const after = slid.slice();
      after[cell] = tile.value;
      steps.push({ direction: result.direction, result: { ...result, spawn: null }, slid, cell, value: tile.value });
      board = Array.from({ length: size }, (_, r) => after.slice(r * size, (r + 1) * size));
      score = probe.score;
    }
    return { type: 'steps', steps, dropped: sent.letters.length - applied.length };
  }

  #wake() {
    if (this.pending) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }
}
