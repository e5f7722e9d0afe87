// CONNECTOR__UPSTREAM_DPOP: `auto` binds a new grant to a key of its own where the authorization
// server offers ES256 proofs, `off` never does (for MCP servers that take only Bearer tokens behind
// such a server); a server offering no ES256 gets no key either way.
import { randomBytes } from 'node:crypto';
import test from 'ava';
import { OAuthSecrets } from '../../activities/oauth-secrets';
import type { AuthorizationServerMetadata } from '../../activities/oauth/schemas';
import { loadConfig } from '../../config/config';
import { SecretBox } from '../../platform/secret-box';

const box = new SecretBox(randomBytes(32));
const offering = { issuer: 'https://as.example.com', dpop_signing_alg_values_supported: ['ES256', 'PS256'] } as unknown as AuthorizationServerMetadata;
const other = { issuer: 'https://as.example.com', dpop_signing_alg_values_supported: ['PS256'] } as unknown as AuthorizationServerMetadata;

test('auto: a sealed key where ES256 is offered, none elsewhere; off: never a key', (t) => {
  const auto = new OAuthSecrets(box, [], true);
  t.truthy(auto.newDpopKey('c1', offering).dpopKey);
  t.deepEqual(auto.newDpopKey('c1', other), {});
  const off = new OAuthSecrets(box, [], false);
  t.deepEqual(off.newDpopKey('c1', offering), {});
});

test('the variable: auto by default, off when set, anything else refused', (t) => {
  const base = { NODE_ENV: 'test' };
  t.true(loadConfig(base).upstreamDpop);
  t.false(loadConfig({ ...base, CONNECTOR__UPSTREAM_DPOP: 'off' }).upstreamDpop);
  t.throws(() => loadConfig({ ...base, CONNECTOR__UPSTREAM_DPOP: 'sometimes' }));
});
