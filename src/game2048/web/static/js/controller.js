// The game flow: which game is on the board, moves and undo, win and game
// over, new games with server seeds (or local ones when offline), saving after
// every change, and sending finished games. Everything it touches (storage,
// server, drawing, dialogs) is handed to it, so tests can replace any part.
import { DEFAULT_SIZE, Game, SIZES, randomSeed } from './engine.js';
import { newSession, restore, restoreBest, serialise } from './saved_game.js';

export class GameController {
  constructor({ store, api, queue, view, reader, hud, overlays, dialogs, announcer, i18n, perf = globalThis.performance }) {
    Object.assign(this, { store, api, queue, view, reader, hud, overlays, dialogs, announcer, i18n, perf });
    this.prefetched = new Map(); // size -> server game waiting to be played, or 'pending'
    this.listeners = [];
    this.askingName = false;
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
    return this.session.game;
  }

  /** Called after anything changes, with the controller. */
  onChange(listener) {
    this.listeners.push(listener);
  }

  /** The win banner is up: moves wait for keep playing or new game. */
  get waitingAtWin() {
    return this.game.won && !this.session.keepPlaying;
  }

  move(direction) {
    const { game } = this;
    if (this.waitingAtWin || this.dialogs.open) return false;
    const wasWon = game.won;
    this.perf?.mark?.('game2048:move-start');
    const result = game.move(direction);
    if (!result) {
      this.announcer.say(this.i18n.t('sayNoMove', { dir: this.i18n.t(direction) }));
      return false;
    }
    const cells = game.cells;
    this.view.play(cells, result);
    this.#raiseBest();
    this.hud.score(game.score, this.best[this.size] ?? 0, result.points);
    this.hud.hint(null);
    this.#refresh();
    this.perf?.mark?.('game2048:move-end');
    this.perf?.measure?.('game2048:move', 'game2048:move-start', 'game2048:move-end');
    this.announcer.move(result.direction, result, cells, game.score);
    if (game.won && !wasWon) this.announcer.append(this.i18n.t('winTitle', { target: String(game.target) }));
    if (game.over) this.announcer.append(`${this.i18n.t('overTitle')}. ${this.i18n.t('overText', { score: game.score })}`);
    this.#save();
    if (game.over) this.#finish();
    this.#changed();
    return true;
  }

  undo() {
    if (this.session.submitted || this.dialogs.open || !this.game.undo()) return false;
    this.#render();
    this.announcer.say(this.i18n.t('sayUndo', { score: this.game.score, n: this.game.undosLeft }));
    this.#save();
    this.#changed();
    return true;
  }

  keepPlaying() {
    this.session.keepPlaying = true;
    this.#save();
    this.#refresh();
    this.#changed();
  }

  /** R, New game, Daily game: a game in progress is only replaced if the player confirms. */
  async requestNewGame(options = {}) {
    if (this.game.moves > 0 && !this.game.over && !(await this.dialogs.confirm())) return false;
    this.newGame(options);
    return true;
  }

  /** End the current game (sending it) and start another; mode 'daily' asks for today's seed. */
  newGame({ size = this.size, mode = 'classic', seed = null } = {}) {
    this.#finish();
    this.#setSize(size);
    this.#startNew(mode, seed);
  }

  /** Switch board size; each size keeps its own saved game, so nothing is ended. */
  chooseSize(size) {
    if (!SIZES.includes(size) || size === this.size) return;
    this.#setSize(size);
    this.#loadOrStart(size);
  }

  /** Start an unranked practice game from any position (tests, bots, analysis). */
  load(board, score = 0) {
    const game = Game.fromBoard(board, { score, seed: randomSeed() });
    this.#finish();
    this.#setSize(game.size);
    const session = newSession(game);
    // a position that already holds the target has no win left to announce
    session.keepPlaying = game.won;
    this.#begin(session);
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

  // -- starting games ---------------------------------------------------

  #setSize(size) {
    this.size = size;
    this.store.set('size', size);
  }

