// Caller authentication for the bench, as production has it: an API key (CONNECTOR__API_KEYS)
// and an access token from an identity provider (CONNECTOR__AUTH_ISSUER, a JWKS on loopback).
// The load alternates the two credentials request by request. Owners are qualified by where they
// come from (key:…, oidc:…), so the routes belong to the key's owner and the token carries the
// admin role: both reach them, each through the ownership check.
import { sha256Hex } from '../../callers/api-keys';
import { startJwtIssuer } from '../../test/helpers/for-bench';

export const BENCH_OWNER = 'key:bench-team';
const BENCH_SUBJECT = 'bench-team';

export interface BenchCallers {
  /** Configuration of the bench proxy (the production variables). */
  env: Record<string, string>;
  /** One Authorization header per credential. */
  authorizations: string[];
  close(): Promise<void>;
}

export async function startBenchCallers(baseUrl: string): Promise<BenchCallers> {
  const issuer = await startJwtIssuer();
  const apiKey = 'bench-api-key-0c9e2f';
  const jwt = await issuer.sign({ sub: BENCH_SUBJECT, aud: baseUrl, roles: ['connector-admin'] }, { expiresIn: '2h' });
  return {
    env: {
      BASE_URL: baseUrl,
      CONNECTOR__API_KEYS: JSON.stringify([{ subject: BENCH_SUBJECT, sha256: sha256Hex(apiKey), admin: false }]),
      // The bench measures the proxy's throughput, not the per-owner rate limit.
      CONNECTOR__RATE_LIMIT_PER_OWNER: 'off',
      CONNECTOR__AUTH_ISSUER: issuer.issuer,
      // The identity provider and the upstreams are on loopback.
      CONNECTOR__BLOCK_PRIVATE_NETWORKS: 'false',
    },
    authorizations: [`Bearer ${apiKey}`, `Bearer ${jwt}`],
    close: () => issuer.close(),
  };
}
