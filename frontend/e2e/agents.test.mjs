// Agents from the page, against the real backend on a home with plugins and no agent: the empty
// Assignments view offers New agent and says what an agent is; an agent is made, renamed, duplicated,
// added to a template and deleted (then undone) with no command line; the checklist comes before
// Launch; a malformed agent file is shown with its issue; History shows + and − and a revert asks first.

import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { launchBrowser, newPage, repoRoot, startServe, waitFor, waitReady } from './harness.mjs';

let fx, srv, browser, page;
const agentFile = (name) => join(fx.pbHome, 'agents', `${name}.json`);

before(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-e2e-agents-'));
  const pbHome = join(dir, 'pb');
  // the plugins of the assignment fixture, without its agents, templates or settings
  cpSync(join(repoRoot, 'testdata', 'assign', 'home', 'plugins'), join(pbHome, 'plugins'), {
    recursive: true,
    verbatimSymlinks: true,
  });
  const home = join(dir, 'home');
  mkdirSync(home);
  fx = { dir, home, pbHome, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
  srv = await startServe(fx);
  browser = await launchBrowser();
  page = await newPage(browser);
  await page.goto(srv.url);
  await waitReady(page);
  await page.click('[data-testid="tab-assign"]');
});

after(async () => {
  await browser?.close();
  await srv?.stop();
  fx?.cleanup();
});

const opNotice = () => page.textContent('[data-testid="op-notice"]');

test('an empty home says what an agent is and makes one from the page', async () => {
  await page.waitForSelector('[data-testid="no-targets"]');
  assert.match(await page.textContent('[data-testid="no-targets"]'), /An agent is a named set of plugins/);
  await page.click('[data-testid="new-agent-empty"]');
  await page.waitForSelector('[data-testid="agent-dialog"]');
  // a name that cannot be a file name is refused in the dialog, with the rule
  await page.fill('[data-testid="agent-name"]', 'a/b');
  await page.click('[data-testid="agent-create"]');
  await page.waitForSelector('[data-testid="agent-error"]:not([hidden])');
  assert.match(await page.textContent('[data-testid="agent-error"]'), /cannot name an agent/);
  await page.fill('[data-testid="agent-name"]', 'coder');
  await page.selectOption('[data-testid="agent-backend"]', 'pi');
  await page.click('[data-testid="agent-create"]');
  await page.waitForSelector('[data-testid="assign-target"][data-id="agent:coder"]');
  assert.equal(await page.locator('[data-testid="agent-dialog"]').count(), 0, 'the dialog closed');
  const file = JSON.parse(readFileSync(agentFile('coder'), 'utf8'));
  assert.deepEqual(file, { name: 'coder', backend: 'pi', pluginDirs: [] });
  assert.match(await opNotice(), /Made agent coder/);
});

test('the checklist comes before Launch, Context and Try', async () => {
  const order = await page.evaluate(() => {
    const body = document.querySelector('[data-testid="assign-target"]');
    const cards = [...body.querySelectorAll(':scope > section, :scope > div')];
    const at = (sel) => cards.findIndex((c) => c.matches(sel) || c.querySelector(sel));
    return { checklist: at('[data-testid="checklist"]'), launch: at('[data-testid="launch"]') };
  });
  assert.ok(order.checklist >= 0 && order.launch >= 0, `a checklist and a launch card: ${JSON.stringify(order)}`);
  assert.ok(order.checklist < order.launch, `checklist ${order.checklist} before launch ${order.launch}`);
});

test('assign, then History shows + and a revert asks first, with what it changes', async () => {
  await page.locator('[data-testid="assign-check"][data-id="notes"]').check();
  await page.click('[data-testid="assign-save"]');
  await page.waitForSelector('[data-testid="history-plus"]');
  assert.equal((await page.textContent('[data-testid="history-plus"]')).trim(), '+ plugins/notes');
  await page.locator('[data-testid="history-entry"]').first().locator('[data-testid="history-revert"]').click();
  await page.waitForSelector('[data-testid="revert-dialog"]');
  assert.equal((await page.textContent('[data-testid="revert-minus"]')).trim(), '− plugins/notes');
  await page.click('[data-testid="revert-cancel"]');
  assert.deepEqual(
    JSON.parse(readFileSync(agentFile('coder'), 'utf8')).pluginDirs,
    ['plugins/notes'],
    'cancel wrote nothing',
  );
});

