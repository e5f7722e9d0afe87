// The toolsets' MCP path is loaded on its first request, and neither it nor the connectors' relay
// loads the MCP SDK (the toolset routes JSON-RPC itself). Checked on the build that production
// runs (dist/, split into chunks by stack/build.ts): nothing dist/proxy.mjs imports at start, nor
// the toolsets' endpoint it imports dynamically, reaches the SDK.
import test from 'ava';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../../platform/logger';
import { lazyToolsetEndpoint } from '../../proxy/toolset/lazy-toolset-endpoint';

const DIST = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist');
const STATIC_IMPORT = /^(?:import|export)\s[^;]*?from\s+"([^"]+)"|^import\s+"([^"]+)"/gm;
const DYNAMIC_IMPORT = /\bimport\(\s*"([^"]+)"\s*\)/g;

/** The packages a built module reaches through static imports, and the files it imports dynamically on the way. */
function staticClosure(entry: string): { packages: Set<string>; dynamic: Set<string> } {
  const packages = new Set<string>();
  const dynamic = new Set<string>();
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const source = readFileSync(path.join(DIST, file), 'utf8');
    for (const [, a, b] of source.matchAll(STATIC_IMPORT)) {
      const specifier = (a ?? b)!;
      if (specifier.startsWith('./')) visit(specifier.slice(2));
      else packages.add(specifier);
    }
    for (const [, specifier] of source.matchAll(DYNAMIC_IMPORT)) if (specifier!.startsWith('./')) dynamic.add(specifier!.slice(2));
  };
  visit(entry);
  return { packages, dynamic };
}

const sdk = (packages: Set<string>) => [...packages].filter((p) => p.startsWith('@modelcontextprotocol/'));

test('the proxy role never loads the MCP SDK; the toolsets\' endpoint is loaded on its first request', (t) => {
  const proxy = staticClosure('proxy.mjs');
  t.true(proxy.packages.has('http-proxy'), 'the closure is read: the connectors\' relay is in it');
  t.deepEqual(sdk(proxy.packages), [], 'no module the proxy imports at start reaches the SDK');
  const toolsets = [...proxy.dynamic].filter((file) => file.startsWith('toolset-endpoint-'));
  t.is(toolsets.length, 1, 'the toolsets\' endpoint is a chunk imported dynamically');
  t.deepEqual(sdk(staticClosure(toolsets[0]!).packages), [], 'which does not bring the SDK either');
});

test('the lazy endpoint serves from the first request on, and changes told before it loaded are harmless', async (t) => {
  const endpoint = lazyToolsetEndpoint({
    routes: { get: async () => ({ kind: 'not_found' }) } as never,
    source: { toolset: async () => null, memberStatus: async () => null },
    policy: { blockPrivateNetworks: true },
    logger: createLogger('lazy-toolset-test', 'silent'),
  });
  endpoint.toolsetChanged('t1');
  endpoint.memberChanged('c1');
  const server = http.createServer((req, res) => endpoint.handle(req, res, 't1'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/toolsets/t1/mcp`;
  // Both answered by the loaded endpoint: the first waited for the module, the second did not.
  for (const _ of [1, 2]) {
    const res = await fetch(url, { method: 'PUT' });
    t.is(res.status, 405);
    t.is(res.headers.get('allow'), 'GET, POST, DELETE');
  }
  const missing = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' });
  t.is(missing.status, 404, 'a toolset the source does not hold');
  await endpoint.close();
});
