// Opaque page tokens: the sort key of the last item of a page. A malformed token is the
// caller's mistake (422), never a server error.
export class InvalidPageToken extends Error {}

export interface PagePosition {
  k: string;
  id: string;
}

export function encodePageToken(position: PagePosition): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

export function decodePageToken(token: string): PagePosition {
  try {
    const value = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as unknown;
    if (value && typeof value === 'object' && typeof (value as PagePosition).k === 'string' && typeof (value as PagePosition).id === 'string') {
      return value as PagePosition;
    }
  } catch {
    // fall through
  }
  throw new InvalidPageToken('page_token is not a token this service issued');
}
