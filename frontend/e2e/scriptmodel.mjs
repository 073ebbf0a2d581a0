// A scripted model for the page's end-to-end tests that drive the real claude (the Try box): the
// Anthropic Messages API on 127.0.0.1, answering each request that offers tools (the agent's turn;
// its side requests, such as a title, offer none and get "ok") with the next step of a script, as a
// server-sent event stream. It is the Node twin of backend/scriptmodel (which the Go tests use), cut
// down to what a page test needs: steps are {text} or {tool, input}. Every request body is kept
// (requests()), a request after the last step gets HTTP 400 (clients do not retry it), and HEAD /
// answers 200 (Claude Code probes it before its first request).

import { createServer } from 'node:http';

export async function startScriptModel(steps) {
  const requests = [];
  let next = 0;
  let ids = 0;
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const path = req.url.split('?')[0];
      if (path === '/' && (req.method === 'HEAD' || req.method === 'GET')) return void res.writeHead(200).end();
      if (req.method !== 'POST' || !path.startsWith('/v1/messages')) return void res.writeHead(404).end();
      let body;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return void res.writeHead(400).end();
      }
      if (path === '/v1/messages/count_tokens') return void json(res, { input_tokens: 1 });
      const main = Array.isArray(body.tools) && body.tools.length > 0;
      requests.push({ main, body });
      let step = { text: 'ok' };
      if (main) {
        if (next >= steps.length) {
          res.writeHead(400, { 'content-type': 'application/json' });
          return void res.end(
            JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'the script is over' } }),
          );
        }
        step = steps[next++];
      }
      const n = ++ids;
      const block = step.tool
        ? { type: 'tool_use', id: `toolu_pb_${n}`, name: step.tool, input: step.input ?? {} }
        : { type: 'text', text: step.text };
      const msg = {
        id: `msg_pb_${n}`,
        type: 'message',
        role: 'assistant',
        model: body.model || 'scripted',
        content: [block],
        stop_reason: step.tool ? 'tool_use' : 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 },
      };
      if (!body.stream) return void json(res, msg);
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const event = (name, data) => res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
      event('message_start', { type: 'message_start', message: { ...msg, content: [], stop_reason: null } });
      if (block.type === 'tool_use') {
        event('content_block_start', {
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
        });
        const input = JSON.stringify(block.input);
        event('content_block_delta', {
          type: 'content_block_delta',
          index: 0,
          delta: { type: 'input_json_delta', partial_json: input },
        });
      } else {
        event('content_block_start', {
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'text', text: '' },
        });
        event('content_block_delta', {
          type: 'content_block_delta',
          index: 0,
          delta: { type: 'text_delta', text: block.text },
        });
      }
      event('content_block_stop', { type: 'content_block_stop', index: 0 });
      event('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: msg.stop_reason, stop_sequence: null },
        usage: { output_tokens: 1 },
      });
      event('message_stop', { type: 'message_stop' });
      res.end();
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${server.address().port}`;
  return {
    url,
    /** The environment that points claude at this server with no account. */
    claudeEnv: {
      ANTHROPIC_BASE_URL: url,
      ANTHROPIC_API_KEY: 'scriptmodel-not-a-key',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
      DISABLE_NON_ESSENTIAL_MODEL_CALLS: '1',
    },
    /** The requests of the agent's turns (those that offered tools), in order. */
    main: () => requests.filter((r) => r.main),
    remaining: () => steps.length - next,
    close: () => new Promise((r) => server.close(r)),
  };
}

function json(res, v) {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(v));
}
