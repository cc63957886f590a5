/**
 * A minimal client for any OpenAI-compatible server (vLLM, llama.cpp, TGI, OpenAI, …),
 * speaking `/v1/completions` or `/v1/chat/completions`. Every answer is cached on disk under
 * a hash of what determines it (endpoint, API, model, prompt, options), so a rebuild replays
 * the same text without the network and the build stays byte-identical. The API key never
 * enters the cache key, the cache file or an error message.
 */
import { singleSpaced } from '../kernel/whitespace.js';
import { sha256, stableStringify } from '../kernel/stable-json.js';
import type { Vfs } from '../kernel/vfs.js';
import { OutputFolder } from '../kernel/output.js';

export type LlmApi = 'completions' | 'chat';

export interface LlmClientOptions {
  /** Base URL (`http://host:8000/v1`) or a full `/completions` / `/chat/completions` URL. */
  endpoint: string;
  model: string;
  /** Folder for cached responses; created on first write. */
  cacheDir: string;
  /** Name of the environment variable holding the API key (sent as a Bearer token), if any. */
  apiKeyEnv?: string;
  fetchImpl?: typeof fetch;
  /** Which API to call when `endpoint` is a base URL (default `completions`: base models). */
  api?: LlmApi;
  /** File access for the cache; defaults to the real file system. */
  vfs?: Vfs;
  /** Fail on a cache miss instead of calling the server (CI replays). */
  offline?: boolean;
  /** Retries for network errors, 429 and 5xx (default 2), with exponential backoff. */
  retries?: number;
  /** Per-request timeout (default 120 s). */
  timeoutMs?: number;
  /** Injected for tests so retries do not wait. */
  sleep?: (ms: number) => Promise<void>;
  /** Environment to read the key from (default process.env). */
  env?: Record<string, string | undefined>;
}

export interface CompleteOptions {
  maxTokens?: number;
  /** Default 0: greedy, so a cache miss re-fetches the same answer where the server allows. */
  temperature?: number;
  stop?: string[];
}

export interface LlmClient {
  complete(prompt: string, opts?: CompleteOptions): Promise<string>;
  /** Resolved request URL (for provenance, e.g. `build.llm_model`). */
  readonly url: string;
  readonly model: string;
}

export type LlmErrorCode = 'http' | 'bad-json' | 'bad-response' | 'network' | 'timeout' | 'cache-miss' | 'missing-key';

export class LlmError extends Error {
  constructor(
    readonly code: LlmErrorCode,
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'LlmError';
  }
}

interface CacheEntry {
  key: string;
  request: { url: string; api: LlmApi; model: string; prompt: string; options: Required<Pick<CompleteOptions, 'temperature'>> & CompleteOptions };
  text: string;
}

/** Works out the request URL and API from what the user typed. */
export function resolveEndpoint(endpoint: string, api?: LlmApi): { url: string; api: LlmApi } {
  const trimmed = endpoint.replace(/\/+$/, '');
  if (/\/chat\/completions$/.test(trimmed)) return { url: trimmed, api: 'chat' };
  if (/\/completions$/.test(trimmed)) return { url: trimmed, api: 'completions' };
  const chosen = api ?? 'completions';
  const base = /\/v\d+$/.test(trimmed) ? trimmed : `${trimmed}/v1`;
  return { url: `${base}/${chosen === 'chat' ? 'chat/completions' : 'completions'}`, api: chosen };
}

