// Live reload (U4) and the "What changed" timeline (U6) against the real backend, which watches
// the files of a copy of testdata/runtime/home: a SKILL.md edited on disk reaches the page
// without a reload and with the quiet "Reloaded" mark; the watch state and its pause toggle; the
// snapshots each change stores, and what changed between two of them.

import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { launchBrowser, makeRuntimeFixture, newPage, startServe, waitFor, waitReady } from './harness.mjs';

let fx, srv, browser, page;
const skillFile = (plugin, skill) => join(fx.pbHome, 'plugins', plugin, 'skills', skill, 'SKILL.md');

/** Rewrites the description line of a SKILL.md. */
function setDescription(file, text) {
  const src = readFileSync(file, 'utf8');
  const out = src.replace(/^description: .*$/m, `description: ${text}`);
  assert.notEqual(out, src, `${file} has a description line`);
  writeFileSync(file, out);
}

before(async () => {
  fx = makeRuntimeFixture();
  srv = await startServe(fx);
  browser = await launchBrowser();
  page = await newPage(browser);
  await page.goto(srv.url);
  await waitReady(page);
  // the watches are armed once the first scan is in: the state turns from "paused" to live
  await page.waitForSelector('[data-testid="watch-state"]:not([data-state="paused"]):not([hidden])', {
    timeout: 15000,
  });
});

after(async () => {
  await browser?.close();
  await srv?.stop();
  fx?.cleanup();
});

const detailSkill = (name) => page.locator(`[data-testid="detail"] [data-testid="detail-skill"][data-name="${name}"]`);

test('a SKILL.md description edited on disk shows without a page reload, with the Reloaded mark', async () => {
  await page.click('[data-testid="plugin-row"][data-id="review"]');
  assert.match(await detailSkill('check').innerText(), /Check a change for common review findings/);
  await page.evaluate(() => (window.__notReloaded = true));
  const seq = await page.getAttribute('[data-testid="reloaded"]', 'data-seq');

  setDescription(skillFile('review', 'check'), 'Edited on disk, check a diff for findings.');
  await waitFor(async () => (await detailSkill('check').innerText()).includes('Edited on disk, check a diff'), {
    timeout: 5000,
    message: 'the new description in the plugin detail',
  });
  assert.equal(await page.evaluate(() => window.__notReloaded), true, 'the page was not reloaded');
  assert.equal(await page.getAttribute('[data-testid="plugin-row"][aria-selected="true"]', 'data-id'), 'review');

  const mark = page.locator('[data-testid="reloaded"]');
  await waitFor(async () => (await mark.getAttribute('data-seq')) !== seq && (await mark.isVisible()), {
    message: 'the Reloaded mark',
  });
  assert.match(await mark.innerText(), /^Reloaded · 1 change · [\d.]+ ms$/);
  assert.match(await mark.getAttribute('title'), /changed skill review:check: description changed/);
  // It sits in the header, in the watch state's place, over nothing of the page.
  const markBox = await mark.boundingBox();
  const headerBox = await page.locator('body > #app > header, header').first().boundingBox();
  assert.ok(
    markBox.y >= headerBox.y && markBox.y + markBox.height <= headerBox.y + headerBox.height,
    `the Reloaded mark ${JSON.stringify(markBox)} is outside the header ${JSON.stringify(headerBox)}`,
  );
  assert.equal(await page.locator('[data-testid="watch-state"]').isVisible(), false, 'the mark takes its place');

  // the Skills tab shows it too
  await page.click('[data-testid="tab-skills"]');
  await page.click('[data-testid="skill-row"][data-id="review:check"]');
  assert.match(await page.textContent('[data-testid="skill-detail"]'), /Edited on disk, check a diff/);
  await page.click('[data-testid="tab-plugins"]');
});

