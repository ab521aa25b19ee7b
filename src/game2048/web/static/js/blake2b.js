// BLAKE2b (RFC 7693), synchronous, for the spawns of secret seeds (docs/spawns.md).
// A 64-bit word is two 32-bit halves, low first: no BigInt in the rounds.

const IV = new Uint32Array([
  0xf3bcc908, 0x6a09e667, 0x84caa73b, 0xbb67ae85, 0xfe94f82b, 0x3c6ef372, 0x5f1d36f1, 0xa54ff53a,
  0xade682d1, 0x510e527f, 0x2b3e6c1f, 0x9b05688c, 0xfb41bd6b, 0x1f83d9ab, 0x137e2179, 0x5be0cd19,
]);
// rounds 0-9, a hex digit a word; 10 and 11 repeat 0 and 1
const SIGMA = '0123456789abcdef ea489fd61c02b753 b8c052fdae367194 7931dcbe265a40f8 905724afe1bc683d '
  + '2c6a0b834d75fe19 c51fed4a0763928b db7ec13950f4862a 6fe9b308c2d714a5 a2847615fb9e3cd0';
const ROUNDS = SIGMA.split(' ').map((r) => [...r].map((d) => 2 * parseInt(d, 16)));
ROUNDS.push(ROUNDS[0], ROUNDS[1]);
const BLOCK = 128;
const v = new Uint32Array(32);

// v[a] += 2^32 hi + lo, mod 2^64
function add(a, lo, hi) {
  const sum = v[a] + lo;
  v[a] = sum;
  v[a + 1] += hi + (sum > 0xffffffff ? 1 : 0);
}

// v[d] = rotr64(v[d] ^ v[a], n), 0 < n < 32
function xorRot(d, a, n) {
  const lo = v[d] ^ v[a];
  const hi = v[d + 1] ^ v[a + 1];
  v[d] = (lo >>> n) | (hi << (32 - n));
  v[d + 1] = (hi >>> n) | (lo << (32 - n));
}

// G on words a, b, c, d (half indices) with message words x, y
function mix(a, b, c, d, m, x, y) {
  add(a, v[b], v[b + 1]);
  add(a, m[x], m[x + 1]);
  const d0 = v[d] ^ v[a];
  v[d] = v[d + 1] ^ v[a + 1]; // rotation by 32 swaps the halves
  v[d + 1] = d0;
  add(c, v[d], v[d + 1]);
  xorRot(b, c, 24);
  add(a, v[b], v[b + 1]);
  add(a, m[y], m[y + 1]);
  xorRot(d, a, 16);
  add(c, v[d], v[d + 1]);
  const lo = v[b] ^ v[c];
  const hi = v[b + 1] ^ v[c + 1];
  v[b] = (hi >>> 31) | (lo << 1); // rotation by 63: by 31, the halves swapped
  v[b + 1] = (lo >>> 31) | (hi << 1);
}

// F: state h absorbs block m; `count` bytes hashed so far, this block included
function compress(h, m, count, last) {
  v.set(h);
  v.set(IV, 16);
  v[24] ^= count;
  v[25] ^= count / 0x100000000;
  if (last) {
    v[28] = ~v[28];
    v[29] = ~v[29];
  }
  for (const s of ROUNDS) {
    mix(0, 8, 16, 24, m, s[0], s[1]);
    mix(2, 10, 18, 26, m, s[2], s[3]);
    mix(4, 12, 20, 28, m, s[4], s[5]);
    mix(6, 14, 22, 30, m, s[6], s[7]);
    mix(0, 10, 20, 30, m, s[8], s[9]);
    mix(2, 12, 22, 24, m, s[10], s[11]);
    mix(4, 14, 16, 26, m, s[12], s[13]);
    mix(6, 8, 18, 28, m, s[14], s[15]);
  }
  for (let i = 0; i < 16; i++) h[i] ^= v[i] ^ v[i + 16];
}

// bytes[at, at + 128) as 32 halves, little-endian, zeros past the end
function block(bytes, at) {
  const m = new Uint32Array(32);
  for (let i = 0; i < BLOCK && at + i < bytes.length; i++) m[i >> 2] |= bytes[at + i] << (8 * (i & 3));
  return m;
}

/**
 * BLAKE2b with a key of 0 to 64 bytes and a digest of 1 to 64 (the key block
 * absorbed once). word(m) is the digest's first 8 bytes, little-endian: for
 * new Blake2b(key, 8), Python's hashlib.blake2b(m, key=key, digest_size=8).
 */
export class Blake2b {
  #start; // the state before any block
  #key = null; // the key block
  #keyed; // the state after the key block (not the last)

  constructor(key = new Uint8Array(0), outlen = 64) {
    if (!(key instanceof Uint8Array) || key.length > 64 || !(outlen >= 1 && outlen <= 64 && outlen % 1 === 0)) {
      throw new RangeError('BLAKE2b takes a key of 0 to 64 bytes and a digest of 1 to 64');
    }
    this.#start = IV.slice();
    this.#start[0] ^= 0x01010000 ^ (key.length << 8) ^ outlen;
    this.#keyed = this.#start;
    if (key.length) {
      this.#key = block(key, 0);
      this.#keyed = this.#start.slice();
      compress(this.#keyed, this.#key, BLOCK, false);
    }
  }

  /** The first 8 bytes of the digest of `message` (a Uint8Array) as a BigInt. */
  word(message) {
    const h = this.#absorb(message);
    return (BigInt(h[1]) << 32n) | BigInt(h[0]);
  }

  #absorb(message) {
    if (this.#key && !message.length) {
      const h = this.#start.slice();
      compress(h, this.#key, BLOCK, true);
      return h;
    }
    const h = this.#keyed.slice();
    let count = this.#key ? BLOCK : 0;
    let at = 0;
    for (; message.length - at > BLOCK; at += BLOCK) compress(h, block(message, at), (count += BLOCK), false);
    compress(h, block(message, at), count + message.length - at, true);
    return h;
  }
}
