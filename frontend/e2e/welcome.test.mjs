// The first run (issue 17, item 5) against the real backend on an empty home: the Plugins tab is
// a welcome view that lists where Plugboard looks (each folder, found or not, as the backend finds
// it) and the three ways in, each a button that works; and Settings turns start-at-login on and
// off through a real XDG autostart entry, refusing to touch one Plugboard did not write.

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { launchBrowser, newPage, pluginBin, startServe, waitReady } from './harness.mjs';

let dir, home, pbHome, config, srv, browser, page;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pb-e2e-welcome-'));
  home = join(dir, 'home');
  pbHome = join(home, '.plugboard');
  config = join(dir, 'config');
  mkdirSync(join(home, '.claude', 'skills'), { recursive: true }); // a root that is there, and empty
  srv = await startServe({ home, pbHome, env: { XDG_CONFIG_HOME: config } });
  browser = await launchBrowser();
  page = await newPage(browser);
  await page.goto(srv.url);
  await waitReady(page);
});

after(async () => {
  await browser?.close();
  await srv?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('an empty home shows the welcome view: where Plugboard looks, found or not', async () => {
  await page.getByTestId('welcome').waitFor();
  await page.waitForSelector('[data-testid="welcome-places"] li[data-path]');
  const places = await page
    .locator('[data-testid="welcome-places"] li')
    .evaluateAll((els) => Object.fromEntries(els.map((e) => [e.dataset.path, e.dataset.found])));
  assert.equal(places[join(home, '.claude', 'skills')], 'true');
  assert.equal(places[join(pbHome, 'plugins')], 'false');
  assert.equal(places[join(home, '.cursor', 'plugins', 'local')], 'false');
  assert.equal(places[join(home, '.codex', 'skills')], 'false');
  assert.match(await page.textContent('[data-testid="welcome"]'), /Cursor Marketplace plugins/);
});

test('in Chinese, the welcome view words each folder from the kind the backend gives', async () => {
  const zh = await newPage(browser, { locale: 'zh-CN' });
  try {
    await zh.goto(srv.url);
    await waitReady(zh);
    await zh.waitForSelector('[data-testid="welcome-places"] li[data-path]');
    const text = await zh.textContent('[data-testid="welcome"]');
    assert.match(text, /欢迎使用 Plugboard/);
    assert.match(text, /Cursor 市场插件/);
    assert.doesNotMatch(text, /Cursor Marketplace plugins/);
  } finally {
    await zh.context().close();
  }
});

test('the three ways in: install opens the Install dialog, link and workspace open their tabs', async () => {
  await page.getByTestId('welcome-install').click();
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
  await page.getByTestId('welcome-link').click();
  await page.getByTestId('panel-dev').waitFor({ state: 'visible' });
  await page.click('[data-testid="tab-plugins"]');
  await page.getByTestId('welcome-workspace').click();
  await page.getByTestId('panel-settings').waitFor({ state: 'visible' });
});

test('start at login writes the autostart entry, which starts this program in the tray, and removes it', async () => {
  await page.click('[data-testid="tab-settings"]');
  const entry = join(config, 'autostart', 'org.plugboard.Plugboard.desktop');
  const box = page.getByTestId('autostart');
  await page.waitForFunction(() =>
    /^Off/.test(document.querySelector('[data-testid="autostart-state"]')?.textContent ?? ''),
  );
  assert.equal(await box.isChecked(), false);
  const on = page.waitForResponse((r) => r.url().endsWith('/api/SetAutostart'));
  await box.check();
  assert.equal((await on).status(), 200);
  await page.waitForFunction(() =>
    /^On: /.test(document.querySelector('[data-testid="autostart-state"]')?.textContent ?? ''),
  );
  const text = readFileSync(entry, 'utf8');
  assert.ok(text.includes(`\nExec=${pluginBin()} --hidden\n`), text);
  const off = page.waitForResponse((r) => r.url().endsWith('/api/SetAutostart'));
  await box.uncheck();
  assert.equal((await off).status(), 200);
  await page.waitForFunction(() =>
    /^Off/.test(document.querySelector('[data-testid="autostart-state"]')?.textContent ?? ''),
  );
  assert.equal(existsSync(entry), false);

  // An entry of that name Plugboard did not write is left alone, and the page says why.
  writeFileSync(entry, '[Desktop Entry]\nExec=someone-else\n');
  const refused = page.waitForResponse((r) => r.url().endsWith('/api/SetAutostart'));
  await box.click(); // the page puts it back off when the backend refuses
  assert.equal((await refused).status(), 422);
  await page.waitForFunction(() =>
    /did not write/.test(document.querySelector('[data-testid="autostart-state"]')?.textContent ?? ''),
  );
  assert.equal(await box.isChecked(), false);
  assert.equal(readFileSync(entry, 'utf8'), '[Desktop Entry]\nExec=someone-else\n');
});
