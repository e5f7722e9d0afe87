// What the proxy refuses to send before anything leaves: a target the address policy forbids,
// and the connector's token (or its connect's headers) over plain http where it may not travel
// (platform/token-transport.ts).
// A managed route reaches the workload the service itself started, so neither applies to it.
// Only IP literals are judged here: Node skips DNS for them, so the guarded lookup of the
// connection pools (upstream-agents.ts) never sees them; names are judged in that lookup.
import net from 'node:net';
import { refusalReason, type AddressPolicy } from '../platform/address-guard';
import { tokenTransportRefusal } from '../platform/token-transport';
import type { ConnectedRoute } from './route';
import type { UpstreamTarget } from './upstream-target';

export interface TargetRefusal {
  why: string;
  /** Refused by the token rule rather than by the address policy. */
  token: boolean;
}

/** The token, or a connect's headers (an API key): either travels by the token rule. */
export function carriesCredential(route: ConnectedRoute): boolean {
  return route.token !== undefined || route.headers !== undefined;
}

export function targetRefusal(target: UpstreamTarget, route: ConnectedRoute, policy: AddressPolicy): TargetRefusal | null {
  if (route.managed || !net.isIP(target.hostname)) return null;
  const addressWhy = refusalReason(target.hostname, policy);
  if (addressWhy) return { why: addressWhy, token: false };
  const tokenWhy = carriesCredential(route) ? tokenTransportRefusal(target.protocol, target.hostname, policy) : null;
  return tokenWhy ? { why: tokenWhy, token: true } : null;
}

/** targetRefusal, remembered per address and kind of request, since the hot path asks it every time. */
export class TargetPolicy {
  private readonly verdicts = new Map<string, TargetRefusal | null>();

  constructor(private readonly policy: AddressPolicy) {}

  refusal(target: UpstreamTarget, route: ConnectedRoute): TargetRefusal | null {
    if (route.managed) return null;
    const key = `${target.protocol}${carriesCredential(route) ? 'token' : ''} ${target.hostname}`;
    let verdict = this.verdicts.get(key);
    if (verdict === undefined) {
      verdict = targetRefusal(target, route, this.policy);
      if (this.verdicts.size >= 1000) this.verdicts.clear();
      this.verdicts.set(key, verdict);
    }
    return verdict;
  }
}
