import test from 'ava';
import { freePortBelowEphemeral, USUAL_PORTS } from '../../service/free-port';

test('freePortBelowEphemeral never hands out a usual port of the embedded servers, even a free one: a stack would take it before its PORT', async (t) => {
  const elsewhere = await freePortBelowEphemeral();
  const offered = [USUAL_PORTS.mongodb, USUAL_PORTS.temporal, USUAL_PORTS.temporalUi, elsewhere];
  const port = await freePortBelowEphemeral('127.0.0.1', () => offered.shift() ?? elsewhere);
  t.is(port, elsewhere);
  t.deepEqual(offered, [], 'the usual ports were offered first, and passed over');
});
