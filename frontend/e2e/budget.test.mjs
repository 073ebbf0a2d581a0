// The Context card (issue 15, item 3) against the real backend on a copy of testdata/runtime/home,
// whose agent coder holds the plugin review with a stdio server lint and a remote server docs. Here
// lint is a small MCP server written by the test (Node, JSON-RPC on stdio) and docs a local HTTP
// server that holds every request until the test lets it answer 500, so the check's progress can be
// seen while it runs. The backend runs with Claude's own budget override set low, so the target's
// skills are cut to bare names. No env or header value may reach the page.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  launchBrowser,
  makeRuntimeFixture,
  newPage,
  openAssignments,
  pluginBin,
  selectTarget,
  startServe,
  waitFor,
  waitReady,
} from './harness.mjs';

let fx, srv, browser, page, docs, release, marker;
const held = [];

const LINT = `#!/usr/bin/env node
// A stand-in MCP server for the test: initialize and tools/list, one JSON-RPC message a line.
require('fs').writeFileSync(process.env.LINT_MARKER, 'started');
let buf = '';
process.stdin.on('data', (d) => {
  buf += d;
  let i;
  while ((i = buf.indexOf('\\n')) >= 0) {
    const m = JSON.parse(buf.slice(0, i));
    buf = buf.slice(i + 1);
    if (m.id === undefined) continue;
    const answer = (result) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }) + '\\n');
    if (m.method === 'initialize')
      answer({ protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'lint', version: '0.4.2' } });
    else if (m.method === 'tools/list')
      answer({ tools: [{ name: 'lint_file', description: 'Lint one file', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } }] });
    else process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'no such method' } }) + '\\n');
  }
});
`;

before(async () => {
  fx = makeRuntimeFixture();
  marker = join(fx.dir, 'lint-started');
  let open = true;
  docs = createServer((req, res) => {
    req.resume();
    if (open) held.push(res);
    else res.writeHead(500).end('down');
  });
  await new Promise((r) => docs.listen(0, '127.0.0.1', r));
  release = () => {
    open = false;
    for (const res of held.splice(0)) res.writeHead(500).end('down');
  };
  const review = join(fx.pbHome, 'plugins', 'review');
  writeFileSync(join(review, 'bin', 'lint'), LINT);
  chmodSync(join(review, 'bin', 'lint'), 0o755);
  const mcp = join(review, 'mcp.json');
  writeFileSync(
    mcp,
    readFileSync(mcp, 'utf8')
      .replace('https://127.0.0.1:9/mcp', `http://127.0.0.1:${docs.address().port}/mcp`)
      .replace('"LINT_TOKEN"', `"LINT_MARKER": ${JSON.stringify(marker)}, "LINT_TOKEN"`),
  );
  // agent:coder's servers are acknowledged as they are now, by the real plugboard ack.
  execFileSync(pluginBin(), ['ack', '--home', fx.pbHome, 'agent:coder'], { env: { ...process.env, HOME: fx.home } });
  srv = await startServe({
    ...fx,
    env: { SLASH_COMMAND_TOOL_CHAR_BUDGET: '1', PLUGBOARD_CLAUDE_BIN: '', PLUGBOARD_PI_BIN: '' },
  });
  browser = await launchBrowser();
  page = await newPage(browser);
  await openAssignments(page, srv.url);
  await selectTarget(page, 'agent:coder');
});

after(async () => {
  release?.();
  await browser?.close();
  await srv?.stop();
  await new Promise((r) => (docs ? docs.close(r) : r()));
  fx?.cleanup();
});

const card = () => page.getByTestId('assign-target').getByTestId('budget');
const states = (c) =>
  c
    .getByTestId('mcp-health')
    .evaluateAll((els) => Object.fromEntries(els.map((e) => [e.dataset.server, e.dataset.state])));

