// Assignments against the real backend on a copy of testdata/assign/home: the draft and Save, Reset,
// the dirty-draft guard, the MCP acknowledgment dialog, refused and stale saves, Revert, template
// slots (agent defaults / custom) and read-only shell bindings.

import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  launchBrowser,
  makeAssignFixture,
  newPage,
  openAssignments,
  selectTarget,
  startServe,
  waitFor,
} from './harness.mjs';

let fx, srv, browser, page;
const agentFile = (name) => join(fx.pbHome, 'agents', `${name}.json`);
const readAgent = (name) => JSON.parse(readFileSync(agentFile(name), 'utf8'));
const check = (id) => page.locator(`[data-testid="assign-check"][data-id="${id}"]`);
const status = () => page.textContent('[data-testid="assign-status"]');

before(async () => {
  fx = makeAssignFixture();
  srv = await startServe(fx);
  browser = await launchBrowser();
  page = await newPage(browser);
  await openAssignments(page, srv.url);
});

after(async () => {
  await browser?.close();
  await srv?.stop();
  fx?.cleanup();
});

async function waitSaved() {
  await waitFor(async () => /^Saved|^Reverted|^Now uses/.test(await status()), { message: 'saved status' });
}

test('draft: check a plugin, Save, the agent file has it and History shows the entry', async () => {
  await selectTarget(page, 'agent:bare');
  assert.equal(await page.isDisabled('[data-testid="assign-save"]'), true, 'nothing to save yet');
  await check('notes').check();
  assert.equal(await page.getAttribute('[data-testid="assign-target"]', 'data-dirty'), 'true');
  await page.click('[data-testid="assign-save"]');
  await waitSaved();
  assert.deepEqual(readAgent('bare').pluginDirs, ['plugins/notes']);
  await page.waitForSelector('[data-testid="history-entry"]');
  const change = await page.textContent('[data-testid="history-entry"] [data-testid="history-change"]');
  assert.match(change, /\+ plugins\/notes/);
  assert.equal(await page.getAttribute('[data-testid="assign-target"]', 'data-dirty'), 'false');
});

test('keyboard: Space toggles a checkbox and the focus stays on it; Tab moves on from there', async () => {
  await selectTarget(page, 'agent:bare');
  await check('summarizer').focus();
  await page.keyboard.press('Space');
  assert.equal(await check('summarizer').isChecked(), true);
  assert.equal(await page.getAttribute('[data-testid="assign-target"]', 'data-dirty'), 'true');
  const focused = () =>
    page.evaluate(() => `${document.activeElement?.dataset.testid}/${document.activeElement?.dataset.id}`);
  assert.equal(await focused(), 'assign-check/summarizer', 'focus kept on the rebuilt checkbox');
  await page.keyboard.press('Space');
  assert.equal(await check('summarizer').isChecked(), false);
  assert.equal(await focused(), 'assign-check/summarizer');
  await page.keyboard.press('Tab');
  assert.notEqual(await page.evaluate(() => document.activeElement?.tagName), 'BODY', 'Tab goes on from the checkbox');
  assert.equal(await page.getAttribute('[data-testid="assign-target"]', 'data-dirty'), 'false');
});

test('Reset discards the draft', async () => {
  await selectTarget(page, 'agent:bare');
  await check('summarizer').check();
  assert.equal(await page.getAttribute('[data-testid="assign-target"]', 'data-dirty'), 'true');
  await page.click('[data-testid="assign-reset"]');
  assert.equal(await check('summarizer').isChecked(), false);
  assert.equal(await page.getAttribute('[data-testid="assign-target"]', 'data-dirty'), 'false');
});

