// The page's languages (issue 17, item 4): the English and Chinese catalogs hold the same keys
// with the same placeholders, no key is defined twice, no Chinese message is left in English,
// t() picks plural forms and formats numbers per language, and no view holds a literal string a
// person would read (scripts/i18n-check.mjs, itself tested on snippets that must and must not fail).

import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import test from 'node:test';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { checkPage, checkSource } from '../scripts/i18n-check.mjs';

const frontend = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The page's src/i18n/index.ts and catalog.ts, bundled by esbuild, as a module. */
async function loadI18n() {
  const out = await build({
    stdin: {
      contents: "export * from './index'; export { areas } from './catalog';",
      resolveDir: join(frontend, 'src', 'i18n'),
      loader: 'ts',
    },
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    write: false,
    logLevel: 'silent',
  });
  const code = out.outputFiles[0].text;
  return import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`);
}

const i18n = await loadI18n();

test('every area defines the same keys in English and Chinese, under its own prefix, once', () => {
  const seen = new Map();
  for (const [area, cat] of Object.entries(i18n.areas)) {
    const en = Object.keys(cat.en).sort();
    const zh = Object.keys(cat.zh).sort();
    assert.deepEqual(
      zh.filter((k) => !cat.en[k]),
      [],
      `${area}: keys in Chinese but not in English`,
    );
    assert.deepEqual(
      en.filter((k) => !cat.zh[k]),
      [],
      `${area}: keys in English but not in Chinese`,
    );
    for (const k of en) {
      assert.ok(k.startsWith(`${area}.`), `${area}: key ${k} is not under '${area}.'`);
      assert.ok(!seen.has(k), `${k} is defined in ${seen.get(k)} and ${area}`);
      seen.set(k, area);
    }
  }
  assert.ok(seen.size > 500, `the catalog has ${seen.size} keys`);
});

test('each Chinese message keeps the placeholders of its English one and is translated', () => {
  const problems = [];
  const names =
    /\{\w+\}|\b(MCP|PI|JSON|CSV|URL|ID|Claude Code|Claude|Cursor|Codex|Copilot CLI|Copilot|Plugboard|Agent Plugins|Git|GitHub|stdio|HTTP|SSE|ms)\b|\S*[./_~$@-]\S*/g;
  for (const [area, cat] of Object.entries(i18n.areas)) {
    for (const [k, en] of Object.entries(cat.en)) {
      const zh = cat.zh[k];
      for (const m of [en, zh]) {
        if (typeof m === 'string') assert.ok(m.length > 0, `${k} is empty`);
        else assert.ok(typeof m.other === 'string' && m.other.length > 0, `${k} has no 'other' form`);
      }
      const pe = i18n.placeholders(en).join(',');
      const pz = i18n.placeholders(zh).join(',');
      if (pe !== pz) problems.push(`${area}: ${k}: placeholders {${pe}} in English, {${pz}} in Chinese`);
      const zhText = typeof zh === 'string' ? zh : zh.other;
      const enText = typeof en === 'string' ? en : en.other;
      if (zhText === enText && /[a-z]{3,}/i.test(enText.replace(names, ''))) {
        problems.push(`${area}: ${k}: the Chinese message is the English one: ${JSON.stringify(enText)}`);
      }
    }
  }
  assert.deepEqual(problems, []);
});

test('t picks the plural form and formats numbers for the language', () => {
  const key = 'shell.summary.plugins';
  assert.equal(i18n.format('en', key, { n: 1 }), '1 plugin');
  assert.equal(i18n.format('en', key, { n: 2 }), '2 plugins');
  assert.equal(i18n.format('en', key, { n: 12345 }), '12,345 plugins');
  assert.equal(i18n.format('zh-CN', key, { n: 1 }), '1 个插件');
  assert.equal(i18n.format('zh-CN', key, { n: 12345 }), '12,345 个插件');
  assert.equal(i18n.format('en', 'shell.scan.rescanFailed', { msg: 'x {y}' }), 'Rescan failed: x {y}');
  assert.equal(i18n.format('zh-CN', 'shell.scan.rescanFailed', { msg: 'x' }), '重新扫描失败：x');
});

test('the fast path for integers (no Intl at start-up) agrees with Intl in both languages', () => {
  const numbers = [];
  for (let n = -1200; n <= 1200; n++) numbers.push(n);
  for (let d = 1; d <= 16; d++) numbers.push(10 ** d - 1, 10 ** d, 10 ** d + 1, -(10 ** d), 12345 * 10 ** (d - 1));
  for (let i = 0; i < 2000; i++) numbers.push(Math.floor((Math.random() - 0.5) * 2 ** (1 + (i % 53))));
  numbers.push(
    0.5,
    1.5,
    -1.5,
    2.25,
    999.9,
    1e6,
    1234567,
    -98765,
    -0,
    Number.MAX_SAFE_INTEGER,
    -Number.MAX_SAFE_INTEGER,
    2 ** 53 + 2,
    1e21,
  );
  for (const lang of ['en', 'zh-CN']) {
    const nf = new Intl.NumberFormat(lang);
    const pr = new Intl.PluralRules(lang);
    for (const n of numbers) {
      const want = (pr.select(n) === 'one' && lang === 'en' ? '{n} plugin' : '{n} plugins').replace(
        '{n}',
        nf.format(n),
      );
      if (lang === 'en') assert.equal(i18n.format('en', 'shell.summary.plugins', { n }), want, `en ${n}`);
      else assert.equal(i18n.format('zh-CN', 'shell.summary.plugins', { n }), `${nf.format(n)} 个插件`, `zh ${n}`);
    }
  }
});

test('the system language: any zh locale is Chinese, anything else English', () => {
  assert.equal(i18n.systemLang(['zh-CN']), 'zh-CN');
  assert.equal(i18n.systemLang(['zh-TW', 'en-US']), 'zh-CN');
  assert.equal(i18n.systemLang(['zh']), 'zh-CN');
  assert.equal(i18n.systemLang(['de-DE', 'zh-CN']), 'zh-CN');
  assert.equal(i18n.systemLang(['en-GB', 'zh-CN']), 'en');
  assert.equal(i18n.systemLang(['fr-FR']), 'en');
  assert.equal(i18n.systemLang([]), 'en');
});

test('the literal-string check finds text a person reads and leaves code alone', () => {
  const bad = [
    "h('p', null, 'No plugins yet')",
    "h('button', { title: 'Rescan now' }, icon)",
    "h('input', { placeholder: 'Search' })",
    "h('input', { 'aria-label': 'Search skills' })",
    "el.textContent = ok ? 'Saved' : 'failed';",
    'el.textContent = `${n} plugins`;',
    "btn.setAttribute('aria-label', 'Pause');",
    "badge('invalid', 'error')",
    "const msg = 'Every installed plugin is up to date';",
    'return `Assigned to ${n} agents`;',
    "h('option', { value: 'active' }, 'active')",
    "note.title = 'Pause watching';",
  ];
  for (const src of bad) assert.ok(checkSource('x.ts', src).length > 0, `not found in: ${src}`);
  const good = [
    "h('div', { class: 'pane pane-list', 'data-testid': 'skill-list', role: 'grid' })",
    "h('p', null, t('plugins.empty'))",
    "h('code', null, 'SKILL.md')",
    "h('code', null, '~/.claude/skills')",
    "h('code', null, '--plugin-dir')",
    "if (kind === 'Not found here') x();",
    "document.querySelector('.split .pane-detail h2')",
    "import { a } from './Some Module';",
    "type T = 'Some Thing' | 'Other Thing';",
    "throw new Error('missing element in the page');",
    "h('h1', null, 'Plugboard'); // i18n-ignore: the name",
    "badge(t('x'), 'neutral')",
    "el.addEventListener('Some Event', f)",
    "note.className = active ? 'notice notice-info' : 'muted small';",
    "el.dataset.state = 'Not Found';",
    "const api = { catalog: () => call('Catalog'), pick: () => invoke('PickFolder', []) };",
  ];
  for (const src of good) assert.deepEqual(checkSource('x.ts', src), [], `flagged: ${src}`);
});

test('no file of the page holds a literal string a person would read', () => {
  const found = checkPage(frontend).map((f) => `${f.file}:${f.line}: ${f.rule}: ${JSON.stringify(f.text)}`);
  assert.deepEqual(found, [], 'put these in src/i18n/messages and use t() (see scripts/i18n-check.mjs)');
});
