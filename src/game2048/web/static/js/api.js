// The server's JSON API. Every call either resolves with the answer's JSON or
// rejects with an ApiError saying whether trying again later could help.

export class ApiError extends Error {
  /** status 0: the server was not reached; `code`: the answer's word for the reason, `fields`: its figures (refusals.js). */
  constructor(status, message, code = null, fields = {}) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.fields = fields;
  }

  /** The server refused the player's name, not the game: such codes start with `name_`. */
  get nameRefused() {
    return typeof this.code === 'string' && this.code.startsWith('name_');
  }

  /** Worth retrying: network failure, rate limit, or a server fault. */
  get retryable() {
    return this.status === 0 || this.status === 429 || this.status >= 500;
  }

  /** The server refused for good (a retry would get the same answer). */
  get final() {
    return !this.retryable;
  }
}

export class Api {
  constructor({ fetch = globalThis.fetch?.bind(globalThis), base = '', timeoutMs = 4000 } = {}) {
    this.fetch = fetch;
    this.base = base;
    this.timeoutMs = timeoutMs;
  }

  /**
   * POST /api/games: a ranked game dealt by the server, {id, token, size, mode, date, board,
   * score, at, undos_left, over, won}. The seed stays on the server until the finish.
   */
  newGame(size, mode = 'classic', timeoutMs = this.timeoutMs) {
    return this.#post('/api/games', { size, mode }, timeoutMs);
  }

  /** POST /api/games/{id}/moves {token, at, moves}: {at, board, score, over, won, undos_left, ranked}. */
  moves(id, body) {
    return this.#post(`/api/games/${encodeURIComponent(id)}/moves`, body);
  }

  /** POST /api/games/{id}/state {token}: the same fields as moves, and the log. */
  state(id, token) {
    return this.#post(`/api/games/${encodeURIComponent(id)}/state`, { token });
  }

  /** POST /api/games/{id}/finish {token, name, log?, helped?, name_key?}: {verified, ranked, score, rank, seed, name_key, ...}. */
  finish(id, body) {
    return this.#post(`/api/games/${encodeURIComponent(id)}/finish`, body);
  }

  /** POST /api/records {size, seed, log, score, name, start?}: a practice game, {id, verified, ranked, ...}. */
  record(body) {
    return this.#post('/api/records', body);
  }

  /** POST /api/names/recover {code}: {names, name_key}, the names a recovery code (a name key) holds. */
  recoverNames(code) {
    return this.#post('/api/names/recover', { code });
  }

  /** POST /api/names/release {name, name_key}: {name}, now free for anyone. */
  releaseName(name, nameKey) {
    return this.#post('/api/names/release', { name, name_key: nameKey });
  }

  /** The WebSocket address of a game in play (tokens go in its messages, never in this URL). */
  socketUrl(id) {
    const base = this.base || globalThis.location?.origin || '';
    return `${base.replace(/^http/, 'ws')}/api/games/${encodeURIComponent(id)}/play`;
  }

  /** POST /api/hint {size, board, seed?, log?}: {move, scores}. */
  hint(size, board, game = {}) {
    return this.#post('/api/hint', { size, board, ...game }, 15000);
  }

  /** POST /api/games/{id}/hint {token, at}: the same, and the game is helped. */
  gameHint(id, body) {
    return this.#post(`/api/games/${encodeURIComponent(id)}/hint`, body, 15000);
  }

  async #post(path, body, timeoutMs = this.timeoutMs) {
    if (!this.fetch) throw new ApiError(0, 'no network in this environment');
    if (globalThis.navigator?.onLine === false) throw new ApiError(0, 'offline', null, { offline: true });
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), timeoutMs);
    let response;
    try {
      response = await this.fetch(this.base + path, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
        signal: abort.signal,
      });
    } catch (e) {
      throw new ApiError(0, e?.message ?? 'network error');
    } finally {
      clearTimeout(timer);
    }
    let data = null;
    try {
      data = await response.json();
    } catch {
      // not JSON: report by status alone
    }
    if (!response.ok) {
      const { error, code, ...fields } = data && typeof data === 'object' ? data : {};
      throw new ApiError(response.status, error ?? `HTTP ${response.status}`, code ?? null, fields);
    }
    return data;
  }
}
