// The ready banner of `npm start` says at which address the console works and whether callers
// must bring a credential: in open loopback mode every loopback name works; authenticated, only
// BASE_URL's own address (api/routes/console.ts shows a page saying so at any other).
import test from 'ava';
import { readyAddresses, readyBanner } from '../../stack/ready-banner';

const stack = { baseUrl: 'http://localhost:8080', temporalUiUrl: undefined };
const callers = { enabled: false, apiKeys: [], jwt: null, allowedOrigins: [] };

test('open loopback mode: no credential asked, and the console works at 127.0.0.1 and [::1] too', (t) => {
  const banner = readyBanner(readyAddresses({ ...stack, config: { callers } }));
  t.regex(banner, /Console\s+http:\/\/localhost:8080\/\n/);
  t.regex(banner, /Callers\s+not authenticated: open to this machine, no credential asked/);
  t.regex(banner, /the console works at http:\/\/127\.0\.0\.1:8080 and http:\/\/\[::1\]:8080 too/);
  t.notRegex(banner, /Temporal Web UI/, 'the Web UI is off by default, and so not named');
});

test('callers authenticated: how to send the credential, and the one address the console works at', (t) => {
  const keys = [{ subject: 'ann', sha256: 'ab', admin: false }, { subject: 'ops', sha256: 'cd', admin: true }];
  const banner = readyBanner(readyAddresses({ ...stack, config: { callers: { ...callers, enabled: true, apiKeys: keys } } }));
  t.regex(banner, /Callers\s+authenticated \(2 API keys\): send Authorization: Bearer <key>; open the console at http:\/\/localhost:8080\/ exactly/);
  t.notRegex(banner, /127\.0\.0\.1/);
});
