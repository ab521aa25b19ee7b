// Ranked games: the server deals every tile and keeps the seed until the game
// is finished. The slide of each move is worked out here at once (the rules
// are the same on both sides) and the move is sent; the new tile comes with
// the answer. One request is in flight at a time; the keys pressed meanwhile
// go together in the next one (moveMany, skip_illegal: the server drops the
// ones that meet a wall once their tiles are known), so a burst of keys costs
// about one round trip, not one each. A dropped connection is reopened and the
// request sent again, which the server answers as a retry.
import { Game, LETTERS, MAX_UNDOS, TARGETS } from './engine.js';

const RECONNECT_MS = [250, 1000, 2000, 5000, 10000];
/** Failed WebSocket openings in a row before the game goes on over plain HTTP. */
const SOCKET_TRIES = 3;

/** A game in play on the server as this page knows it: the engine Game's face, without a seed. */
export class ServedGame {
  constructor({ size, cells, score = 0, log = '', undosLeft = MAX_UNDOS, won = false, over = false, moves = 0 }) {
    Object.assign(this, { size, cells: cells.slice(), score, log, undosLeft, won, over, moves });
    this.seed = null; // revealed by the finish
    this.helped = false;
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
    return this.undosLeft === MAX_UNDOS && !this.helped;
  }
}

/** Moves in play from a log: each undo takes one back. */
function movesOf(log) {
  let n = 0;
  for (const letter of log) n += letter === 'Z' ? -1 : 1;
  return n;
}

export class ServerDealer {
  /**
   * `issued` is the answer of POST /api/games (or a saved game); `link(id)` opens the
   * connection to the game (a SocketLink, or a fake in tests); `onDealt(event)` hears
   * what the server did: {type: 'tile', cell, value}, {type: 'reset'} (undo, or the
   * page caught up with the server) or {type: 'lost', message} (the server refuses
   * the game for good: unknown, wrong token, finished).
   */
  constructor({ id, token, mode = 'classic', date = null, game, at = 0, inFlight = null, link, onDealt = () => {} }) {
    Object.assign(this, { id, token, mode, date, game, at, link, onDealt });
    this.inFlight = null; // {letters, slid}: sent, not answered yet
    this.waiters = [];
    this.lost = false;
    if (inFlight) this.#send(inFlight.letters, inFlight.slid ?? null);
  }

  static fromIssued(issued, link) {
    const size = issued.size;
    const game = new ServedGame({ size, cells: issued.board.flat(), score: issued.score });
    const dealer = new ServerDealer({ id: String(issued.id), token: String(issued.token), mode: issued.mode === 'daily' ? 'daily' : 'classic',
      date: typeof issued.date === 'string' ? issued.date : null, game, link: link(String(issued.id)) });
    dealer.triesLeft = Number.isSafeInteger(issued.tries_left) ? issued.tries_left : null;
    return dealer;
  }

  /** A move or undo is on its way to the server. */
  get busy() {
    return this.inFlight !== null;
  }

  /** Resolves when nothing is in flight. */
  settled() {
    return this.busy ? new Promise((resolve) => this.waiters.push(resolve)) : Promise.resolve();
  }

  /**
   * Slide now and send the move: the result has no `spawn` (the server deals it).
   * Null, changing nothing, if the move would not change the board or a request is
   * in flight (the board is not known until it is answered).
   */
  move(direction) {
    const { game } = this;
    if (this.busy || this.lost) return null;
    const probe = Game.fromBoard(game.board, { score: game.score });
    const result = probe.move(direction);
    if (!result) return null;
    const cells = probe.cells;
    cells[result.spawn.cell] = 0; // the local engine's tile is not the one the server deals
    game.cells = cells;
    game.score = probe.score;
    game.moves += 1;
    if (!game.won && result.merges.some((i) => cells[i] >= game.target)) game.won = true;
    const letter = LETTERS[result.direction];
    game.log += letter; // the player has made the move: it is in the record, its tile is on the way
    this.#send(letter, cells);
    return { ...result, spawn: null };
  }

  /** The solver's move ({move, scores}), asked through the game: the server marks it helped. */
  hint(api) {
    return api.gameHint(this.id, { token: this.token, at: this.at });
  }

  /**
   * Send keys pressed while the last answer was on its way, in one request: the server plays
   * each the rules allow once the tiles before it are known and drops the others, and the
   * answer comes as a 'steps' event, one step per key played ({direction, result, slid, cell,
   * value}: the slide, then the server's tile). False if a request is in flight.
   */
  moveMany(directions) {
    if (this.busy || this.lost || !directions.length) return false;
    this.#send(directions.map((d) => LETTERS[d]).join(''), null, true);
    return true;
  }