test('a dirty draft blocks switching target and leaving the tab; cancel keeps it', async () => {
  await selectTarget(page, 'agent:bare');
  // The backend is told, so that the desktop window asks before closing.
  const told = page.waitForRequest((r) => r.url().endsWith('/api/SetDraftDirty') && r.postData() === '[true]');
  await check('summarizer').check();
  await told;
  const warns = () =>
    page.evaluate(() => {
      const e = new Event('beforeunload', { cancelable: true });
      window.dispatchEvent(e);
      return e.defaultPrevented;
    });
  assert.equal(await warns(), true, 'beforeunload warns while dirty');
  await page.click('[data-testid="target"][data-id="agent:keeper"]');
  await page.waitForSelector('[data-testid="discard-dialog"]');
  assert.match(await page.textContent('[data-testid="discard-dialog"]'), /Discard unsaved changes\?/);
  await page.keyboard.press('Escape');
  await page.waitForSelector('[data-testid="discard-dialog"]', { state: 'detached' });
  assert.equal(await page.getAttribute('[data-testid="assign-target"]', 'data-id'), 'agent:bare');
  assert.equal(await check('summarizer').isChecked(), true, 'draft kept');
  // leaving the tab asks too
  await page.click('[data-testid="tab-plugins"]');
  await page.waitForSelector('[data-testid="discard-dialog"]');
  await page.click('[data-testid="discard-cancel"]');
  assert.equal(await page.getAttribute('[data-testid="tab-assign"]', 'aria-selected'), 'true');
  // discarding switches
  await page.click('[data-testid="target"][data-id="agent:keeper"]');
  await page.click('[data-testid="discard-confirm"]');
  await page.waitForSelector('[data-testid="assign-target"][data-id="agent:keeper"]');
  await selectTarget(page, 'agent:bare');
  assert.equal(await check('summarizer').isChecked(), false, 'discarded');
  assert.equal(await warns(), false, 'no warning when clean');
});

test('acknowledgment: tools opens the dialog with sanitised servers; cancel saves nothing, acknowledge saves', async () => {
  await selectTarget(page, 'agent:bare');
  const before = readFileSync(agentFile('bare'), 'utf8');
  await check('tools').check();
  await page.click('[data-testid="assign-save"]');
  await page.waitForSelector('[data-testid="ack-dialog"]');
  const text = await page.textContent('[data-testid="ack-dialog"]');
  assert.match(text, /These MCP servers will run local code on this machine and may send data over the network\./);
  assert.match(text, /This acknowledgment is not a sandbox\./);
  const servers = await page.$$eval('[data-testid="ack-server"]', (els) =>
    els.map((e) => `${e.dataset.plugin}/${e.dataset.server}`).sort(),
  );
  assert.deepEqual(servers, ['tools/api', 'tools/db']);
  assert.match(text, /DB_PASSWORD/, 'env key names shown');
  assert.match(text, /Authorization/, 'header names shown');
  assert.match(text, /https:\/\/127\.0\.0\.1:9/, 'origin shown');
  assert.ok(!(await page.content()).includes('PLANTED'), 'no planted value in the page');
  // focus stays in the dialog
  for (let i = 0; i < 4; i++) {
    await page.keyboard.press('Tab');
    assert.ok(await page.evaluate(() => !!document.activeElement?.closest('[data-testid="ack-dialog"]')));
  }
  await page.click('[data-testid="ack-cancel"]');
  await page.waitForSelector('[data-testid="ack-dialog"]', { state: 'detached' });
  assert.equal(readFileSync(agentFile('bare'), 'utf8'), before, 'cancel wrote nothing');
  assert.equal(await check('tools').isChecked(), true, 'draft kept after cancel');
  await page.click('[data-testid="assign-save"]');
  await page.waitForSelector('[data-testid="ack-dialog"]');
  await page.click('[data-testid="ack-confirm"]');
  await waitSaved();
  assert.deepEqual(readAgent('bare').pluginDirs, ['plugins/notes', 'plugins/tools']);
  await waitFor(
    async () => /acknowledged: tools\/api, tools\/db/.test(await page.textContent('[data-testid="history"]')),
    {
      message: 'acknowledged servers in history',
    },
  );
  assert.ok(!(await page.content()).includes('PLANTED'));
});

test('refused: an invalid plugin cannot be checked; an assigned invalid one can be unchecked', async () => {
  await selectTarget(page, 'agent:bare');
  assert.equal(await check('broken').isDisabled(), true);
  await check('broken')
    .click({ force: true })
    .catch(() => {});
  assert.equal(await check('broken').isChecked(), false);
  assert.equal(await page.getAttribute('[data-testid="assign-target"]', 'data-dirty'), 'false');
  await selectTarget(page, 'agent:researcher');
  assert.equal(await check('broken').isChecked(), true);
  assert.equal(await check('broken').isDisabled(), false, 'already assigned: can be removed');
  // a refused rule (a name collision) shows the message and names; nothing saved
  const before = readFileSync(agentFile('researcher'), 'utf8');
  await check('notes-fork').check();
  await page.click('[data-testid="assign-save"]');
  await waitFor(async () => /^Refused: /.test(await status()), { message: 'refused status' });
  assert.match(await status(), /notes/);
  assert.ok((await page.locator('[data-testid="refused-name"]').count()) >= 1);
  assert.equal(readFileSync(agentFile('researcher'), 'utf8'), before);
  await page.click('[data-testid="assign-reset"]');
});