test('watch state: Pause holds changes back, Resume reloads them', async () => {
  const state = page.locator('[data-testid="watch-state"]');
  // plugin "broken" has an error, so the live state is "issues"
  await waitFor(async () => (await state.getAttribute('data-state')) === 'issues', { message: 'state issues' });
  assert.equal(await state.innerText(), 'Live · issues');
  await page.getByRole('button', { name: 'Pause watching' }).click();
  await waitFor(async () => (await state.getAttribute('data-state')) === 'paused', { message: 'state paused' });
  assert.equal(await state.innerText(), 'Paused');
  const resume = page.getByRole('button', { name: 'Resume watching' });
  assert.equal(await page.getByRole('button', { name: 'Pause watching' }).count(), 0);

  await page.click('[data-testid="plugin-row"][data-id="other"]');
  setDescription(skillFile('other', 'check'), 'Written while paused.');
  // the watcher delivers a change 150 ms after it settles; a second is plenty to show one
  await page.waitForTimeout(1000);
  assert.doesNotMatch(await detailSkill('check').innerText(), /Written while paused/, 'not reloaded while paused');

  await resume.click();
  await waitFor(async () => (await detailSkill('check').innerText()).includes('Written while paused'), {
    timeout: 5000,
    message: 'the change made while paused, after Resume',
  });
  await waitFor(async () => (await state.getAttribute('data-state')) === 'issues', { message: 'state issues again' });
  assert.equal(await page.getByRole('button', { name: 'Pause watching' }).count(), 1);
});

test('What changed: each change is a snapshot; the newest shows what changed since the one before', async () => {
  await page.click('[data-testid="tab-timeline"]');
  await page.waitForSelector('[data-testid="snapshot"]');
  const before = await page.locator('[data-testid="snapshot"]').count();
  assert.ok(before >= 3, `the first scan and the two edits above are snapshots (got ${before})`);

  // a new skill appears while the timeline is open (written aside, then moved in at once)
  const aside = join(fx.dir, 'fresh');
  mkdirSync(aside);
  writeFileSync(join(aside, 'SKILL.md'), '---\nname: fresh\ndescription: A skill added while watching.\n---\nBody.\n');
  renameSync(aside, join(fx.pbHome, 'plugins', 'other', 'skills', 'fresh'));
  await waitFor(async () => (await page.locator('[data-testid="snapshot"]').count()) > before, {
    timeout: 5000,
    message: 'a new snapshot in the list',
  });
  const newest = page.locator('[data-testid="snapshot"]').first();
  const id = await newest.getAttribute('data-id');
  await newest.click();
  await page.waitForSelector(`[data-testid="snapshot-view"][data-id="${id}"] [data-testid="change"]`);
  // snapshots keep one row per plugin: the plugin changed, and how
  const changes = await page.$$eval('[data-testid="change"]', (els) =>
    els.map((e) => `${e.dataset.kind} ${e.dataset.what} ${e.dataset.id}`),
  );
  assert.deepEqual(changes, ['changed plugin other']);
  assert.match(await page.textContent('[data-testid="change"]'), /skills 1 → 2/);
  assert.match(await page.textContent('[data-testid="snapshot-view"] h3'), /What changed since #\d+/);

  // an older one: the description edit of the first test changed plugin review's content
  const rows = page.locator('[data-testid="snapshot"]');
  let found = false;
  for (let i = 1; i < (await rows.count()) && !found; i++) {
    await rows.nth(i).click();
    const sid = await rows.nth(i).getAttribute('data-id');
    await page.waitForSelector(
      `[data-testid="snapshot-view"][data-id="${sid}"] :is([data-testid="changes"], [data-testid="changes-none"], [data-testid="snapshot-first"])`,
    );
    found = (await page.locator('[data-testid="change"][data-id="review"][data-kind="changed"]').count()) > 0;
  }
  assert.ok(found, 'some older snapshot lists the edit of plugin review');
  assert.match(await page.textContent('[data-testid="change"][data-id="review"]'), /content changed/);
});
