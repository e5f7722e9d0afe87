// A seeded PRNG (mulberry32) and the few draws the hostile-input generators need. Seeded, so
// that a failing request can be produced again from its seed and index.

export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)]!;
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  bytes(length: number): Buffer {
    const out = Buffer.alloc(length);
    for (let i = 0; i < length; i++) out[i] = this.int(0, 255);
    return out;
  }

  /** `length` characters drawn from `alphabet` (an array, so that astral characters stay whole). */
  string(length: number, alphabet: readonly string[]): string {
    let out = '';
    for (let i = 0; i < length; i++) out += this.pick(alphabet);
    return out;
  }

  /** A syntactically valid UUID v4 that no connector has (ids are random v4 too, so a clash is negligible). */
  uuid(): string {
    const hex = this.bytes(16).toString('hex').split('');
    hex[12] = '4';
    hex[16] = this.pick(['8', '9', 'a', 'b']);
    const h = hex.join('');
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }
}

export const ASCII_PRINTABLE = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i));
/** Mixed widths in UTF-8 (1 to 4 bytes) and in UTF-16 (astral characters take two units). */
export const MIXED_TEXT = [...'abcxyzABC019 -_.~', 'é', 'ß', 'ж', '中', '文', '😀', '🜁', '\u200b', '\u202e', '\ufeff'];
