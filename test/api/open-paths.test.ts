// The paths that take no credential are exactly the declared open operations, one segment per parameter.
import test from 'ava';
import { openPathMatcher } from '../../api/routes/open-paths';
import { operations } from '../../contract/operations';

const isOpen = openPathMatcher();
const concrete = (path: string) => path.replace(/\{\w+\}/g, 'x1');

test('every operation declared open answers without a credential, and every caller operation asks for one', (t) => {
  const api = operations().filter(([, op]) => op.servedBy === 'api');
  t.true(api.some(([, op]) => op.auth === 'open') && api.some(([, op]) => op.auth === 'caller'));
  for (const [id, op] of api) t.is(isOpen(concrete(op.path)), op.auth === 'open', `${id} ${op.path}`);
});

test('a parameter opens one path segment, and a declared path opens nothing beside it', (t) => {
  t.true(isOpen('/console/app.js'));
  t.false(isOpen('/console/nested/app.js'));
  t.false(isOpen('/healthz/extra'));
  t.false(isOpen('/healthzx'));
  t.false(isOpen('/.well-known/anything-else'));
  t.false(isOpen('/api/v1/connectors'));
  t.false(isOpen('/api/v1/openapi.json.bak'));
});
