// Local development (U5) in the browser against the real backend on a copy of
// testdata/runtime/home: a plugin folder outside the home is typed in (there is no native folder
// dialog in a browser), validated and linked; its validation follows edits to its files live;
// an invalid folder is refused with the file and the fix; Unlink removes the link only; the same
// folder linked into Cursor's local plugins (~/.cursor/plugins/local/) instead.

import assert from 'node:assert/strict';
import { existsSync, lstatSync, mkdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { launchBrowser, makeRuntimeFixture, newPage, startServe, waitFor, waitReady } from './harness.mjs';

let fx, srv, browser, page, src;

const MANIFEST = {
  $schema: 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json',
  name: 'devplug',
  version: '0.1.0',
  description: 'A plugin under development',
};

before(async () => {
  fx = makeRuntimeFixture();
  src = join(fx.dir, 'src', 'devplug');
  mkdirSync(join(src, 'skills', 'hello'), { recursive: true });
  writeFileSync(join(src, 'plugin.json'), JSON.stringify(MANIFEST, null, 2));
  writeFileSync(join(src, 'skills', 'hello', 'SKILL.md'), '---\nname: hello\ndescription: Says hello.\n---\nHi.\n');
  srv = await startServe(fx);
  browser = await launchBrowser();
  page = await newPage(browser);
  await page.goto(srv.url);
  await waitReady(page);
  await page.waitForSelector('[data-testid="watch-state"]:not([data-state="paused"]):not([hidden])', {
    timeout: 15000,
  });
  await page.click('[data-testid="tab-dev"]');
  await page.waitForSelector('[data-testid="dev-links-none"]');
});

after(async () => {
  await browser?.close();
  await srv?.stop();
  fx?.cleanup();
});

const item = (name) => page.locator(`[data-testid="dev-link-item"][data-name="${name}"]`);
const folderField = () => page.getByRole('textbox', { name: 'Plugin folder' });

test('in a browser the folder is typed: no folder dialog button', async () => {
  assert.equal(await page.locator('[data-testid="dev-pick"]').isVisible(), false);
  assert.equal(await folderField().isVisible(), true);
});

test('an invalid folder is refused with the file and the fix; nothing is linked', async () => {
  const bad = join(fx.dir, 'src', 'bad');
  mkdirSync(bad, { recursive: true });
  writeFileSync(join(bad, 'plugin.json'), JSON.stringify({ name: 'bad', version: '1.0.0' }));
  await folderField().fill(bad);
  await page.getByRole('button', { name: 'Link', exact: true }).click();
  await page.waitForSelector('[data-testid="dev-refusal"]');
  assert.match(await page.textContent('[data-testid="dev-status"]'), /Not linked: .*is not a valid plugin/);
  const refusal = await page.textContent('[data-testid="dev-refusal"]');
  assert.match(refusal, /plugin\.json:1: error: .*add "\$schema"/, refusal);
  assert.equal(existsSync(join(fx.pbHome, 'plugins', 'bad')), false);
  assert.equal(await page.locator('[data-testid="dev-link-item"]').count(), 0);
});

test('Link: the typed folder is linked into the home and listed as valid', async () => {
  await folderField().fill(src);
  await page.getByRole('button', { name: 'Link', exact: true }).click();
  await item('devplug').waitFor();
  assert.equal(await item('devplug').getAttribute('data-valid'), 'true');
  assert.match(await page.textContent('[data-testid="dev-status"]'), /Linked devplug into Plugboard home as a symlink/);
  const dest = join(fx.pbHome, 'plugins', 'devplug');
  assert.ok(lstatSync(dest).isSymbolicLink());
  assert.equal(readlinkSync(dest), src);
  const text = await item('devplug').innerText();
  assert.match(text, /valid/);
  assert.match(text, /symlink/);
  assert.match(text, /no issues/);
  assert.ok(text.includes(src) || text.includes('src/devplug'), text);
  // the catalog picks it up too (live reload), so the plugin is in the Plugins list
  await waitFor(async () => (await item('devplug').innerText()).includes('Show'), {
    timeout: 5000,
    message: 'the linked plugin in the catalog',
  });
});

test('editing the plugin.json to be invalid shows it invalid, with the file and the fix, within seconds', async () => {
  const { $schema, ...rest } = MANIFEST;
  void $schema;
  writeFileSync(join(src, 'plugin.json'), JSON.stringify(rest, null, 2));
  await waitFor(async () => (await item('devplug').getAttribute('data-valid')) === 'false', {
    timeout: 5000,
    message: 'the link listed invalid',
  });
  await waitFor(async () => (await item('devplug').locator('[data-testid="issue"]').count()) > 0, {
    timeout: 5000,
    message: "the plugin's issues",
  });
  const issue = await item('devplug').locator('[data-testid="issue"]').first().innerText();
  assert.match(
    issue,
    /^plugin\.json:1: error: .*add "\$schema": "https:\/\/agent-plugins\.org\/schemas\/1\.0\.0\/plugin\.schema\.json"/,
  );
  assert.match(await item('devplug').innerText(), /1 error/);

  // fixed again: valid, no issues
  writeFileSync(join(src, 'plugin.json'), JSON.stringify(MANIFEST, null, 2));
  await waitFor(async () => (await item('devplug').getAttribute('data-valid')) === 'true', {
    timeout: 5000,
    message: 'the link listed valid again',
  });
  await waitFor(async () => (await item('devplug').locator('[data-testid="issue"]').count()) === 0, {
    timeout: 5000,
    message: 'no issues',
  });
});

test('Unlink removes the link, not the folder', async () => {
  await page.getByRole('button', { name: 'Unlink devplug' }).click();
  await item('devplug').waitFor({ state: 'detached' });
  await page.waitForSelector('[data-testid="dev-links-none"]');
  assert.match(await page.textContent('[data-testid="dev-links-status"]'), /Unlinked devplug/);
  assert.equal(existsSync(join(fx.pbHome, 'plugins', 'devplug')), false);
  assert.ok(existsSync(join(src, 'plugin.json')), 'the source is untouched');
});

test('Link into Cursor: the link is made in ~/.cursor/plugins/local/, catalogued, and unlinked from there', async () => {
  await folderField().fill(src);
  await page.check('[data-testid="dev-into-cursor"]');
  await page.getByRole('button', { name: 'Link', exact: true }).click();
  await item('devplug').waitFor();
  assert.equal(await item('devplug').getAttribute('data-into'), 'cursor');
  assert.match(await page.textContent('[data-testid="dev-status"]'), /Linked devplug into Cursor local as a symlink/);
  const dest = join(fx.home, '.cursor', 'plugins', 'local', 'devplug');
  assert.ok(lstatSync(dest).isSymbolicLink());
  assert.equal(readlinkSync(dest), src);
  assert.equal(existsSync(join(fx.pbHome, 'plugins', 'devplug')), false, 'nothing linked into the home');
  await waitFor(async () => (await item('devplug').innerText()).includes('Show'), {
    timeout: 5000,
    message: 'the Cursor local plugin in the catalog',
  });

  await page.getByRole('button', { name: 'Unlink devplug' }).click();
  await item('devplug').waitFor({ state: 'detached' });
  assert.match(await page.textContent('[data-testid="dev-links-status"]'), /Unlinked devplug from Cursor local/);
  assert.equal(existsSync(dest), false);
  assert.ok(existsSync(join(src, 'plugin.json')), 'the source is untouched');
});
