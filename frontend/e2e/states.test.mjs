// Page states against the real backend: empty home, a failed Catalog call with retry, and a
// catalog:updated from a scan another client started (quiet reload, selection kept).

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { generate } from './benchhome.mjs';
import { launchBrowser, makeFixture, newPage, rowIds, startServe, waitFor, waitReady } from './harness.mjs';

const cleanups = [];
after(async () => {
  for (const fn of cleanups.reverse()) await fn();
});

/** `plugboard serve` on fx's home and a page in a browser of its own, all stopped after the tests. */
async function serveAndOpen(fx) {
  const srv = await startServe(fx);
  cleanups.push(srv.stop);
  const browser = await launchBrowser();
  cleanups.push(() => browser.close());
  return { srv, page: await newPage(browser) };
}

// (A home with nothing at all opens on the welcome view instead: welcome.test.mjs.)
test('a home with a skill of its own and no plugin says where Plugboard looks for plugins', async () => {
  const home = mkdtempSync(join(tmpdir(), 'pb-empty-'));
  cleanups.push(() => rmSync(home, { recursive: true, force: true }));
  mkdirSync(join(home, '.claude', 'skills', 'mine'), { recursive: true });
  writeFileSync(
    join(home, '.claude', 'skills', 'mine', 'SKILL.md'),
    '---\nname: mine\ndescription: Mine.\n---\nMine.\n',
  );
  const { srv, page } = await serveAndOpen({ home, pbHome: join(home, '.plugboard') });
  await page.goto(srv.url);
  await page.waitForSelector('[data-testid="empty"]:not([hidden])');
  const text = await page.textContent('[data-testid="empty"]');
  assert.match(text, /No plugins found/);
  assert.match(text, /~\/\.plugboard\/plugins\/<id>\//);
  assert.match(text, /~\/\.cursor\/plugins\/local/);
  assert.match(text, /~\/\.cursor\/plugins\/cache/);
  assert.equal(await page.textContent('[data-testid="plugin-count"]'), '0 plugins');
  assert.equal(await page.locator('[data-testid="welcome"]').count(), 0);
});

test('a failed Catalog call shows the error with Retry; Retry loads the catalog', async () => {
  const fx = makeFixture();
  cleanups.push(fx.cleanup);
  const { srv, page } = await serveAndOpen(fx);
  let fail = true;
  // the page's first request, CatalogList, and then Catalog: both fail
  await page.route(/\/api\/Catalog(List)?$/, (route) =>
    fail
      ? route.fulfill({
          status: 500,
          contentType: 'application/json',
          body: JSON.stringify({ code: 'io', message: 'disk on fire' }),
        })
      : route.continue(),
  );
  await page.goto(srv.url);
  await page.waitForSelector('[data-testid="error"]');
  assert.equal(await page.textContent('[data-testid="error-message"]'), 'disk on fire');
  assert.equal(await page.getAttribute('[data-testid="scan-state"]', 'data-state'), 'error');
  fail = false;
  await page.click('[data-testid="retry"]');
  await waitReady(page);
  assert.equal((await rowIds(page)).length, 8);
  assert.equal(await page.isHidden('[data-testid="error"]'), true);
});

test('a large home: the list part draws the rows first; a plugin chosen meanwhile shows when the whole document comes', async () => {
  // 110 plugins × 10 skills: past the 1,000 skills from which CatalogList is a part (a small
  // home gets the whole document from it, which the other tests here see)
  const dir = mkdtempSync(join(tmpdir(), 'pb-e2e-list-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const home = join(dir, 'home');
  generate(join(home, '.plugboard'), 110, 10);
  const { srv, page } = await serveAndOpen({ home, pbHome: join(home, '.plugboard') });
  // the whole document is held back until the test lets it go
  let release;
  const held = new Promise((r) => (release = r));
  await page.route('**/api/Catalog', async (route) => {
    await held;
    await route.continue();
  });
  await page.goto(srv.url);
  await page.waitForSelector('html[data-catalog="list"]', { state: 'attached' });
  assert.ok((await rowIds(page)).includes('plugin-0000'), 'rows from the list part');
  assert.equal(await page.textContent('[data-testid="plugin-count"]'), '110 plugins');
  assert.equal(await page.getAttribute('[data-testid="scan-state"]', 'data-state'), 'scanning');
  assert.equal(await page.isHidden('[data-testid="loading"]'), true, 'no loading screen over the list');
  // the client badges say whether each client loads it; the reasons come with the document
  const badgeTitle = (id) =>
    page.getAttribute(
      `[data-testid="plugin-row"][data-id="${id}"] [data-testid="client-badge"][data-client="cursor"]`,
      'title',
    );
  assert.equal(await badgeTitle('plugin-0000'), 'Cursor loads it');
  // search works on the list part (skill names are in it)
  await page.fill('[data-testid="search"]', 'p0042-skill-03');
  await waitFor(async () => JSON.stringify(await rowIds(page)) === '["plugin-0042"]', {
    message: 'search in the list part',
  });
  await page.click('[data-testid="plugin-row"][data-id="plugin-0042"]');
  await page.waitForSelector('[data-testid="detail-loading"]');
  // another tab waits for the document behind the loading screen
  await page.click('[data-testid="tab-skills"]');
  assert.equal(await page.isVisible('[data-testid="loading"]'), true);
  await page.click('[data-testid="tab-plugins"]');

  release();
  await page.waitForSelector('html[data-catalog="full"]', { state: 'attached' });
  await page.waitForSelector('[data-testid="detail"] article[data-id="plugin-0042"]');
  assert.equal(await page.getAttribute('[data-testid="plugin-row"][aria-selected="true"]', 'data-id'), 'plugin-0042');
  assert.equal(await page.getAttribute('[data-testid="scan-state"]', 'data-state'), 'ready');
  await waitFor(
    async () =>
      (await badgeTitle('plugin-0042')) === 'Cursor loads: an Agent Plugins package: Cursor loads its skills and MCP',
    { message: 'the badge with its reason from the document' },
  );
  await page.click('[data-testid="tab-skills"]');
  await page.waitForSelector('[data-testid="skill-row"]');
});

test('a small home: CatalogList is the whole document, and the page asks for nothing more', async () => {
  const fx = makeFixture();
  cleanups.push(fx.cleanup);
  const { srv, page } = await serveAndOpen(fx);
  const calls = [];
  page.on('request', (r) => /\/api\/Catalog(List)?$/.test(r.url()) && calls.push(r.url().split('/').pop()));
  await page.goto(srv.url);
  await waitReady(page);
  await page.click('[data-testid="plugin-row"][data-id="alpha"]');
  await page.waitForSelector('[data-testid="detail"] article[data-id="alpha"]');
  assert.deepEqual(calls, ['CatalogList']);
});

test('a scan started elsewhere updates the page quietly and keeps the selection', async () => {
  const fx = makeFixture();
  cleanups.push(fx.cleanup);
  const { srv, page } = await serveAndOpen(fx);
  await page.goto(srv.url);
  await waitReady(page);
  await page.click('[data-testid="plugin-row"][data-id="tool@acme"]');
  const catalogCalls = [];
  page.on('request', (r) => r.url().endsWith('/api/Catalog') && catalogCalls.push(r.url()));
  // another client (the desktop tray, a second tab) rescans
  const token = new URL(srv.url).searchParams.get('token');
  const res = await fetch(`${srv.origin}/api/Rescan`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Plugboard-Token': token },
    body: '[]',
  });
  assert.equal(res.status, 200);
  await waitFor(() => catalogCalls.length === 1, { message: 'the page fetched the catalog after catalog:updated' });
  await page.waitForTimeout(300);
  assert.equal(catalogCalls.length, 1, 'one quiet reload');
  assert.equal(await page.getAttribute('[data-testid="plugin-row"][aria-selected="true"]', 'data-id'), 'tool@acme');
  assert.equal(await page.getAttribute('[data-testid="detail"] article', 'data-id'), 'tool@acme');
  assert.equal(await page.isHidden('[data-testid="loading"]'), true, 'no loading screen for a quiet reload');
  // the page's own Rescan applies its result without a second download
  catalogCalls.length = 0;
  await page.click('[data-testid="rescan"]');
  await page.waitForSelector('[data-testid="scan-state"][data-state="ready"]');
  await page.waitForTimeout(500);
  assert.equal(catalogCalls.length, 0, 'Rescan returns the document; the event does not fetch it again');
});
