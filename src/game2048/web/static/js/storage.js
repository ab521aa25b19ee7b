// Key-value storage that never throws: values are JSON, anything unreadable
// reads as absent, and when the browser refuses storage (private mode, quota,
// disabled) the values live in memory for this visit.

const PREFIX = 'game2048:';

export class SafeStorage {
  /** `backend` is a Storage (localStorage) or anything with the same methods; null for memory only. */
  constructor(backend) {
    this.backend = backend;
    this.memory = new Map();
  }

  /** localStorage if the browser lets us use it, else null. */
  static browserBackend(win = globalThis) {
    try {
      const s = win.localStorage;
      s.setItem(`${PREFIX}probe`, '1');
      s.removeItem(`${PREFIX}probe`);
      return s;
    } catch {
      return null;
    }
  }

  get(key) {
    let raw = this.memory.get(key);
    if (raw === undefined && this.backend) {
      try {
        raw = this.backend.getItem(PREFIX + key) ?? undefined;
      } catch {
        raw = undefined;
      }
    }
    if (raw === undefined) return undefined;
    try {
      return JSON.parse(raw);
    } catch {
      this.remove(key);
      return undefined;
    }
  }

  set(key, value) {
    const raw = JSON.stringify(value);
    if (this.backend) {
      try {
        this.backend.setItem(PREFIX + key, raw);
        this.memory.delete(key);
        return true;
      } catch {
        // fall through: keep it for this visit at least
      }
    }
    this.memory.set(key, raw);
    return false;
  }

  remove(key) {
    this.memory.delete(key);
    try {
      this.backend?.removeItem(PREFIX + key);
    } catch {
      // nothing to do: the value is gone from memory
    }
  }
}
