// An OAuth connect to a plain-http MCP server where a token may not travel is refused once the
// server asks for authorization, before any authorization server is looked for. The "network"
// here is a function that answers the probe itself: the public address in the URL is never
// contacted, as the test rules require.
import test from 'ava';
import { ApplicationFailure } from '@temporalio/common';
import { createOAuthActivities } from '../../activities/oauth-activities';
import { SecretBox } from '../../platform/secret-box';
import type { OAuthStore } from '../../store/oauth-store';

test('oauthBegin refuses a plain-http public server that asks for authorization (422), asking nothing else', async (t) => {
  const asked: string[] = [];
  const fetch = async (url: string | URL) => {
    asked.push(String(url));
    return new Response('', { status: 401, headers: { 'www-authenticate': 'Bearer scope="mcp"' } });
  };
  const activities = createOAuthActivities({
    http: { fetch, allowInsecureHttp: true },
    secrets: new SecretBox(Buffer.alloc(32, 7)),
    oauthStore: {} as OAuthStore, // never reached: the refusal comes first
    baseUrl: 'http://127.0.0.1:8080',
    authTimeoutSeconds: 600,
    presets: [],
    addressPolicy: { blockPrivateNetworks: false, allowedPrivateNetworks: [] },
  });
  const failure = await t.throwsAsync(activities.oauthBegin({
    connectorId: '0193a0c4-0000-7000-8000-000000000001', url: 'http://203.0.113.7/mcp', given: null, redirectUrl: null, extraScopes: [], boundIssuer: null,
  }));
  t.true(failure instanceof ApplicationFailure);
  t.is((failure as ApplicationFailure).type, 'Unprocessable');
  t.regex(failure?.message ?? '', /token would travel in the clear: a token is not sent over plain http to 203\.0\.113\.7/);
  t.deepEqual(asked, ['http://203.0.113.7/mcp'], 'only the probe, answered in memory; no discovery');
});
