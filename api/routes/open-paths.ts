// Which request paths take no credential, derived from the declarations' `auth: 'open'` so that
// opening (or closing) an operation is said in one place. A path parameter matches one segment,
// as the koa router's does: `/console/{file}` opens `/console/app.js`, not `/console/a/b`.
import { operations } from '../../contract/operations';

const SEGMENT = '[^/]+';

function patternOf(path: string): string {
  return path.split(/\{\w+\}/).map((literal) => literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join(SEGMENT);
}

/** A test of a request path against every open operation the koa app serves. */
export function openPathMatcher(): (path: string) => boolean {
  const open = operations().filter(([, op]) => op.auth === 'open' && op.servedBy === 'api').map(([, op]) => patternOf(op.path));
  const matcher = new RegExp(`^(?:${open.join('|')})$`);
  return (path) => matcher.test(path);
}
