// The board for screen readers: a visually hidden table with one cell per
// square, kept in step with the game (the drawn tiles are hidden from them).

export class BoardReader {
  constructor(table, translator) {
    this.table = table;
    this.i18n = translator;
    this.doc = table.ownerDocument;
  }

  update(size, cells) {
    const t = (key, vars) => this.i18n.t(key, vars);
    const caption = this.doc.createElement('caption');
    caption.textContent = t('boardLabel', { n: size });
    const rows = [];
    for (let r = 0; r < size; r++) {
      const tr = this.doc.createElement('tr');
      const th = this.doc.createElement('th');
      th.scope = 'row';
      th.textContent = t('rowLabel', { r: r + 1 });
      tr.append(th);
      for (let c = 0; c < size; c++) {
        const td = this.doc.createElement('td');
        const v = cells[r * size + c];
        td.textContent = v ? this.i18n.number(v) : t('empty');
        tr.append(td);
      }
      rows.push(tr);
    }
    this.table.replaceChildren(caption, ...rows);
  }
}
