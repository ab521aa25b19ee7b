// Name keys: the first finish under a name answers a key, and later finishes under that name
// must send it (a name belongs to whoever first used it). Kept here by name; the name dialog
// shows the key as a code, to carry the name to another device by copy and paste, and My games
// (/me) lists them as recovery codes, takes one back from the server, and lets a name go.
const KEY = 'nameKeys';
const SHAPE = /^[0-9a-f]{32}$/;

export class NameKeys {
  constructor(store) {
    this.store = store;
  }

  #all() {
    const saved = this.store.get(KEY);
    return saved && typeof saved === 'object' && !Array.isArray(saved) ? saved : {};
  }

  /** The key kept for `name`, or null. */
  get(name) {
    const key = Object.hasOwn(this.#all(), name) ? this.#all()[name] : null;
    return typeof key === 'string' && SHAPE.test(key) ? key : null;
  }

  /** Keep `key` for `name`; false (nothing kept) if it is not of a key's shape. */
  set(name, key) {
    const clean = NameKeys.code(key);
    if (typeof name !== 'string' || name === '' || clean === null) return false;
    this.store.set(KEY, { ...this.#all(), [name]: clean });
    return true;
  }

  /** Forget the key of `name` (the name was let go, or went free). */
  remove(name) {
    const { [name]: _gone, ...rest } = this.#all();
    this.store.set(KEY, rest);
  }

  /** Every name kept with a key of the right shape, as [name, key], in name order. */
  entries() {
    return Object.keys(this.#all()).sort().map((name) => [name, this.get(name)]).filter(([, key]) => key !== null);
  }

  /** `text` as a key if it is one, written as people copy it (spaces, capitals); else null. */
  static code(text) {
    const clean = typeof text === 'string' ? text.replace(/\s+/g, '').toLowerCase() : '';
    return SHAPE.test(clean) ? clean : null;
  }
}

/**
 * The "Your name key" disclosure in the name dialog: it shows the key of the name in the
 * dialog's field (when this browser has one), and takes a key pasted from another device.
 */
export function nameKeyPanel(doc, keys) {
  const panel = doc.getElementById('name-key');
  const field = doc.getElementById('name-key-input');
  const name = doc.getElementById('nickname-input');
  if (!panel || !field || !name) return;
  const show = () => {
    field.value = keys.get(name.value.trim()) ?? '';
  };
  panel.addEventListener('toggle', show);
  name.addEventListener('input', show);
  doc.getElementById('name-key-use')?.addEventListener('click', () => {
    const ok = keys.set(name.value.trim(), field.value);
    field.setAttribute('aria-invalid', String(!ok));
  });
  if (panel.open) show();
}

let kept = null;

/** This page's NameKeys, its panel wired the first time it is asked for. */
export function keysFor(store, doc) {
  if (kept === null) {
    kept = new NameKeys(store);
    if (doc) nameKeyPanel(doc, kept);
  }
  return kept;
}
