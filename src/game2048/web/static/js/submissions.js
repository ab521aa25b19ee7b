// Finished games waiting to be sent to the server. The queue lives in storage
// before the first attempt, so a score survives a closed tab or a dead
// network; entries leave it only when the server has answered for good.

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
    return Array.isArray(list) ? list.filter((e) => e && typeof e.id === 'string' && typeof e.token === 'string') : [];
  }

  /** Keep {id, token, log, score, helped} and try to send it. */
  add(entry) {
    const list = this.entries.filter((e) => e.id !== entry.id);
    list.push(entry);
    this.storage.set(KEY, list);
    return this.flush();
  }

  /** Send what is waiting; resolves when this round is over. */
  flush() {
    if (!this.sending) this.sending = this.#send().finally(() => { this.sending = null; });
    return this.sending;
  }

  async #send() {
    const name = this.name();
    if (name === null) return;
    for (const entry of this.entries) {
      let answer;
      try {
        answer = await this.api.finish(entry.id, {
          token: entry.token, log: entry.log, score: entry.score, name, helped: entry.helped,
        });
      } catch (e) {
        if (e.retryable) {
          this.#retryLater();
          return;
        }
        answer = { error: e.message, status: e.status };
      }
      this.storage.set(KEY, this.entries.filter((e) => e.id !== entry.id));
      this.failures = 0;
      this.done(entry, answer);
    }
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
