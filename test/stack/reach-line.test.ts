// The start-up line that says who reaches the embedded Temporal and FerretDB (neither takes
// credentials): loopback only, and whether stdio servers share that loopback.
import test from 'ava';
import { reachLine } from '../../stack/servers/reach-line';

const servers = { temporal: '127.0.0.1:7233', mongodb: 'mongodb://127.0.0.1:27017/' };

test('isolated stdio servers: this machine\'s processes and users reach them, stdio servers do not', (t) => {
  t.is(reachLine(servers, false), "the embedded Temporal (127.0.0.1:7233) and FerretDB (127.0.0.1:27017) take no credentials and listen on loopback only: this machine's own processes and users reach them; stdio servers do not (each in a network namespace of its own)");
});

test('unisolated local servers reach them too, and the line says so; external servers are not named', (t) => {
  t.regex(reachLine({ temporal: null, mongodb: servers.mongodb }, true)!, /^the embedded FerretDB \(127\.0\.0\.1:27017\) .*and so do the local stdio servers, which share this machine's network/);
  t.is(reachLine({ temporal: null, mongodb: null }, true), null);
});