test('stale: a disk change under a dirty draft keeps it, marks it stale, blocks Save; Reset loads the new content', async () => {
  await selectTarget(page, 'agent:keeper');
  await check('summarizer').check();
  const k = readAgent('keeper');
  k.pluginDirs = [...k.pluginDirs, 'plugins/db-tools'];
  writeFileSync(agentFile('keeper'), JSON.stringify(k, null, 2));
  await page.click('[data-testid="rescan"]'); // catalog:updated → Targets again
  await waitFor(async () => (await page.getAttribute('[data-testid="assign-target"]', 'data-stale')) === 'true', {
    message: 'stale mark',
  });
  assert.match(await status(), /stale: this target changed on disk/);
  assert.equal(await check('summarizer').isChecked(), true, 'draft kept');
  assert.equal(await page.isDisabled('[data-testid="assign-save"]'), true);
  await page.click('[data-testid="assign-reset"]');
  assert.equal(await check('summarizer').isChecked(), false);
  assert.equal(await check('db-tools').isChecked(), true, 'the new content');
  assert.equal(await page.isDisabled('[data-testid="assign-save"]'), true);
});

test('stale without Rescan: the watcher sees an agent file edited under a dirty draft', async () => {
  await selectTarget(page, 'agent:researcher');
  await check('summarizer').check();
  const r = readAgent('researcher');
  r.description = 'edited in an editor while the page has a draft';
  writeFileSync(agentFile('researcher'), JSON.stringify(r, null, 2));
  // no Rescan: targets:changed comes from the live watcher
  await waitFor(async () => (await page.getAttribute('[data-testid="assign-target"]', 'data-stale')) === 'true', {
    message: 'stale mark from the watcher',
  });
  assert.equal(await check('summarizer').isChecked(), true, 'draft kept');
  await page.click('[data-testid="assign-reset"]');
  assert.equal(await page.getAttribute('[data-testid="assign-target"]', 'data-stale'), 'false');
});

test('stale: a Save racing a disk change answers stale and shows it', async () => {
  await selectTarget(page, 'agent:keeper');
  await check('summarizer').check();
  const k = readAgent('keeper');
  k.pluginDirs = k.pluginDirs.filter((d) => d !== 'plugins/db-tools');
  writeFileSync(agentFile('keeper'), JSON.stringify(k, null, 2));
  const onDisk = readFileSync(agentFile('keeper'), 'utf8');
  await page.click('[data-testid="assign-save"]');
  await waitFor(async () => /stale: this target changed on disk/.test(await status()), { message: 'stale status' });
  assert.equal(readFileSync(agentFile('keeper'), 'utf8'), onDisk, 'nothing written');
  assert.equal(await page.isDisabled('[data-testid="assign-save"]'), true);
  assert.equal(await check('summarizer').isChecked(), true);
  await page.click('[data-testid="assign-reset"]');
  assert.equal(await check('db-tools').isChecked(), false);
});

test('revert: the saved entry is reverted, the file restored, a new entry says "revert of #n"', async () => {
  await selectTarget(page, 'agent:bare');
  await page.waitForSelector('[data-testid="history-entry"]');
  const newest = page.locator('[data-testid="history-entry"]').first();
  const id = await newest.getAttribute('data-id');
  await newest.locator('[data-testid="history-revert"]').click();
  // the revert asks first, showing what it takes out
  await page.waitForSelector('[data-testid="revert-dialog"]');
  assert.match(await page.textContent('[data-testid="revert-dialog"]'), /− plugins\/tools/);
  await page.click('[data-testid="revert-confirm"]');
  await waitSaved();
  assert.deepEqual(readAgent('bare').pluginDirs, ['plugins/notes']);
  await waitFor(
    async () =>
      (await page.locator('[data-testid="history-entry"]').first().textContent()).includes(`revert of #${id}`),
    { message: 'revert entry' },
  );
});

