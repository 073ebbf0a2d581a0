// The page's language against the real backend: a Chinese system locale shows the page in
// Chinese; the Language card in Settings stores a choice that survives a reload, and 'system'
// goes back to the locale's language; with unsaved settings the switch is refused, the page keeps
// the draft and does not reload.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { launchBrowser, makeFixture, newPage, startServe, waitReady } from './harness.mjs';

let fx, srv, browser;
const pages = [];

before(async () => {
  fx = makeFixture();
  srv = await startServe(fx);
  browser = await launchBrowser();
});

after(async () => {
  for (const p of pages) await p.context().close();
  await browser?.close();
  await srv?.stop();
  fx?.cleanup();
});

/** A page in a fresh context (its own localStorage) whose system locale is locale. */
async function open(locale) {
  const page = await newPage(browser, { locale });
  pages.push(page);
  await page.goto(srv.url);
  await waitReady(page);
  return page;
}

async function openSettings(page) {
  await page.click('[data-testid="tab-settings"]');
  await page.waitForSelector('[data-testid="settings-language"]');
}

const lang = (page) => page.evaluate(() => document.documentElement.lang);
const heading = (page, id) => page.textContent(`#${id}`);
const selected = (page) => page.inputValue('[data-testid="settings-language"]');
const systemLabel = (page) => page.textContent('[data-testid="settings-language"] option[value="system"]');
const stored = (page) => page.evaluate(() => localStorage.getItem('plugboard.lang'));

/** Chooses value in the Language card and waits for the reload it causes, which opens on Settings again. */
async function choose(page, value) {
  const loaded = page.waitForEvent('load');
  await page.selectOption('[data-testid="settings-language"]', value);
  await loaded;
  await page.waitForSelector('[data-testid="settings-language"]');
  assert.equal(await page.getAttribute('[data-testid="tab-settings"]', 'aria-selected'), 'true', 'still on Settings');
}

test('a Chinese system locale shows the page in Chinese', async () => {
  const page = await open('zh-CN');
  assert.equal(await lang(page), 'zh-CN');
  await openSettings(page);
  assert.equal(await heading(page, 'h-paths'), '技能插件路径');
  assert.equal(await heading(page, 'h-language'), '语言');
  assert.match(
    await page.textContent('#language-help'),
    /问题消息.*保持英文/,
    'the card says issue messages stay English',
  );
  assert.equal(await selected(page), 'system');
  assert.equal(await systemLabel(page), '跟随系统（简体中文）');
  assert.equal(await stored(page), null, 'following the system stores nothing');
});

test('choosing 简体中文 reloads the page in Chinese, the choice survives a reload, and system goes back to English', async () => {
  const page = await open('en-US');
  assert.equal(await lang(page), 'en');
  await openSettings(page);
  assert.equal(await heading(page, 'h-paths'), 'Skill plugin paths');
  assert.equal(await selected(page), 'system');
  assert.equal(await systemLabel(page), 'System (English)');
  assert.match(await page.textContent('#language-help'), /^Issue messages .* stay in English/);

  await choose(page, 'zh-CN');
  assert.equal(await lang(page), 'zh-CN');
  assert.equal(await heading(page, 'h-paths'), '技能插件路径');
  assert.equal(await selected(page), 'zh-CN');
  assert.equal(await stored(page), 'zh-CN');
  // the system is still English, and the option says so in Chinese
  assert.equal(await systemLabel(page), '跟随系统（English）');

  await page.reload();
  await waitReady(page);
  assert.equal(await lang(page), 'zh-CN', 'the choice survives a reload');
  await openSettings(page);
  assert.equal(await heading(page, 'h-paths'), '技能插件路径');
  assert.equal(await selected(page), 'zh-CN');

  await choose(page, 'system');
  assert.equal(await lang(page), 'en');
  assert.equal(await heading(page, 'h-paths'), 'Skill plugin paths');
  assert.equal(await selected(page), 'system');
  assert.equal(await stored(page), null, 'system forgets the stored choice');
});