  /** Send an undo; the board goes back when the answer comes (a 'reset' event). */
  undo() {
    if (this.busy || this.lost || !this.game.canUndo) return false;
    this.game.log += 'Z';
    this.#send('Z', null);
    return true;
  }

  /** What the finish sends: the log as this page has it (the server checks it against its own). */
  finishEntry() {
    return { kind: 'finish', id: this.id, token: this.token, log: this.game.log, helped: this.game.helped };
  }

  toJSON() {
    const { game } = this;
    return {
      id: this.id, token: this.token, at: this.at, cells: game.cells, score: game.score, log: game.log.slice(0, this.at),
      undosLeft: game.undosLeft, won: game.won, over: game.over,
      // a move still unanswered is sent again after a reload (the server takes it as a retry)
      // (keys sent together are not: nothing of them was drawn, and they are not played again)
      inFlight: this.inFlight && !this.inFlight.state && !this.inFlight.skip ? { letters: this.inFlight.letters } : null,
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
      && (data.inFlight === null || (typeof data.inFlight?.letters === 'string' && /^[UDLRZ]$/.test(data.inFlight.letters)));
    if (!ok) return null;
    const game = new ServedGame({ size, cells: data.cells, score: data.score, log: data.log, undosLeft: data.undosLeft,
      won: data.won, over: data.over, moves: movesOf(data.log) });
    const inFlight = data.inFlight ? { letters: data.inFlight.letters, slid: null } : null;
    return new ServerDealer({ id: data.id, token: data.token, game, at: data.at, inFlight, link: link(data.id), ...extra });
  }

  /** The page is done with this game: let the connection go once nothing is in flight. */
  close() {
    this.settled().then(() => this.link.close?.());
  }

  /** Ask the server where the game stands and take its word (after a reload, or when out of step). */
  sync() {
    if (this.busy || this.lost) return;
    this.inFlight = { letters: '', slid: null, state: true };
    this.#request({ op: 'state', token: this.token });
  }

  // -- talking to the server ------------------------------------------------

  #send(letters, slid, skip = false) {
    this.inFlight = { letters, slid, skip };
    this.#request(this.#moves(this.inFlight));
  }

  #moves(sent) {
    const message = { op: 'moves', token: this.token, at: this.at, moves: sent.letters };
    return sent.skip ? { ...message, skip_illegal: true } : message;
  }

  #request(message) {
    this.link.request(message).then((answer) => this.#answered(answer), () => this.#answered({ status: 0, error: 'network' }));
  }

  #answered(answer) {
    const sent = this.inFlight;
    if (!answer || answer.error !== undefined) {
      this.#refused(answer ?? { status: 0, error: 'no answer' }, sent);
      return;
    }
    const { game } = this;
    const cells = answer.board.flat();
    let event = sent.skip ? this.#steps(answer) : { type: 'reset', undo: sent.letters === 'Z' };
    const { tile } = answer; // where the server's tile landed (none after an undo)
    if (sent.slid && tile) {
      const cell = tile.row * game.size + tile.col;
      // the slide the page drew is the server's, but for that tile; anything else redraws the board
      if (cells.every((v, i) => i === cell || v === sent.slid[i])) event = { type: 'tile', cell, value: tile.value };
    }
    // the answer's log: the server's (after a sync), else what was answered plus these letters
    game.log = sent.state ? answer.log : game.log.slice(0, this.at) + (sent.skip ? answer.applied ?? '' : sent.letters);
    game.moves = movesOf(game.log);
    Object.assign(game, { cells, score: answer.score, over: answer.over, won: answer.won || game.won, undosLeft: answer.undos_left });
    if (answer.helped === true) game.helped = true;
    this.at = answer.at;
    this.inFlight = null;
    this.onDealt(event);
    this.#wake();
  }

  #refused(answer, sent) {
    if (answer.status === 0 || answer.status === 429 || answer.status >= 500) {
      // not an answer about the game: the same request goes again (a retry, to the server)
      if (answer.status === 0) this.onDealt({ type: 'unreachable' }); // the page says so meanwhile
      this.link.later(() => this.#request(sent.state ? { op: 'state', token: this.token } : this.#moves(sent)));
      return;
    }
    this.inFlight = null;
    this.game.log = this.game.log.slice(0, this.at); // the letters sent were not played
    if (answer.status === 409 || answer.status === 422) {
      // out of step with the server (another tab, a lost answer from long ago): take its word
      if (!sent.state) {
        this.sync();
        return;
      }
    }
    this.lost = true;
    this.onDealt({ type: 'lost', message: answer.error ?? `HTTP ${answer.status}`, refusal: answer });
    this.#wake();
  }

  /** The keys the server played of a batch, as slides drawn here and the tiles it dealt. */
  #steps(answer) {
    const { size } = this.game;
    let board = this.game.board;
    let { score } = this.game;
    const steps = [];
    const applied = typeof answer.applied === 'string' ? answer.applied : '';
    for (let i = 0; i < applied.length; i++) {
      const tile = answer.tiles?.[i];
      const probe = Game.fromBoard(board, { score });
      const result = applied[i] === 'Z' ? null : probe.move(applied[i]);
      if (!result || !tile) return { type: 'reset', undo: false }; // not what this page can follow
      const slid = probe.cells;
      slid[result.spawn.cell] = 0;
      const cell = tile.row * size + tile.col;
      const after = slid.slice();
      after[cell] = tile.value;
      steps.push({ direction: result.direction, result: { ...result, spawn: null }, slid, cell, value: tile.value });
      board = Array.from({ length: size }, (_, r) => after.slice(r * size, (r + 1) * size));
      score = probe.score;
    }
    return { type: 'steps', steps, dropped: this.inFlight.letters.length - applied.length };
  }

  #wake() {
    if (this.busy) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }
}

