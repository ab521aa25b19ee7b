// The game flow: which game is on the board, moves and undo, win and game
// over, new games (ranked ones dealt by the server, practice ones dealt here),
// saving after every change, and sending finished games. Everything it touches
// (storage, server, drawing, dialogs, and who deals the tiles) is handed to it,
// so tests can replace any part.
//
// Who deals is one seam: `deal` makes dealers (LocalDealer, ServerDealer, or a
// test's fake), all with one interface: game, busy, pending, move, undo, settled,
// sync, close, finishEntry, toJSON, and onDealt for tiles that come later. The
// controller never asks which one it holds. `pending`: something it sent is not
// answered yet; `busy`: it cannot take keys now (over plain HTTP with a request in
// flight), so they wait here in order and are played when it answers.
import { DEFAULT_SIZE, SIZES, isSeed, randomSeed } from './engine.js';
import { explain, nextDailyTime } from './refusals.js';
import { isGameId, newSession, restore, restoreBest, serialise } from './saved_game.js';

// The name rule and its table load when a name is first needed, not with the page.
const nameRule = () => import('./names.js');

/** A move unanswered this long makes the page say that it waits for the server. */
const WAIT_NOTE_MS = 1000;
/** What the finish's news says of a ranked game not (yet) on its board, by its standing. */
const STANDING_NEWS = { checking: 'sentChecking', held: 'sentHeld', moved: 'sentMoved', hidden: 'sentHeld' };

export class GameController {
  /**
   * `deal`: {ranked(size, mode) → Promise of a dealer (rejects when the server says no or
   * cannot be reached), practice(size, seed) → dealer, position(board, score) → dealer,
   * link(id) → the connection of a saved ranked game}.
   */
  constructor({ store, api, queue, view, reader, hud, overlays, dialogs, announcer, i18n, deal, history = null, perf = globalThis.performance }) {
    // history: the games this browser finished, for My games (my_games.js); optional
    Object.assign(this, { store, api, queue, view, reader, hud, overlays, dialogs, announcer, i18n, deal, history, perf });
    this.prefetched = new Map(); // size -> a ranked dealer waiting to be played, or 'pending'
    this.prefetchAsked = new WeakSet(); // sessions whose first move asked for the next game
    this.listeners = [];
    this.askingName = false;
    this.keys = []; // moves and undos waiting for the dealer's answer, in the order pressed
  }

  /** Resume the saved game of the last size played, or start one. */
  init() {
    const saved = this.store.get('size');
    this.size = SIZES.includes(saved) ? saved : DEFAULT_SIZE;
    this.best = restoreBest(this.store.get('best'));
    this.#loadOrStart(this.size);
    this.queue.flush();
  }

  get game() {
    return this.session.dealer.game;
  }

  get dealer() {
    return this.session.dealer;
  }

  /** Called after anything changes, with the controller. */
  onChange(listener) {
    this.listeners.push(listener);
  }

  /** The win banner is up: moves wait for keep playing or new game. */
  get waitingAtWin() {
    return this.game.won && !this.session.keepPlaying;
  }

  /**
   * Play a move. False if it is refused now (win banner, dialog, game over, or it would
   * not change the board); true if it was played, or queued behind a move the server has
   * not answered yet (then it is played, or found illegal, when the answer comes).
   */
  move(direction) {
    if (this.waitingAtWin || this.dialogs.open || this.game.over) return false;
    if (this.serverNote === 'serverOffline') {
      // a ranked game waits for the network: a key pressed now would be played unseen, much later
      this.announcer.say(this.i18n.t('serverOffline'));
      return false;
    }
    if (this.dealer.busy) {
      this.keys.push(direction);
      return true;
    }
    return this.#move(direction);
  }

  undo() {
    if (this.session.submitted || this.dialogs.open) return false;
    if (this.dealer.busy) {
      this.keys.push('undo');
      return true;
    }
    return this.#undo();
  }

  /** Resolves when every key pressed so far has been played and answered. */
  async settled() {
    while (this.dealer.busy || this.dealer.pending || this.keys.length) await this.dealer.settled();
  }

