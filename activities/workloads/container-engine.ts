// The container engine on this machine, driven through its CLI. podman and Docker share the verbs
// and flags used here. Why the CLI and not the Engine API: podman is daemonless, and its API
// exists only while `podman system service` runs, which nothing here would start or supervise;
// the CLI works the same for both engines with nothing running, and the one long-lived call
// (`run --interactive`) is exactly the stdio pipe the gateway needs. Every call is execFile with
// an argument array: no shell ever sees a preset's or a registry's string.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const exec = promisify(execFile);
const ENGINES = ['podman', 'docker'] as const;
export type EngineProgram = (typeof ENGINES)[number];

/**
 * Where the engine's client finds the engine when that is not its own default: a worker in a
 * container reaches the host's engine through a socket mounted in (CONTAINER_HOST for podman,
 * DOCKER_HOST for Docker). Said as a flag on every call, because the stdio servers' `run` starts
 * with only the server's own environment, and the variable must not reach the server either.
 */
export function engineConnectionArgs(program: EngineProgram, env: NodeJS.ProcessEnv = process.env): string[] {
  const address = program === 'podman' ? env.CONTAINER_HOST : env.DOCKER_HOST;
  if (!address) return [];
  return program === 'podman' ? ['--url', address] : ['--host', address];
}

export class ContainerEngine {
  /** Global flags before every verb: the engine's address, when not the client's default. */
  readonly connectionArgs: readonly string[];

  constructor(readonly program: EngineProgram, private readonly timeoutMs = 30_000, env: NodeJS.ProcessEnv = process.env) {
    this.connectionArgs = engineConnectionArgs(program, env);
  }

  /** The arguments of one call, after the program: the engine's address, then the verb's. */
  argv(args: readonly string[]): string[] {
    return [...this.connectionArgs, ...args];
  }

  async run(args: string[], timeoutMs = this.timeoutMs): Promise<string> {
    const { stdout } = await exec(this.program, this.argv(args), { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 });
    return stdout;
  }

  async imageExists(image: string): Promise<boolean> {
    return (await this.imageId(image)) !== null;
  }

  /** The local image's id, or null when none of that name is on this machine (never asks a registry). */
  async imageId(image: string): Promise<string | null> {
    return this.run(['image', 'inspect', '--format', '{{.Id}}', image]).then((out) => out.trim() || null, () => null);
  }

  /** Pulls an image; the error carries the engine's own words (which registry, which failure). */
  async pull(image: string): Promise<void> {
    try {
      await this.run(['pull', '--quiet', image]);
    } catch (error) {
      throw new Error(engineMessage(error));
    }
  }

  /** Names of the containers carrying every label given (`key=value`), running or not. */
  async containersLabelled(labels: string[]): Promise<Array<{ name: string; labels: Record<string, string> }>> {
    const filters = labels.flatMap((l) => ['--filter', `label=${l}`]);
    const out = await this.run(['ps', '--all', '--no-trunc', ...filters, '--format', '{{json .}}']);
    return parseContainerList(out);
  }

  /** Idempotent: a container that is already gone is fine. */
  async remove(name: string): Promise<void> {
    await this.run(['rm', '--force', '--ignore', name]).catch(async (error: unknown) => {
      // Docker has no --ignore; it answers "No such container" instead.
      if (this.program === 'docker' && /No such container/i.test(engineMessage(error))) return;
      throw error;
    });
  }
}

/** The first engine that answers `version` (a Docker client without a daemon does not). */
export async function detectContainerEngine(programs: readonly EngineProgram[] = ENGINES): Promise<ContainerEngine | null> {
  for (const program of programs) {
    const engine = new ContainerEngine(program);
    const answered = await engine.run(['version', '--format', '{{.Server.Version}}'], 10_000).then((out) => out.trim() !== '', () => false);
    if (answered) return engine;
  }
  return null;
}

/** `ps --format '{{json .}}'`: podman prints one JSON array, Docker one object per line. */
export function parseContainerList(out: string): Array<{ name: string; labels: Record<string, string> }> {
  const text = out.trim();
  if (!text) return [];
  const rows: unknown[] = text.startsWith('[') ? JSON.parse(text) as unknown[] : text.split('\n').map((l) => JSON.parse(l) as unknown);
  return rows.map((row) => {
    const r = row as { Names?: string[] | string; Labels?: Record<string, string> | string | null };
    const name = Array.isArray(r.Names) ? r.Names[0] ?? '' : String(r.Names ?? '');
    return { name, labels: labelsOf(r.Labels) };
  });
}

function labelsOf(labels: Record<string, string> | string | null | undefined): Record<string, string> {
  if (!labels) return {};
  if (typeof labels === 'object') return labels;
  // Docker: "k=v,k2=v2"
  return Object.fromEntries(labels.split(',').filter(Boolean).map((pair) => {
    const eq = pair.indexOf('=');
    return [pair.slice(0, eq), pair.slice(eq + 1)];
  }));
}

export function engineMessage(error: unknown): string {
  const e = error as { stderr?: string; message?: string };
  return (e.stderr?.trim() || e.message || String(error)).split('\n').filter(Boolean).at(-1) ?? 'unknown error';
}
