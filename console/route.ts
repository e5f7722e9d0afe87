// Routes live in the URL's fragment (#/connectors/<id>): the server serves one page at `/`, and
// the browser's back button, reloads and links work without the API knowing the console's paths.
import { useEffect, useState } from 'preact/hooks';

export type Route =
  | { view: 'list' }
  | { view: 'new' }
  | { view: 'approvals' }
  | { view: 'connector'; id: string }
  | { view: 'calls'; id: string }
  | { view: 'task-approval'; id: string; taskId: string }
  | { view: 'toolsets' }
  | { view: 'new-toolset' }
  | { view: 'toolset'; id: string };

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  if (parts[0] === 'new') return { view: 'new' };
  if (parts[0] === 'approvals') return { view: 'approvals' };
  if (parts[0] === 'toolsets') return parts[1] === 'new' ? { view: 'new-toolset' } : parts[1] ? { view: 'toolset', id: parts[1] } : { view: 'toolsets' };
  if (parts[0] === 'connectors' && parts[1] && parts[2] === 'tasks' && parts[3] && parts[4] === 'approval') return { view: 'task-approval', id: parts[1], taskId: parts[3] };
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
    case 'task-approval': return `#/connectors/${encodeURIComponent(route.id)}/tasks/${encodeURIComponent(route.taskId)}/approval`;
    case 'toolsets': return '#/toolsets';
    case 'new-toolset': return '#/toolsets/new';
    case 'toolset': return `#/toolsets/${encodeURIComponent(route.id)}`;
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

let notice: string | null = null;

/** Goes to `route`; `message` is shown once there (e.g. "Deleted …" on the list a delete ends on). */
export const go = (route: Route, message: string | null = null) => {
  notice = message;
  location.hash = hrefOf(route);
};

/** The message the last `go` left for the view it opened, once. */
export function takeNotice(): string | null {
  const message = notice;
  notice = null;
  return message;
}