  keepPlaying() {
    this.session.keepPlaying = true;
    this.#save();
    this.#refresh();
    this.#changed();
  }

  /**
   * R, New game, Daily game: a game in progress is only replaced if the player confirms (told, for
   * a ranked daily try, that it will then not be ranked).
   */
  async requestNewGame(options = {}) {
    const text = this.#abandons(this.session) && this.game.ranked ? this.i18n.t('confirmAbandon') : null;
    if (this.game.moves > 0 && !this.game.over && !(await this.dialogs.confirm(text))) return false;
    this.newGame(options);
    return true;
  }

  /**
   * End the current game (sending it) and start another. Without a seed the server
   * deals it (mode 'daily': today's daily game); with one it is a practice game.
   */
  newGame({ size = this.size, mode = 'classic', seed = null } = {}) {
    if (mode === 'daily' && seed === null) {
      this.#startDaily(size);
      return;
    }
    this.#finish({ replaced: true });
    this.#setSize(size);
    this.#startNew(seed);
  }

  /** Switch board size; each size keeps its own saved game, so nothing is ended. */
  chooseSize(size) {
    if (!SIZES.includes(size) || size === this.size) return;
    this.#setSize(size);
    this.#loadOrStart(size);
  }

  /** Start a practice game from any position (tests, bots, analysis). */
  load(board, score = 0) {
    const dealer = this.deal.position(board, score);
    this.#finish({ replaced: true });
    this.#setSize(dealer.game.size);
    const session = newSession(dealer);
    // a position that already holds the target has no win left to announce
    session.keepPlaying = dealer.game.won;
    this.#begin(session);
  }

  /**
   * Before the first undo, hint or autoplay of a ranked game: resolves true to go ahead. The
   * player is asked once a game (until they go ahead), unless they said not to ask again
   * (kept in this browser as `askUnranking: false`). A game that is not ranked asks nothing.
   */
  async mayUnrank() {
    const { game, session } = this;
    if (!session.id || !game.ranked || session.submitted || game.over) return true;
    if (this.store.get('askUnranking') === false || this.dialogs.open || !this.dialogs.unrank) return true;
    const { go, stop } = await this.dialogs.unrank();
    if (stop) this.store.set('askUnranking', false);
    return go;
  }

  /** The Undo button: asks first when the undo would end the game's ranking. */
  async requestUndo() {
    if (this.session.submitted || !this.game.canUndo) return this.undo();
    return (await this.mayUnrank()) && this.undo();
  }

  /** A hint or autoplay chose a move: the game can no longer be ranked. */
  markHelped() {
    if (this.game.helped) return;
    this.game.helped = true;
    this.#save();
    this.#refresh();
  }

  /** Redraw everything in the current language. */
  rerender() {
    this.#render();
  }

  // -- moves --------------------------------------------------------------

