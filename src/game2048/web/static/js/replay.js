// The step-by-step replay on a finished game's page (/games/{id}). The frames
// come in the page as a JSON data block; this file draws them and runs the
// buttons (a file of its own: the site's Content-Security-Policy runs no inline script).
const frames = JSON.parse(document.getElementById("replay-frames").textContent);
const board = document.getElementById("replay-board");
const status = document.getElementById("replay-status");
const target = Number(board.dataset.target);
let at = frames.length - 1;
let timer = null;

function draw() {
  board.replaceChildren(...frames[at].b.map((v) => {
    const cell = document.createElement("div");
    if (v) { cell.textContent = v; cell.className = v >= target ? "hi" : "t"; }
    return cell;
  }));
  if (status) {
    status.textContent = status.dataset.template.replace("{i}", at).replace("{n}", frames.length - 1)
      + " · " + status.dataset.score + " " + frames[at].s;
  }
}

function go(i) { at = Math.max(0, Math.min(frames.length - 1, i)); draw(); }

function stop(button) {
  clearInterval(timer);
  timer = null;
  if (button) button.textContent = button.dataset.play;
  if (status) status.setAttribute("aria-live", "polite");
}

document.querySelectorAll("[data-step]").forEach((button) => button.addEventListener("click", () => {
  const step = button.dataset.step;
  if (step !== "play") stop(document.querySelector('[data-step="play"]'));
  if (step === "first") go(0);
  else if (step === "back") go(at - 1);
  else if (step === "forward") go(at + 1);
  else if (step === "last") go(frames.length - 1);
  else if (timer) stop(button);
  else {
    if (at === frames.length - 1) go(0);
    button.textContent = button.dataset.pause;
    if (status) status.setAttribute("aria-live", "off"); // no running commentary while it plays
    timer = setInterval(() => { if (at >= frames.length - 1) stop(button); else go(at + 1); }, 150);
  }
}));
draw();
