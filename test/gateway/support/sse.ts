// Reads JSON-RPC messages from a Streamable HTTP response (SSE), for raw-HTTP tests.

/** The first `count` messages of the stream (or, with `until`, up to the first that matches); the stream is then released. */
export async function readSseMessages(response: Response, count: number, until?: (message: unknown) => boolean): Promise<unknown[]> {
  if (!response.body) throw new Error('response has no body');
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const messages: unknown[] = [];
  let buffered = '';
  try {
    while (messages.length < count) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`stream ended after ${messages.length} of ${count} messages`);
      buffered += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffered.indexOf('\n\n')) !== -1) {
        const event = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const data = event.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('');
        if (data) messages.push(JSON.parse(data));
        if (until && messages.length > 0 && until(messages.at(-1))) return messages;
      }
    }
    return messages.slice(0, count);
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
