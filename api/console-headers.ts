// The headers of every console response (the pages and their files): a Content-Security-Policy
// that lets the browser run only the service's own files (no inline script, no eval, no other
// origin but the identity provider the console signs in at), never framed, never sniffed, and
// no Referer carrying a URL to the authorization pages it links to.
import type { Context } from 'koa';

export interface ConsolePolicy {
  /** The identity provider's origin, when the console signs in there (discovery and token requests). */
  issuerOrigin: string | null;
}

/** The console's own pages: only the service's files, and fetches to itself and the identity provider. */
export function consoleCsp(policy: ConsolePolicy): string {
  const connect = ["'self'", ...(policy.issuerOrigin ? [policy.issuerOrigin] : [])].join(' ');
  return [
    "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self'", `connect-src ${connect}`,
    "object-src 'none'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
    // Nothing in the console writes HTML from strings; this makes any sink that could a violation.
    "require-trusted-types-for 'script'",
  ].join('; ');
}

/**
 * The API reference page: the same, but Swagger UI draws its icons as data: SVG images (its
 * stylesheet and its code), so data: images are let in there; nothing else is relaxed (the browser
 * test sees no other violation).
 */
export const REFERENCE_CSP = [
  "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "connect-src 'self'",
  "object-src 'none'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
].join('; ');

export function setConsoleHeaders(ctx: Context, csp: string): void {
  ctx.set('Content-Security-Policy', csp);
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
  ctx.set('Cross-Origin-Resource-Policy', 'same-origin');
  ctx.set('Permissions-Policy', 'camera=(), microphone=(), geolocation=(), payment=(), usb=()');
}
