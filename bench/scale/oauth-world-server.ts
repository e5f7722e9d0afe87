// The authorization server and the MCP server of the OAuth runs, in their own process, as they
// would be in production: sharing the bench's event loop, they answered late whenever the bench
// itself was busy walking consents, and the service took its own worker's lateness for theirs
// (activities/in-task-admission.ts). Spoken to over the IPC channel (oauth-world.ts); exits when
// that channel closes, so it never outlives the bench.
import { startOidcServer, startProtectedMcpServer } from '../../test/helpers/for-bench';
import type { WorldMessage, WorldOrder } from './oauth-world';

const accessTokenTtl = Number(process.env.BENCH_WORLD_TTL_S);
const send = (message: WorldMessage) => process.send?.(message);

/**
 * Each connector's first token under a hold: until `from` plus a share of the renewal period
 * (`spreadS`: a token's life less the service's skew) that spreads evenly whatever the count (the
 * golden ratio's sequence), so that the first refreshes come at the rate of the later ones and
 * the later ones stay evenly spread. No hold: the usual lifetime.
 */
let hold: WorldOrder | null = null;
let issued = 0;
const firstAccessTokenTtl = (): number => {
  if (hold === null) return accessTokenTtl;
  const spread = ((issued++ * 0.6180339887) % 1) * hold.spreadS;
  return Math.max(accessTokenTtl, Math.round((hold.holdFirstTokensUntil - Date.now()) / 1000 + spread));
};

const as = await startOidcServer({ accessTokenTtl, firstAccessTokenTtl, rotateRefreshTokens: true, unboundedStorage: true });
const mcp = await startProtectedMcpServer({ issuer: as.issuer, jwksUri: as.jwksUri });
as.provider.on('grant.error', (_ctx: unknown, err: { error?: string; error_detail?: string }) => {
  send({ refused: `${err.error ?? 'error'}: ${err.error_detail ?? 'no detail'}` });
});
process.on('message', (order: WorldOrder) => { hold = order; });
process.on('disconnect', () => void Promise.all([mcp.close(), as.close()]).finally(() => process.exit(0)));
send({ mcpUrl: mcp.url });