/**
 * The connection to one game: a WebSocket, reopened when it drops (the request
 * in flight is sent again), and plain HTTP if no socket can be opened.
 * `request(message)` resolves with the answer's JSON ({status, error} for a
 * refusal, {status: 0} when the server cannot be reached at the moment, at once
 * while the browser knows it is offline: no connection is tried then).
 */
export class SocketLink {
  constructor(api, id, {
    WebSocketImpl = globalThis.WebSocket,
    setTimer = (fn, ms) => setTimeout(fn, ms),
    online = () => globalThis.navigator?.onLine !== false,
  } = {}) {
    Object.assign(this, { api, id, WebSocketImpl, setTimer, online });
    this.socket = null;
    this.waiting = null; // {message, resolve}
    this.failures = 0;
    this.overHttp = !WebSocketImpl;
  }

  request(message) {
    if (!this.online()) return Promise.resolve({ op: message.op, status: 0, error: 'offline', offline: true });
    return new Promise((resolve) => {
      this.waiting = { message, resolve };
      if (this.overHttp) this.#http();
      else this.#viaSocket();
    });
  }

  /** Run `fn` after the current back-off delay. */
  later(fn) {
    this.setTimer(fn, RECONNECT_MS[Math.min(this.failures, RECONNECT_MS.length - 1)]);
    this.failures += 1;
  }

  close() {
    this.socket?.close();
    this.socket = null;
  }

  #viaSocket() {
    const socket = this.socket;
    if (socket && socket.readyState === 1) {
      socket.send(JSON.stringify(this.waiting.message));
      return;
    }
    if (socket && socket.readyState === 0) return; // it sends on open
    this.#open();
  }

  #open() {
    let opened = false;
    const socket = new this.WebSocketImpl(this.api.socketUrl(this.id));
    this.socket = socket;
    socket.onopen = () => {
      opened = true;
      this.failures = 0;
      if (this.waiting) socket.send(JSON.stringify(this.waiting.message));
    };
    socket.onmessage = (e) => {
      const waiting = this.waiting;
      this.waiting = null;
      let answer;
      try {
        answer = JSON.parse(e.data);
      } catch {
        answer = { status: 0, error: 'unreadable answer' };
      }
      waiting?.resolve(answer);
    };
    socket.onclose = () => {
      if (this.socket === socket) this.socket = null;
      if (!opened && ++this.failures >= SOCKET_TRIES) this.overHttp = true;
      const waiting = this.waiting;
      if (!waiting) return;
      this.waiting = null;
      waiting.resolve({ status: 0, error: 'connection lost' }); // the dealer sends it again later
    };
  }

  async #http() {
    const { message, resolve } = this.waiting;
    this.waiting = null;
    try {
      const answer = message.op === 'state'
        ? await this.api.state(this.id, message.token)
        : await this.api.moves(this.id, { token: message.token, at: message.at, moves: message.moves });
      resolve({ op: message.op, ...answer });
    } catch (e) {
      resolve({ op: message.op, status: e?.status ?? 0, error: e?.message ?? 'network error' });
    }
  }
}