  #move(direction) {
    this.perf?.mark?.('game2048:move-start');
    const result = this.dealer.move(direction);
    if (!result) {
      this.announcer.say(this.i18n.t('sayNoMove', { dir: this.i18n.t(direction) }));
      return false;
    }
    if (this.earlierNews && this.earlierNews === this.session) {
      this.earlierNews = null;
      this.hud.message('');
    }
    if (result.later) {
      // sent before the board it applies to is known: the server plays it (or drops it at a
      // wall) and its slide is drawn with the answer (#dealt, 'steps')
      this.#save();
      this.#waitForServer();
    } else {
      this.#draw(result);
    }
    this.#changed();
    // The next ranked game is asked for once this one is being played, not at load: a visit
    // that never moves costs the server no second game, and the page's first second no request.
    if (!this.prefetchAsked.has(this.session)) {
      this.prefetchAsked.add(this.session);
      this.#prefetch(this.size);
    }
    return true;
  }

  #draw(result) {
    const { game } = this;
    const cells = game.cells;
    this.view.play(cells, result);
    this.#raiseBest();
    this.hud.score(game.score, this.best[this.size] ?? 0, result.points);
    this.hud.hint(null);
    this.#refresh();
    this.perf?.mark?.('game2048:move-end');
    this.perf?.measure?.('game2048:move', 'game2048:move-start', 'game2048:move-end');
    this.announcer.move(result.direction, result, cells, game.score);
    this.#sayWin();
    if (result.spawn) this.#settle(); // dealt here: the move is complete
    else {
      this.#save(); // the new tile comes with the server's answer (#dealt)
      this.#waitForServer();
    }
  }

  #undo() {
    if (!this.dealer.undo()) return false;
    if (this.dealer.pending) {
      this.#save(); // the board goes back when the server answers
    } else {
      this.#render();
      this.#saidUndo();
      this.#save();
    }
    this.#changed();
    return true;
  }

  /** The win is said once, when the move that made it is on the board (drawn here or answered). */
  #sayWin() {
    const { game } = this;
    if (game.won && !this.wonSaid) this.announcer.append(this.i18n.t('winTitle', { target: String(game.target) }));
    this.wonSaid = game.won;
  }

  #saidUndo() {
    this.announcer.say(this.i18n.t('sayUndo', { score: this.game.score, n: this.game.undosLeft }));
  }

  /**
   * A move is complete (its tile is on the board): game over, saving, and the next key. A game
   * over is finished once nothing is in flight (an undo sent behind it may take it back).
   */
  #settle() {
    const { game } = this;
    if (game.over) this.announcer.append(`${this.i18n.t('overTitle')}. ${this.i18n.t('overText', { score: game.score })}`);
    this.#save();
    if (game.over && !this.dealer.pending) this.#finish();
  }

  /**
   * A move waits for the server: when no answer has come for a second the page says so,
   * quietly, and if the server cannot be reached at all it says whether the game can go on.
   */
  #waitForServer() {
    if (this.waitTimer) return; // the second counts from the last answer, not the last key
    this.waitTimer = setTimeout(() => {
      this.waitTimer = null;
      if (this.dealer.pending && !this.serverNote) this.#serverNote('waitingServer');
    }, WAIT_NOTE_MS);
  }

  #answeredServer() {
    clearTimeout(this.waitTimer);
    this.waitTimer = null;
    if (this.serverNote) this.#serverNote(null);
    if (this.dealer.pending) this.#waitForServer(); // more in flight: the next one is waited for
  }

  #serverNote(key) {
    this.serverNote = key;
    this.hud.message(key ? this.i18n.t(key) : '');
  }

  /** What a dealer did after a move returned: a tile arrived, the board was reset, or the game is lost. */
  #dealt(dealer, event) {
    if (this.session?.dealer !== dealer) return; // a late answer for a game no longer shown
    if (event.type === 'unreachable') {
      // offline, keys do nothing until the network is back; a silent server is waited for
      const note = event.offline ? 'serverOffline' : 'serverUnreachable';
      if (this.serverNote !== note) this.#serverNote(note);
      return; // the dealer asks again; its answer is the next event
    }
    this.#answeredServer();
    const { game } = this;
    if (event.type === 'tile') {
      this.view.appear(event.cell, event.value);
      this.announcer.spawned(event.cell, event.value, game.size); // the move's sentence waited for it
      this.#refresh();
    } else if (event.type === 'steps') {
      // keys sent before their board was known: each one the server played (none: it met a
      // wall), slid and then its tile, in order
      let points = 0;
      for (const step of event.steps) {
        this.view.play(step.slid, step.result);
        this.view.appear(step.cell, step.value);
        points += step.result.points;
      }
      const last = event.steps.at(-1);
      if (last) {
        this.announcer.move(last.direction, last.result, game.cells, game.score);
        this.announcer.spawned(last.cell, last.value, game.size);
      }
      this.#raiseBest();
      this.hud.score(game.score, this.best[this.size] ?? 0, points);
      this.#refresh();
    } else if (event.type === 'lost') {
      this.keys = [];
      this.session.submitted = true; // nothing left to send for a game the server refuses
      this.#save();
      this.#changed();
      this.#startNew(null);
      this.hud.message(explain(event.refusal ?? { status: 0 }, this.i18n)); // after the new game began: it says why
      return;
    } else {
      this.#render();
      if (event.undo) this.#saidUndo();
    }
    this.#sayWin();
    this.#settle();
    this.#changed();
    this.#playWaitingKeys();
  }

  #playWaitingKeys() {
    while (this.keys.length && !this.dealer.busy) {
      if (this.waitingAtWin || this.game.over) {
        this.keys = []; // the banner or the end answers the keys pressed before it
        return;
      }
      const run = this.keys.findIndex((k) => k === 'undo');
      const moves = run === -1 ? this.keys.length : run;
      if (moves > 1 && this.dealer.moveMany) {
        // several keys waited: they go together, each played (or dropped at a wall) by the server
        const taken = this.dealer.moveMany(this.keys.slice(0, moves));
        if (taken) {
          this.keys.splice(0, taken);
          this.#save();
          this.#waitForServer();
          continue;
        }
      }
      const key = this.keys.shift();
      if (key === 'undo') {
        if (!this.session.submitted) this.#undo();
      } else {
        this.#move(key);
      }
    }
  }

  // -- starting games ---------------------------------------------------

  #setSize(size) {
    this.size = size;
    this.store.set('size', size);
  }

  #loadOrStart(size) {
    const session = restore(this.store.get(`game:${size}`), size, { link: this.deal.link });
    // a practice game not yet begun is worth a new try at a ranked one
    const unstarted = session && !session.id && !session.game.startBoard && session.game.log === '';
    if (!session || unstarted) {
      this.store.remove(`game:${size}`);
      this.#startNew(null);
      return;
    }
    this.#attach(session);
    this.#render();
    this.announcer.say(this.i18n.t('sayResumed', { score: session.game.score }));
    if (session.id && !session.submitted) session.dealer.sync(); // the server's word on where it stands
    if (session.game.over && !session.dealer.pending) this.#finish();
    this.#prefetch(size);
    this.#changed();
  }

  #startDaily(size) {
    this.deal.ranked(size, 'daily').then((dealer) => {
      if (dealer.game.size !== size) return;
      this.#finish({ replaced: true });
      this.#setSize(size);
      this.#begin(newSession(dealer));
      if (dealer.triesLeft != null) {
        // past the network's ranked tries the day's game is played, unranked, and the player told so
        const key = dealer.game.ranked ? 'dailyTriesLeft' : 'dailyTriesLeftUnranked';
        this.hud.message(this.i18n.t(key, { n: dealer.triesLeft, time: nextDailyTime(this.i18n.locale) }));
      }
    }, (e) => this.hud.message(explain(e, this.i18n)));
  }

  #startNew(seed) {
    const size = this.size;
    const ready = this.prefetched.get(size);
    if (seed === null && ready && ready !== 'pending') {
      this.prefetched.delete(size);
      this.#begin(newSession(ready));
    } else {
      // Start at once with a practice game; a ranked game that arrives before the first
      // move replaces it, otherwise it stays a practice game (sent as a record when done).
      const session = newSession(this.deal.practice(size, seed ?? randomSeed()));
      session.awaitingServer = seed === null; // the status line says so, not "offline"
      this.#begin(session);
      if (seed === null) {
        const settled = () => {
          session.awaitingServer = false;
          if (this.session === session) this.#refresh();
        };
        this.deal.ranked(size, 'classic').then((dealer) => {
          if (this.session === session && session.game.log === '' && dealer.game.size === size) {
            this.#begin(newSession(dealer), false);
          } else settled();
        }, settled);
      }
    }
  }

  #attach(session) {
    this.keys = [];
    clearTimeout(this.waitTimer);
    this.waitTimer = null;
    if (this.serverNote) this.#serverNote(null); // what was said of the last game's server leaves with it
    this.wonSaid = session.game.won;
    const old = this.session?.dealer;
    if (old && old !== session.dealer) old.close?.();
    this.session = session;
    const { dealer } = session;
    dealer.onDealt = (event) => this.#dealt(dealer, event);
  }

  #begin(session, announce = true) {
    // what was said about the last game (its score recorded, a refusal) leaves with it
    if (announce) this.hud.message('');
    this.#attach(session);
    this.#render();
    if (announce) this.announcer.say(this.i18n.t('sayNewGame', { n: this.size }));
    this.#save();
    this.#changed();
  }

  #prefetch(size) {
    if (this.prefetched.has(size)) return;
    this.prefetched.set(size, 'pending');
    this.deal.ranked(size, 'classic').then(
      (dealer) => (dealer.game.size === size ? this.prefetched.set(size, dealer) : this.prefetched.delete(size)),
      () => this.prefetched.delete(size),
    );
  }

  // -- finishing games --------------------------------------------------

  /**
   * Send the current game once, if it has moves: a ranked game's finish, or a practice record;
   * with keys in flight, once they are answered (a log short of the server's is refused). A daily
   * try `replaced` by another game before it ended is sent as abandoned: kept, never ranked.
   */
  #finish({ replaced = false } = {}) {
    const s = this.session;
    if (!s || s.submitted || s.game.log === '') return;
    s.submitted = true;
    this.keys = [];
    this.#save();
    if (s.dealer.pending) s.dealer.settled().then(() => this.#sendFinished(s, replaced));
    else this.#sendFinished(s, replaced);
  }

  /** A daily try in play that has not ended (over, or won): leaving it now abandons it. */
  #abandons(s) {
    return s?.mode === 'daily' && Boolean(s.id) && !s.game.over && !s.game.won;
  }

  #sendFinished(s, replaced) {
    const entry = s.dealer.finishEntry();
    if (replaced && this.#abandons(s)) entry.abandoned = true;
    this.history?.finished(s.game, entry.id, s.mode);
    this.queue.add(entry).then(() => {
      if (this.queue.entries.some((e) => e.id === entry.id) && this.nickname() !== null) {
        this.hud.message(this.i18n.t('queued'));
      }
    });
    if (this.nickname() === null) this.askName();
  }

  /** The saved nickname, or null if the player was never asked. */
  nickname() {
    const name = this.store.get('name');
    return typeof name === 'string' && name ? name : null;
  }

  /**
   * The nickname to send, as the server will store it (the queue's `name`); null while
   * there is none. A saved name the rule refuses (one saved before the rule was the
   * server's) is forgotten, and the player is asked for another, told why.
   */
  async nameToSend() {
    const saved = this.nickname();
    if (saved === null) return null;
    const { cleanName } = await nameRule();
    const clean = cleanName(saved);
    if (clean.name !== undefined) return clean.name;
    this.#refuseName(saved, clean);
    return null;
  }

  /**
   * The server refused a finish for its name (the queue's `nameRefused`): the game stays
   * queued, the name is forgotten, and the player is asked for another.
   */
  async nameRefused(_entry, error) {
    const saved = this.nickname() ?? '';
    const { cleanName } = await nameRule();
    const local = cleanName(saved);
    // the page's rule says which character; a reason only the server knows (a held name) is
    // told in general words
    this.#refuseName(saved, local.code === error.code ? local : { code: error.code, serverOnly: true });
  }

  #refuseName(saved, refusal) {
    if (this.nickname() === saved) this.store.remove('name');
    this.hud.message(this.i18n.t('nameQueued'));
    this.askName(refusal, saved);
  }

  /** Why a name was refused, in the player's language. */
  async #nameProblem(refusal) {
    const { NAME_MAX } = await nameRule();
    const key = refusal.code.replace(/_([a-z])/g, (_, c) => c.toUpperCase()); // name_too_long -> nameTooLong
    // held by another, or a look-alike: only the server knows
    if (['name_held', 'name_confusable'].includes(refusal.code) && this.i18n.has(key)) return this.i18n.t(key);
    if (refusal.serverOnly || !this.i18n.has(key)) return this.i18n.t('nameRefused');
    return this.i18n.t(key, { char: refusal.char, max: NAME_MAX, length: refusal.length });
  }

  /**
   * Ask for the nickname (also the Name button); skipping keeps the saved name, or an
   * anonymous one. A name the rule refuses is asked for again, with the reason shown;
   * `refusal` ({code, char?, length?}) is why the last one was refused, `typed` what it was.
   */
  async askName(refusal = null, typed = null) {
    if (this.askingName) return;
    this.askingName = true;
    try {
      let problem = refusal ? await this.#nameProblem(refusal) : '';
      let current = typed ?? this.nickname() ?? '';
      for (;;) {
        const answer = await this.dialogs.nickname(current, problem);
        if (answer === undefined) return; // dismissed (Esc): no answer, nothing stored
        const { cleanName } = await nameRule();
        const clean = answer === null ? { code: 'name_empty' } : cleanName(answer);
        if (clean.name !== undefined) {
          this.store.set('name', clean.name);
          break;
        }
        if (clean.code === 'name_empty') {
          if (this.nickname() === null) this.store.set('name', this.i18n.t('anonymous'));
          break;
        }
        problem = await this.#nameProblem(clean);
        current = answer;
      }
    } finally {
      this.askingName = false;
    }
    this.queue.flush();
  }

  /**
   * The queue's report on a sent game; a ranked game's finish reveals its seed. Once the
   * game on the board is a public record (a practice record, or a finish whose seed is
   * revealed: not a daily game while its day lasts), the game-over overlay links its review.
   */
  submitted(entry, answer) {
    if (answer?.verified) {
      // a rank only once the game is on its board: being checked, held for a person, or moved
      const key = !answer.ranked ? 'sentUnranked' : STANDING_NEWS[answer.standing] ?? 'sent';
      const current = this.session && this.dealer.finishEntry().id === entry.id;
      // an abandoned daily try is no result: nothing is said of it, and the tries left stay said
      if (answer.unranked !== 'abandoned') {
        const said = this.i18n.t(key, { score: answer.score, rank: answer.rank ?? '–' });
        // recorded under a name this finish could not hold today: said, so the player knows it is not theirs yet
        this.hud.message(answer.name_not_held ? `${said} ${explain(answer.name_not_held, this.i18n)}` : said);
        // news of a game already replaced (left for a new one) is said, then leaves at the
        // first move of the game now on the board
        this.earlierNews = current ? null : this.session;
      }
      const revealed = entry.kind !== 'record' && isSeed(answer.seed);
      if (current && revealed) this.game.seed = answer.seed;
      const recordId = entry.kind === 'record' ? answer.id : entry.id;
      if (isGameId(recordId)) this.history?.published(entry.id, recordId, answer.ranked, answer.standing);
      if (current && (revealed || entry.kind === 'record') && isGameId(recordId)) {
        this.session.recordId = recordId;
        this.#save();
        this.#refresh();
      }
      if (current) this.#changed();
    } else if (answer?.error) {
      this.hud.message(explain(answer, this.i18n));
    }
  }

  // -- drawing and saving -----------------------------------------------

  #raiseBest() {
    // a practice position starts from any score it is given: it sets no record
    if (this.game.startBoard) return;
    if (this.game.score > (this.best[this.size] ?? 0)) this.best[this.size] = this.game.score;
  }

  #render() {
    const { game } = this;
    this.#raiseBest();
    this.view.reset(game.size, game.cells);
    this.hud.score(game.score, this.best[this.size] ?? 0);
    this.hud.sizes(this.size);
    this.hud.hint(null);
    this.#refresh();
  }

  // the parts that change on every move besides the tiles
  #refresh() {
    const { game, session } = this;
    this.reader.update(game.size, game.cells);
    this.hud.undo(game.undosLeft, game.canUndo && !session.submitted);
    this.hud.status(session);
    if (this.waitingAtWin) this.overlays.show('win', { target: game.target });
    else if (game.over) this.overlays.show('over', { score: game.score, recordId: session.recordId });
    else this.overlays.show(null);
  }

  #save() {
    this.store.set(`game:${this.size}`, serialise(this.session));
    this.store.set('best', this.best);
  }

  #changed() {
    for (const listener of this.listeners) listener(this);
  }
}
