// Caller authentication for the bench, as production has it: an API key (CONNECTOR__API_KEYS)
// and an access token from an identity provider (CONNECTOR__AUTH_ISSUER, a JWKS on loopback).
// The load alternates the two credentials request by request.
import { sha256Hex } from '../../callers/api-keys';
import { startJwtIssuer } from '../../test/fixtures/jwt-issuer';

export const BENCH_OWNER = 'bench-team';

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
  const jwt = await issuer.sign({ sub: BENCH_OWNER, aud: baseUrl }, { expiresIn: '2h' });
  return {
    env: {
      BASE_URL: baseUrl,
      CONNECTOR__API_KEYS: JSON.stringify([{ subject: BENCH_OWNER, sha256: sha256Hex(apiKey), admin: false }]),
      CONNECTOR__AUTH_ISSUER: issuer.issuer,
      // The identity provider and the upstreams are on loopback.
      CONNECTOR__BLOCK_PRIVATE_NETWORKS: 'false',
    },
    authorizations: [`Bearer ${apiKey}`, `Bearer ${jwt}`],
    close: () => issuer.close(),
  };
}
