// The win banner and the game-over overlay over the board, and the two
// questions asked in a <dialog>: confirm a new game, and the nickname.

export class Overlays {
  constructor(doc, translator) {
    this.doc = doc;
    this.i18n = translator;
    this.win = doc.getElementById('win');
    this.over = doc.getElementById('over');
  }

  /** Show which overlay fits the game now: 'win', 'over' or none. */
  show(kind, { target = 0, score = 0 } = {}) {
    const wasHidden = { win: this.win.hidden, over: this.over.hidden };
    this.win.hidden = kind !== 'win';
    this.over.hidden = kind !== 'over';
    if (kind === 'win') {
      this.#text('win-title', 'winTitle', { target: String(target) });
      if (wasHidden.win) this.win.querySelector('button').focus();
    } else if (kind === 'over') {
      this.#text('over-text', 'overText', { score });
      if (wasHidden.over) this.over.querySelector('button').focus();
    }
  }

  #text(id, key, vars) {
    const el = this.doc.getElementById(id);
    el.dataset.i18nVars = JSON.stringify(vars);
    el.textContent = this.i18n.t(key, vars);
  }
}

export class Dialogs {
  constructor(doc) {
    this.confirmDialog = doc.getElementById('confirm');
    this.nameDialog = doc.getElementById('nickname');
    this.nameInput = doc.getElementById('nickname-input');
  }

  get open() {
    return this.confirmDialog.open || this.nameDialog.open;
  }

  /** Resolves true if the player confirms a new game. */
  confirm() {
    return this.#ask(this.confirmDialog, () => this.confirmDialog.querySelector('[value="no"]').focus())
      .then((answer) => answer === 'yes');
  }

  /** Resolves to the name typed (trimmed, may be '') or null if the player skipped. */
  nickname(current = '') {
    this.nameInput.value = current;
    return this.#ask(this.nameDialog, () => this.nameInput.select())
      .then((answer) => (answer === 'save' ? this.nameInput.value.trim() : null));
  }

  #ask(dialog, focus) {
    return new Promise((resolve) => {
      dialog.returnValue = '';
      const closed = () => {
        // a close event from an earlier showing may arrive after this one opened
        if (dialog.open) return;
        dialog.removeEventListener('close', closed);
        resolve(dialog.returnValue);
      };
      dialog.addEventListener('close', closed);
      dialog.showModal();
      focus();
    });
  }
}
