// Finished games waiting to be sent to the server. The queue lives in storage
// before the first attempt, so a score survives a closed tab or a dead
// network; entries leave it only when the server has answered for good.
// Two kinds: the finish of a ranked game ({kind: 'finish', id, token, log,
// helped, abandoned?}: finishing again is safe, the server answers the same) and a
// practice record ({kind: 'record', id, record: {size, seed, log, score, start}}).
// A refusal of the player's name is not an answer for the game: the entry stays
// queued until it is sent under a name the server takes.

const KEY = 'queue';
const RETRY_MS = [2000, 5000, 15000, 60000];

export class SubmissionQueue {
  /**
   * `name()` gives the nickname to send (or a promise of it), or null while the player
   * has no name the server would take (the queue waits). `done(entry, answer)` hears
   * each result; `nameRefused(entry, error)` hears a refusal of the name, after which the
   * queue waits, the entry kept, until it is flushed again.
   */
  constructor(storage, api, {
    name, done = () => {}, nameRefused = () => {}, setTimer = (fn, ms) => setTimeout(fn, ms), keys = null,
  } = {}) {
    this.storage = storage;
    this.api = api;
    this.name = name;
    this.done = done;
    this.nameRefused = nameRefused;
    this.keys = keys; // () => a promise of the NameKeys of this browser
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
      try {
        do {
          this.again = false;
          await this.#send();
        } while (this.again); // asked again while a round ran, even one that stalled: one more pass
      } finally {
        this.sending = null; // at once, so a flush asked from here on starts a round of its own
      }
    })();
    return this.sending;
  }

  /** One pass over the queue; true if it stopped to retry later. */
  async #send() {
    if (this.entries.length === 0) return false; // nothing waits: no name needed
    const name = await this.name();
    if (name === null || name === undefined) return true;
    const keys = this.keys ? await this.keys() : null;
    for (const entry of this.entries) {
      let answer;
      try {
        answer = entry.kind === 'record'
          ? await this.api.record({ ...entry.record, name, name_key: keys?.get(name) ?? null })
          : await this.api.finish(entry.id, {
            token: entry.token, log: entry.log, name, helped: Boolean(entry.helped), abandoned: Boolean(entry.abandoned),
            name_key: keys?.get(name) ?? null,
          });
        if (answer?.name_key) keys?.set(name, answer.name_key);
      } catch (e) {
        if (e.retryable) {
          this.#retryLater();
          return true;
        }
        if (e.nameRefused) {
          this.nameRefused(entry, e);
          return true;
        }
        answer = { ...(e.fields ?? {}), error: e.message, status: e.status, code: e.code };
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