test("a target's card: estimated tokens, a bar, the skills past Claude's budget, servers not checked", async () => {
  const c = card();
  await c.getByTestId('budget-total').waitFor();
  assert.match(
    await c.getByTestId('budget-total').textContent(),
    /^~[\d,]+ tokens for Claude Code: skills [\d,]+ characters/,
  );
  assert.match(await c.getByTestId('budget-total').textContent(), /MCP tools not known until checked/);
  assert.match(await c.getByTestId('budget-listing').textContent(), /of Claude’s 1-character budget/);
  const cut = await c
    .getByTestId('budget-cut')
    .locator('[data-skill]')
    .evaluateAll((els) => els.map((e) => e.dataset.skill));
  assert.ok(cut.includes('review:check'), `cut: ${cut}`);
  assert.ok((await c.locator('.budget-seg').count()) >= 2, 'the bar has a segment per part');
  assert.deepEqual(await states(c), {
    docs: 'unknown',
    lint: 'unknown',
    'plugin:legacy-tools:legacy-search': 'unknown',
  });
  assert.match(
    await c.locator('[data-server="plugin:legacy-tools:legacy-search"]').textContent(),
    /Claude starts it itself/,
  );
  assert.equal(existsSync(marker), false, 'measuring starts no server');
});

test("a plugin's card: its folder's servers need their own acknowledgment, and Check now starts none", async () => {
  await page.click('[data-testid="tab-plugins"]');
  await waitReady(page);
  await page.click('[data-testid="plugin-row"][data-id="review"]');
  const c = page.locator('article[data-id="review"]').getByTestId('budget');
  await c.getByTestId('budget-total').waitFor();
  assert.deepEqual(await states(c), { docs: 'ack', lint: 'ack' });
  assert.match(
    await c.locator('[data-testid="mcp-health"][data-server="lint"]').textContent(),
    /not acknowledged for this launch, so it does not start/,
  );
  const answer = page.waitForResponse((r) => r.url().endsWith('/api/CheckMCP'));
  await c.getByTestId('mcp-check').click();
  assert.equal((await answer).status(), 200);
  assert.deepEqual(await states(c), { docs: 'ack', lint: 'ack' });
  assert.equal(existsSync(marker), false, 'a server not acknowledged for the launch is not started');
  // the page acknowledges with a button, never a command line
  assert.doesNotMatch(await c.textContent(), /plugboard ack/);
  await c.locator('[data-testid="mcp-health"][data-server="lint"] [data-testid="mcp-ack"]').click();
  await waitFor(async () => (await states(c)).lint !== 'ack', { message: 'lint acknowledged from its button' });
  assert.equal((await states(c)).docs, 'ack', 'only lint was acknowledged');
  await page.click('[data-testid="tab-assign"]');
  await selectTarget(page, 'agent:coder');
});

test('Check now shows its progress, then a dot per server: lint ok with its tools, docs failed', async () => {
  const c = card();
  const answer = page.waitForResponse((r) => r.url().endsWith('/api/CheckMCP'), { timeout: 60000 });
  await c.getByTestId('mcp-check').click();
  // docs is held: the check waits on it, and the card says which server it is on.
  await page.waitForFunction(() =>
    /^Checking review\/docs \(1 of 2\)…$/.test(
      document.querySelector('[data-testid="assign-target"] [data-testid="mcp-check-status"]')?.textContent ?? '',
    ),
  );
  assert.equal(await c.getByTestId('mcp-check').isDisabled(), true);
  release();
  assert.equal((await answer).status(), 200);
  await page.waitForFunction(
    () =>
      document.querySelector('[data-testid="assign-target"] [data-testid="mcp-health"][data-server="lint"]')?.dataset
        .state === 'ok',
  );
  assert.deepEqual(await states(c), { docs: 'failed', lint: 'ok', 'plugin:legacy-tools:legacy-search': 'unknown' });
  const lint = c.locator('[data-testid="mcp-health"][data-server="lint"]');
  assert.match(await lint.textContent(), /ok: lint 0\.4\.2, 1 tool, ready in [\d,]+ ms/);
  assert.equal(await lint.getByTestId('mcp-tools').textContent(), 'lint_file');
  assert.match(
    await c.locator('[data-testid="mcp-health"][data-server="docs"]').textContent(),
    /failed: HTTP 500 from http:\/\/127\.0\.0\.1:\d+/,
  );
  assert.equal(existsSync(marker), true, 'lint was started');
  // The servers' tools are known now, and counted.
  // The checked servers' tools are counted now; the legacy server, which Claude starts itself, is not.
  assert.match(await c.getByTestId('budget-total').textContent(), /MCP tools at least [\d,]+ \(1 not checked\)$/);
  assert.equal(await c.locator('[data-part="seg-mcp"]').count(), 1);
  assert.ok(!(await page.content()).includes('do-not-leak'), 'no env or header value in the page');
});
