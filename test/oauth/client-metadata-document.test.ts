// Client ID Metadata Documents end to end: oidc-provider (draft-02 support) fetches the document
// the service would serve and completes the flow with its URL as client_id, no registration.
import test from 'ava';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startOidcServer, type OidcServer } from '../fixtures/oauth/oidc-server';
import { startProtectedMcpServer, type ProtectedMcpServer } from '../fixtures/oauth/protected-mcp-server';
import { resolveClientIdentity } from '../../activities/oauth/client-identity';
import { buildClientMetadataDocument, clientMetadataDocumentUrl, oauthCallbackUrl } from '../../contract/oauth-client-metadata';
import { authorize, discover, REDIRECT_URI, testHttp } from './flow';

const fetcher = testHttp();
let as: OidcServer;
let mcp: ProtectedMcpServer;

test.before(async () => {
  as = await startOidcServer();
  mcp = await startProtectedMcpServer({ issuer: as.issuer, jwksUri: as.jwksUri });
});

test.after.always(async () => {
  await mcp?.close();
  await as?.close();
  await fetcher.close();
});

test('a client ID metadata document: the server fetches it and the flow completes without registration', async (t) => {
  // The client_id must be an https URL; the test AS maps it to this local document server.
  const baseUrl = 'https://connector.test';
  const redirectUri = oauthCallbackUrl(baseUrl);
  const document = buildClientMetadataDocument({ baseUrl, clientName: 'Connector Registry (test)' });
  let served = 0;
  const documents = http.createServer((req, res) => {
    served += 1;
    res.writeHead(req.url === new URL(document.client_id).pathname ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(document));
  });
  await new Promise<void>((resolve) => documents.listen(0, '127.0.0.1', resolve));
  const local = `http://127.0.0.1:${(documents.address() as AddressInfo).port}`;
  const cimdAs = await startOidcServer({
    registration: false,
    clientIdMetadataDocuments: { resolve: (clientId) => new URL(clientId.pathname, local) },
  });
  const server = await startProtectedMcpServer({ issuer: cimdAs.issuer, jwksUri: cimdAs.jwksUri });
  try {
    t.is(clientMetadataDocumentUrl(baseUrl), document.client_id);
    t.deepEqual(document.redirect_uris, [redirectUri]);
    t.is(document.application_type, 'web', 'SEP-837: the document names the application type, as a registration does');
    const flow = await authorize(server.url, fetcher, { baseUrl, redirectUri });
    t.true(flow.discovery.authorizationServer.metadata.client_id_metadata_document_supported);
    t.is(flow.client.identity.source, 'metadata-document');
    t.is(flow.client.identity.clientId, 'https://connector.test/api/v1/oauth/client-metadata.json');
    t.is(flow.client.identity.authMethod, 'none');
    t.true(flow.callback.href.startsWith(redirectUri));
    t.truthy(flow.tokens.accessToken);
    t.true(served > 0, 'the authorization server fetched the document');
  } finally {
    await server.close();
    await cimdAs.close();
    documents.closeAllConnections();
    await new Promise((resolve) => documents.close(resolve));
  }
});

test('metadata documents need an https base URL; without one, registration is used instead', async (t) => {
  t.is(clientMetadataDocumentUrl('http://127.0.0.1:8080'), null);
  t.is(clientMetadataDocumentUrl('https://svc.example.com/prefix/'), 'https://svc.example.com/prefix/api/v1/oauth/client-metadata.json');
  const discovery = await discover(mcp.url, fetcher);
  const resolved = await resolveClientIdentity({
    authorizationServer: { ...discovery.authorizationServer.metadata, client_id_metadata_document_supported: true },
    baseUrl: 'http://127.0.0.1:9', redirectUri: REDIRECT_URI,
  }, fetcher);
  t.is(resolved.identity.source, 'registered');
});
