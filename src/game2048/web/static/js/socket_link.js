// The connection to one ranked game: a WebSocket that holds several requests
// in flight (the server answers a socket's messages in order), reopened when it
// drops, and plain HTTP, one request at a time, if no socket can be opened.

const RECONNECT_MS = [250, 1000, 2000, 5000, 10000];
/** Failed WebSocket openings in a row before the game goes on over plain HTTP. */
const SOCKET_TRIES = 3;

/**
 * `request(message)` resolves with the answer's JSON ({status, error} for a refusal,
 * {status: 0} when the server cannot be reached, at once while the browser knows it is
 * offline). Over the socket answers come in order; when it closes, each request still
 * waiting resolves with {status: 0}. `pipelines`: whether requests may go before the
 * last is answered (a socket; not plain HTTP, where `chain` means nothing).
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
    this.failures = 0;
    this.overHttp = !WebSocketImpl;
  }

  get pipelines() {
    return !this.overHttp;
  }

  request(message) {
    if (!this.online()) return Promise.resolve({ op: message.op, status: 0, error: 'offline', offline: true });
    return new Promise((resolve) => {
      if (this.overHttp) {
        this.#http(message, resolve);
        return;
      }
      const usable = this.socket && this.socket.readyState <= 1; // open, or opening
      const socket = usable ? this.socket : this.#open();
      this.waiting.push({ message, resolve, socket });
      if (socket.readyState === 1) socket.send(JSON.stringify(message));
      // else it goes when the socket opens
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

  #open() {
    let opened = false;
    const socket = new this.WebSocketImpl(this.api.socketUrl(this.id));
    this.socket = socket;
    const mine = () => this.waiting.filter((w) => w.socket === socket);
    socket.onopen = () => {
      opened = true;
      this.failures = 0;
      for (const w of mine()) socket.send(JSON.stringify(w.message));
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
      for (const w of lost) w.resolve({ op: w.message.op, status: 0, error: 'connection lost' });
    };
    return socket;
  }

  async #http(message, resolve) {
    try {
      const { token, at, moves, skip_illegal: skip } = message;
      const answer = message.op === 'state'
        ? await this.api.state(this.id, token)
        : await this.api.moves(this.id, skip ? { token, at, moves, skip_illegal: true } : { token, at, moves });
      resolve({ op: message.op, ...answer });
    } catch (e) {
      resolve({ op: message.op, status: e?.status ?? 0, error: e?.message ?? 'network error', code: e?.code ?? null });
    }
  }
}
