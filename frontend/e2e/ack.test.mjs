// MCP acknowledgments at launch, against the real backend on a copy of testdata/runtime/home, whose
// agent coder holds the portable plugin review (a stdio server lint and a remote server docs) and
// nothing acknowledged. $TERMINAL is a recording stand-in, so nothing real is opened. The Launch card
// must stop before any terminal opens and show the acknowledgment dialog for servers that are not
// acknowledged for the target as they are now; acknowledged, they launch; a server whose command
// changes (a git pull) is asked about again; "Launch without them" launches and offers the dialog.

import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  launchBrowser,
  makeRuntimeFixture,
  newPage,
  openAssignments,
  selectTarget,
  startServe,
  terminalStandIn,
  waitFor,
  clientsOnPath,
} from './harness.mjs';

let fx, srv, browser, page, record, opened;

before(async () => {
  fx = makeRuntimeFixture();
  let stand;
  ({ stand, record, opened } = terminalStandIn(fx.dir));
  srv = await startServe({ ...fx, env: { TERMINAL: stand, ...clientsOnPath(fx.dir) } });
  browser = await launchBrowser();
  page = await newPage(browser);
  await openAssignments(page, srv.url);
});

after(async () => {
  await browser?.close();
  await srv?.stop();
  fx?.cleanup();
});

const launchButton = () => page.getByRole('button', { name: 'Launch', exact: true });
const dialogServers = () =>
  page.$$eval('[data-testid="ack-dialog"] [data-testid="ack-server"]', (els) =>
    els.map((e) => `${e.getAttribute('data-plugin')}/${e.getAttribute('data-server')}`).sort(),
  );
const serversShown = async () => (await page.textContent('[data-testid="launch-servers"]')) ?? '';

test('an unacknowledged server stops the launch with the dialog; acknowledged, it launches', async () => {
  await selectTarget(page, 'agent:coder');
  rmSync(record, { force: true });
  await launchButton().click();
  await page.waitForSelector('[data-testid="ack-dialog"]');
  assert.deepEqual(await dialogServers(), ['review/docs', 'review/lint']);
  const dialog = await page.textContent('[data-testid="ack-dialog"]');
  assert.match(dialog, /lint/);
  assert.match(dialog, /digest [0-9a-f]{12}/, 'the dialog shows the digest it acknowledges');
  assert.ok(!(await page.content()).includes('do-not-leak'), 'no MCP env or header value in the page');
  assert.equal(existsSync(record), false, 'no terminal was opened before the acknowledgment');

  const answer = page.waitForResponse((r) => r.url().endsWith('/api/Acknowledge'));
  await page.click('[data-testid="ack-confirm"]');
  assert.equal((await answer).status(), 200);
  await page.waitForSelector('[data-testid="launch-started"]');
  const servers = await serversShown();
  assert.ok(servers.includes('lint') && servers.includes('docs'), servers);
  await opened();

  // The history shows the acknowledgment with its digests.
  await page.waitForSelector('[data-testid="history-ack"][data-server="lint"]');
  const entry = page.locator('[data-testid="history-entry"]', { has: page.locator('[data-testid="history-ack"]') });
  assert.match(
    await entry.first().textContent(),
    /acknowledgment.*acknowledged: review\/docs, review\/lint.*review\/lint \(stdio\) digest [0-9a-f]{12}/s,
  );
  assert.equal(
    await entry.first().locator('[data-testid="history-revert"]').count(),
    0,
    'an acknowledgment is not reverted',
  );

  // Launching again asks nothing.
  const again = page.waitForResponse((r) => r.url().endsWith('/api/Launch'));
  await launchButton().click();
  assert.equal((await again).status(), 200);
  await page.waitForSelector('[data-testid="launch-started"]');
  await opened();
  assert.equal(await page.locator('[data-testid="ack-dialog"]').count(), 0);
});

test('a server whose command changed after it was acknowledged is asked about again', async () => {
  const mcp = join(fx.pbHome, 'plugins', 'review', 'mcp.json');
  // The edit reloads the catalog live, and the assignment view with it: let that land before
  // the click, so that the view is not redrawn under it.
  const mark = page.locator('[data-testid="reloaded"]');
  const seq = await mark.getAttribute('data-seq');
  const redrawn = page.waitForResponse((r) => r.url().endsWith('/api/Targets'));
  writeFileSync(mcp, readFileSync(mcp, 'utf8').replace('"./bin/lint"', '"sh"'));
  await waitFor(async () => (await mark.getAttribute('data-seq')) !== seq, { message: 'the live reload of the edit' });
  await redrawn;
  await selectTarget(page, 'agent:coder');
  await launchButton().click();
  await page.waitForSelector('[data-testid="ack-dialog"]');
  assert.deepEqual(await dialogServers(), ['review/lint'], 'only the changed server');
  assert.match(await page.textContent('[data-testid="ack-dialog"]'), /sh/);
  await page.click('[data-testid="ack-cancel"]');
  await page.waitForSelector('[data-testid="launch-not-acked"]');
  assert.equal(await page.locator('[data-testid="launch-started"]').count(), 0, 'cancel starts nothing');
});

test('"Launch without them" leaves them out, lists them, and offers the dialog for next time', async () => {
  await selectTarget(page, 'template:team/coder'); // inherits the set, not the acknowledgment
  await launchButton().click();
  await page.waitForSelector('[data-testid="ack-dialog"]');
  assert.deepEqual(await dialogServers(), ['review/docs', 'review/lint']);
  await page.click('[data-testid="ack-without"]');
  await page.waitForSelector('[data-testid="launch-started"]');
  await opened();
  assert.ok(!(await serversShown()).includes('lint'), 'lint was left out');
  assert.match(await page.textContent('[data-testid="launch-dropped"]'), /lint.*not acknowledged/s);
  assert.match(await page.textContent('[data-testid="launch-unacked"]'), /review\/docs, review\/lint/);

  await page.click('[data-testid="launch-ack"]');
  await page.waitForSelector('[data-testid="ack-dialog"]');
  assert.deepEqual(await dialogServers(), ['review/docs', 'review/lint']);
  await page.click('[data-testid="ack-confirm"]');
  await page.waitForFunction(() =>
    /Acknowledged review\/docs, review\/lint/.test(
      document.querySelector('[data-testid="launch-unacked"]')?.textContent ?? '',
    ),
  );
  // The card refreshes with the next launch: now it lists them, and nothing is asked.
  await launchButton().click();
  await page.waitForSelector('[data-testid="launch-started"]');
  await opened();
  await waitFor(async () => (await serversShown()).includes('lint'), { message: 'lint in the launch card' });
  assert.ok((await serversShown()).includes('docs'));
  assert.equal(await page.locator('[data-testid="ack-dialog"]').count(), 0);
});
