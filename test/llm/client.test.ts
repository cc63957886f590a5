import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLlmClient, LlmError, resolveEndpoint } from '../../generator/core/llm/client.js';
import { tempDir } from '../helpers/tmp.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: any;
}

// A real HTTP server on 127.0.0.1; each test scripts its replies.
let server: Server;
let base = '';
const seen: Seen[] = [];
let replies: Array<(res: ServerResponse, body: any) => void> = [];

function json(status: number, value: unknown) {
  return (res: ServerResponse) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(typeof value === 'string' ? value : JSON.stringify(value));
  };
}
const completionReply = (text: string) => json(200, { id: 'x', object: 'text_completion', choices: [{ index: 0, text, finish_reason: 'stop' }] });
const chatReply = (content: string) => json(200, { id: 'y', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] });

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const body = raw ? JSON.parse(raw) : undefined;
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const reply = replies.shift();
      if (reply) reply(res, body);
      // No scripted reply: hold the connection open (the timeout test relies on it).
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
beforeEach(() => {
  seen.length = 0;
  replies = [];
});

const noSleep = async () => {};

describe('createLlmClient against a local OpenAI-compatible server', () => {
  it('sends a /v1/completions request of the expected shape and returns choices[0].text', async () => {
    replies.push(completionReply(' (B)'));
    const client = createLlmClient({ endpoint: `${base}/v1`, model: 'tiny-base', cacheDir: tempDir(), apiKeyEnv: 'TEST_KEY', env: { TEST_KEY: 'sk-secret' } });
    const text = await client.complete('The answer is (', { maxTokens: 5, stop: [')'] });
    expect(text).toBe(' (B)');
    expect(seen).toHaveLength(1);
    expect(seen[0]!.method).toBe('POST');
    expect(seen[0]!.url).toBe('/v1/completions');
    expect(seen[0]!.headers['content-type']).toBe('application/json');
    expect(seen[0]!.headers.authorization).toBe('Bearer sk-secret');
    expect(seen[0]!.body).toEqual({ model: 'tiny-base', prompt: 'The answer is (', max_tokens: 5, temperature: 0, stop: [')'] });
  });

  it('speaks /v1/chat/completions when the endpoint names it', async () => {
    replies.push(chatReply('I need to open setup.py'));
    const client = createLlmClient({ endpoint: `${base}/v1/chat/completions`, model: 'chatty', cacheDir: tempDir() });
    expect(await client.complete('Write a wrong plan.', { temperature: 0.7 })).toBe('I need to open setup.py');
    expect(seen[0]!.url).toBe('/v1/chat/completions');
    expect(seen[0]!.body).toEqual({ model: 'chatty', messages: [{ role: 'user', content: 'Write a wrong plan.' }], temperature: 0.7 });
    expect(seen[0]!.headers.authorization).toBeUndefined();
  });

  it('caches on disk: a repeat makes no request, even from a new client; the key never reaches the cache', async () => {
    const cacheDir = tempDir();
    replies.push(completionReply('first'), completionReply('second'));
    const options = { endpoint: base, model: 'm', cacheDir, apiKeyEnv: 'K', env: { K: 'sk-do-not-store' } };
    const client = createLlmClient(options);
    expect(await client.complete('p', { maxTokens: 3 })).toBe('first');
    expect(await client.complete('p', { maxTokens: 3 })).toBe('first');
    expect(seen).toHaveLength(1);
    expect(await createLlmClient({ ...options, offline: true }).complete('p', { maxTokens: 3 })).toBe('first');
    expect(seen).toHaveLength(1);
    // Any change to what determines the answer is a different entry.
    expect(await client.complete('p', { maxTokens: 4 })).toBe('second');
    expect(seen).toHaveLength(2);
    const files = readdirSync(cacheDir, { recursive: true }).map(String).filter((f) => f.endsWith('.json'));
    expect(files).toHaveLength(2);
    for (const f of files) expect(readFileSync(path.join(cacheDir, f), 'utf8')).not.toContain('sk-do-not-store');
  });

  it('offline mode fails on a cache miss without calling the server', async () => {
    const client = createLlmClient({ endpoint: base, model: 'm', cacheDir: tempDir(), offline: true });
    await expect(client.complete('never asked')).rejects.toMatchObject({ name: 'LlmError', code: 'cache-miss' });
    expect(seen).toHaveLength(0);
  });

  it('HTTP 500 is retried, then reported with the server message', async () => {
    for (let i = 0; i < 3; i++) replies.push(json(500, { error: { message: 'CUDA out of memory' } }));
    const client = createLlmClient({ endpoint: base, model: 'm', cacheDir: tempDir(), retries: 2, sleep: noSleep });
    const err = await client.complete('x').catch((e) => e);
    expect(err).toBeInstanceOf(LlmError);
    expect(err).toMatchObject({ code: 'http', status: 500 });
    expect(err.message).toContain('CUDA out of memory');
    expect(seen).toHaveLength(3);
  });

  it('a transient 503 succeeds on retry and the answer is cached', async () => {
    const cacheDir = tempDir();
    replies.push(json(503, 'overloaded'), completionReply('ok'));
    const client = createLlmClient({ endpoint: base, model: 'm', cacheDir, sleep: noSleep });
    expect(await client.complete('x')).toBe('ok');
    expect(await client.complete('x')).toBe('ok');
    expect(seen).toHaveLength(2);
  });

  it('a 4xx other than 429 is not retried', async () => {
    replies.push(json(400, { error: { message: 'model not found' } }));
    const client = createLlmClient({ endpoint: base, model: 'nope', cacheDir: tempDir(), sleep: noSleep });
    await expect(client.complete('x')).rejects.toMatchObject({ code: 'http', status: 400 });
    expect(seen).toHaveLength(1);
  });

  it('a body that is not JSON, or JSON without the text, is a clear error and is not cached', async () => {
    const cacheDir = tempDir();
    replies.push(json(200, '<html>proxy error</html>'), json(200, { choices: [] }), completionReply('fine'));
    const client = createLlmClient({ endpoint: base, model: 'm', cacheDir, sleep: noSleep });
    const bad = await client.complete('x').catch((e) => e);
    expect(bad).toMatchObject({ code: 'bad-json' });
    expect(bad.message).toContain('proxy error');
    await expect(client.complete('x')).rejects.toMatchObject({ code: 'bad-response' });
    expect(await client.complete('x')).toBe('fine');
    expect(seen).toHaveLength(3);
  });

  it('connection refused and timeouts are network errors, not hangs', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const refused = createLlmClient({ endpoint: `http://127.0.0.1:${port}/v1`, model: 'm', cacheDir: tempDir(), retries: 0 });
    await expect(refused.complete('x')).rejects.toMatchObject({ code: 'network' });

    const slow = createLlmClient({ endpoint: base, model: 'm', cacheDir: tempDir(), retries: 0, timeoutMs: 300 });
    await expect(slow.complete('x')).rejects.toMatchObject({ code: 'timeout' });
  });

  it('a missing API key variable is reported before any request', async () => {
    const client = createLlmClient({ endpoint: base, model: 'm', cacheDir: tempDir(), apiKeyEnv: 'NOT_SET_ANYWHERE', env: {} });
    await expect(client.complete('x')).rejects.toMatchObject({ code: 'missing-key' });
    expect(seen).toHaveLength(0);
  });
});

describe('resolveEndpoint', () => {
  it('accepts base URLs and full API URLs', () => {
    expect(resolveEndpoint('http://h:8000')).toEqual({ url: 'http://h:8000/v1/completions', api: 'completions' });
    expect(resolveEndpoint('http://h:8000/v1/', 'chat')).toEqual({ url: 'http://h:8000/v1/chat/completions', api: 'chat' });
    expect(resolveEndpoint('https://api.example.com/v1/chat/completions', 'completions')).toEqual({ url: 'https://api.example.com/v1/chat/completions', api: 'chat' });
    expect(resolveEndpoint('http://h/v1/completions')).toEqual({ url: 'http://h/v1/completions', api: 'completions' });
  });
});
