// Wires the pieces together; each is handed what it needs.
import { Api } from './api.js';
import { Announcer } from './announcer.js';
import { Assistant } from './assistant.js';
import { automation } from './automation.js';
import { BoardReader } from './board_reader.js';
import { BoardView } from './board_view.js';
import { GameController } from './controller.js';
import { Translator, pickLanguage } from './i18n.js';
import { Hud } from './hud.js';
import { Input } from './input.js';
import { Dialogs, Overlays } from './overlays.js';
import { SafeStorage } from './storage.js';
import { SubmissionQueue } from './submissions.js';
import { LanguageChooser } from './language_chooser.js';
import { LocalDealer } from './local_dealer.js';
import { ServerDealer, SocketLink } from './server_dealer.js';
import { randomSeed } from './engine.js';

const doc = document;
const store = new SafeStorage(SafeStorage.browserBackend(window));
const chooser = new LanguageChooser(doc, window.location);
const i18n = new Translator(pickLanguage([chooser.requested(), ...navigator.languages]));
const motion = window.matchMedia('(prefers-reduced-motion: reduce)');
const board = doc.querySelector('[data-testid="board"]');
const api = new Api();
const hud = new Hud(doc, i18n);
const dialogs = new Dialogs(doc);
// Who deals the tiles: the server for ranked games (over a WebSocket), this page for practice.
const link = (id) => new SocketLink(api, id);
const deal = {
  ranked: (size, mode) => api.newGame(size, mode).then((issued) => ServerDealer.fromIssued(issued, link)),
  practice: (size, seed) => LocalDealer.opening(size, seed),
  position: (board, score) => LocalDealer.position(board, score, randomSeed()),
  link,
};
const controller = new GameController({
  store, api, i18n, hud, dialogs, deal,
  view: new BoardView(board, { reducedMotion: () => motion.matches }),
  reader: new BoardReader(doc.getElementById('board-table'), i18n),
  overlays: new Overlays(doc, i18n),
  announcer: new Announcer(doc.getElementById('announcer'), i18n),
  queue: new SubmissionQueue(store, api, {
    name: () => controller.nickname(),
    done: (entry, answer) => controller.submitted(entry, answer),
  }),
});
const assistant = new Assistant({ api, controller, hud, i18n, announcer: controller.announcer });

new Input(doc, board, {
  move: (d) => controller.move(d),
  newGame: () => controller.requestNewGame(),
  anyKey: () => assistant.stop(),
}, { dialogOpen: () => dialogs.open });

const on = (id, fn) => doc.getElementById(id).addEventListener('click', fn);
on('new-game', () => controller.newGame());
on('undo', () => controller.undo());
on('daily', () => controller.newGame({ mode: 'daily' }));
on('hint', () => assistant.hint());
on('autoplay', () => assistant.toggle());
on('name', () => controller.askName());
on('keep-playing', () => controller.keepPlaying());
on('win-new-game', () => controller.newGame());
on('try-again', () => controller.newGame());
for (const b of doc.querySelectorAll('[data-size]')) b.addEventListener('click', () => controller.chooseSize(Number(b.dataset.size)));
chooser.onChoose((lang) => {
  i18n.use(lang);
  i18n.apply(doc.body, doc);
  hud.languages(i18n.lang);
  controller.rerender();
});
controller.onChange(() => {
  if (controller.game.over) assistant.stop();
});
window.addEventListener('online', () => controller.queue.flush());

i18n.apply(doc.body, doc);
hud.languages(i18n.lang);
controller.init();
window.game2048 = automation(controller);
