// Many SSE streams held open at once through one path: each its own connection (as many agents
// each holding one GET stream would), opened, counted open once its first event is read, and
// closed by the client all at once.
import http from 'node:http';

export interface OpenStreams {
  opened: number;
  failed: number;
  /** Events read so far over all streams. */
  events(): number;
  close(): void;
}

export async function openStreams(port: number, path: string, headers: Record<string, string>, count: number): Promise<OpenStreams> {
  const requests: http.ClientRequest[] = [];
  let events = 0;
  const opening = Array.from({ length: count }, () => new Promise<boolean>((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent: false, headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        return resolve(false);
      }
      res.on('data', () => {
        events++;
        resolve(true);
      });
      res.on('error', () => resolve(false));
    });
    req.on('error', () => resolve(false));
    requests.push(req);
  }));
  const results = await Promise.all(opening);
  const opened = results.filter(Boolean).length;
  return {
    opened,
    failed: count - opened,
    events: () => events,
    close: () => {
      for (const req of requests) req.destroy();
    },
  };
}
