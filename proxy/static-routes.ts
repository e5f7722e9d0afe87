// A fixed route table: for tests, benchmarks, and running the proxy without the registry.
import type { Route, RouteSource } from './route';

export function staticRoutes(table: Record<string, Route>): RouteSource {
  const routes = new Map(Object.entries(table));
  return {
    get: (id) => Promise.resolve(routes.get(id) ?? { kind: 'not_found' }),
  };
}