export function createLlmClient(options: LlmClientOptions): LlmClient {
  const { url, api } = resolveEndpoint(options.endpoint, options.api);
  const fetchImpl = options.fetchImpl ?? globalThis.fetch;
  const retries = options.retries ?? 2;
  const timeoutMs = options.timeoutMs ?? 120_000;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const env = options.env ?? process.env;
  let vfsPromise: Promise<Vfs> | undefined;
  const vfs = () => (vfsPromise ??= options.vfs ? Promise.resolve(options.vfs) : import('../kernel/node-vfs.js').then((m) => m.nodeVfs));

  function apiKey(): string | undefined {
    if (!options.apiKeyEnv) return undefined;
    const key = env[options.apiKeyEnv];
    if (!key) throw new LlmError('missing-key', `environment variable ${options.apiKeyEnv} is not set`);
    return key;
  }

  async function call(prompt: string, opts: CompleteOptions & { temperature: number }): Promise<string> {
    const body: Record<string, unknown> = { model: options.model, temperature: opts.temperature };
    if (api === 'chat') body.messages = [{ role: 'user', content: prompt }];
    else body.prompt = prompt;
    if (opts.maxTokens !== undefined) body.max_tokens = opts.maxTokens;
    if (opts.stop && opts.stop.length) body.stop = opts.stop;
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    const key = apiKey();
    if (key) headers.authorization = `Bearer ${key}`;

    let lastError: LlmError | undefined;
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (attempt > 0) await sleep(500 * 2 ** (attempt - 1));
      let response: Response;
      try {
        response = await fetchImpl(url, { method: 'POST', headers, body: JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs) });
      } catch (err) {
        const name = (err as Error).name;
        lastError = name === 'TimeoutError' || name === 'AbortError'
          ? new LlmError('timeout', `${url}: no answer within ${timeoutMs} ms`)
          : new LlmError('network', `${url}: ${(err as Error).message}`);
        continue;
      }
      const raw = await response.text();
      if (!response.ok) {
        lastError = new LlmError('http', `${url} answered HTTP ${response.status}: ${serverMessage(raw)}`, response.status);
        if (response.status === 429 || response.status >= 500) continue;
        throw lastError;
      }
      let json: unknown;
      try {
        json = JSON.parse(raw);
      } catch {
        throw new LlmError('bad-json', `${url} answered HTTP ${response.status} with a body that is not JSON: ${snippet(raw)}`);
      }
      return extractText(json, api, url);
    }
    throw lastError ?? new LlmError('network', `${url}: no attempt made`);
  }

  return {
    url,
    model: options.model,
    async complete(prompt, opts = {}) {
      const normalised = { temperature: opts.temperature ?? 0, maxTokens: opts.maxTokens, stop: opts.stop && opts.stop.length ? opts.stop : undefined };
      const request = { url, api, model: options.model, prompt, options: normalised };
      const key = sha256(stableStringify(request));
      const fs = await vfs();
      const file = `${options.cacheDir.replace(/\/+$/, '')}/${key.slice(0, 2)}/${key}.json`;
      const cached = await readCache(fs, file, key);
      if (cached !== undefined) return cached;
      if (options.offline) throw new LlmError('cache-miss', `no cached answer for this prompt (model ${options.model}) in ${options.cacheDir} and offline mode is on`);
      const text = await call(prompt, normalised);
      const entry: CacheEntry = { key, request, text };
      // Confined to the cache folder like every output; an entry is content-addressed, so replacing it is safe.
      await new OutputFolder(fs, options.cacheDir, { force: true }).write(`${key.slice(0, 2)}/${key}.json`, `${stableStringify(entry, 2)}\n`);
      return text;
    },
  };
}

/** A cached answer, or undefined when absent or unreadable (then it is fetched again and rewritten). */
async function readCache(vfs: Vfs, file: string, key: string): Promise<string | undefined> {
  if (!(await vfs.stat(file))) return undefined;
  try {
    const entry = JSON.parse(await vfs.readText(file)) as Partial<CacheEntry>;
    return entry.key === key && typeof entry.text === 'string' ? entry.text : undefined;
  } catch {
    return undefined;
  }
}

function extractText(json: unknown, api: LlmApi, url: string): string {
  const choice = (json as { choices?: unknown[] } | null)?.choices?.[0] as { text?: unknown; message?: { content?: unknown } } | undefined;
  const text = api === 'chat' ? choice?.message?.content : choice?.text;
  if (typeof text !== 'string') {
    const expected = api === 'chat' ? 'choices[0].message.content' : 'choices[0].text';
    throw new LlmError('bad-response', `${url} answered JSON without ${expected}: ${snippet(JSON.stringify(json))}`);
  }
  return text;
}

/** The server's own error message when it sends one in the usual `{error:{message}}` shape. */
function serverMessage(raw: string): string {
  try {
    const parsed = JSON.parse(raw) as { error?: { message?: unknown } | string; message?: unknown };
    if (typeof parsed.error === 'string') return parsed.error;
    if (typeof parsed.error?.message === 'string') return parsed.error.message;
    if (typeof parsed.message === 'string') return parsed.message;
  } catch {
    // not JSON: show the start of the body
  }
  return snippet(raw);
}

function snippet(text: string): string {
  const flat = singleSpaced(text).trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat || '(empty body)';
}
