// Many at once, or one alone: the list index's writes share the gate, and its repair holds it
// alone, so that the repair never counts a view while a change of this process is half done.
// A repair waiting for the gate lets no new change in before it.
export class ExclusiveGate {
  private sharing = 0;
  private aloneRun: Promise<void> | null = null;
  private drained: (() => void) | null = null;

  async share<T>(run: () => Promise<T>): Promise<T> {
    while (this.aloneRun) await this.aloneRun;
    this.sharing += 1;
    try {
      return await run();
    } finally {
      this.sharing -= 1;
      if (this.sharing === 0) this.drained?.();
    }
  }

  async alone<T>(run: () => Promise<T>): Promise<T> {
    while (this.aloneRun) await this.aloneRun;
    let release!: () => void;
    this.aloneRun = new Promise<void>((resolve) => (release = resolve));
    try {
      if (this.sharing > 0) await new Promise<void>((resolve) => (this.drained = resolve));
      this.drained = null;
      return await run();
    } finally {
      this.aloneRun = null;
      release();
    }
  }
}
