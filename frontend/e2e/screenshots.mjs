// npm run screenshots: starts `$PLUGBOARD_BIN serve` on a copy of the fixture home and writes the
// page's screenshots to docs/screenshots/ (plugins light and dark, skills, MCP, settings, problems),
// then on a copy of testdata/assign/home the Assignments tab, the New agent dialog and the MCP
// acknowledgment dialog, and on a copy
// of testdata/runtime/home a launch with its Context card, local development and what changed, and
// the welcome view of an empty home; the Plugins page, Settings and the welcome view again for a
// system in Simplified Chinese (plugins-zh, settings-zh, welcome-zh). Only `serve` is needed
// (no desktop binary); $TERMINAL is a stand-in that opens nothing.

import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  launchBrowser,
  makeAssignFixture,
  makeFixture,
  makeRuntimeFixture,
  repoRoot,
  startServe,
  waitFor,
  waitReady,
  clientsOnPath,
} from './harness.mjs';

const out = process.env.PLUGBOARD_SCREENSHOTS || join(repoRoot, 'docs', 'screenshots');
mkdirSync(out, { recursive: true });

const fx = makeFixture();
const srv = await startServe(fx);
const browser = await launchBrowser();
const written = [];

async function open(colorScheme, server = srv, locale = 'en-US') {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme, locale });
  const page = await context.newPage();
  page.on('pageerror', (e) => console.error('page error:', e.message));
  await page.goto(server.url);
  await waitReady(page);
  return page;
}

async function shot(page, name) {
  await page.evaluate(() => document.activeElement instanceof HTMLElement && document.activeElement.blur());
  await page.mouse.move(70, 26); // the brand in the header: no hover effects
  await page.waitForTimeout(150);
  const file = join(out, name);
  await page.screenshot({ path: file });
  written.push(file);
}

