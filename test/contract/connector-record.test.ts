// The record as the API answers it: the stored URL is kept whole, the answer masks its secrets.
import test from 'ava';
import { presentConnector, type ConnectorRecord } from '../../contract/connector-record';

const stored: ConnectorRecord = {
  id: '0b4f8f5e-3c1a-4d6e-9a57-6a4f0c3e2d11',
  url: 'https://mcp.example.com/mcp?api_key=stored-key-1&region=eu',
  state: 'created', metadata: {}, auth_request: null, disconnect_reason: null, disconnect_permanent: null,
  preset: { url: 'https://mcp.example.com/mcp?token=preset-token-2' },
  created_at: '2026-11-25T10:00:00Z', updated_at: '2026-11-25T10:00:00Z', created_by: null, protocol_version: null, version: 1,
};

test('the answer masks secret query values in url and preset.url, and leaves the stored record whole', (t) => {
  const answer = presentConnector(stored, 'https://registry.example');
  t.is(answer.url, 'https://mcp.example.com/mcp?api_key=***&region=eu');
  t.deepEqual(answer.preset, { url: 'https://mcp.example.com/mcp?token=***' });
  t.is(answer.mcp_url, `https://registry.example/api/v1/connectors/${stored.id}/mcp`);
  t.false('version' in answer);
  t.is(stored.url, 'https://mcp.example.com/mcp?api_key=stored-key-1&region=eu', 'the record itself is untouched');
  t.is(presentConnector({ ...stored, preset: null }, 'https://registry.example').preset, null);
});
