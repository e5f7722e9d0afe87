// Routes live in the URL's fragment (#/connectors/<id>): the server serves one page at `/`, and
// the browser's back button, reloads and links work without the API knowing the console's paths.
import { useEffect, useState } from 'preact/hooks';

export type Route =
  | { view: 'list' }
  | { view: 'new' }
  | { view: 'approvals' }
  | { view: 'connector'; id: string }
  | { view: 'calls'; id: string };

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  if (parts[0] === 'new') return { view: 'new' };
  if (parts[0] === 'approvals') return { view: 'approvals' };
  if (parts[0] === 'connectors' && parts[1]) return parts[2] === 'calls' ? { view: 'calls', id: parts[1] } : { view: 'connector', id: parts[1] };
  return { view: 'list' };
}

export const hrefOf = (route: Route): string => {
  switch (route.view) {
    case 'list': return '#/';
    case 'new': return '#/new';
    case 'approvals': return '#/approvals';
    case 'connector': return `#/connectors/${encodeURIComponent(route.id)}`;
    case 'calls': return `#/connectors/${encodeURIComponent(route.id)}/calls`;
  }
};

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const changed = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return route;
}

export const go = (route: Route) => {
  location.hash = hrefOf(route);
};
