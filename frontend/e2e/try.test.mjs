// The Try box against the real backend on a copy of testdata/runtime/home, with the real claude
// (build/agents, as make deps-agents installs it) answering through a scripted model on loopback
// (./scriptmodel.mjs): the page shows the answer, the skill the model invoked (read by the backend
// from that turn's activity records), and, on a second try of the same set, that a warm agent
// answered with a fresh conversation; the Activity tab lists the use. The fixture's MCP servers are
// not acknowledged, so the try leaves them out and says so.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  launchBrowser,
  makeRuntimeFixture,
  newPage,
  openAssignments,
  repoRoot,
  selectTarget,
  startServe,
} from './harness.mjs';
import { startScriptModel } from './scriptmodel.mjs';

const claude = join(repoRoot, 'build', 'agents', 'node_modules', '.bin', 'claude');
let fx, srv, browser, page, model;

const FIRST = 'FIRST-TRY please check this change';
const SECOND = 'SECOND-TRY say hello';

before(async () => {
  if (!existsSync(claude)) throw new Error(`${claude} is not installed: make test installs it (make deps-agents)`);
  fx = makeRuntimeFixture();
  model = await startScriptModel([
    { tool: 'Skill', input: { skill: 'review:check' } },
    { text: 'the change looks right' },
    { text: 'hello' },
  ]);
  srv = await startServe({ ...fx, env: { PLUGBOARD_CLAUDE_BIN: claude, ...model.claudeEnv } });
  browser = await launchBrowser();
  page = await newPage(browser);
  await openAssignments(page, srv.url);
  await selectTarget(page, 'agent:coder');
});

after(async () => {
  await browser?.close();
  await srv?.stop();
  await model?.close();
  fx?.cleanup();
});

/** Types prompt into the target's Try box, clicks Try and waits for the backend's answer. */
async function tryPrompt(prompt) {
  const box = page.getByTestId('assign-target').getByTestId('try');
  await box.getByLabel('Prompt').fill(prompt);
  const answer = page.waitForResponse((r) => r.url().endsWith('/api/Try'), { timeout: 120000 });
  await box.getByRole('button', { name: 'Try', exact: true }).click();
  const res = await answer;
  assert.equal(res.status(), 200, await res.text());
  await box.getByTestId('try-answer').waitFor();
  return box;
}

test('a try shows the answer and the skill the model invoked, from a new agent', async () => {
  const box = await tryPrompt(FIRST);
  assert.equal(await box.getByTestId('try-answer').textContent(), 'the change looks right');
  const skills = await box
    .getByTestId('try-skills')
    .locator('[data-skill]')
    .evaluateAll((els) => els.map((e) => e.dataset.skill));
  assert.deepEqual(skills, ['review:check']);
  assert.match(await box.getByTestId('try-skills').textContent(), /picked by the model/);
  assert.equal(await box.getByTestId('try-tools').textContent(), 'none');
  const meta = box.getByTestId('try-meta');
  assert.equal(await meta.getAttribute('data-warm'), 'false');
  assert.match(await meta.textContent(), /^claude, a new agent, /);
  // The fixture's servers are not acknowledged for agent:coder: left out, and said.
  const dropped = box.getByTestId('try-dropped');
  assert.equal(await dropped.locator('summary').textContent(), 'Left out of this try: review/docs, review/lint');
  assert.match(await dropped.textContent(), /review\/lint: not acknowledged for this target as it is now/);
  assert.doesNotMatch(await dropped.textContent(), /plugboard ack/, 'no command line in the page');
  assert.equal(await dropped.getByTestId('try-ack').count(), 2, 'an Acknowledge button a server');
});

test('a second try of the same set is answered by the warm agent, in a new conversation', async () => {
  const box = await tryPrompt(SECOND);
  assert.equal(await box.getByTestId('try-answer').textContent(), 'hello');
  assert.equal(await box.getByTestId('try-skills').textContent(), 'none');
  assert.equal(await box.getByTestId('try-meta').getAttribute('data-warm'), 'true');
  const main = model.main();
  assert.equal(main.length, 3);
  const last = JSON.stringify(main[2].body.messages);
  assert.ok(last.includes(SECOND) && !last.includes(FIRST), 'the second try saw the first one’s conversation');
  assert.equal(model.remaining(), 0);
});

test('the real agent’s skill use shows in the Activity tab', async () => {
  await page.click('[data-testid="tab-activity"]');
  await page.selectOption('[data-testid="activity-range"]', '7');
  await page.locator('[data-testid="activity-body"][data-days="7"]:not([data-loading])').waitFor();
  const row = page.locator('[data-testid="activity-skill"][data-id="review:check"]');
  assert.equal(await row.getAttribute('data-plugin'), 'review');
  assert.equal(await row.locator('[data-testid="activity-uses"]').innerText(), '1');
  assert.match(await row.innerText(), /agent:coder 1/);
});
