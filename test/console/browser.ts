// What the console's browser tests share: Chromium (the toolchain's, through playwright-core),
// screenshots under test-output/console/ (git-ignored) for people to look at, and a watch on
// every page for Content-Security-Policy violations, which must never happen.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { createLogger } from '../../platform/logger';
import { locateChromium } from '../../stack/toolchain/chromium';

const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

export const SCREENSHOTS = path.join(fileURLToPath(new URL('../..', import.meta.url)), 'test-output', 'console');

export async function launchChromium(): Promise<Browser> {
  // Found or fetched by `npm test`'s toolchain step; missing here means that step was skipped.
  const found = await locateChromium({ log: createLogger('test-browser', 'warn'), install: false });
  return chromium.launch({ executablePath: found.path, env: { ...process.env, ...found.env }, args: CHROMIUM_ARGS });
}

/** Every CSP violation the browser reports on any page of the context, as its console text. */
export function watchCsp(context: BrowserContext): string[] {
  const violations: string[] = [];
  const watch = (page: Page) => page.on('console', (message) => {
    if (/Content Security Policy|Trusted Type/i.test(message.text())) violations.push(`${page.url()}: ${message.text()}`);
  });
  context.pages().forEach(watch);
  context.on('page', watch);
  return violations;
}

/** `fullPage: false` for pages tens of thousands of pixels tall: painting all of one took over 30 s on a busy machine. */
export async function screenshot(page: Page, name: string, { fullPage = true } = {}): Promise<string> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  const file = path.join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage, timeout: 120_000 });
  return file;
}

/** Whatever the page keeps in localStorage: the console must keep nothing there. */
// Expressions as strings: the tests' TypeScript has no DOM types.
export const localStorageKeys = (page: Page) => page.evaluate<string[]>('Object.keys(localStorage)');
export const sessionStorageLength = (page: Page) => page.evaluate<number>('sessionStorage.length');

/** Opens the console at `base` and signs in with an API key, as a person would: the field, then the button. */
export async function signInWithKey(page: Page, base: string, key: string): Promise<void> {
  await page.goto(`${base}/`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in with the key' }).click();
  await page.locator('#signed-in-as').waitFor();
}

/**
 * Signs in at the identity provider (oidc-provider's development interactions) as `login`, from
 * the console's signed-out page, consenting where the provider asks (it may remember a consent).
 */
export async function signInAtProvider(page: Page, issuer: string, login: string): Promise<void> {
  await page.getByRole('button', { name: 'Sign in with the identity provider' }).click();
  await page.waitForURL((url) => url.href.startsWith(issuer) && url.pathname.includes('/interaction/'));
  await page.fill('input[name="login"]', login);
  await page.fill('input[name="password"]', 'any password');
  await page.click('button[type="submit"]');
  const consent = page.locator('input[name="prompt"][value="consent"]');
  await Promise.race([consent.waitFor({ state: 'attached' }), page.locator('#signed-in-as').waitFor()]);
  if (await consent.count()) await page.click('button[type="submit"]');
  await page.locator('#signed-in-as').waitFor();
}
