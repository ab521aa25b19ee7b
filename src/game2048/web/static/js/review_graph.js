// The review's evaluation graph: the accuracy along the whole game as a line, each listed mistake
// and blunder as a dot, and the move on the board as a cursor. Drawn here as inline SVG from the
// review's data (a few hundred points at most, whatever the game's length), it is a slider: a
// click or a tap picks the nearest listed move, and the page's keys step it.

const NS = 'http://www.w3.org/2000/svg';
export const GRAPH = Object.freeze({ width: 480, height: 150, pad: 6 });
const BAD = new Set(['mistake', 'blunder']);

/** x of letter n on a graph of a game of `last` letters. */
export function xOf(n, last, { width, pad } = GRAPH) {
  return pad + ((width - 2 * pad) * (last > 1 ? (n - 1) / (last - 1) : 0));
}

/** y of an accuracy 0..100. */
export function yOf(a, { height, pad } = GRAPH) {
  return pad + ((height - 2 * pad) * (100 - a)) / 100;
}

/** The SVG path of the curve {n: [...], a: [...]}. */
export function linePath(curve, last) {
  return curve.n.map((n, i) => `${i ? 'L' : 'M'}${xOf(n, last).toFixed(1)} ${yOf(curve.a[i]).toFixed(1)}`).join('');
}

/** The index of the listed move nearest to letter n. */
export function nearestMove(moves, n) {
  let lo = 0;
  let hi = moves.length - 1;
  while (lo < hi) { // the first move at or after n
    const mid = (lo + hi) >> 1;
    if (moves[mid].n < n) lo = mid + 1;
    else hi = mid;
  }
  if (lo > 0 && Math.abs(moves[lo - 1].n - n) <= Math.abs(moves[lo].n - n)) return lo - 1;
  return lo;
}

export class Graph {
  /** `onPick(i)`: the player chose listed move i on the graph. */
  constructor(doc, figure, data, onPick) {
    Object.assign(this, { doc, data, onPick });
    this.last = Math.max(data.last || 1, 1);
    const el = (name, attrs) => {
      const node = doc.createElementNS(NS, name);
      for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
      return node;
    };
    const { width, height } = GRAPH;
    const svg = el('svg', {
      viewBox: `0 0 ${width} ${height}`, role: 'slider', tabindex: '0', 'aria-label': data.t.graph_label,
      'aria-valuemin': '1', 'aria-valuemax': String(this.last), 'aria-orientation': 'horizontal',
      preserveAspectRatio: 'none', class: 'graph', 'data-testid': 'graph-svg',
    });
    svg.append(el('rect', { x: 0, y: 0, width, height, class: 'graph-bg' }));
    for (const a of [50, 100]) svg.append(el('line', { x1: 0, x2: width, y1: yOf(a), y2: yOf(a), class: 'graph-grid' }));
    svg.append(el('path', { d: linePath(data.curve, this.last), class: 'graph-line' }));
    // one path for all the dots of a class: a few elements, not thousands
    for (const cls of BAD) {
      const d = data.moves.filter((m) => m.class === cls)
        .map((m) => `M${xOf(m.n, this.last).toFixed(1)} ${(height - 10).toFixed(1)}h0`).join('');
      if (d) svg.append(el('path', { d, class: `graph-dots c-${cls}` }));
    }
    this.cursor = el('line', { x1: 0, x2: 0, y1: 0, y2: height, class: 'graph-cursor' });
    svg.append(this.cursor);
    svg.addEventListener('click', (event) => this.#pick(event));
    figure.prepend(svg);
    this.svg = svg;
  }

  #pick(event) {
    const box = this.svg.getBoundingClientRect();
    if (!box.width) return;
    const x = ((event.clientX - box.left) / box.width) * GRAPH.width;
    const span = GRAPH.width - 2 * GRAPH.pad;
    const n = Math.round(1 + ((x - GRAPH.pad) / span) * (this.last - 1));
    this.onPick(nearestMove(this.data.moves, Math.min(Math.max(n, 1), this.last)));
    this.svg.focus();
  }

  /** The move on the board is listed move i. */
  show(i) {
    const { n } = this.data.moves[i];
    const x = xOf(n, this.last).toFixed(1);
    this.cursor.setAttribute('x1', x);
    this.cursor.setAttribute('x2', x);
    this.svg.setAttribute('aria-valuenow', String(n));
    this.svg.setAttribute('aria-valuetext', this.data.t.graph_value.replace('{n}', n));
  }
}
