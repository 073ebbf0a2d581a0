// Settings against the real backend: a skillPluginPaths round trip through settings.json, a stale
// save, skill switches, and the workspace control with its trust switch.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { launchBrowser, makeFixture, newPage, pluginBin, rowIds, startServe, waitFor, waitReady } from './harness.mjs';

let fx, srv, browser, page;
const settingsFile = () => join(fx.pbHome, 'settings.json');
const readSettings = () => JSON.parse(readFileSync(settingsFile(), 'utf8'));

before(async () => {
  fx = makeFixture();
  // a plugin folder that only skillPluginPaths brings in
  const gamma = join(fx.home, 'more', 'gamma');
  mkdirSync(join(gamma, 'skills', 'gamma-skill'), { recursive: true });
  writeFileSync(
    join(gamma, 'plugin.json'),
    JSON.stringify({
      $schema: 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json',
      name: 'gamma',
      version: '0.1.0',
    }),
  );
  writeFileSync(
    join(gamma, 'skills', 'gamma-skill', 'SKILL.md'),
    '---\nname: gamma-skill\ndescription: Use when testing gamma\n---\n\nBody.\n',
  );
  srv = await startServe(fx);
  browser = await launchBrowser();
  page = await newPage(browser);
  await page.goto(srv.url);
  await waitReady(page);
});

after(async () => {
  await browser?.close();
  await srv?.stop();
  fx?.cleanup();
});

async function openSettings() {
  await page.click('[data-testid="tab-settings"]');
  await page.waitForSelector('[data-testid="settings-path"]');
}

const pathsShown = () => page.$$eval('[data-testid="settings-path"]', (els) => els.map((e) => e.dataset.path));

test('settings round trip: add a skillPluginPaths entry, save, reload, it is still there and on disk', async () => {
  await openSettings();
  assert.deepEqual(await pathsShown(), ['~/extra/plug']);
  await page.fill('[data-testid="settings-path-input"]', '~/more/gamma');
  await page.click('[data-testid="settings-path-add"]');
  assert.deepEqual(await pathsShown(), ['~/extra/plug', '~/more/gamma']);
  await page.waitForSelector('[data-testid="savebar"]:not([hidden])');
  await page.click('[data-testid="settings-save"]');
  await waitFor(async () => /Settings saved/.test(await page.textContent('[data-testid="settings-status"]')), {
    message: 'saved notice',
  });
  assert.deepEqual(readSettings().skillPluginPaths, ['~/extra/plug', '~/more/gamma']);
  assert.deepEqual(readSettings().skillsEnabled, { 'agent-only': false }, 'other settings kept');
  // the backend rescans after a save; catalog:updated makes the page reload the catalog quietly
  await page.click('[data-testid="tab-plugins"]');
  await waitFor(async () => (await rowIds(page)).includes('gamma@plugin-path'), {
    message: 'plugin gamma in the list after the rescan',
  });
  await page.reload();
  await waitReady(page);
  await openSettings();
  assert.deepEqual(await pathsShown(), ['~/extra/plug', '~/more/gamma']);
});

test('a stale save shows the stale message and reloads what is on disk', async () => {
  await openSettings();
  // someone else edits settings.json after the page loaded it
  const onDisk = readSettings();
  onDisk.skillsEnabled['codex-skill'] = false;
  writeFileSync(settingsFile(), JSON.stringify(onDisk, null, 2));
  await page.fill('[data-testid="settings-path-input"]', '~/never-saved');
  await page.click('[data-testid="settings-path-add"]');
  await page.click('[data-testid="settings-save"]');
  await waitFor(
    async () => (await page.textContent('[data-testid="settings-status"]')) === 'settings changed on disk; reloaded',
    {
      message: 'stale message',
    },
  );
  assert.ok(!JSON.stringify(readSettings()).includes('never-saved'), 'nothing written');
  assert.deepEqual(await pathsShown(), ['~/extra/plug', '~/more/gamma'], 'draft replaced by the file');
  const enabled = await page.$$eval('[data-testid="settings-enabled-item"]', (els) => els.map((e) => e.dataset.id));
  assert.ok(enabled.includes('codex-skill'), `reloaded skillsEnabled shows codex-skill: ${enabled}`);
});

test('a skill switched off in the Skills view is written at once, with no Save, and an unsaved path stays a draft', async () => {
  // an unsaved edit of another setting first: the switch must not save it
  await openSettings();
  await page.fill('[data-testid="settings-path-input"]', '~/draft-only');
  await page.click('[data-testid="settings-path-add"]');
  await page.waitForSelector('[data-testid="savebar"]:not([hidden])');

  await page.click('[data-testid="tab-skills"]');
  const sw = () => page.locator('[data-testid="skill-row"][data-id="alpha:alpha-only"] [data-testid="skill-enabled"]');
  assert.equal(await sw().isChecked(), true);
  await sw().click();
  await waitFor(async () => readSettings().skillsEnabled['alpha:alpha-only'] === false, {
    message: 'the switch written to settings.json',
  });
  assert.ok(!JSON.stringify(readSettings()).includes('draft-only'), 'the unsaved path is not written with it');
  await waitFor(async () => !(await sw().isChecked()), { message: 'switch stays off after the rescan' });

  // the draft is still there, and only it: Discard drops the path and keeps the switch
  assert.equal(await page.locator('[data-testid="savebar"]').isVisible(), true, 'the path is still unsaved');
  await page.click('[data-testid="settings-discard"]');
  await page.waitForSelector('[data-testid="savebar"]', { state: 'hidden' });
  assert.equal(await sw().isChecked(), false);

  // and on again, at once
  await sw().click();
  await waitFor(async () => readSettings().skillsEnabled['alpha:alpha-only'] === true, { message: 'switched on' });
  assert.equal(await page.locator('[data-testid="savebar"]').isVisible(), false, 'nothing left to save');
});

