// The Activity view against the real backend on a copy of testdata/runtime/home: a skill
// invocation is recorded the way a launched claude's hook records it (the real `plugboard activity
// record`, fed the hook's JSON on stdin, with the projection's activity index), and the page shows
// it with its count, and lists the skills assigned to agent:coder that were never used.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { launchBrowser, makeRuntimeFixture, newPage, pluginBin, startServe, waitFor, waitReady } from './harness.mjs';

let fx, srv, browser, page;

/** What a claude launched for agent:coder runs after the model's Skill call of review:check. */
function recordSkillCall(callID) {
  const index = join(fx.dir, 'activity.json');
  writeFileSync(
    index,
    JSON.stringify({
      v: 1,
      home: fx.pbHome,
      backend: 'claude',
      fingerprint: 'sha256:e2e',
      skills: { 'review:check': { plugin: 'review', version: '1.2.0', hash: 'sha256:e2e-check' } },
    }),
  );
  const hook = {
    session_id: 'e2e-session',
    hook_event_name: 'PostToolUse',
    tool_name: 'Skill',
    tool_use_id: callID,
    tool_input: { skill: 'review:check', args: 'never stored' },
    tool_response: { success: true, commandName: 'review:check' },
  };
  execFileSync(pluginBin(), ['activity', 'record', index], {
    input: JSON.stringify(hook),
    env: { ...process.env, HOME: fx.home, PLUGBOARD_HOME: fx.pbHome, PLUGBOARD_ACTIVITY_TARGET: 'agent:coder' },
  });
}

before(async () => {
  fx = makeRuntimeFixture();
  recordSkillCall('toolu_1');
  recordSkillCall('toolu_2');
  recordSkillCall('toolu_2'); // the same call reported twice is one use
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

test('Activity shows the recorded uses per skill and the assigned skills never used', async () => {
  await page.click('[data-testid="tab-activity"]');
  const row = page.locator('[data-testid="activity-skill"][data-id="review:check"]');
  await row.waitFor();
  assert.equal(await row.locator('[data-testid="activity-uses"]').innerText(), '2');
  assert.match(await row.innerText(), /agent:coder 2/);
  const never = page.locator('[data-testid="activity-unused-skill"][data-target="agent:coder"]');
  await waitFor(async () => (await never.count()) > 0, { message: 'unused skills of agent:coder' });
  const ids = await never.evaluateAll((els) => els.map((e) => e.dataset.id));
  assert.ok(ids.includes('review:explain'), `unused: ${ids}`);
  assert.ok(!ids.includes('review:check'), 'a used skill is not unused');
  assert.ok(!(await page.content()).includes('never stored'), 'no argument reaches the page');
  // a period with nothing in it
  await page.selectOption('[data-testid="activity-range"]', '7');
  await row.waitFor(); // the uses are from now: still there
});