test('rename, duplicate and add to a template, each from a button', async () => {
  await page.click('[data-testid="agent-rename"]');
  await page.fill('[data-testid="rename-dialog-name"]', 'builder');
  await page.click('[data-testid="rename-dialog-ok"]');
  await page.waitForSelector('[data-testid="assign-target"][data-id="agent:builder"]');
  assert.ok(existsSync(agentFile('builder')) && !existsSync(agentFile('coder')));

  await page.click('[data-testid="agent-copy"]');
  assert.equal(await page.inputValue('[data-testid="copy-dialog-name"]'), 'builder-copy');
  await page.click('[data-testid="copy-dialog-ok"]');
  await page.waitForSelector('[data-testid="assign-target"][data-id="agent:builder-copy"]');
  assert.deepEqual(JSON.parse(readFileSync(agentFile('builder-copy'), 'utf8')).pluginDirs, ['plugins/notes']);

  await page.click('[data-testid="agent-add-slot"]');
  await page.fill('[data-testid="slot-dialog-name"]', 'pair');
  await page.click('[data-testid="slot-dialog-ok"]');
  await page.waitForSelector('[data-testid="assign-target"][data-id="template:pair/builder-copy"]');
  assert.ok(existsSync(join(fx.pbHome, 'templates', 'pair.json')));
});

test('delete asks, then Undo brings the file back', async () => {
  await page.click('[data-testid="target"][data-id="agent:builder"]');
  await page.waitForSelector('[data-testid="assign-target"][data-id="agent:builder"]');
  const was = readFileSync(agentFile('builder'), 'utf8');
  await page.click('[data-testid="agent-delete"]');
  await page.click('[data-testid="delete-confirm"]');
  await waitFor(async () => !existsSync(agentFile('builder')), { message: 'builder.json removed' });
  await page.waitForSelector('[data-testid="op-undo"]');
  await page.click('[data-testid="op-undo"]');
  await waitFor(async () => existsSync(agentFile('builder')), { message: 'builder.json back' });
  assert.equal(readFileSync(agentFile('builder'), 'utf8'), was);
  await page.waitForSelector('[data-testid="target"][data-id="agent:builder"]');
});

test('a malformed agent file is shown with its issue, not dropped', async () => {
  writeFileSync(agentFile('bad'), '{ "name": "bad", ');
  await page.reload();
  await waitReady(page);
  await page.click('[data-testid="tab-assign"]');
  await waitFor(async () => (await page.locator('[data-testid="target-file-issues"]').count()) > 0, {
    message: 'the file issues box',
  });
  const text = await page.textContent('[data-testid="target-file-issues"]');
  assert.match(text, /bad\.json/);
  assert.equal(
    await page.getAttribute('[data-testid="target-file-issues"] [data-testid="issue"]', 'data-code'),
    'assign.file-invalid',
  );
});

test('a new agent can start from the plugins of another', async () => {
  await page.click('[data-testid="new-agent"]');
  await page.waitForSelector('[data-testid="agent-dialog"]');
  await page.fill('[data-testid="agent-name"]', 'copycat');
  await page.selectOption('[data-testid="agent-from"]', 'builder');
  await page.click('[data-testid="agent-create"]');
  await page.waitForSelector('[data-testid="assign-target"][data-id="agent:copycat"]');
  assert.deepEqual(JSON.parse(readFileSync(agentFile('copycat'), 'utf8')), {
    name: 'copycat',
    pluginDirs: JSON.parse(readFileSync(agentFile('builder'), 'utf8')).pluginDirs,
  });
  assert.ok(
    await page.locator('[data-testid="assign-check"][data-id="notes"]').isChecked(),
    "builder's plugin is checked",
  );
});

test('a malformed template file is shown with its issue, not dropped', async () => {
  writeFileSync(join(fx.pbHome, 'templates', 'broken.json'), '{"name": "broken", "slots": [');
  await page.reload();
  await waitReady(page);
  await page.click('[data-testid="tab-assign"]');
  await waitFor(
    async () => (await page.locator('[data-testid="target-file-issues"]').textContent()).includes('broken.json'),
    { message: 'the template among the file issues' },
  );
  const codes = await page
    .locator('[data-testid="target-file-issues"] [data-testid="issue"]')
    .evaluateAll((els) => els.map((e) => e.dataset.code));
  assert.ok(codes.includes('assign.file-invalid'), codes.join());
});