try {
  // dark first: the light pass opens the workspace, which the server keeps open
  for (const scheme of ['dark', 'light']) {
    const page = await open(scheme);
    await page.click('[data-testid="plugin-row"][data-id="alpha"]');
    await shot(page, `plugins-${scheme}.png`);
    if (scheme === 'dark') {
      await page.close();
      continue;
    }
    await page.click('[data-testid="tab-skills"]');
    await page.click('[data-testid="skill-row"][data-id="alpha:shared-name"]');
    await shot(page, 'skills.png');
    await page.click('[data-testid="tab-mcp"]');
    await page.click('[data-testid="mcp-row"][data-name="db"]');
    await shot(page, 'mcp.png');
    await page.click('[data-testid="tab-settings"]');
    await page.fill('[data-testid="workspace-path"]', '~/../ws');
    await page.click('[data-testid="workspace-open"]');
    await page.waitForSelector('[data-testid="workspace-state"]:text-matches("^Open:")');
    await shot(page, 'settings.png');
    // every problem of the catalog, from the header's count
    await page.click('[data-testid="header-problems"]');
    await page.waitForSelector('[data-testid="problem"]');
    await shot(page, 'problems.png');
    await page.close();
  }
  // the same page for a system in Simplified Chinese
  {
    const page = await open('light', srv, 'zh-CN');
    await page.click('[data-testid="plugin-row"][data-id="alpha"]');
    await shot(page, 'plugins-zh.png');
    await page.click('[data-testid="tab-settings"]');
    await page.locator('[data-testid="settings-language"]').scrollIntoViewIfNeeded();
    await shot(page, 'settings-zh.png');
    await page.close();
  }
  // assignments, on the assignment fixture
  const afx = makeAssignFixture();
  const asrv = await startServe(afx);
  try {
    const page = await open('light', asrv);
    await page.click('[data-testid="tab-assign"]');
    await page.click('[data-testid="target"][data-id="agent:researcher"]');
    await page.check('[data-testid="assign-check"][data-id="summarizer"]');
    await page.click('[data-testid="assign-save"]');
    await page.waitForSelector('[data-testid="history-entry"]');
    await page.check('[data-testid="assign-check"][data-id="legacy-one"]');
    await shot(page, 'assignments.png');
    // a new agent, started from another's set
    await page.click('[data-testid="new-agent"]');
    await page.waitForSelector('[data-testid="agent-dialog"]');
    await page.fill('[data-testid="agent-name"]', 'reviewer');
    await page.selectOption('[data-testid="agent-from"]', { index: 1 });
    await page.mouse.move(5, 795);
    await page.waitForTimeout(150);
    const nfile = join(out, 'new-agent.png');
    await page.screenshot({ path: nfile });
    written.push(nfile);
    await page.keyboard.press('Escape');
    await page.waitForSelector('[data-testid="agent-dialog"]', { state: 'detached' });
    await page.click('[data-testid="assign-reset"]');
    await page.click('[data-testid="target"][data-id="agent:bare"]');
    await page.check('[data-testid="assign-check"][data-id="tools"]');
    await page.click('[data-testid="assign-save"]');
    await page.waitForSelector('[data-testid="ack-dialog"]');
    await page.mouse.move(5, 795);
    await page.waitForTimeout(150);
    const file = join(out, 'ack-dialog.png');
    await page.screenshot({ path: file });
    written.push(file);
    await page.close();
  } finally {
    await asrv.stop();
    afx.cleanup();
  }
  // launch, local development and what changed, on the runtime fixture
  const rfx = makeRuntimeFixture();
  const stand = join(rfx.dir, 'terminal-stand-in.sh'); // stands in for a terminal: opens nothing
  writeFileSync(stand, '#!/bin/sh\nexit 0\n');
  chmodSync(stand, 0o755);
  const rsrv = await startServe({
    ...rfx,
    env: { TERMINAL: stand, ...clientsOnPath(rfx.dir) },
  });
  try {
    const page = await open('light', rsrv);
    await page.waitForSelector('[data-testid="watch-state"]:not([data-state="paused"]):not([hidden])', {
      timeout: 15000,
    });
    await page.click('[data-testid="tab-assign"]');
    await page.click('[data-testid="target"][data-id="agent:coder"]');
    await page.click('[data-testid="launch-button"]');
    // nothing is acknowledged in the fixture: the launch asks first (ack.test.mjs)
    await page.waitForSelector('[data-testid="ack-dialog"]');
    await page.click('[data-testid="ack-confirm"]');
    await page.waitForSelector('[data-testid="launch-command"]');
    await shot(page, 'launch.png');
    // the same target's Context card: what the launch puts in front of the model, and its servers
    const context = page.getByTestId('assign-target').getByTestId('budget');
    await context.getByTestId('budget-total').waitFor();
    await context.scrollIntoViewIfNeeded();
    await page.mouse.move(5, 795);
    await page.waitForTimeout(150);
    const cfile = join(out, 'context.png');
    await context.screenshot({ path: cfile });
    written.push(cfile);

    const src = join(rfx.dir, 'src', 'devplug');
    mkdirSync(join(src, 'skills', 'hello'), { recursive: true });
    const manifest = {
      $schema: 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json',
      name: 'devplug',
      version: '0.1.0',
    };
    writeFileSync(join(src, 'plugin.json'), JSON.stringify(manifest, null, 2));
    writeFileSync(join(src, 'skills', 'hello', 'SKILL.md'), '---\nname: hello\ndescription: Says hello.\n---\nHi.\n');
    await page.click('[data-testid="tab-dev"]');
    await page.fill('[data-testid="dev-path"]', src);
    await page.click('[data-testid="dev-link"]');
    await page.waitForSelector('[data-testid="dev-link-item"][data-valid="true"]');
    // the catalog has it (a snapshot of its own) before it is broken
    await page.waitForSelector('[data-testid="dev-link-item"] button[aria-label="Show devplug in Plugins"]');
    // the author breaks the manifest: the link turns invalid with the file and the fix
    writeFileSync(join(src, 'plugin.json'), JSON.stringify({ ...manifest, $schema: undefined }, null, 2));
    await page.waitForSelector('[data-testid="dev-link-item"][data-valid="false"] [data-testid="issue"]');
    await page.waitForSelector('[data-testid="reloaded"]:not([hidden])');
    await shot(page, 'local-development.png');

    await page.click('[data-testid="tab-timeline"]');
    await waitFor(async () => (await page.locator('[data-testid="snapshot"]').count()) >= 3, {
      message: 'snapshots',
    });
    await page.waitForSelector('[data-testid="snapshot-view"] [data-testid="change"]');
    await shot(page, 'what-changed.png');
    await page.close();
  } finally {
    await rsrv.stop();
    rfx.cleanup();
  }
  // the first run: an empty home
  const empty = mkdtempSync(join(tmpdir(), 'pb-shot-empty-'));
  const esrv = await startServe({ home: empty, pbHome: join(empty, '.plugboard') });
  try {
    const page = await open('light', esrv);
    await page.waitForSelector('[data-testid="welcome-places"] li[data-path]');
    await shot(page, 'welcome.png');
    await page.close();
    const zh = await open('light', esrv, 'zh-CN');
    await zh.waitForSelector('[data-testid="welcome-places"] li[data-path]');
    await shot(zh, 'welcome-zh.png');
    await zh.close();
  } finally {
    await esrv.stop();
    rmSync(empty, { recursive: true, force: true });
  }
  for (const f of written) console.log(f);
} finally {
  await browser.close();
  await srv.stop();
  fx.cleanup();
}