test('revert: an entry reverted before says so; a revert re-adding acknowledged MCP does not ask again', async () => {
  await selectTarget(page, 'agent:bare');
  const before = readFileSync(agentFile('bare'), 'utf8');
  // the acknowledged save (tools added) was reverted by the test before: a second revert says so
  const ackEntry = page.locator('[data-testid="history-entry"]', { hasText: 'acknowledged: tools/api' });
  const ackId = await ackEntry.getAttribute('data-id');
  await ackEntry.locator('[data-testid="history-revert"]').click();
  await page.click('[data-testid="revert-confirm"]');
  await waitFor(async () => new RegExp(`entry ${ackId} was already reverted by entry`).test(await status()), {
    message: 'already reverted status',
  });
  assert.equal(readFileSync(agentFile('bare'), 'utf8'), before, 'nothing written');
  // reverting the revert brings tools back: Escape on the question writes nothing; confirmed, it saves
  // without asking about tools/api again — that digest was acknowledged for agent:bare before
  const newest = page.locator('[data-testid="history-entry"]').first();
  const id = await newest.getAttribute('data-id');
  await newest.locator('[data-testid="history-revert"]').click();
  await page.waitForSelector('[data-testid="revert-dialog"]');
  assert.match(await page.textContent('[data-testid="revert-dialog"]'), /\+ plugins\/tools/);
  await page.keyboard.press('Escape');
  await page.waitForSelector('[data-testid="revert-dialog"]', { state: 'detached' });
  assert.equal(readFileSync(agentFile('bare'), 'utf8'), before, 'Escape wrote nothing');
  await page.locator(`[data-testid="history-entry"][data-id="${id}"] [data-testid="history-revert"]`).click();
  await page.click('[data-testid="revert-confirm"]');
  await waitSaved();
  assert.equal(await page.locator('[data-testid="ack-dialog"]').count(), 0, 'no acknowledgment asked again');
  assert.deepEqual(readAgent('bare').pluginDirs, ['plugins/notes', 'plugins/tools']);
});

test('template slots: agent defaults vs custom; Use agent defaults deletes the slot pluginDirs', async () => {
  const file = join(fx.pbHome, 'templates', 'review.json');
  await selectTarget(page, 'template:review/researcher');
  assert.match(await page.textContent('[data-testid="slot-mode"]'), /agent defaults/);
  assert.equal(await check('notes').isChecked(), true, 'inherited set shown');
  assert.equal(await check('notes').isDisabled(), true, 'read-only');
  await page.click('[data-testid="slot-customise"]');
  assert.match(await page.textContent('[data-testid="slot-mode"]'), /custom/);
  assert.equal(await check('notes').isDisabled(), false);
  await page.click('[data-testid="assign-reset"]');
  assert.match(await page.textContent('[data-testid="slot-mode"]'), /agent defaults/);

  await selectTarget(page, 'template:review/bare');
  assert.match(await page.textContent('[data-testid="slot-mode"]'), /custom/);
  assert.match(await page.textContent('[data-testid="unmanaged"]'), /\/abs\/slot-kept/);
  await page.click('[data-testid="slot-use-defaults"]');
  // agent bare now loads tools (saved above): inheriting it brings its MCP servers, so acknowledge
  await page.waitForSelector('[data-testid="ack-dialog"]');
  await page.click('[data-testid="ack-confirm"]');
  await waitSaved();
  const slot = JSON.parse(readFileSync(file, 'utf8')).agents[1];
  assert.equal(slot.ref, 'bare');
  assert.ok(!('pluginDirs' in slot), `pluginDirs deleted: ${JSON.stringify(slot)}`);
  assert.match(await page.textContent('[data-testid="slot-mode"]'), /agent defaults/);
});

test('read-only shell binding: listed, explained, cannot be edited', async () => {
  await selectTarget(page, 'shell:ops-shell');
  assert.match(await page.textContent('[data-testid="readonly-reason"]'), /read-only/);
  const boxes = page.locator('[data-testid="assign-check"]');
  const n = await boxes.count();
  assert.ok(n > 0);
  for (let i = 0; i < n; i++) assert.equal(await boxes.nth(i).isDisabled(), true);
  assert.equal(await page.locator('[data-testid="assign-save"]').count(), 0);
  await selectTarget(page, 'template:review/__active__');
  assert.match(await page.textContent('[data-testid="readonly-reason"]'), /__active__/);
});
