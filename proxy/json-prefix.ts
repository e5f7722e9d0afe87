// A few shallow fields out of JSON text that may be cut off anywhere: the audit keeps only the
// first bytes of a body, and a tools/call with large arguments is cut inside them. A whole text is
// left to JSON.parse; this reads the prefix token by token, picks the wanted strings and numbers
// (paths such as "method" or "params.name", two levels at most), skips everything else without
// building it, and stops quietly where the text ends or stops being JSON.

export type Fields = Map<string, string | number>;

/** whole: the value ended; cut: the text ended inside it; broken: it stopped being JSON. */
export interface Scan {
  fields: Fields;
  outcome: 'whole' | 'cut' | 'broken';
}

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
/** Characters of numbers, true, false and null. */
const isLiteralChar = (c: number) => (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x7a) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x45;
const MAX_DEPTH = 2;

/** The wanted fields of the value at `start` in `text`, as far as the text goes. */
export function scanFields(text: string, wanted: ReadonlySet<string>, start = 0): Scan {
  const fields: Fields = new Map();
  const scanner = new Scanner(text, wanted, fields, start);
  if (scanner.value('', 0)) return { fields, outcome: 'whole' };
  return { fields, outcome: scanner.ranOut ? 'cut' : 'broken' };
}

class Scanner {
  constructor(
    private readonly s: string,
    private readonly wanted: ReadonlySet<string>,
    private readonly found: Fields,
    private i: number,
  ) {}

  get ranOut(): boolean {
    return this.i >= this.s.length;
  }

  /** Reads one value; `path` null: not recorded (too deep, or in an array). False: the text ended or broke. */
  value(path: string | null, depth: number): boolean {
    this.ws();
    const c = this.s.charCodeAt(this.i);
    if (c === 0x7b) return this.object(path, depth);
    if (c === 0x5b) return this.array(depth);
    if (c === 0x22) {
      const text = this.string();
      if (text === undefined) return false;
      if (path && this.wanted.has(path)) this.found.set(path, text);
      return true;
    }
    const start = this.i;
    while (this.i < this.s.length && isLiteralChar(this.s.charCodeAt(this.i))) this.i++;
    if (this.i === start || this.i === this.s.length) return false; // a literal cut off may be incomplete
    const literal = this.s.slice(start, this.i);
    if (path && this.wanted.has(path) && /^-?\d/.test(literal) && Number.isFinite(Number(literal))) this.found.set(path, Number(literal));
    return true;
  }

  private object(path: string | null, depth: number): boolean {
    this.i++;
    for (;;) {
      this.ws();
      if (this.s.charCodeAt(this.i) === 0x7d) return this.step();
      if (this.s.charCodeAt(this.i) !== 0x22) return false;
      const key = this.string();
      if (key === undefined) return false;
      this.ws();
      if (this.s.charCodeAt(this.i) !== 0x3a) return false;
      this.i++;
      const child = path !== null && depth < MAX_DEPTH ? (path ? `${path}.${key}` : key) : null;
      if (!this.value(child, depth + 1)) return false;
      this.ws();
      const next = this.s.charCodeAt(this.i);
      if (next === 0x2c) this.i++;
      else if (next === 0x7d) return this.step();
      else return false;
    }
  }

  private array(depth: number): boolean {
    this.i++;
    for (;;) {
      this.ws();
      if (this.s.charCodeAt(this.i) === 0x5d) return this.step();
      if (!this.value(null, depth + 1)) return false;
      this.ws();
      const next = this.s.charCodeAt(this.i);
      if (next === 0x2c) this.i++;
      else if (next === 0x5d) return this.step();
      else return false;
    }
  }

  /** A string at the cursor, unescaped; undefined when it does not end within the text. */
  private string(): string | undefined {
    const start = ++this.i;
    let escaped = false;
    while (this.i < this.s.length) {
      const c = this.s.charCodeAt(this.i);
      if (c === 0x5c) {
        escaped = true;
        this.i += 2;
        continue;
      }
      if (c === 0x22) {
        const raw = this.s.slice(start, this.i++);
        if (!escaped) return raw;
        try {
          return JSON.parse(`"${raw}"`) as string;
        } catch {
          return undefined;
        }
      }
      this.i++;
    }
    return undefined;
  }

  private step(): true {
    this.i++;
    return true;
  }

  private ws(): void {
    while (this.i < this.s.length && isSpace(this.s.charCodeAt(this.i))) this.i++;
  }
}