test('with unsaved settings the switch is refused with a message, and the page does not reload', async () => {
  const page = await open('en-US');
  await openSettings(page);
  await page.fill('[data-testid="settings-path-input"]', '~/not-saved');
  await page.click('[data-testid="settings-path-add"]');
  await page.waitForSelector('[data-testid="savebar"]:not([hidden])');
  // a mark in this document: a reload would lose it
  await page.evaluate(() => {
    window.__notReloaded = true;
  });
  let loads = 0;
  page.on('load', () => loads++);

  await page.selectOption('[data-testid="settings-language"]', 'zh-CN');
  const status = page.getByTestId('settings-language-status');
  await status.waitFor({ state: 'visible' });
  assert.equal(await status.textContent(), 'Save or discard your changes to settings first, then switch the language.');
  assert.equal(await selected(page), 'system', 'the select shows the language in use again');
  await page.waitForTimeout(500);
  assert.equal(loads, 0, 'no reload');
  assert.equal(await page.evaluate(() => window.__notReloaded), true, 'same document');
  assert.equal(await stored(page), null, 'nothing stored');
  assert.equal(await lang(page), 'en');
  const paths = await page.$$eval('[data-testid="settings-path"]', (els) => els.map((e) => e.dataset.path));
  assert.ok(paths.includes('~/not-saved'), `the draft is kept: ${paths}`);

  // discarding the draft takes the message away, and the switch then goes through
  await page.click('[data-testid="settings-discard"]');
  await status.waitFor({ state: 'hidden' });
  await choose(page, 'zh-CN');
  assert.equal(await lang(page), 'zh-CN');
});

test('in Chinese, issue messages and codes stay as the command line prints them, in English; counts are Chinese', async () => {
  const page = await open('zh-CN');
  await page.click('[data-testid="plugin-row"][data-id="alpha"]');
  await page.waitForSelector('[data-testid="detail"] [data-testid="issue"]');
  const issues = await page.$$eval('[data-testid="detail"] [data-testid="issue"]', (els) =>
    els.map((e) => e.textContent),
  );
  assert.ok(issues.length > 0, 'alpha has issues');
  for (const line of issues) assert.match(line, /: (error|warning): .+ \[[a-z-]+\.[a-z-]+\]$/, line);
  const judged = await page.locator('[data-testid="detail"] [data-testid="client-judged-by"]').first().innerText();
  assert.match(judged, /^按 \S+( \S+)? 的模型判断，本机(未安装|安装了) /, 'what a verdict was judged by, in Chinese');
  const badges = await page.textContent('[data-testid="plugin-row"][data-id="alpha"]');
  assert.match(badges, /2 个错误/);
  assert.match(badges, /1 个警告/);
  // the words of the format, source and severity badges are Chinese; the filters' values are not
  assert.equal(await page.textContent('[data-testid="plugin-row"][data-id="alpha"] .badge-fmt-portable'), '通用格式');
  assert.match(badges, /Plugboard/);
  assert.equal(await page.textContent('[data-testid="filter-source"] option[value="cursor-cache"]'), 'Cursor 市场');
  assert.match(
    await page.getAttribute('[data-testid="detail"] .detail-badges .badge-fmt-portable', 'title'),
    /Agent Plugins 1\.0 包/,
  );
  await page.click('[data-testid="tab-problems"]');
  await page.waitForSelector('[data-testid="problem"]');
  const severities = await page.$$eval('[data-testid="problem"] .problem-head .badge', (els) => [
    ...new Set(els.map((e) => e.textContent)),
  ]);
  assert.deepEqual(severities.sort(), ['提示', '警告', '错误'].sort(), `severity badges: ${severities}`);
});

test('in Chinese, the progress of an install is in Chinese, with its paths as they are', async () => {
  const src = join(fx.dir, 'zh-src', 'hola');
  mkdirSync(join(src, 'skills', 'hola'), { recursive: true });
  writeFileSync(
    join(src, 'plugin.json'),
    JSON.stringify({
      $schema: 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json',
      name: 'hola',
      version: '1.0.0',
      description: 'Says hola.',
    }),
  );
  writeFileSync(join(src, 'skills', 'hola', 'SKILL.md'), '---\nname: hola\ndescription: Says hola.\n---\nHola.\n');
  const page = await open('zh-CN');
  await page.click('[data-testid="install-open"]');
  await page.fill('[data-testid="install-source"]', src);
  await page.click('[data-testid="install-submit"]');
  const lines = page.locator('[data-testid="detail-installed"] .progress-lines li');
  await lines.first().waitFor({ state: 'attached' }); // in the card's folded Progress
  const text = await lines.allTextContents();
  assert.ok(text.includes(`正在复制 ${src} …`), text.join('\n'));
  assert.ok(text.includes('正在验证 hola …'), text.join('\n'));
  assert.ok(text.includes(`已将 ${src} 安装为 plugins/hola`), text.join('\n'));

  // the same again: the refusal leads with the page's own sentence, the backend's text as its detail
  await page.click('[data-testid="install-open"]');
  await page.fill('[data-testid="install-source"]', src);
  await page.click('[data-testid="install-submit"]');
  const refusal = page.locator('[data-testid="install-dialog"] .notice[data-kind="error"]');
  await refusal.waitFor();
  assert.match(await refusal.textContent(), /^未安装：已安装同一 id 的插件（hola is already installed /);
});