  #loadOrStart(size) {
    const session = restore(this.store.get(`game:${size}`), size);
    // an offline game not yet begun is worth a new try at a server seed
    const unstarted = session && !session.id && !session.game.startBoard && session.game.log === '';
    if (!session || unstarted) {
      this.store.remove(`game:${size}`);
      this.#startNew('classic');
      return;
    }
    this.session = session;
    this.#render();
    this.announcer.say(this.i18n.t('sayResumed', { score: session.game.score }));
    if (session.id && session.game.over) this.#finish();
    this.#prefetch(size);
    this.#changed();
  }

  #startNew(mode, seed = null) {
    const size = this.size;
    const ready = this.prefetched.get(size);
    if (seed === null && mode === 'classic' && ready && ready !== 'pending') {
      this.prefetched.delete(size);
      this.#begin(this.#serverSession(ready));
    } else {
      // Start at once with a local seed; a server seed that arrives before the
      // first move replaces it, otherwise the game stays local (unranked).
      const session = newSession(new Game(size, seed ?? randomSeed()));
      session.awaitingServer = seed === null; // the status line says so, not "offline"
      this.#begin(session);
      if (seed === null) {
        const settled = () => {
          session.awaitingServer = false;
          if (this.session === session) this.#refresh();
        };
        this.api.newGame(size, mode).then((issued) => {
          if (this.session === session && session.game.log === '' && issued?.size === size) {
            this.#begin(this.#serverSession(issued), false);
          } else settled();
        }, settled);
      }
    }
    this.#prefetch(size);
  }

  #serverSession(issued) {
    return newSession(new Game(issued.size, issued.seed), {
      mode: issued.mode === 'daily' ? 'daily' : 'classic',
      id: String(issued.id),
      token: String(issued.token),
      date: typeof issued.date === 'string' ? issued.date : null,
    });
  }

  #begin(session, announce = true) {
    this.session = session;
    this.#render();
    if (announce) this.announcer.say(this.i18n.t('sayNewGame', { n: this.size }));
    this.#save();
    this.#changed();
  }

  #prefetch(size) {
    if (this.prefetched.has(size)) return;
    this.prefetched.set(size, 'pending');
    this.api.newGame(size, 'classic').then(
      (issued) => (issued?.size === size ? this.prefetched.set(size, issued) : this.prefetched.delete(size)),
      () => this.prefetched.delete(size),
    );
  }

  // -- finishing games --------------------------------------------------

  /** Send the current game if the server issued it and it has moves; once. */
  #finish() {
    const s = this.session;
    if (!s || !s.id || s.submitted || s.game.log === '') return;
    s.submitted = true;
    this.#save();
    const entry = { id: s.id, token: s.token, log: s.game.log, score: s.game.score, helped: s.game.helped };
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

  /** Ask for the nickname (also the Name button); skipping keeps an anonymous name. */
  async askName() {
    if (this.askingName) return;
    this.askingName = true;
    const answer = await this.dialogs.nickname(this.nickname() ?? '');
    this.askingName = false;
    if (answer === undefined) return; // dismissed (Esc): no answer, nothing stored
    // eslint-disable-next-line no-control-regex
    const clean = (answer ?? '').replace(/[\u0000-\u001f\u007f]/g, '').slice(0, 24).trim();
    if (clean) this.store.set('name', clean);
    else if (this.nickname() === null) this.store.set('name', this.i18n.t('anonymous'));
    this.queue.flush();
  }

  /** The queue's report on a sent game. */
  submitted(entry, answer) {
    if (answer?.verified) {
      const key = answer.ranked ? 'sent' : 'sentUnranked';
      this.hud.message(this.i18n.t(key, { score: answer.score, rank: answer.rank ?? '–' }));
    } else if (answer?.error) {
      this.hud.message(answer.error);
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
    else if (game.over) this.overlays.show('over', { score: game.score });
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
