// The body of a PATCH: an RFC 7396 merge patch, sent as application/merge-patch+json (the body
// parser, which every other route shares, leaves that type unread: elsewhere it is a 415), or as
// plain JSON like every other body.
import type { Context } from 'koa';
import { ProblemError } from '../contract/problem';
import { jsonBody } from './parse';

const LIMIT = 1024 * 1024;

export async function mergePatchBody(ctx: Context): Promise<unknown> {
  if (!ctx.is('application/merge-patch+json')) return jsonBody(ctx);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > LIMIT) throw new ProblemError(413, 'the body is too large');
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    throw new ProblemError(400, 'the body is not valid JSON');
  }
}
