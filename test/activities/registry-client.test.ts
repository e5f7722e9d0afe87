// Reading a registry through the guarded fetch, against a local registry server on loopback that
// serves real server.json documents: first read by name (pinned or latest), then incremental
// reads with `updated_since` across pages; hostile answers are skipped or refused, never trusted.
import test from 'ava';
import { createGuardedFetch } from '../../platform/guarded-fetch';
import { readChanges, readServers, ENTRY_LIMIT_BYTES, PAGE_LIMIT_BYTES } from '../../activities/registry/registry-client';
import { HOSTILE } from '../fixtures/registry/hostile';
import { realServers, startRegistryServer, type RegistryServer } from '../fixtures/registry/registry-server';

const real = realServers();
const open = createGuardedFetch({ blockPrivateNetworks: false }, { timeoutMs: 5_000 });

async function withRegistry(run: (registry: RegistryServer) => Promise<void>): Promise<void> {
  const registry = await startRegistryServer({ pageSize: 2 });
  try {
    await run(registry);
  } finally {
    await registry.close();
  }
}

test.after.always(() => open.close());

test('by name: each allow-listed server at its pin or its latest; an unknown one is missing', async (t) => {
  await withRegistry(async (registry) => {
    registry.publish(real['mcp-fs']!);
    registry.publish({ ...real['mcp-fs']!, version: '2.1.0' });
    registry.publish(real['kubernetes-manager-mcp']!);
    const read = await readServers({ baseUrl: registry.url, fetch: open }, [
      { name: 'io.modelcontextprotocol.anonymous/mcp-fs' },
      { name: 'io.github.username/kubernetes-manager-mcp', version: '1.0.0' },
      { name: 'io.example/not-there' },
    ]);
    t.deepEqual(read.entries.map((e) => `${e.name}@${e.version}`), ['io.modelcontextprotocol.anonymous/mcp-fs@2.1.0', 'io.github.username/kubernetes-manager-mcp@1.0.0']);
    t.deepEqual(read.missing, ['io.example/not-there']);
    t.true(registry.requests.includes('/v0.1/servers/io.modelcontextprotocol.anonymous%2Fmcp-fs/versions/latest'), 'the name is sent encoded');
    t.truthy(read.highWater);
  });
});

test('incremental: every page after updated_since, only allow-listed names, pins honoured, statuses read', async (t) => {
  await withRegistry(async (registry) => {
    for (const doc of Object.values(real)) registry.publish(doc);
    const mark = '2026-01-01T00:01:00Z'; // after every publication above
    registry.setStatus('io.modelcontextprotocol.anonymous/mcp-fs', '2.0.0', 'deleted', '2026-01-02T00:00:00Z');
    registry.setStatus('com.example/acme-analytics', '2.0.0', 'deprecated', '2026-01-02T00:00:01Z');
    registry.publish({ ...real['kubernetes-manager-mcp']!, version: '1.1.0' }, '2026-01-02T00:00:02Z');
    registry.publish({ ...real['weather-mcp']!, version: '0.6.0' }, '2026-01-02T00:00:03Z');
    const read = await readChanges({ baseUrl: registry.url, fetch: open }, [
      { name: 'io.modelcontextprotocol.anonymous/mcp-fs' }, { name: 'com.example/acme-analytics' },
      { name: 'io.github.username/kubernetes-manager-mcp', version: '1.0.0' }, { name: 'io.github.example/weather-mcp' },
    ], mark);
    t.true(read.complete);
    t.deepEqual(read.entries.map((e) => [e.name, e.version, e.status]), [
      ['io.modelcontextprotocol.anonymous/mcp-fs', '2.0.0', 'deleted'],
      ['com.example/acme-analytics', '2.0.0', 'deprecated'],
      ['io.github.example/weather-mcp', '0.6.0', 'active'],
    ], 'the pinned server\'s new version is left out');
    t.is(read.highWater, '2026-01-02T00:00:03Z');
    const pages = registry.requests.filter((r) => r.startsWith('/v0.1/servers?'));
    t.is(pages.length, 2, 'four changes at two a page');
    t.true(pages.every((p) => p.includes('updated_since=2026-01-01T00%3A01%3A00Z')));
    t.true(pages[1]!.includes('cursor='));
  });
});

test('hostile entries are skipped with the reason; the rest of the page still counts', async (t) => {
  await withRegistry(async (registry) => {
    registry.publish(HOSTILE.wrongTypes);
    registry.publish(HOSTILE.remoteUrlNotString);
    registry.publish(real['mcp-fs']!);
    const read = await readChanges({ baseUrl: registry.url, fetch: open }, [
      { name: 'io.hostile/wrong-types' }, { name: 'io.hostile/remote-number' }, { name: 'io.modelcontextprotocol.anonymous/mcp-fs' },
    ], '2000-01-01T00:00:00Z');
    t.deepEqual(read.entries.map((e) => e.name), ['io.modelcontextprotocol.anonymous/mcp-fs']);
    t.is(read.skipped.length, 2);
    t.regex(read.skipped.join('\n'), /io\.hostile\/wrong-types/);
  });
});

test('oversize answers are refused: one server skipped, a page fails the read (the mark stays)', async (t) => {
  await withRegistry(async (registry) => {
    registry.publish(real['mcp-fs']!);
    registry.answerRaw('/v0.1/servers/io.hostile%2Foversize/versions/latest', 200, JSON.stringify({ server: HOSTILE.oversize }));
    const byName = await readServers({ baseUrl: registry.url, fetch: open }, [{ name: 'io.hostile/oversize' }, { name: 'io.modelcontextprotocol.anonymous/mcp-fs' }]);
    t.true(JSON.stringify(HOSTILE.oversize).length > ENTRY_LIMIT_BYTES);
    t.deepEqual(byName.entries.map((e) => e.name), ['io.modelcontextprotocol.anonymous/mcp-fs']);
    t.regex(byName.skipped[0]!, /larger than/);
    registry.answerRaw('/v0.1/servers', 200, Buffer.alloc(PAGE_LIMIT_BYTES + 1, 0x20));
    await t.throwsAsync(readChanges({ baseUrl: registry.url, fetch: open }, [], '2000-01-01T00:00:00Z'), { message: /larger than/ });
    registry.answerRaw('/v0.1/servers', 200, JSON.stringify({ servers: 'none' }));
    await t.throwsAsync(readChanges({ baseUrl: registry.url, fetch: open }, [], '2000-01-01T00:00:00Z'), { message: /not a server list/ });
  });
});

test('every request passes the address guard: a guard that blocks private networks refuses the loopback registry', async (t) => {
  const guarded = createGuardedFetch({ blockPrivateNetworks: true }, { timeoutMs: 5_000 });
  try {
    await withRegistry(async (registry) => {
      const error = await t.throwsAsync(readServers({ baseUrl: registry.url, fetch: guarded }, [{ name: 'io.modelcontextprotocol.anonymous/mcp-fs' }]));
      t.regex(String(error?.message) + String((error?.cause as Error | undefined)?.message), /127\.0\.0\.1|loopback|refused|blocked/i);
      t.deepEqual(registry.requests, [], 'nothing reached the server');
    });
  } finally {
    await guarded.close();
  }
});
