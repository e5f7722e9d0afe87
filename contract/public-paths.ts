// The service's own paths that rooms below api/ build or recognise: the MCP paths (the proxy's),
// their RFC 9728 documents, and the record's mcp_url. Written here once, as templates in OpenAPI
// form; the operation table (contract/operations.ts) names these constants for its operations
// and says who serves each, and the rest derives from the two: the HTTP server's dispatch and
// route labels (service/http-server.ts), the URL builders, the caller gate's challenge, the chart's
// Ingress (api/ingress-paths.ts). Pure: the workflow sandbox imports it (the record's mcp_url).

export const CONNECTOR_MCP_PATH = '/api/v1/connectors/{id}/mcp';
export const TOOLSET_MCP_PATH = '/api/v1/toolsets/{id}/mcp';

/** The two kinds of MCP path: a connector's and a toolset's, each a protected resource of its own. */
export const MCP_PATHS = { connectors: CONNECTOR_MCP_PATH, toolsets: TOOLSET_MCP_PATH } as const;
export type McpCollection = keyof typeof MCP_PATHS;

/** RFC 9728 section 3.1: a resource's metadata is at this prefix followed by the resource's path. */
export const PROTECTED_RESOURCE_PREFIX = '/.well-known/oauth-protected-resource';

const PARAMETER = /\{(\w+)\}/g;
const escapeRegex = (literal: string) => literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `template` with each `{name}` replaced by its value, percent-encoded as one segment. */
export function fillPath(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(PARAMETER, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`no value for {${name}} in ${template}`);
    return encodeURIComponent(value);
  });
}

/** `/api/v1/connectors/{id}` → `/api/v1/connectors/:id` (the koa router's form, and the metrics' route label). */
export const routeTemplate = (template: string): string => template.replace(PARAMETER, ':$1');

/** A regular expression source matching the template's paths: a parameter is one segment, as the koa router takes it. */
export function pathPattern(template: string): string {
  return template.split(PARAMETER).map((part, i) => (i % 2 ? '[^/]+' : escapeRegex(part))).join('');
}

export type PathParameters = Record<string, string>;

/**
 * A test of a request URL (query string and fragment allowed, a trailing slash too) against
 * `template`: its parameters, decoded, or null. A parameter that decodes to a path of its own
 * (`/`, `.`, `..`) or does not decode is no match.
 */
export function pathMatcher(template: string): (url: string) => PathParameters | null {
  const names = [...template.matchAll(PARAMETER)].map((m) => m[1]!);
  const regex = new RegExp(`^${pathPattern(template).replaceAll('[^/]+', '([^/]+)')}/?$`);
  return (url) => {
    const match = regex.exec(pathOf(url));
    if (!match) return null;
    const values: PathParameters = {};
    for (let i = 0; i < names.length; i++) {
      const value = decodedSegment(match[i + 1]!);
      if (value === null) return null;
      values[names[i]!] = value;
    }
    return values;
  };
}

/** The path of a request URL, without its query string or fragment. */
export function pathOf(url: string): string {
  const end = url.search(/[?#]/);
  return end === -1 ? url : url.slice(0, end);
}

function decodedSegment(raw: string): string | null {
  try {
    const value = decodeURIComponent(raw);
    return value.includes('/') || value === '.' || value === '..' ? null : value;
  } catch {
    return null;
  }
}

// The MCP paths split around their one parameter, once: the caller gate builds a URL per request.
const MCP_PARTS = Object.fromEntries(Object.entries(MCP_PATHS).map(([collection, template]) => {
  const [head, tail, ...more] = template.split('{id}');
  if (tail === undefined || more.length) throw new Error(`${template} must name {id} once`);
  return [collection, [head!, tail]];
})) as Record<McpCollection, [string, string]>;

/** Where MCP clients reach a connector or a toolset: `{baseUrl}/api/v1/<collection>/{id}/mcp`. */
export function mcpUrl(baseUrl: string, collection: McpCollection, id: string): string {
  const [head, tail] = MCP_PARTS[collection];
  return baseUrl + head + encodeURIComponent(id) + tail;
}

/** The RFC 9728 document of that MCP path, which the proxy's 401 challenge points to. */
export const protectedResourceUrl = (baseUrl: string, collection: McpCollection, id: string): string =>
  mcpUrl(baseUrl + PROTECTED_RESOURCE_PREFIX, collection, id);
