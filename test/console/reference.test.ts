// The API reference (/reference, Swagger UI) renders every schema of the OpenAPI document: every
// `$ref` points at a component that exists, no component carries an `$id` (an id with a fragment
// made Swagger UI's resolver take each for a document of its own: 198 "Resolver error"s), and in
// Chromium, with every operation and every model expanded, no resolver error shows.
// Needs `npm run build` (dist/console).
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import Koa from 'koa';
import type { Browser } from 'playwright-core';
import { loadConsoleFiles } from '../../api/console-files';
import { openApiDocument } from '../../api/openapi';
import { consoleHandlers } from '../../api/routes/console';
import { routerOf } from '../../api/router';
import { freePortBelowEphemeral } from '../../service/free-port';
import { launchChromium, screenshot, watchCsp } from './browser';

const DIST_CONSOLE = path.join(fileURLToPath(new URL('../..', import.meta.url)), 'dist', 'console');

function referencesOf(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((child) => referencesOf(child, out));
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') out.push(value);
      else referencesOf(value, out);
    }
  }
  return out;
}

test('every $ref of the document names a component that exists, and no schema carries an $id', (t) => {
  const document = openApiDocument('http://localhost:8080');
  const schemas = document.components.schemas as Record<string, unknown>;
  const references = referencesOf(document);
  t.true(references.length > 20);
  for (const ref of new Set(references)) {
    const match = /^#\/components\/schemas\/([A-Za-z0-9_]+)$/.exec(ref);
    t.truthy(match, `${ref} is a plain pointer into the components`);
    if (match) t.truthy(schemas[match[1]!], `${ref} exists`);
  }
  t.false(JSON.stringify(document).includes('"$id"'));
  t.truthy(schemas.ToolsetAccessRule, 'the shared access rule is a component of its own');
  t.false('__shared' in schemas);
});

let server: http.Server;
let browser: Browser;
let base: string;

test.before(async () => {
  const port = await freePortBelowEphemeral();
  base = `http://127.0.0.1:${port}`;
  const document = openApiDocument(base);
  const app = new Koa();
  app.use(routerOf({
    getOpenApi: (ctx) => { ctx.body = document; },
    ...consoleHandlers(loadConsoleFiles(DIST_CONSOLE), { signIn: null, origin: { baseUrl: base, allowedOrigins: [], authEnabled: false } }),
  }).routes());
  server = http.createServer(app.callback()).listen(port, '127.0.0.1');
  browser = await launchChromium();
});

test.after.always(async () => {
  await browser?.close();
  server?.close();
});

test('in Chromium, every operation and every model of /reference expanded shows no resolver error', async (t) => {
  t.timeout(6 * 60_000, 'Swagger UI renders 36 expanded operations slowly on a busy machine');
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  t.teardown(() => context.close());
  const csp = watchCsp(context);
  const page = await context.newPage();
  await page.goto(`${base}/reference`);
  const summaries = page.locator('.opblock .opblock-summary-control');
  await summaries.first().waitFor();
  const operations = await summaries.count();
  const declared = Object.values(openApiDocument(base).paths).reduce((n, item) => n + Object.keys(item).filter((k) => k !== 'parameters').length, 0);
  t.is(operations, declared, 'every operation is listed');
  // All at once, in one task of the page: clicked one by one, each re-render of the growing page
  // took seconds on a busy machine. Each operation's schemas are resolved as it opens.
  await page.evaluate('document.querySelectorAll(".opblock .opblock-summary-control").forEach((b) => b.click())');
  await page.locator('.opblock.is-open .opblock-body').nth(operations - 1).waitFor({ timeout: 150_000 });
  await page.waitForFunction('document.querySelectorAll(".loading-container").length === 0', undefined, { timeout: 60_000 });
  await page.locator('.models-control').click();
  // OpenAPI 3.1: each component is an article of Swagger UI's JSON Schema 2020-12 renderer, with an "Expand all" button.
  const models = page.locator('.models article[data-json-schema-level="0"]');
  await models.first().waitFor();
  const modelCount = await models.count();
  t.is(modelCount, Object.keys(openApiDocument(base).components.schemas).length, 'every component is listed under Schemas');
  await page.evaluate('document.querySelectorAll(".models article[data-json-schema-level=\'0\'] > div > .json-schema-2020-12-expand-deep-button").forEach((b) => b.click())');
  await page.waitForFunction(`[...document.querySelectorAll(".models article[data-json-schema-level='0'] > div > .json-schema-2020-12-expand-deep-button")].every((b) => b.textContent === 'Collapse all')`, undefined, { timeout: 60_000 });
  await page.waitForFunction('document.querySelectorAll(".loading-container").length === 0', undefined, { timeout: 60_000 });
  const body = await page.textContent('body') ?? '';
  t.false(/Resolver error/i.test(body), (/.{0,200}Resolver error.{0,200}/is.exec(body) ?? [''])[0]);
  t.false(/Could not resolve reference/i.test(body));
  t.is(await page.locator('.errors-wrapper').count(), 0, 'no error box');
  await screenshot(page, 'api-reference-expanded', { fullPage: false });
  t.deepEqual(csp, []);
});
