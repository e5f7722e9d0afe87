// When the workflow refreshes a token: CONNECTOR__REFRESH_SKEW_SECONDS before its expiry, the
// skew shortened to a third of the lifetime for short-lived tokens, never for a token without one,
// and never sooner than CONNECTOR__MIN_REFRESH_INTERVAL_SECONDS after the token was obtained.
import test from 'ava';
import { refreshDelayMs } from '../../workflows/watches';
import { renewalSkewMs } from '../../contract/token-renewal';
import { loadConfig } from '../../config/config';

const obtainedAt = '2026-01-01T00:00:00.000Z';
const at = (seconds: number) => new Date(Date.parse(obtainedAt) + seconds * 1000).toISOString();
const now = Date.parse(obtainedAt);

test('an hour-long token is refreshed the configured skew before it expires', (t) => {
  const session = { obtainedAt, expiresAt: at(3600) };
  t.is(refreshDelayMs(session, now), (3600 - 60) * 1000, 'default skew: 60 s');
  t.is(refreshDelayMs(session, now, 300), (3600 - 300) * 1000);
  t.is(refreshDelayMs(session, now, 0), 3600 * 1000, 'no skew: at expiry');
});

test('a short-lived token is refreshed a third of its life early, whatever the skew', (t) => {
  const session = { obtainedAt, expiresAt: at(90) };
  t.is(refreshDelayMs(session, now, 60), 60 * 1000);
  t.is(refreshDelayMs(session, now, 10), 80 * 1000, 'a skew below a third of the life wins');
});

test('the renewal period that bench:scale spreads first renewals over is the one the workflow keeps', (t) => {
  // A 5-minute token renewed 60 s early is renewed every 240 s, so 10,000 of them are ~42 a second.
  for (const life of [300, 90]) {
    const renewed = refreshDelayMs({ obtainedAt, expiresAt: at(life) }, now, 60);
    t.is(renewed, life * 1000 - renewalSkewMs(life * 1000, 60), `a ${life} s token`);
  }
  t.is(300_000 - renewalSkewMs(300_000), 240_000);
});

test('a token without a lifetime has no refresh time; a late timer refreshes at once', (t) => {
  t.is(refreshDelayMs({ obtainedAt, expiresAt: null }, now, 60), null);
  t.is(refreshDelayMs({ obtainedAt, expiresAt: at(3600) }, now + 4000 * 1000, 60), 0);
});

test('CONNECTOR__REFRESH_SKEW_SECONDS is read, bounded and defaults to 60', (t) => {
  t.is(loadConfig({}).refreshSkewSeconds, 60);
  t.is(loadConfig({ CONNECTOR__REFRESH_SKEW_SECONDS: '300' }).refreshSkewSeconds, 300);
  t.throws(() => loadConfig({ CONNECTOR__REFRESH_SKEW_SECONDS: '-1' }), { message: /CONNECTOR__REFRESH_SKEW_SECONDS/ });
});

test('a token that lives shorter than the floor is renewed the floor after it was obtained, even past its expiry', (t) => {
  t.is(refreshDelayMs({ obtainedAt, expiresAt: at(1) }, now, 60, 30), 30 * 1000, 'a token of 1 s: renewed after 30 s, not 0.67 s');
  t.is(refreshDelayMs({ obtainedAt, expiresAt: at(1) }, now + 10_000, 60, 30), 20 * 1000, 'counted from when it was obtained');
  const unfloored = refreshDelayMs({ obtainedAt, expiresAt: at(1) }, now, 60, 0)!;
  t.true(Math.abs(unfloored - 2000 / 3) < 1, `no floor: a third of its life early (${unfloored} ms)`);
  t.is(refreshDelayMs({ obtainedAt, expiresAt: at(3600) }, now, 60, 30), (3600 - 60) * 1000, 'a token of an hour is not affected');
});

test('CONNECTOR__MIN_REFRESH_INTERVAL_SECONDS is read, bounded and defaults to 30', (t) => {
  t.is(loadConfig({}).minRefreshIntervalSeconds, 30);
  t.is(loadConfig({ CONNECTOR__MIN_REFRESH_INTERVAL_SECONDS: '0' }).minRefreshIntervalSeconds, 0);
  t.throws(() => loadConfig({ CONNECTOR__MIN_REFRESH_INTERVAL_SECONDS: '-1' }), { message: /CONNECTOR__MIN_REFRESH_INTERVAL_SECONDS/ });
  t.throws(() => loadConfig({ CONNECTOR__MIN_REFRESH_INTERVAL_SECONDS: '7200' }), { message: /CONNECTOR__MIN_REFRESH_INTERVAL_SECONDS/ });
});
