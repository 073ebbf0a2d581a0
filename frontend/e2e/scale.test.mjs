// Scale: a home of 1,000 plugins × 10 skills (about 9 MB of catalog JSON) in the real page: the
// lists are virtualised, the last plugin is reachable, a scan started elsewhere shows its progress,
// search reaches every skill name. How fast is measured by e2e/scale.bench.mjs (make bench), not
// here: a timed test fails on a loaded machine.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { generate } from './benchhome.mjs';
import { launchBrowser, newPage, rowIds, startServe, waitFor } from './harness.mjs';

const PLUGINS = 1000;
const SKILLS = 10;
const LOADS = 3;

let dir, srv, browser;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pb-scale-'));
  const home = join(dir, 'home');
  generate(join(home, '.plugboard'), PLUGINS, SKILLS);
  browser = await launchBrowser(); // first, so the first load meets serve's startup scan
  srv = await startServe({ home, pbHome: join(home, '.plugboard') });
});

after(async () => {
  await browser?.close();
  await srv?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function load() {
  const page = await newPage(browser);
  await page.goto(srv.url);
  await page.waitForSelector('[data-testid="plugin-row"]', { timeout: 60000 });
  // the whole document, not only the list part the rows are first drawn from
  await page.waitForSelector('html[data-catalog="full"]', { state: 'attached', timeout: 60000 });
  return page;
}

test(
  `1,000 plugins × 10 skills: virtualised lists, last plugin reachable, progress of a scan, search across skills`,
  { timeout: 240000 },
  async () => {
    const page = await load();

    // a scan started elsewhere shows its progress in the header, then the page reloads quietly
    await page.waitForSelector('html[data-events="open"]'); // the event stream is connected
    const token = new URL(srv.url).searchParams.get('token');
    const rescan = fetch(`${srv.origin}/api/Rescan`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Plugboard-Token': token },
      body: '[]',
    }).then((r) => r.arrayBuffer());
    await page.waitForSelector('[data-testid="scan-state"][data-state="scanning"]', { timeout: 10000 });
    assert.match(await page.textContent('[data-testid="scan-state"]'), /^Scanning [\d,]+\/1,000$/);
    await rescan;
    await page.waitForSelector('[data-testid="scan-state"][data-state="ready"]', { timeout: 20000 });

    // virtualised: a handful of rows in the DOM, not a thousand
    const inDom = await page.locator('[data-testid="plugin-row"]').count();
    assert.ok(
      inDom > 0 && inDom < 100,
      `the list must be virtualised: ${inDom} plugin rows in the DOM for ${PLUGINS} plugins`,
    );
    assert.equal(await page.textContent('[data-testid="plugin-count"]'), '1,000 plugins'); // a number in the page's language

    // scroll to the end: the last plugin is there
    await page.$eval('[data-testid="plugin-list"]', (el) => (el.scrollTop = el.scrollHeight));
    await waitFor(async () => (await rowIds(page)).includes('plugin-0999'), {
      message: 'plugin-0999 after scrolling to the end',
    });
    const last = page.locator('[data-testid="plugin-row"][data-id="plugin-0999"]');
    assert.ok(await last.isVisible());
    const box = await last.boundingBox();
    const list = await page.locator('[data-testid="plugin-list"]').boundingBox();
    assert.ok(
      box.y >= list.y && box.y + box.height <= list.y + list.height + 1,
      'the last row is inside the list viewport',
    );
    assert.ok((await page.locator('[data-testid="plugin-row"]').count()) < 100, 'still virtualised after scrolling');

    // keyboard End/Home over the whole list, and search across 10,000 skill names
    await page.click('[data-testid="plugin-row"][data-id="plugin-0999"]');
    await page.keyboard.press('Home');
    await waitFor(
      async () =>
        (await page.getAttribute('[data-testid="plugin-row"][aria-selected="true"]', 'data-id')) === 'plugin-0000',
      {
        message: 'Home selects the first plugin',
      },
    );
    await page.fill('[data-testid="search"]', 'p0742-skill-03');
    await waitFor(async () => JSON.stringify(await rowIds(page)) === '["plugin-0742"]', {
      message: 'search by skill name',
    });

    // the Skills view holds 10,000 skills, virtualised too
    await page.click('[data-testid="tab-skills"]');
    await page.waitForSelector('[data-testid="skill-row"]');
    const skillRows = await page.locator('[data-testid="skill-row"]').count();
    assert.ok(skillRows < 100, `the skill list must be virtualised: ${skillRows} rows in the DOM`);
    await page.context().close();
  },
);
