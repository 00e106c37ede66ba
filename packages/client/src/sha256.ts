// SHA-256 (FIPS 180-4) fed piece by piece. Web Crypto's digest() takes the whole input at
// once, which would mean holding a whole PDF in memory to check it; this hashes a stream
// as it passes, in constant memory, with no dependency and no Node-only API. It is only
// ever used to compare a download with the hash the API gave for it (integrity, no secret
// involved). Tested against node:crypto on the NIST vectors and on random inputs cut at
// random places.

const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);

export interface Sha256 {
  update(data: Uint8Array): void;
  /** The digest in lower-case hex; the hasher is spent after it. */
  digest(): string;
}

export function createSha256(): Sha256 {
  const h = new Uint32Array([
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
  ]);
  const w = new Int32Array(64);
  const pending = new Uint8Array(64);
  let pendingLength = 0;
  let total = 0;
  let done = false;

  /** Compresses every whole 64-byte block of data[offset, end). */
  function blocks(data: Uint8Array, offset: number, end: number): void {
    let h0 = h[0] as number;
    let h1 = h[1] as number;
    let h2 = h[2] as number;
    let h3 = h[3] as number;
    let h4 = h[4] as number;
    let h5 = h[5] as number;
    let h6 = h[6] as number;
    let h7 = h[7] as number;
    for (let p = offset; p + 64 <= end; p += 64) {
      for (let i = 0; i < 16; i++) {
        const j = p + i * 4;
        w[i] =
          ((data[j] as number) << 24) |
          ((data[j + 1] as number) << 16) |
          ((data[j + 2] as number) << 8) |
          (data[j + 3] as number);
      }
      for (let i = 16; i < 64; i++) {
        const a = w[i - 15] as number;
        const b = w[i - 2] as number;
        const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
        const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
        w[i] = ((w[i - 16] as number) + s0 + (w[i - 7] as number) + s1) | 0;
      }
      let a = h0;
      let b = h1;
      let c = h2;
      let d = h3;
      let e = h4;
      let f = h5;
      let g = h6;
      let hh = h7;
      for (let i = 0; i < 64; i++) {
        const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
        const ch = (e & f) ^ (~e & g);
        const t1 = (hh + S1 + ch + (K[i] as number) + (w[i] as number)) | 0;
        const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
        const maj = (a & b) ^ (a & c) ^ (b & c);
        const t2 = (S0 + maj) | 0;
        hh = g;
        g = f;
        f = e;
        e = (d + t1) | 0;
        d = c;
        c = b;
        b = a;
        a = (t1 + t2) | 0;
      }
      h0 = (h0 + a) | 0;
      h1 = (h1 + b) | 0;
      h2 = (h2 + c) | 0;
      h3 = (h3 + d) | 0;
      h4 = (h4 + e) | 0;
      h5 = (h5 + f) | 0;
      h6 = (h6 + g) | 0;
      h7 = (h7 + hh) | 0;
    }
    h.set([h0, h1, h2, h3, h4, h5, h6, h7]);
  }

  return {
    update(data) {
      if (done) throw new Error('sha256: update after digest');
      total += data.length;
      let offset = 0;
      if (pendingLength > 0) {
        const take = Math.min(64 - pendingLength, data.length);
        pending.set(data.subarray(0, take), pendingLength);
        pendingLength += take;
        offset = take;
        if (pendingLength < 64) return;
        blocks(pending, 0, 64);
        pendingLength = 0;
      }
      const whole = offset + Math.floor((data.length - offset) / 64) * 64;
      blocks(data, offset, whole);
      pending.set(data.subarray(whole), 0);
      pendingLength = data.length - whole;
    },
    digest() {
      if (done) throw new Error('sha256: digest twice');
      done = true;
      // Padding: 0x80, zeros up to 56 mod 64, then the length in bits as 64-bit big-endian.
      const tail = new Uint8Array(pendingLength < 56 ? 64 : 128);
      tail.set(pending.subarray(0, pendingLength), 0);
      tail[pendingLength] = 0x80;
      const view = new DataView(tail.buffer);
      view.setUint32(tail.length - 8, Math.floor(total / 0x20000000));
      view.setUint32(tail.length - 4, (total % 0x20000000) * 8);
      blocks(tail, 0, tail.length);
      let hex = '';
      for (const word of h) hex += word.toString(16).padStart(8, '0');
      return hex;
    },
  };
}
