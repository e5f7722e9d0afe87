// One logger for every process. Secret-bearing fields are redacted by name as a second line of
// defence; the first is that code never logs a secret at all.
import pino from 'pino';

const REDACTED_PATHS = [
  'access_token', 'refresh_token', 'client_secret', 'code_verifier', 'token', 'authorization',
  '*.access_token', '*.refresh_token', '*.client_secret', '*.code_verifier', '*.token', '*.authorization',
  'headers.authorization', 'req.headers.authorization', 'req.headers.cookie',
];

export type Logger = pino.Logger;

/** `destination`: a file path to write to instead of standard output (tests scan it for secrets). */
export function createLogger(name: string, level = process.env.LOG_LEVEL ?? 'info', destination?: string): Logger {
  const options = { name, level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } };
  return destination ? pino(options, pino.destination({ dest: destination, sync: true, mkdir: true })) : pino(options);
}
