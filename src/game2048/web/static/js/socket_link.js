// The connection to one ranked game: a WebSocket that holds several requests in
// flight, reopened when it drops; while it opens, plain HTTP, one request at a
// time (a first key waits one round trip, not two); plain HTTP for good if no
// socket can be opened.

const RECONNECT_MS = [250, 1000, 2000, 5000, 10000];
/** Failed WebSocket openings in a row before the game goes on over plain HTTP. */
const SOCKET_TRIES = 3;

/** What the server answers a chained moves message whose chain broke (socket.py). */
const chainBroken = () => ({
  op: 'moves', status: 409, code: 'chain_broken', error: 'an earlier moves message of this chain was not played',
});

/**
 * `request(message)` resolves with the answer's JSON ({status, error} for a refusal,
 * {status: 0} when the server cannot be reached, at once while the browser knows it is
 * offline), in the order asked; when a socket closes, each request it held hears status 0.
 * A chained moves message after one sent over HTTP takes the `at` its answer gave, or is
 * refused here as the server would (409 chain_broken). `pipelines`: whether to chain.
 */
export class SocketLink {
  constructor(api, id, {
    WebSocketImpl = globalThis.WebSocket,
    setTimer = (fn, ms) => setTimeout(fn, ms),
    online = () => globalThis.navigator?.onLine !== false,
  } = {}) {
    Object.assign(this, { api, id, WebSocketImpl, setTimer, online });
    this.socket = null;
    this.waiting = []; // {message, resolve, socket}: in the order sent, each on the socket that carries it
    this.queue = []; // {message, resolve}: not sent yet (an HTTP request is ahead of them)
    this.httpBusy = false;
    // after a moves message over HTTP: {at} it answered, or {broken}; null: the socket's chain
    this.chainFrom = null;
    this.token = null; // the game's token, for the socket's first message
    this.failures = 0;
    this.overHttp = !WebSocketImpl;
  }

  get pipelines() {
    return !this.overHttp;
  }

  request(message) {
    if (!this.online()) return Promise.resolve({ op: message.op, status: 0, error: 'offline', offline: true });
    if (message.token) this.token = message.token;
    return new Promise((resolve) => {
      this.queue.push({ message, resolve });
      this.#pump();
    });
  }

  /** Run `fn` after the current back-off delay. */
  later(fn) {
    this.setTimer(fn, RECONNECT_MS[Math.min(this.failures, RECONNECT_MS.length - 1)]);
    this.failures += 1;
  }

  close() {
    this.socket?.close();
    this.socket = null;
  }

  /** Send what the queue holds, in order: on an open socket, else one at a time over HTTP. */
  #pump() {
    while (this.queue.length && !this.httpBusy) {
      let socket = null;
      if (!this.overHttp) {
        const usable = this.socket && this.socket.readyState <= 1; // open, or opening
        socket = usable ? this.socket : this.#open();
      }
      const { message, resolve } = this.queue.shift();
      const open = socket?.readyState === 1;
      const sent = this.#chained(message, open);
      if (!sent) resolve(chainBroken());
      else if (open) {
        this.waiting.push({ message: sent, resolve, socket });
        socket.send(JSON.stringify(sent));
      } else {
        this.#http(sent, resolve);
      }
    }
  }

  /** The message as it goes, or null for a chained one whose chain broke. */
  #chained(message, onSocket) {
    if (message.op !== 'moves') return message;
    const from = this.chainFrom;
    let sent = message;
    if (message.chain && (from || !onSocket)) {
      if (!from || from.broken) return null; // until a message with its own `at`
      const { chain, ...rest } = message;
      sent = { ...rest, at: from.at };
    }
    if (onSocket) this.chainFrom = null; // the socket carries the chain from here
    return sent;
  }

  #open() {
    let opened = false;
    const socket = new this.WebSocketImpl(this.api.socketUrl(this.id));
    this.socket = socket;
    const mine = () => this.waiting.filter((w) => w.socket === socket);
    socket.onopen = () => {
      opened = true;
      this.failures = 0;
      this.#pump();
      // nothing to send (it went over HTTP): the token now, or the server closes the socket
      if (!mine().length && this.token) {
        this.waiting.push({ message: null, resolve: () => {}, socket });
        socket.send(JSON.stringify({ op: 'state', token: this.token }));
      }
    };
    socket.onmessage = (e) => {
      const answered = mine()[0];
      if (!answered) return;
      this.waiting.splice(this.waiting.indexOf(answered), 1);
      let answer;
      try {
        answer = JSON.parse(e.data);
      } catch {
        answer = { status: 0, error: 'unreadable answer' };
      }
      answered.resolve(answer);
    };
    socket.onclose = () => {
      if (this.socket === socket) this.socket = null;
      if (!opened && ++this.failures >= SOCKET_TRIES) this.overHttp = true;
      const lost = mine();
      this.waiting = this.waiting.filter((w) => w.socket !== socket);
      // in order: the dealer works out from the game's state which of them were played
      for (const w of lost) w.resolve({ op: w.message?.op, status: 0, error: 'connection lost' });
    };
    return socket;
  }

  async #http(message, resolve) {
    this.httpBusy = true;
    let answer;
    try {
      const { token, at, moves, skip_illegal: skip } = message;
      answer = message.op === 'state'
        ? await this.api.state(this.id, token)
        : await this.api.moves(this.id, skip ? { token, at, moves, skip_illegal: true } : { token, at, moves });
      answer = { op: message.op, ...answer };
    } catch (e) {
      answer = { op: message.op, status: e?.status ?? 0, error: e?.message ?? 'network error', code: e?.code ?? null };
    }
    if (message.op === 'moves') {
      this.chainFrom = answer.error === undefined && Number.isInteger(answer.at) ? { at: answer.at } : { broken: true };
    }
    this.httpBusy = false;
    resolve(answer);
    this.#pump();
  }
}
