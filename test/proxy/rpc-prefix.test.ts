// Reading a method, a name, an id and an error code out of the first bytes of MCP bodies: whole
// bodies, bodies cut inside their arguments, SSE answers after other events, batches and junk;
// and the task a server answered a call with.
import test from 'ava';
import { scanFields } from '../../proxy/json-prefix';
import { BodyPrefix, readAnswerError, readAnswerTask, readRequest } from '../../proxy/rpc-prefix';

const fed = (text: string, limit?: number, chunk = 7) => {
  const prefix = new BodyPrefix(limit);
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += chunk) prefix.add(bytes.subarray(i, i + chunk));
  return prefix;
};

const call = (args: unknown) => JSON.stringify({ method: 'tools/call', params: { name: 'echo', arguments: args }, jsonrpc: '2.0', id: 7 });

test('a whole request: method, name, id', (t) => {
  t.deepEqual(readRequest(fed(call({ message: 'hi' }))), { body: 'message', method: 'tools/call', name: 'echo', id: 7 });
  t.deepEqual(readRequest(fed(JSON.stringify({ jsonrpc: '2.0', id: 'a', method: 'resources/read', params: { uri: 'file:///x' } }))),
    { body: 'message', method: 'resources/read', name: 'file:///x', id: 'a' });
  t.deepEqual(readRequest(fed('{"jsonrpc":"2.0","method":"notifications/initialized"}')), { body: 'message', method: 'notifications/initialized', name: null, id: null });
});

test('a request cut inside large arguments still gives its method and name, never an argument', (t) => {
  const prefix = fed(call({ message: 'x'.repeat(100_000), nested: { name: 'not-this' } }), 4096, 65536);
  t.true(prefix.truncated);
  t.is(prefix.total, Buffer.byteLength(call({ message: 'x'.repeat(100_000), nested: { name: 'not-this' } })));
  const facts = readRequest(prefix);
  t.deepEqual(facts, { body: 'message', method: 'tools/call', name: 'echo', id: null });
});

test('escaped strings, deep names and odd bodies', (t) => {
  t.is(readRequest(fed('{"method":"tools\\/call","params":{"arguments":{"name":"deep"},"name":"t\\u0041"}}')).name, 'tA');
  t.is(readRequest(fed('{"params":{"arguments":{"name":"deep"}},"method":"x"}')).name, null, 'a name inside the arguments is not the call\'s');
  t.is(readRequest(fed('[{"method":"ping","id":1}]')).body, 'batch');
  t.is(readRequest(fed('not json')).body, 'unreadable');
  t.is(readRequest(fed('{"method":"ping",')).body, 'unreadable', 'a whole body that breaks off is not JSON');
  t.is(readRequest(fed('{"method":"ping" "id":1}')).body, 'unreadable');
  t.is(readRequest(fed('')).body, 'none');
  t.is(readRequest(undefined).body, 'none');
  t.is(readRequest(fed(JSON.stringify({ method: 'm'.repeat(1000) }))).method!.length, 128);
});

test('the scanner stops where the text ends, keeping what it read', (t) => {
  const wanted = new Set(['a', 'b.c', 'n']);
  t.deepEqual(scanFields('{"a":"x","n":-1.5e2,"b":{"c":"y"}}', wanted), { fields: new Map<string, string | number>([['a', 'x'], ['n', -150], ['b.c', 'y']]), outcome: 'whole' });
  const cut = scanFields('{"a":"x","b":{"c":"y","d":[1,2,{"e', wanted);
  t.is(cut.outcome, 'cut');
  t.deepEqual([...cut.fields], [['a', 'x'], ['b.c', 'y']]);
  t.is(scanFields('{"n":12', wanted).fields.has('n'), false, 'a number cut off may be incomplete');
  t.is(scanFields('{"a" 1}', wanted).outcome, 'broken');
});

test('the JSON-RPC error code of a JSON answer', (t) => {
  t.is(readAnswerError(fed('{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"bad"}}'), 'application/json', 7), -32602);
  t.is(readAnswerError(fed('{"jsonrpc":"2.0","id":7,"result":{"error":{"code":1}}}'), 'application/json', 7), null);
  t.is(readAnswerError(fed('{"error":{"code":-32601}}'), 'text/plain', 7), null);
  t.is(readAnswerError(undefined, 'application/json', 7), null);
});

test('the JSON-RPC error code of the SSE event answering the request', (t) => {
  const sse = [
    'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}\n\n',
    'data: {"jsonrpc":"2.0","id":3,"error":{"code":-1}}\n\n',
    'id: 9\nevent: message\ndata: {"jsonrpc":"2.0","id":7,\ndata: "error":{"code":-32603,"message":"boom"}}\n\n',
  ].join('');
  t.is(readAnswerError(fed(sse), 'text/event-stream', 7), -32603);
  t.is(readAnswerError(fed(sse), 'text/event-stream', null), -1, 'without an id, the first answer');
  t.is(readAnswerError(fed('data: {"jsonrpc":"2.0","id":7,"result":{}}\n\n'), 'text/event-stream', 7), null);
  t.is(readAnswerError(fed('data: {"jsonrpc":"2.0","id":7,"error":{"code":-32000,"mess'), 'text/event-stream', 7), -32000, 'an event cut off');
});

test('the task a server answered a call with (resultType "task"), as JSON or as the SSE event answering it', (t) => {
  const task = '{"jsonrpc":"2.0","id":7,"result":{"resultType":"task","taskId":"t-1","status":"working"}}';
  t.is(readAnswerTask(fed(task), 'application/json', 7), 't-1');
  t.is(readAnswerTask(fed(`data: {"jsonrpc":"2.0","method":"notifications/progress","params":{}}\n\ndata: ${task}\n\n`), 'text/event-stream', 7), 't-1');
  t.is(readAnswerTask(fed('{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","taskId":"x","content":[]}}'), 'application/json', 7), null);
  t.is(readAnswerTask(fed('{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"\\"resultType\\""}]}}'), 'application/json', 7), null);
  t.is(readAnswerTask(fed(`data: ${task.replace('"id":7', '"id":8')}\n\n`), 'text/event-stream', 7), null, 'the answer to another request');
});
