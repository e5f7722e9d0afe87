// The entry point's configuration, from the environment (and the argv after `--`), validated once
// at start-up so that a bad setting stops the gateway with a message naming the variable.
import { z } from 'zod';
import { DEFAULT_FIRST_REQUEST_TIMEOUT_MS, DEFAULT_GATEWAY_MAX_SESSIONS, DEFAULT_IDLE_TIMEOUT_MS } from './start-gateway';

const optionalText = z.preprocess((v) => (v === '' ? undefined : v), z.string().trim().min(1).optional());

const integerFrom = (min: number, max: number) =>
  z.preprocess((v) => (v === '' || v === undefined ? undefined : Number(v)), z.number().int().min(min).max(max).optional());

const CommandSchema = z.array(z.string().min(1)).min(1, 'must name a program');

const EnvSchema = z.object({
  GATEWAY_PORT: integerFrom(0, 65535),
  GATEWAY_HOST: optionalText,
  GATEWAY_SOURCE: z.preprocess((v) => (v === '' ? undefined : v), z.enum(['process', 'attach']).optional()),
  GATEWAY_COMMAND: optionalText,
  GATEWAY_IDLE_TIMEOUT_MS: integerFrom(1, 2 ** 31 - 1),
  GATEWAY_FIRST_REQUEST_TIMEOUT_MS: integerFrom(1, 2 ** 31 - 1),
  GATEWAY_MAX_SESSIONS: integerFrom(1, 100_000),
  POD_NAME: optionalText,
  POD_NAMESPACE: optionalText,
  GATEWAY_TARGET_CONTAINER: optionalText,
  // Generated per workload (32 random bytes, base64url: 43 characters); shorter is a mistake.
  GATEWAY_SECRET: z.preprocess((v) => (v === '' ? undefined : v), z.string().min(32, 'must be at least 32 characters').optional()),
});

export type GatewayConfig = {
  host: string;
  port: number;
  idleTimeoutMs: number;
  firstRequestTimeoutMs: number;
  maxSessions: number;
  /** Required of MCP requests (x-connector-gateway-secret); absent: a process gateway open to whoever reaches it. */
  secret?: string;
} & (
  | { source: 'process'; command: string; args: string[] }
  | { source: 'attach'; namespace: string; pod: string; container: string }
);

export class GatewayConfigError extends Error {}

/** `argv` is what follows the script name; a command may follow `--`. */
export function loadGatewayConfig(env: NodeJS.ProcessEnv, argv: string[] = []): GatewayConfig {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${String(issue.path[0])}: ${issue.message}`);
    throw new GatewayConfigError(`invalid gateway configuration: ${problems.join('; ')}`);
  }
  const vars = parsed.data;
  const base = {
    host: vars.GATEWAY_HOST ?? '0.0.0.0',
    port: vars.GATEWAY_PORT ?? 8080,
    idleTimeoutMs: vars.GATEWAY_IDLE_TIMEOUT_MS ?? DEFAULT_IDLE_TIMEOUT_MS,
    firstRequestTimeoutMs: vars.GATEWAY_FIRST_REQUEST_TIMEOUT_MS ?? DEFAULT_FIRST_REQUEST_TIMEOUT_MS,
    maxSessions: vars.GATEWAY_MAX_SESSIONS ?? DEFAULT_GATEWAY_MAX_SESSIONS,
    ...(vars.GATEWAY_SECRET ? { secret: vars.GATEWAY_SECRET } : {}),
  };
  if (vars.GATEWAY_SOURCE === 'attach') {
    // A sidecar listens on the pod network: without its secret any pod could drive the server.
    if (!base.secret) throw new GatewayConfigError('invalid gateway configuration: GATEWAY_SOURCE=attach needs GATEWAY_SECRET');
    return { ...base, source: 'attach', ...attachTarget(vars) };
  }
  const [command, ...args] = processCommand(vars.GATEWAY_COMMAND, argv);
  return { ...base, source: 'process', command: command as string, args };
}

function attachTarget(vars: z.infer<typeof EnvSchema>): { namespace: string; pod: string; container: string } {
  const missing = (['POD_NAME', 'POD_NAMESPACE', 'GATEWAY_TARGET_CONTAINER'] as const).filter((name) => !vars[name]);
  if (missing.length > 0) {
    throw new GatewayConfigError(`invalid gateway configuration: GATEWAY_SOURCE=attach needs ${missing.join(', ')}`);
  }
  return { namespace: vars.POD_NAMESPACE!, pod: vars.POD_NAME!, container: vars.GATEWAY_TARGET_CONTAINER! };
}

function processCommand(fromEnv: string | undefined, argv: string[]): string[] {
  const dashes = argv.indexOf('--');
  const fromArgv = dashes === -1 ? [] : argv.slice(dashes + 1);
  if (fromEnv !== undefined && fromArgv.length > 0) {
    throw new GatewayConfigError('invalid gateway configuration: give the command in GATEWAY_COMMAND or after --, not both');
  }
  if (fromArgv.length > 0) return fromArgv;
  if (fromEnv === undefined) {
    throw new GatewayConfigError('invalid gateway configuration: GATEWAY_COMMAND is required (a JSON array), or the command after --');
  }
  let json: unknown;
  try {
    json = JSON.parse(fromEnv);
  } catch {
    throw new GatewayConfigError('invalid gateway configuration: GATEWAY_COMMAND: must be a JSON array of strings');
  }
  const command = CommandSchema.safeParse(json);
  if (!command.success) {
    throw new GatewayConfigError('invalid gateway configuration: GATEWAY_COMMAND: must be a non-empty JSON array of strings');
  }
  return command.data;
}
