// Renders the service's own OpenAPI document with Swagger UI (loaded before this file, from the
// same origin). No "try it out" against other servers: the document names only this one, and the
// validator badge (which would send the document to a third party) is off.
interface SwaggerWindow {
  SwaggerUIBundle: (options: Record<string, unknown>) => unknown;
}

(window as unknown as SwaggerWindow).SwaggerUIBundle({
  url: '/api/v1/openapi.json',
  dom_id: '#reference',
  deepLinking: true,
  validatorUrl: null,
  defaultModelsExpandDepth: 0,
  docExpansion: 'list',
});
