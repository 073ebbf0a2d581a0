// What a skill's `paths` gives each backend, in the Launch card (issue 18), against the real
// backend on a copy of testdata/runtime/grants: the skill refkit:lookup lists refs and data.txt
// (accepted) and .env, ../outside and missing (refused). $TERMINAL is a recording stand-in, so
// nothing real is opened. For Claude the card lists the read grants (the projected skill folder and
// the two entries, read only) and the refused entries with their reasons; for PI it says the
// backend has no permission system and still lists the refusals.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  launchBrowser,
  makeRuntimeFixture,
  newPage,
  openAssignments,
  selectTarget,
  startServe,
  terminalStandIn,
  clientsOnPath,
} from './harness.mjs';

let fx, srv, browser, page, opened;

before(async () => {
  fx = makeRuntimeFixture('grants');
  let stand;
  ({ stand, opened } = terminalStandIn(fx.dir));
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

async function launch(target) {
  await selectTarget(page, target);
  const answer = page.waitForResponse((r) => r.url().endsWith('/api/Launch'));
  await page.getByRole('button', { name: 'Launch', exact: true }).click();
  assert.equal((await answer).status(), 200);
  await page.waitForSelector('[data-testid="launch-started"]');
  await opened();
}

const refusedEntries = async () =>
  (await page.locator('[data-testid="launch-refused"] li code').allTextContents()).map((t) => t.split(' ')[1]);

test("Claude: the card lists the skill's read grants in the projection and its refused entries", async () => {
  await launch('agent:reader');
  const grants = page.locator('[data-testid="launch-grants"] li');
  assert.deepEqual(await grants.evaluateAll((els) => els.map((e) => e.dataset.kind)), [
    'skill-folder',
    'paths-entry',
    'paths-entry',
  ]);
  const text = await page.textContent('[data-testid="launch-grants"]');
  assert.match(
    text,
    /refkit:lookup its folder: .*\/runtime\/claude\/[0-9a-f]{32}\/plugins\/refkit\/skills\/lookup \(read only\)/,
  );
  assert.match(text, /paths entry: .*\/skills\/lookup\/refs \(read only\)/);
  assert.match(text, /paths entry: .*\/skills\/lookup\/data\.txt \(read only\)/);
  assert.deepEqual(await refusedEntries(), ['.env', '../outside', 'missing']);
  assert.match(await page.textContent('[data-testid="launch-refused"]'), /credential file or folder/);
});

test('PI: no permission system, said; the refusals are still listed', async () => {
  await launch('agent:pi-reader');
  assert.match(
    await page.textContent('[data-testid="launch-grants"]'),
    /^unsupported by backend: PI has no permission system/,
  );
  assert.equal(await page.locator('[data-testid="launch-grants"] li').count(), 0);
  assert.deepEqual(await refusedEntries(), ['.env', '../outside', 'missing']);
});
