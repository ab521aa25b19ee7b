// Finished games waiting to be sent to the server. The queue lives in storage
// before the first attempt, so a score survives a closed tab or a dead
// network; entries leave it only when the server has answered for good.
// Two kinds: the finish of a ranked game ({kind: 'finish', id, token, log,
// helped}: finishing again is safe, the server answers the same) and a
// practice record ({kind: 'record', id, record: {size, seed, log, score, start}}).

const KEY = 'queue';
const RETRY_MS = [2000, 5000, 15000, 60000];

export class SubmissionQueue {
  /**
   * `name()` gives the nickname to send, or null while the player has not
   * chosen one (the queue waits). `done(entry, answer)` hears each result.
   */
  constructor(storage, api, { name, done = () => {}, setTimer = (fn, ms) => setTimeout(fn, ms) } = {}) {
    this.storage = storage;
    this.api = api;
    this.name = name;
    this.done = done;
    this.setTimer = setTimer;
    this.failures = 0;
    this.timer = null;
    this.sending = null;
  }

  get entries() {
    const list = this.storage.get(KEY);
    const sane = (e) => e && typeof e.id === 'string'
      && (e.kind === 'record' ? typeof e.record === 'object' && e.record !== null : typeof e.token === 'string');
    return Array.isArray(list) ? list.filter(sane) : [];
  }

  /** Keep a finish or a practice record and try to send it. */
  add(entry) {
    const list = this.entries.filter((e) => e.id !== entry.id);
    list.push(entry);
    this.storage.set(KEY, list);
    return this.flush();
  }

  /** Send what is waiting; resolves when this round is over (including games added meanwhile). */
  flush() {
    if (this.sending) {
      this.again = true; // an entry added while a round runs is sent before the round ends
      return this.sending;
    }
    this.sending = (async () => {
      let stalled = false;
      do {
        this.again = false;
        stalled = await this.#send();
      } while (this.again && !stalled);
    })().finally(() => { this.sending = null; });
    return this.sending;
  }

  /** One pass over the queue; true if it stopped to retry later. */
  async #send() {
    const name = this.name();
    if (name === null) return true;
    for (const entry of this.entries) {
      let answer;
      try {
        answer = entry.kind === 'record'
          ? await this.api.record({ ...entry.record, name })
          : await this.api.finish(entry.id, { token: entry.token, log: entry.log, name, helped: Boolean(entry.helped) });
      } catch (e) {
        if (e.retryable) {
          this.#retryLater();
          return true;
        }
        answer = { error: e.message, status: e.status };
      }
      this.storage.set(KEY, this.entries.filter((e) => e.id !== entry.id));
      this.failures = 0;
      this.done(entry, answer);
    }
    return false;
  }

  #retryLater() {
    if (this.timer !== null) return;
    const wait = RETRY_MS[Math.min(this.failures, RETRY_MS.length - 1)];
    this.failures += 1;
    this.timer = this.setTimer(() => {
      this.timer = null;
      this.flush();
    }, wait);
  }
}
