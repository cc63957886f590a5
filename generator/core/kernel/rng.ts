/**
 * Seeded, platform-independent PRNG (sfc32 seeded through splitmix32 from a string),
 * so that every "random" choice in a build is reproducible byte for byte.
 */
function splitmix32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
}

/** FNV-1a over UTF-16 code units: stable string → 32-bit seed. */
export function hashSeed(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;
  readonly seed: string;

  constructor(seed: string | number) {
    this.seed = String(seed);
    const sm = splitmix32(hashSeed(this.seed));
    this.a = sm();
    this.b = sm();
    this.c = sm();
    this.d = sm();
    for (let i = 0; i < 12; i++) this.nextUint32();
  }

  /** An independent stream derived from this seed and a label (order-independent). */
  fork(label: string): Rng {
    return new Rng(`${this.seed}/${label}`);
  }

  nextUint32(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = ((this.c << 21) | (this.c >>> 11)) >>> 0;
    this.c = (this.c + t) >>> 0;
    return t;
  }

  /**
   * The next `out.length` values of `nextUint32`, in order, with the state in locals: a hot loop
   * drawing millions (the sign-flip test's fixed stream) runs several times faster than calls.
   */
  fillUint32(out: Uint32Array): Uint32Array {
    let a = this.a;
    let b = this.b;
    let c = this.c;
    let d = this.d;
    for (let i = 0; i < out.length; i++) {
      const t = (((a + b) >>> 0) + d) >>> 0;
      d = (d + 1) >>> 0;
      a = b ^ (b >>> 9);
      b = (c + (c << 3)) >>> 0;
      c = ((c << 21) | (c >>> 11)) >>> 0;
      c = (c + t) >>> 0;
      out[i] = t;
    }
    this.a = a;
    this.b = b;
    this.c = c;
    this.d = d;
    return out;
  }

  /**
   * Draws `n` values of `nextUint32` and writes, from `masks[offset]` on, bit i (of byte i >> 3)
   * set exactly when draw i is ≥ 2³¹ (a uniform ≥ 0.5): the sign-flip test's fixed stream
   * without storing the draws. In int32 arithmetic (the same bits as the uint32 steps above: a
   * value ≥ 2³¹ is negative), which V8 keeps in registers.
   */
  fillSignBits(masks: Uint8Array, offset: number, n: number): void {
    let a = this.a | 0;
    let b = this.b | 0;
    let c = this.c | 0;
    let d = this.d | 0;
    for (let i0 = 0; i0 < n; i0 += 8) {
      let byte = 0;
      const end = Math.min(8, n - i0);
      for (let j = 0; j < end; j++) {
        const t = (a + b + d) | 0;
        d = (d + 1) | 0;
        a = b ^ (b >>> 9);
        b = (c + (c << 3)) | 0;
        c = (c << 21) | (c >>> 11);
        c = (c + t) | 0;
        if (t < 0) byte |= 1 << j;
      }
      masks[offset + (i0 >> 3)] = byte;
    }
    this.a = a >>> 0;
    this.b = b >>> 0;
    this.c = c >>> 0;
    this.d = d >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.nextUint32() / 4294967296;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    if (!(n > 0)) throw new RangeError('Rng.int needs n > 0');
    return Math.floor(this.next() * n);
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('Rng.pick on empty list');
    return items[this.int(items.length)] as T;
  }

  /** Fisher–Yates on a copy. */
  shuffle<T>(items: readonly T[]): T[] {
    const out = items.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      const tmp = out[i] as T;
      out[i] = out[j] as T;
      out[j] = tmp;
    }
    return out;
  }

  /** Standard normal via Box–Muller. */
  normal(): number {
    let u = 0;
    while (u === 0) u = this.next();
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** k distinct indices from [0, n), in drawn order. */
  sampleIndices(n: number, k: number): number[] {
    return this.shuffle(Array.from({ length: n }, (_, i) => i)).slice(0, Math.min(k, n));
  }
}
