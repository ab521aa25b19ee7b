// Hint and autoplay: both ask the server's solver through the dealer (a ranked
// game through itself, so the server knows) and both make the game unranked,
// which the status line then says.
import { SLIDE_MS } from './board_view.js';
import { explain } from './refusals.js';

export class Assistant {
  constructor({ api, controller, hud, announcer, i18n, wait = (ms) => new Promise((r) => setTimeout(r, ms)) }) {
    Object.assign(this, { api, controller, hud, announcer, i18n, wait });
    this.run = null; // the autoplay run in progress: a stopped run's late answers are dropped
  }

  get running() {
    return this.run !== null;
  }

  /** Ask for the best move and show it; resolves to the direction or null. */
  async hint() {
    const move = await this.#ask();
    if (move) {
      this.hud.hint(move);
      this.announcer.say(this.i18n.t('sayHint', { dir: this.i18n.t(move) }));
    }
    return move;
  }

  toggle() {
    if (this.running) this.stop();
    else this.start();
  }

  /** Play the solver's moves until game over, the win banner, an error, or stop(). */
  async start() {
    if (this.running) return;
    const run = {};
    this.run = run;
    this.hud.autoplay(true);
    this.announcer.say(this.i18n.t('autoplayOn'));
    this.announcer.summarise(true); // a summary every 2 s at most, not every move
    const session = this.controller.session;
    const going = () => this.run === run && this.controller.session === session;
    while (going() && !session.game.over && !this.controller.waitingAtWin) {
      const move = await this.#ask();
      if (!move || !going() || !this.controller.move(move)) break;
      await this.wait(SLIDE_MS + 20);
    }
    if (this.run === run) this.stop();
  }

  stop() {
    if (!this.running) return;
    this.run = null;
    this.hud.autoplay(false);
    this.announcer.say(this.i18n.t('autoplayOff'));
    this.announcer.summarise(false);
  }

  async #ask() {
    await this.controller.settled(); // a ranked game's last tile is on the board before the solver looks
    const { game } = this.controller;
    if (game.over) return null;
    try {
      const answer = await this.controller.dealer.hint(this.api);
      if (!['up', 'down', 'left', 'right'].includes(answer?.move)) return null;
      this.controller.markHelped();
      return answer.move;
    } catch (e) {
      // no answer: hints need the server; a refusal says why (a loaded position's come a few a minute)
      this.hud.message(e?.status ? explain(e, this.i18n) : this.i18n.t('hintNone'));
      return null;
    }
  }
}
