// The replay on /games/{id}: the game's own board and tiles, stepped through
// the frames the server embedded (board and score before the first move and
// after each letter of the log).
import { BoardView } from './board_view.js';

const doc = document;
const frames = JSON.parse(doc.getElementById('replay-frames').textContent);
const boardEl = doc.getElementById('replay-board');
const size = Number(boardEl.dataset.size);
const view = new BoardView(boardEl);
const status = doc.getElementById('replay-status');
const playButton = doc.querySelector('[data-step="play"]');
let at = frames.length - 1;
let timer = null;

function draw() {
  view.reset(size, frames[at].b);
  if (status) {
    status.textContent = `${status.dataset.template.replace('{i}', at).replace('{n}', frames.length - 1)}`
      + ` · ${status.dataset.score} ${frames[at].s}`;
  }
}

function go(i) {
  at = Math.max(0, Math.min(frames.length - 1, i));
  draw();
}

function stop() {
  clearInterval(timer);
  timer = null;
  if (playButton) playButton.textContent = playButton.dataset.play;
  status?.setAttribute('aria-live', 'polite');
}

const steps = {
  first: () => go(0),
  back: () => go(at - 1),
  forward: () => go(at + 1),
  last: () => go(frames.length - 1),
};

for (const button of doc.querySelectorAll('[data-step]')) {
  button.addEventListener('click', () => {
    const step = button.dataset.step;
    if (step !== 'play') {
      stop();
      steps[step]();
    } else if (timer) {
      stop();
    } else {
      if (at === frames.length - 1) go(0);
      button.textContent = button.dataset.pause;
      status?.setAttribute('aria-live', 'off'); // no running commentary while it plays
      timer = setInterval(() => (at >= frames.length - 1 ? stop() : go(at + 1)), 150);
    }
  });
}
draw();
