// The board for screen readers: an ARIA grid laid over the drawn board (whose
// tiles are hidden from them), one named cell per square: "row 2, column 3:
// 64". It is the board's focus target too: focus goes there when an overlay
// closes, and it is in the Tab order, so the board can be focused and played.

export class BoardReader {
  constructor(grid, translator) {
    this.grid = grid;
    this.i18n = translator;
    this.doc = grid.ownerDocument;
    this.size = 0;
    this.cells = [];
  }

  update(size, cells) {
    const t = (key, vars) => this.i18n.t(key, vars);
    if (size !== this.size) this.#build(size);
    cells.forEach((v, i) => {
      const text = t('cellLabel', {
        r: Math.floor(i / size) + 1,
        c: (i % size) + 1,
        value: v ? this.i18n.number(v) : t('empty'),
      });
      if (this.cells[i].textContent !== text) this.cells[i].textContent = text;
    });
  }

  /** Put the keyboard focus on the board. */
  focus() {
    this.grid.focus({ preventScroll: true });
  }

  #build(size) {
    this.size = size;
    this.grid.style.setProperty('--n', size);
    this.grid.setAttribute('aria-label', this.i18n.t('boardLabel', { n: size }));
    this.cells = [];
    const rows = [];
    for (let r = 0; r < size; r++) {
      const row = this.doc.createElement('div');
      row.setAttribute('role', 'row');
      for (let c = 0; c < size; c++) {
        const cell = this.doc.createElement('div');
        cell.setAttribute('role', 'gridcell');
        row.append(cell);
        this.cells.push(cell);
      }
      rows.push(row);
    }
    this.grid.replaceChildren(...rows);
  }
}
