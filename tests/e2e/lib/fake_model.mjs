// A local stand-in for the Anthropic Messages API that Claude Code calls on
// ANTHROPIC_BASE_URL: it answers POST /v1/messages (streaming SSE or one JSON
// body) from a script of chosen tool calls, and records every request so a
// test can read the tool_result Claude Code sent back (did the tool run, or
// did the permission system refuse it?).
//
// A script is a list of conversations. Each names a marker found in the
// conversation's first user message (the prompt given to `claude -p`, or the
// prompt a sub-agent is started with) and the tool calls to answer with, one
// per turn: turn N (N assistant messages so far) answers steps[N] as a
// tool_use block; once the steps are used up it answers `final` as text with
// stop_reason end_turn. A request whose first user message holds no marker
// (a title or a quota probe, a conversation the test did not script) gets a
// short text answer. Other paths are logged and answered with an empty JSON
// object, or a token count for count_tokens.
//
// Imports nothing from node_modules.
import { createServer } from 'node:http';

let nextId = 1;
const newId = (prefix) => `${prefix}_fake${String(nextId++).padStart(6, '0')}`;

/** Every text of a message's content (a string, or text and tool_result blocks). */
export function textOf(content) {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((block) => {
    if (block.type === 'text') return block.text;
    if (block.type === 'tool_result') return textOf(block.content);
    return '';
  }).join('\n');
}

/** The tool_result blocks of a request's messages, in order. */
export function toolResultsOf(body) {
  const results = [];
  for (const message of body?.messages ?? []) {
    if (message.role !== 'user' || !Array.isArray(message.content)) continue;
    for (const block of message.content) {
      if (block.type === 'tool_result') {
        results.push({ tool_use_id: block.tool_use_id, is_error: block.is_error === true, text: textOf(block.content) });
      }
    }
  }
  return results;
}

function firstUserText(body) {
  const first = (body?.messages ?? []).find((m) => m.role === 'user');
  return first ? textOf(first.content) : '';
}

/** What to answer: { content: [blocks], stop_reason } for a /v1/messages request. */
function plan(script, body) {
  const first = firstUserText(body);
  const conversation = script.find((c) => first.includes(c.marker));
  if (!conversation) return { conversation: null, content: [{ type: 'text', text: 'OK.' }], stop_reason: 'end_turn' };
  const turn = (body.messages ?? []).filter((m) => m.role === 'assistant').length;
  const step = conversation.steps[turn];
  if (step) {
    return {
      conversation,
      content: [{ type: 'tool_use', id: newId('toolu'), name: step.name, input: step.input }],
      stop_reason: 'tool_use',
    };
  }
  return { conversation, content: [{ type: 'text', text: conversation.final ?? 'Done.' }], stop_reason: 'end_turn' };
}

function messageOf(body, answer) {
  return {
    id: newId('msg'),
    type: 'message',
    role: 'assistant',
    model: body.model ?? 'claude-fake',
    content: answer.content,
    stop_reason: answer.stop_reason,
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  };
}

function writeStream(res, message) {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'request-id': newId('req'),
  });
  const send = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  send('message_start', { message: { ...message, content: [], stop_reason: null, usage: { ...message.usage, output_tokens: 1 } } });
  message.content.forEach((block, index) => {
    if (block.type === 'tool_use') {
      send('content_block_start', { index, content_block: { ...block, input: {} } });
      const json = JSON.stringify(block.input);
      // Two pieces, as the real API sends the input in several deltas.
      const cut = Math.floor(json.length / 2);
      for (const part of [json.slice(0, cut), json.slice(cut)]) {
        send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: part } });
      }
    } else {
      send('content_block_start', { index, content_block: { type: 'text', text: '' } });
      send('content_block_delta', { index, delta: { type: 'text_delta', text: block.text } });
    }
    send('content_block_stop', { index });
  });
  send('message_delta', { delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { output_tokens: message.usage.output_tokens } });
  send('message_stop', {});
  res.end();
}

/**
 * Starts the stand-in on 127.0.0.1 (a free port). Returns { url, requests,
 * unknown, setScript(script), close() }. `requests` holds every /v1/messages
 * request as { body, conversation (the script entry or null), answer }.
 */
export async function startFakeModel({ script = [], log = () => {} } = {}) {
  let current = script;
  const requests = [];
  const unknown = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body = null;
      try { body = raw ? JSON.parse(raw) : null; } catch { /* not JSON: answered below */ }
      // A proxied request names the whole URL; a direct one only the path.
      const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
      const json = (status, value) => {
        res.writeHead(status, { 'content-type': 'application/json', 'request-id': newId('req') });
        res.end(JSON.stringify(value));
      };
      if (req.method === 'POST' && path === '/v1/messages/count_tokens') {
        json(200, { input_tokens: 100 });
        return;
      }
      if (req.method === 'POST' && path === '/v1/messages' && body) {
        const answer = plan(current, body);
        requests.push({ body, conversation: answer.conversation, answer });
        const last = toolResultsOf(body).at(-1);
        if (answer.conversation && last) {
          log(`fake model: ${answer.conversation.marker} got ${last.is_error ? 'error ' : ''}result ` +
            JSON.stringify(last.text.slice(0, 200)));
        }
        log(`fake model: ${answer.conversation ? answer.conversation.marker : '(unscripted)'} ` +
          `turn ${(body.messages ?? []).filter((m) => m.role === 'assistant').length} -> ` +
          answer.content.map((b) => (b.type === 'tool_use' ? `tool_use ${b.name}` : 'text')).join(','));
        const message = messageOf(body, answer);
        if (body.stream) writeStream(res, message);
        else json(200, message);
        return;
      }
      unknown.push({ method: req.method, path: req.url, body: raw.slice(0, 2000) });
      log(`fake model: unknown ${req.method} ${req.url}`);
      json(200, {});
    });
  });
  // Set as HTTPS_PROXY/HTTP_PROXY, the server also hears any attempt to reach
  // another host: it is recorded and refused, so nothing leaves 127.0.0.1.
  server.on('connect', (req, socket) => {
    unknown.push({ method: 'CONNECT', path: req.url, body: '' });
    log(`fake model: refused CONNECT ${req.url}`);
    socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    unknown,
    setScript(script) { current = script; },
    /** The requests of one scripted conversation (by marker). */
    requestsOf(marker) { return requests.filter((r) => r.conversation?.marker === marker); },
    /**
     * The tool calls answered to one conversation, in order, each with the
     * tool_result Claude Code sent back ({ is_error, text }), or null when it
     * sent none.
     */
    callsOf(marker) {
      const mine = requests.filter((r) => r.conversation?.marker === marker);
      const results = new Map();
      for (const request of mine) {
        for (const result of toolResultsOf(request.body)) results.set(result.tool_use_id, result);
      }
      return mine.flatMap((r) => r.answer.content.filter((b) => b.type === 'tool_use'))
        .map((call) => ({ id: call.id, name: call.name, input: call.input, result: results.get(call.id) ?? null }));
    },
    close() {
      server.closeAllConnections?.();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
