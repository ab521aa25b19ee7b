// BLAKE2b (RFC 7693), keyed or not, synchronous: what the spawns of a game with
// a secret seed are drawn from (docs/spawns.md). 64-bit words are kept as two
// 32-bit halves (low word first) in Uint32Arrays, so no BigInt in the rounds.
//
// new Blake2b(key, 8).digest(message) is Python's
// hashlib.blake2b(message, key=key, digest_size=8).digest().

const IV = new Uint32Array([
  0xf3bcc908, 0x6a09e667, 0x84caa73b, 0xbb67ae85, 0xfe94f82b, 0x3c6ef372, 0x5f1d36f1, 0xa54ff53a,
  0xade682d1, 0x510e527f, 0x2b3e6c1f, 0x9b05688c, 0xfb41bd6b, 0x1f83d9ab, 0x137e2179, 0x5be0cd19,
]);

const SIGMA = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
  [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
  [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
  [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
  [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
  [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
  [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
  [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
  [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
  [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
];
// Rounds 10 and 11 reuse the first two permutations; indices doubled for halves.
const SCHEDULE = Array.from({ length: 12 }, (_, r) => SIGMA[r % 10].map((i) => 2 * i));

const BLOCK = 128;
const v = new Uint32Array(32);

// v[a] += v[b] + m[x], as 64-bit words at half-indices a, b, x.
function add3(a, b, m, x) {
  const lo = v[a] + v[b] + m[x];
  v[a] = lo;
  v[a + 1] = v[a + 1] + v[b + 1] + m[x + 1] + Math.floor(lo / 0x100000000);
}

function add2(a, b) {
  const lo = v[a] + v[b];
  v[a] = lo;
  v[a + 1] = v[a + 1] + v[b + 1] + (lo >= 0x100000000 ? 1 : 0);
}

// v[d] = (v[d] ^ v[a]) rotated right by 32, 24, 16 and 63 bits in turn.
function mixG(a, b, c, d, m, x, y) {
  add3(a, b, m, x);
  let lo = v[d] ^ v[a];
  let hi = v[d + 1] ^ v[a + 1];
  v[d] = hi;
  v[d + 1] = lo;
  add2(c, d);
  lo = v[b] ^ v[c];
  hi = v[b + 1] ^ v[c + 1];
  v[b] = (lo >>> 24) | (hi << 8);
  v[b + 1] = (hi >>> 24) | (lo << 8);
  add3(a, b, m, y);
  lo = v[d] ^ v[a];
  hi = v[d + 1] ^ v[a + 1];
  v[d] = (lo >>> 16) | (hi << 16);
  v[d + 1] = (hi >>> 16) | (lo << 16);
  add2(c, d);
  lo = v[b] ^ v[c];
  hi = v[b + 1] ^ v[c + 1];
  v[b] = (hi >>> 31) | (lo << 1);
  v[b + 1] = (lo >>> 31) | (hi << 1);
}

// The compression function F: h (16 halves) absorbs block m (32 halves);
// `count` is the number of bytes hashed so far, this block included (< 2^53).
function compress(h, m, count, last) {
  v.set(h, 0);
  v.set(IV, 16);
  v[24] ^= count >>> 0;
  v[25] ^= Math.floor(count / 0x100000000);
  if (last) {
    v[28] = ~v[28];
    v[29] = ~v[29];
  }
  for (const s of SCHEDULE) {
    mixG(0, 8, 16, 24, m, s[0], s[1]);
    mixG(2, 10, 18, 26, m, s[2], s[3]);
    mixG(4, 12, 20, 28, m, s[4], s[5]);
    mixG(6, 14, 22, 30, m, s[6], s[7]);
    mixG(0, 10, 20, 30, m, s[8], s[9]);
    mixG(2, 12, 22, 24, m, s[10], s[11]);
    mixG(4, 14, 16, 26, m, s[12], s[13]);
    mixG(6, 8, 18, 28, m, s[14], s[15]);
  }
  for (let i = 0; i < 16; i++) h[i] ^= v[i] ^ v[i + 16];
}

// Bytes [start, start + 128) of `bytes` (zeros past its end) as 32 little-endian halves.
function words(bytes, start) {
  const m = new Uint32Array(32);
  for (let i = 0; i < BLOCK && start + i < bytes.length; i++) m[i >> 2] |= bytes[start + i] << (8 * (i & 3));
  return m;
}

/**
 * BLAKE2b with a key of 0 to 64 bytes and a digest of 1 to 64 bytes. The key
 * block is absorbed once, so one keyed hasher serves many short messages.
 */
export class Blake2b {
  #outlen;
  #start; // the state before any block
  #keyBlock = null; // the key padded with zeros to one block, if there is a key
  #afterKey = null; // the state once the key block is absorbed, not as the last block

  constructor(key = new Uint8Array(0), outlen = 64) {
    if (!(key instanceof Uint8Array) || key.length > 64) throw new RangeError('a BLAKE2b key is 0 to 64 bytes');
    if (!Number.isInteger(outlen) || outlen < 1 || outlen > 64) throw new RangeError('a BLAKE2b digest is 1 to 64 bytes');
    this.#outlen = outlen;
    this.#start = IV.slice();
    this.#start[0] ^= 0x01010000 ^ (key.length << 8) ^ outlen;
    if (key.length) {
      this.#keyBlock = words(key, 0);
      this.#afterKey = this.#start.slice();
      compress(this.#afterKey, this.#keyBlock, BLOCK, false);
    }
  }

  /** The digest of `message` (a Uint8Array), `outlen` bytes. */
  digest(message) {
    return this.#bytes(this.#absorb(message));
  }

  /** The first 8 bytes of the digest (outlen >= 8) as a little-endian 64-bit BigInt. */
  word(message) {
    const h = this.#absorb(message);
    return (BigInt(h[1]) << 32n) | BigInt(h[0]);
  }

  #absorb(message) {
    let h;
    let count = 0;
    if (this.#keyBlock && !message.length) {
      h = this.#start.slice();
      compress(h, this.#keyBlock, BLOCK, true);
      return h;
    }
    if (this.#keyBlock) {
      h = this.#afterKey.slice();
      count = BLOCK;
    } else {
      h = this.#start.slice();
    }
    let at = 0;
    while (message.length - at > BLOCK) {
      count += BLOCK;
      compress(h, words(message, at), count, false);
      at += BLOCK;
    }
    compress(h, words(message, at), count + message.length - at, true);
    return h;
  }

  #bytes(h) {
    const out = new Uint8Array(this.#outlen);
    for (let i = 0; i < this.#outlen; i++) out[i] = h[i >> 2] >>> (8 * (i & 3));
    return out;
  }
}
