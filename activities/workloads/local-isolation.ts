// Whether the local runtime may start, and how: each stdio server as its own uid in the sandbox
// (sandbox.ts), or less where this machine cannot do that. A stdio server is third-party code,
// often with shell or file tools steered by prompts. Sharing the service's uid it reads every
// other server's token in /proc/<pid>/environ, the worker's own environment (the encryption key,
// the database URI) and the key file under DATA_DIR. Sharing the machine's network it reaches the
// embedded Temporal and FerretDB on loopback, which take no credentials: every owner's connector
// workflows and records. With callers authenticated, several owners share the service, so that
// is refused unless the operator says the machine has one tenant.
import { ConfigError, type UidRange } from '../../config/config';
import type { Logger } from '../../platform/logger';
import type { UidSwitchCheck } from './uid-switching';

export interface LocalIsolationInput {
  uidRange: UidRange;
  singleTenant: boolean;
  callersEnabled: boolean;
  check: UidSwitchCheck;
  /** Whether a server can run in the sandbox as this uid: null, or why not. */
  sandboxCheck: (uid: number) => Promise<string | null>;
  logger: Logger;
}

/** How local servers run: `uidRange` null, as the service's uid; `sandbox`, in namespaces of their own. */
export interface LocalIsolation {
  uidRange: UidRange | null;
  sandbox: boolean;
  /** One sentence for the start-up line: who each server is and what it reaches. */
  summary: string;
}

export async function localIsolation(input: LocalIsolationInput): Promise<LocalIsolation> {
  const noUids = input.check(input.uidRange);
  const noSandbox = noUids === null ? await input.sandboxCheck(input.uidRange.first) : 'it cannot switch uids either';
  if (noUids === null && noSandbox === null) {
    return { uidRange: input.uidRange, sandbox: true, summary: 'each server its own uid in namespaces of its own: no network but its own loopback unless its preset allows egress, read-only but for its /tmp, no new privileges' };
  }
  const why = noUids ?? noSandbox!;
  if (input.callersEnabled && !input.singleTenant) {
    throw new ConfigError(
      'CONNECTOR__STDIO_RUNTIME=local with callers authenticated needs each stdio server isolated: its own uid ' +
      `(CONNECTOR__STDIO_UID_RANGE) and its own network, mount and pid namespaces (bubblewrap), but ${why}. Use the container ` +
      'runtime (CONNECTOR__STDIO_RUNTIME=container, with podman or Docker) or kubernetes, run the service as root with ' +
      'bubblewrap installed, or set CONNECTOR__STDIO_SINGLE_TENANT=true if every caller may read every local server\'s secrets ' +
      'and reach the service\'s own listeners',
    );
  }
  // Said once, at start: every workload that follows runs the same way.
  if (noUids !== null) {
    input.logger.warn({ reason: noUids },
      'local stdio servers run as the service\'s own uid and are not isolated: each can read the others\' tokens and the service\'s secrets, and reach every listener on this machine');
    return { uidRange: null, sandbox: false, summary: 'as the service\'s own uid, on this machine\'s network: not isolated' };
  }
  input.logger.warn({ reason: noSandbox },
    'local stdio servers run as uids of their own but outside the sandbox: they share this machine\'s network and reach every listener on its loopback (the embedded Temporal and FerretDB too)');
  return { uidRange: input.uidRange, sandbox: false, summary: 'each server its own uid, on this machine\'s network: not sandboxed' };
}