test('the workspace control opens the fixture workspace; trusting it loads its MCP server "proj"', async () => {
  await page.click('[data-testid="tab-settings"]');
  await page.fill('[data-testid="workspace-path"]', join(fx.home, '..', 'ws'));
  await page.click('[data-testid="workspace-open"]');
  await waitFor(
    async () => /^Open: .*ws \(not trusted\)$/.test(await page.textContent('[data-testid="workspace-state"]')),
    {
      message: 'workspace open',
    },
  );
  // project skills appear in the Skills view
  await page.click('[data-testid="tab-skills"]');
  await page.selectOption('[data-testid="skill-filter-source"]', 'project');
  const project = await page.$$eval('[data-testid="skill-row"]', (els) => els.map((e) => e.dataset.id));
  assert.ok(project.includes('proj-skill'), `project skills: ${project}`);
  await page.selectOption('[data-testid="skill-filter-source"]', '');
  // untrusted: no workspace MCP
  await page.click('[data-testid="tab-mcp"]');
  assert.equal(await page.locator('[data-testid="mcp-row"][data-name="proj"]').count(), 0);
  // trust it
  await page.click('[data-testid="tab-settings"]');
  assert.match(await page.textContent('#trust-warning'), /MCP servers/);
  await page.click('[data-testid="workspace-trust"]');
  await waitFor(async () => / \(trusted\)$/.test(await page.textContent('[data-testid="workspace-state"]')), {
    message: 'trusted',
  });
  assert.equal(await page.isChecked('[data-testid="workspace-trust"]'), true);
  assert.equal(readSettings().trustedWorkspaces.length, 1);
  assert.match(readSettings().trustedWorkspaces[0], /ws$/);
  await page.click('[data-testid="tab-mcp"]');
  await page.waitForSelector('[data-testid="mcp-row"][data-name="proj"]');
  await page.click('[data-testid="mcp-row"][data-name="proj"]');
  const winner = await page.locator('[data-testid="mcp-winner"]').innerText();
  assert.match(winner, /project/);
  assert.match(winner, /proj-server/);
  // the settings page knows the new hash: a later save is not stale
  await page.click('[data-testid="tab-settings"]');
  await page.fill('[data-testid="settings-path-input"]', '~/after-trust');
  await page.click('[data-testid="settings-path-add"]');
  await page.click('[data-testid="settings-save"]');
  await waitFor(async () => /Settings saved/.test(await page.textContent('[data-testid="settings-status"]')), {
    message: 'saved after trust',
  });
  assert.ok(readSettings().skillPluginPaths.includes('~/after-trust'));
  assert.equal(readSettings().trustedWorkspaces.length, 1, 'trust kept by the save');
  // untrust and close
  await page.click('[data-testid="workspace-trust"]');
  await waitFor(async () => /not trusted/.test(await page.textContent('[data-testid="workspace-state"]')), {
    message: 'untrusted',
  });
  await page.click('[data-testid="workspace-close"]');
  await waitFor(async () => (await page.textContent('[data-testid="workspace-state"]')) === 'No workspace is open.', {
    message: 'closed',
  });
});

test('an invalid path is refused by the backend with its reason, and nothing is written', async () => {
  await page.click('[data-testid="tab-settings"]');
  const before = readFileSync(settingsFile(), 'utf8');
  await page.fill('[data-testid="settings-path-input"]', 'relative/path');
  await page.click('[data-testid="settings-path-add"]');
  await page.click('[data-testid="settings-save"]');
  await waitFor(
    async () => /^Not saved: .*relative\/path/.test(await page.textContent('[data-testid="settings-status"]')),
    {
      message: 'invalid notice',
    },
  );
  assert.equal(readFileSync(settingsFile(), 'utf8'), before);
  await page.click('[data-testid="settings-discard"]');
  assert.ok(!(await pathsShown()).includes('relative/path'));
});

test('the About card says which Plugboard serves the page, as plugboard version --json does', async () => {
  await page.click('[data-testid="tab-settings"]');
  const line = page.getByTestId('about-version');
  await page.waitForFunction(() =>
    /^Plugboard /.test(document.querySelector('[data-testid="about-version"]')?.textContent ?? ''),
  );
  const want = JSON.parse(execFileSync(pluginBin(), ['version', '--json'], { encoding: 'utf8' }));
  const text = await line.textContent();
  assert.ok(text.startsWith(`Plugboard ${want.version}`), text);
  assert.ok(text.includes(want.go), text);
});
