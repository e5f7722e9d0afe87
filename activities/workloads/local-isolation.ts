// Whether the local runtime may start, and how: each stdio server as its own uid, or (where the
// service cannot switch uids) as the service's own. A stdio server is third-party code, often
// with shell or file tools steered by prompts; sharing the service's uid it reads every other
// server's token in /proc/<pid>/environ, the worker's own environment (the encryption key, the
// database URI) and the key file under DATA_DIR. With callers authenticated, several owners
// share the service, so that is refused unless the operator says the machine has one tenant.
import { ConfigError, type UidRange } from '../../config/config';
import type { Logger } from '../../platform/logger';
import type { UidSwitchCheck } from './uid-switching';

export interface LocalIsolationInput {
  uidRange: UidRange;
  singleTenant: boolean;
  callersEnabled: boolean;
  check: UidSwitchCheck;
  logger: Logger;
}

/** The range to give servers their uids from, or null: they run as the service's uid. */
export function localIsolation(input: LocalIsolationInput): UidRange | null {
  const whyNot = input.check(input.uidRange);
  if (whyNot === null) return input.uidRange;
  if (input.callersEnabled && !input.singleTenant) {
    throw new ConfigError(
      `CONNECTOR__STDIO_RUNTIME=local with callers authenticated needs each stdio server isolated as its own uid ` +
      `(CONNECTOR__STDIO_UID_RANGE), but ${whyNot}. Run the service as root or with those capabilities, use ` +
      `CONNECTOR__STDIO_RUNTIME=kubernetes, or set CONNECTOR__STDIO_SINGLE_TENANT=true if every caller may read every ` +
      `local server's secrets and the service's own`,
    );
  }
  // Said once, at start: every workload that follows runs the same way.
  input.logger.warn({ reason: whyNot },
    'local stdio servers run as the service\'s own uid and are not isolated: each can read the others\' tokens and the service\'s secrets');
  return null;
}
