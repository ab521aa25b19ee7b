// The win banner and the game-over overlay over the board, and the two
// questions asked in a <dialog>: confirm a new game, and the nickname.

export class Overlays {
  /** `home()` puts the focus back on the board when an overlay that held it goes away. */
  constructor(doc, translator, { home = () => {} } = {}) {
    this.doc = doc;
    this.i18n = translator;
    this.home = home;
    this.win = doc.getElementById('win');
    this.over = doc.getElementById('over');
  }

  /**
   * Show which overlay fits the game now: 'win', 'over' or none. Game over links the
   * game's review once `recordId` names its public record.
   */
  show(kind, { target = 0, score = 0, recordId = null } = {}) {
    const wasHidden = { win: this.win.hidden, over: this.over.hidden };
    const active = this.doc.activeElement;
    const hadFocus = [this.win, this.over].some((o) => !o.hidden && o.contains(active));
    this.win.hidden = kind !== 'win';
    this.over.hidden = kind !== 'over';
    if (kind === 'win') {
      this.#text('win-title', 'winTitle', { target: String(target) });
      if (wasHidden.win) this.win.querySelector('button').focus();
    } else if (kind === 'over') {
      this.#text('over-text', 'overText', { score });
      this.#reviewLink(recordId);
      if (wasHidden.over) this.over.querySelector('button').focus();
    }
    // a hidden button cannot keep the focus: without this it would fall to the page
    const now = this.doc.activeElement;
    const lost = !now || now === this.doc.body || [this.win, this.over].some((o) => o.hidden && o.contains(now));
    if (hadFocus && lost) this.home();
  }

  #reviewLink(recordId) {
    const link = this.doc.getElementById('over-review');
    if (!link) return;
    link.hidden = !recordId;
    if (recordId) link.setAttribute('href', `/games/${encodeURIComponent(recordId)}/review`);
    else link.removeAttribute('href');
  }

  #text(id, key, vars) {
    const el = this.doc.getElementById(id);
    el.textContent = this.i18n.t(key, vars);
  }
}

export class Dialogs {
  constructor(doc) {
    this.confirmDialog = doc.getElementById('confirm');
    this.confirmText = doc.getElementById('confirm-text');
    this.confirmUsual = this.confirmText?.textContent ?? '';
    this.unrankDialog = doc.getElementById('unrank');
    this.nameDialog = doc.getElementById('nickname');
    this.nameInput = doc.getElementById('nickname-input');
    this.nameHelp = doc.getElementById('nickname-help');
    this.helpText = this.nameHelp?.textContent ?? '';
  }

  get open() {
    return this.confirmDialog.open || this.nameDialog.open || Boolean(this.unrankDialog?.open);
  }

  /** Resolves true if the player confirms a new game; `text` says what it ends, where not the usual. */
  confirm(text = null) {
    if (this.confirmText) this.confirmText.textContent = text ?? this.confirmUsual;
    return this.#ask(this.confirmDialog, () => this.confirmDialog.querySelector('[value="no"]').focus())
      .then((answer) => answer === 'yes');
  }

  /**
   * Before an undo or a hint ends a ranked game's ranking: resolves {go, stop}, go if the
   * player goes ahead, stop if they asked not to be asked again.
   */
  unrank() {
    const stop = this.unrankDialog.querySelector('input[type="checkbox"]');
    stop.checked = false;
    return this.#ask(this.unrankDialog, () => this.unrankDialog.querySelector('[value="no"]').focus())
      .then((answer) => ({ go: answer === 'yes', stop: answer === 'yes' && stop.checked }));
  }

  /**
   * Resolves to the name typed (trimmed, may be ''), null if the player chose to
   * stay anonymous, or undefined if the dialog was dismissed (Esc): no answer.
   * `problem`, if any, says why the last name was refused, in place of the help line
   * (which the input is described by, so a screen reader says it too).
   */
  nickname(current = '', problem = '') {
    this.nameInput.value = current;
    if (this.nameHelp) this.nameHelp.textContent = problem || this.helpText;
    this.nameInput.setAttribute('aria-invalid', problem ? 'true' : 'false');
    return this.#ask(this.nameDialog, () => this.nameInput.select()).then((answer) => {
      if (answer === 'save') return this.nameInput.value.trim();
      return answer === 'skip' ? null : undefined;
    });
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
