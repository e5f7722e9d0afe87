// The OpenAPI 3.1 document, derived from the declarations (contract/operations.ts) and the
// same zod schemas the API validates with.
import { z } from 'zod';
import { problemBody } from '../contract/problem';
import { SCHEMAS, answersOf, operations, problemTypesOf, type Answer, type Operation } from '../contract/operations';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const SCHEMA_NAMES = new Map(Object.entries(SCHEMAS).map(([name, schema]) => [schema, name]));

/** Query parameters from the schema the route validates with. */
function queryParameters(schema: z.ZodObject) {
  type Properties = { properties: Record<string, Record<string, unknown>> };
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input' }) as Partial<Properties> & { $defs?: Record<string, Properties> };
  // A schema with an id comes back as a $ref into $defs.
  const properties = json.properties ?? Object.values(json.$defs ?? {})[0]?.properties ?? {};
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...rest } = property;
    return { name, in: 'query', ...(description ? { description } : {}), schema: rest };
  });
}

/** A named schema by reference, any other inline. */
function schemaOf(schema: z.ZodType): object {
  const name = SCHEMA_NAMES.get(schema);
  return name ? ref(name) : stripSchemaKeyword(z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }));
}

function components() {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(SCHEMAS)) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, { target: 'draft-2020-12', io: 'input', uri: (id) => `#/components/schemas/${id}`, unrepresentable: 'any' });
  return Object.fromEntries(Object.entries(schemas).map(([k, v]) => [k, stripSchemaKeyword(v)]));
}

function stripSchemaKeyword(schema: object): object {
  const { $schema, ...rest } = schema as Record<string, unknown>;
  return rest;
}

/** Problem details name the problem types they may carry (`x-problem-types`). */
function response(status: number, answer: Answer) {
  if (answer.problemTypes) {
    const types = problemTypesOf(status, answer).map((slug) => problemBody(status, undefined, slug).type);
    return { description: answer.description, content: { 'application/problem+json': { schema: ref('Problem') } }, 'x-problem-types': types };
  }
  if (answer.schema) return { description: answer.description, content: { 'application/json': { schema: schemaOf(answer.schema) } } };
  if (answer.contentType) return { description: answer.description, content: { [answer.contentType]: answer.contentType.startsWith('text/plain') ? { schema: { type: 'string' } } : {} } };
  return { description: answer.description };
}

function pathParameters(path: string) {
  return [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name, in: 'path', required: true, schema: name === 'id' ? { type: 'string', format: 'uuid' } : { type: 'string' },
  }));
}

function operationObject(id: string, operation: Operation) {
  const parameters = [...(operation.parameters ?? []), ...(operation.query ? queryParameters(operation.query) : [])];
  return {
    operationId: id,
    summary: operation.summary,
    ...(operation.auth === 'open' ? { security: [] } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(operation.body ? { requestBody: { required: operation.body.required, content: { 'application/json': { schema: schemaOf(operation.body.schema) } } } } : {}),
    responses: Object.fromEntries(Object.entries(answersOf(operation)).map(([status, answer]) => [status, response(Number(status), answer)])),
  };
}

/** Path items: the path's parameters once, then an operation per method. */
function paths() {
  const out: Record<string, Record<string, object>> = {};
  for (const [id, operation] of operations()) {
    const parameters = pathParameters(operation.path);
    out[operation.path] ??= parameters.length ? { parameters } : {};
    out[operation.path]![operation.method] = operationObject(id, operation);
  }
  return out;
}

export function openApiDocument(baseUrl: string) {
  return {
    openapi: '3.1.0',
    info: { title: 'Connector registry', version: '1.0.0', description: 'Registers MCP servers as connectors, connects them and proxies MCP traffic to them.' },
    servers: [{ url: baseUrl }],
    paths: paths(),
    // A caller's API key or access token (README, "Callers and security"); off on a loopback default.
    security: [{ bearer: [] }],
    components: { schemas: components(), securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
  };
}
