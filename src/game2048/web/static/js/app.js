// Wires the pieces together; each is handed what it needs.
import { Api } from './api.js';
import { Announcer } from './announcer.js';
import { Assistant } from './assistant.js';
import { automation } from './automation.js';
import { BoardReader } from './board_reader.js';
import { BoardView } from './board_view.js';
import { GameController } from './controller.js';
import { Translator, embeddedPack } from './i18n.js';
import { Hud } from './hud.js';
import { Input } from './input.js';
import { Dialogs, Overlays } from './overlays.js';
import { SafeStorage } from './storage.js';
import { SubmissionQueue } from './submissions.js';
import { LocalDealer } from './local_dealer.js';
import { MyGames } from './my_games.js';
import { ServerDealer } from './server_dealer.js';
import { SocketLink } from './socket_link.js';
import { randomSeed } from './engine.js';

const doc = document;
const store = new SafeStorage(SafeStorage.browserBackend(window));
// the server rendered the page in the player's language and embedded its strings
const i18n = new Translator(embeddedPack(doc));
const motion = window.matchMedia('(prefers-reduced-motion: reduce)');
const board = doc.querySelector('[data-testid="board"]');
const api = new Api();
const announcer = new Announcer(doc.getElementById('announcer'), i18n);
const hud = new Hud(doc, i18n, { onRankLost: () => announcer.note(i18n.t('sayUnranked')) });
const dialogs = new Dialogs(doc);
const reader = new BoardReader(doc.getElementById('board-reader'), i18n);
// the keys of the names this browser holds: loaded when a finish is sent or the name dialog opens
const nameKeys = () => import('./name_keys.js').then((m) => m.keysFor(store, doc));
// Who deals the tiles: the server for ranked games (over a WebSocket), this page for practice.
const link = (id) => new SocketLink(api, id);
const deal = {
  ranked: (size, mode) => api.newGame(size, mode).then((issued) => ServerDealer.fromIssued(issued, link)),
  practice: (size, seed) => LocalDealer.opening(size, seed),
  position: (board, score) => LocalDealer.position(board, score, randomSeed()),
  link,
};
const controller = new GameController({
  store, api, i18n, hud, dialogs, reader, announcer, deal, history: new MyGames(store),
  view: new BoardView(board, { reducedMotion: () => motion.matches }),
  overlays: new Overlays(doc, i18n, { home: () => reader.focus() }),
  queue: new SubmissionQueue(store, api, {
    name: () => controller.nameToSend(),
    done: (entry, answer) => controller.submitted(entry, answer),
    nameRefused: (entry, error) => controller.nameRefused(entry, error),
    keys: nameKeys,
  }),
});
const assistant = new Assistant({ api, controller, hud, i18n, announcer: controller.announcer });

new Input(doc, board, {
  move: (d) => controller.move(d),
  newGame: () => controller.requestNewGame(),
  anyKey: () => assistant.stop(),
}, { dialogOpen: () => dialogs.open });

const on = (id, fn) => doc.getElementById(id).addEventListener('click', fn);
// ending a game in progress asks first, as R does
on('new-game', () => controller.requestNewGame());
// the first undo, hint or autoplay of a ranked game asks before it ends the ranking
on('undo', () => controller.requestUndo());
on('daily', () => controller.requestNewGame({ mode: 'daily' }));
on('hint', async () => (await controller.mayUnrank()) && assistant.hint());
on('autoplay', async () => (assistant.running || (await controller.mayUnrank())) && assistant.toggle());
on('name', () => controller.askName());
doc.getElementById('name-key').addEventListener('toggle', nameKeys, { once: true });
on('keep-playing', () => controller.keepPlaying());
on('win-new-game', () => controller.newGame());
on('try-again', () => controller.newGame());
for (const b of doc.querySelectorAll('[data-size]')) b.addEventListener('click', () => controller.chooseSize(Number(b.dataset.size)));
controller.onChange(() => {
  if (controller.game.over) assistant.stop();
});
window.addEventListener('online', () => controller.queue.flush());

controller.init();
window.game2048 = automation(controller);
performance.mark('game2048:ready'); // the first move is possible from here (bench/lighthouse.py reads it)
// The service worker keeps this release's files for playing offline next time. Installing it
// busies the page for a moment (on a slow phone, long enough to delay its first answers), so it
// waits for the player's first key, tap or click, or ten seconds after the page has loaded.
let worker = null;
const installWorker = () => {
  worker ??= import('./offline.js').then((m) => m.registerWorker(navigator));
};
for (const type of ['keydown', 'pointerdown']) doc.addEventListener(type, installWorker, { once: true, passive: true });
window.addEventListener('load', () => setTimeout(installWorker, 10_000));
