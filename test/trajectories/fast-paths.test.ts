/**
 * The performance shortcuts in the trajectory pipeline must not change a byte or a verdict:
 * each is checked against the straightforward definition it replaces (ajv with the JSON
 * Schema, stableStringify, the regex/split formulations), on the fixtures, the real shared
 * data when present, and thousands of seeded mutations.
 */
import { describe, expect, it } from 'vitest';
import { MemoryVfs } from '../../generator/core/kernel/memory-vfs.js';
import { Rng } from '../../generator/core/kernel/rng.js';
import { sha256, stableStringify } from '../../generator/core/kernel/stable-json.js';
import type { Vfs } from '../../generator/core/kernel/vfs.js';
import { trajectoryJson } from '../../generator/core/trajectories/canonical-json.js';
import { readBoundedLines, type BoundedLineEvent } from '../../generator/core/kernel/jsonl.js';
import { readTrajectories } from '../../generator/core/trajectories/read.js';
import { schemaValidator, trajectorySchema, validateTrajectory } from '../../generator/core/trajectories/schema.js';
import { isCertainlyValidTrajectory } from '../../generator/core/trajectories/schema-fast.js';
import { derivePlan, detectLanguage, firstLine, oneLine } from '../../generator/core/trajectories/text.js';
import type { Trajectory } from '../../generator/core/trajectories/types.js';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { readFileSync } from 'node:fs';
import { fixtures, hasSharedData, shared } from '../helpers/env.js';

async function fixtureTrajectories(): Promise<Trajectory[]> {
  const r = await readTrajectories(nodeVfs, [fixtures('trajectories', 'good')], { reports: [fixtures('trajectories', 'reports', 'labels.jsonl')] });
  expect(r.trajectories.length).toBeGreaterThan(8);
  return r.trajectories;
}

type Path = (string | number)[];
function containerPaths(value: unknown, prefix: Path = [], out: Path[] = []): Path[] {
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const p = [...prefix, Array.isArray(value) ? Number(k) : k];
      out.push(p);
      containerPaths(v, p, out);
    }
  }
  return out;
}

/** Values chosen to sit on the schema's edges: empty and one-code-point strings, line breaks, non-integers, undefined. */
const EDGE_VALUES: unknown[] = [
  null, undefined, 0, -1, 1, 2.5, Number.NaN, Infinity, true, false, '', 'x', 'ab', '😀', '😀x', 'a\nb', 'a\rb', 'a\u2028b',
  [], [null], {}, { a: 1 }, 'traj/1', 'swe', 'shell', 'unknown', 'harness_report', 'self_report',
];

function mutateOnce(t: Trajectory, rng: Rng): unknown {
  const copy = structuredClone(t) as unknown as Record<string, unknown>;
  const all = containerPaths(copy);
  for (let n = 0; n < 1 + rng.int(2); n++) {
    const p = rng.pick(all);
    let parent: any = copy;
    for (const key of p.slice(0, -1)) parent = parent?.[key];
    if (!parent || typeof parent !== 'object') continue;
    const key = p[p.length - 1]!;
    const roll = rng.int(10);
    if (roll === 0 && !Array.isArray(parent)) delete parent[key];
    else if (roll === 1 && !Array.isArray(parent)) parent[`${String(key)}_extra`] = 'x';
    else parent[key] = rng.pick(EDGE_VALUES);
  }
  return copy;
}

describe('isCertainlyValidTrajectory agrees with the JSON Schema (ajv)', () => {
  it('accepts every trajectory the readers build from the fixtures (so the fast path is the one taken)', async () => {
    for (const t of await fixtureTrajectories()) {
      expect(schemaValidator()(t), t.traj_id).toBe(true);
      expect(isCertainlyValidTrajectory(t), t.traj_id).toBe(true);
    }
  });

  it('gives ajv’s verdict on 6,000 seeded mutations, valid and invalid alike', async () => {
    const base = await fixtureTrajectories();
    const rng = new Rng('schema-fast');
    const ajv = schemaValidator();
    let valid = 0;
    const disagreements: string[] = [];
    for (let i = 0; i < 6000; i++) {
      const mutant = mutateOnce(rng.pick(base), rng);
      const expected = ajv(mutant);
      if (expected) valid++;
      if (isCertainlyValidTrajectory(mutant) !== expected) disagreements.push(`${i}: ajv says ${expected}: ${JSON.stringify(ajv.errors?.[0] ?? null)}`);
    }
    expect(disagreements.slice(0, 5)).toEqual([]);
    // Both sides of the verdict are exercised.
    expect(valid).toBeGreaterThan(300);
    expect(valid).toBeLessThan(5700);
  });

  it('validateTrajectory still reports ajv’s findings for invalid records', () => {
    const t = structuredClone(validExample()) as any;
    t.task.language = '😀'; // one code point, two UTF-16 units: below minLength 2
    t.steps[0].action.text = 'two\nlines';
    const fields = validateTrajectory(t).map((f) => f.path.field).sort();
    expect(fields).toEqual(['steps[0].action.text', 'task.language']);
  });
});

/** A trajectory with every property the schema defines filled in, so nothing can be silently dropped. */
function validExample(): Trajectory {
  return {
    schema_version: 'traj/1',
    traj_id: 'f:i:r',
    domain: 'swe',
    source: { framework: 'f', format: 'x', path: 'p', line: 3, repo: 'o/r', commit: 'c', license: 'MIT' },
    task: { instance_id: 'i', goal: 'g', language: 'en', code_language: 'python', gold_answer: 'a', gold_patch: 'p', gold_test_patch: 't' },
    environment: { repo: 'o/r', base_commit: 'b', workdir: '/w', image: 'img', tools: [{ name: 'bash', description: 'd', parameters: { z: 1, a: { y: [2, { d: 1, c: 2 }], b: null } } }] },
    agent: { model: 'm', agent_class: 'A', system_prompt: 's' },
    steps: [
      {
        index: 0,
        thought: 't',
        plan: 'p',
        action: { kind: 'shell', tool: 'bash', args: { command: 'ls', b: [3, { y: 1, x: 2 }], a: { '10': 1, '9': 2, b: 3 } }, text: 'ls', raw: 'ls\n' },
        observation: 'o',
        obs_meta: { exit_code: 0, ok: true },
        stage: 's',
        timestamp: '2024-01-01T00:00:00Z',
      },
    ],
    outcome: { exit_status: 'submitted', submission: 's', success: true, success_source: 'harness_report', success_evidence: 'r.json', self_report: 'done' },
    metrics: { cost_usd: 1.5, api_calls: 3, tokens_in: 10, tokens_out: 5, wall_s: 2 },
    extra: { z: [{ b: 1, a: 2 }], a: 'x' },
  };
}

/** Every property path the schema declares (objects only; arrays descend into `items`). */
function schemaPropertyPaths(schema: any, prefix = ''): string[] {
  const out: string[] = [];
  const node = schema.items ?? schema;
  for (const [key, sub] of Object.entries<any>(node.properties ?? {})) {
    const p = prefix ? `${prefix}.${key}` : key;
    out.push(p);
    if (sub.properties || sub.items?.properties) out.push(...schemaPropertyPaths(sub, p));
  }
  return out;
}
function valuePaths(value: unknown, prefix = ''): string[] {
  if (Array.isArray(value)) return value.length ? valuePaths(value[0], prefix) : [];
  if (!value || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => {
    const p = prefix ? `${prefix}.${k}` : k;
    return [p, ...valuePaths(v, p)];
  });
}

describe('trajectoryJson is byte-identical to stableStringify', () => {
  it('the full example covers every property of the schema, and serialises identically', () => {
    const example = validExample();
    expect(schemaValidator()(example)).toBe(true);
    const present = new Set(valuePaths(example));
    // A property added to the schema but not to the example (and so maybe not to trajectoryJson) fails here.
    expect(schemaPropertyPaths(trajectorySchema).filter((p) => !present.has(p))).toEqual([]);
    expect(trajectoryJson(example)).toBe(stableStringify(example));
  });

  it('on the fixtures, and on every schema-valid mutation of them (nulls, absent optionals, odd keys in open objects)', async () => {
    const base = await fixtureTrajectories();
    for (const t of base) expect(trajectoryJson(t)).toBe(stableStringify(t));
    const rng = new Rng('canonical-json');
    const ajv = schemaValidator();
    let checked = 0;
    for (let i = 0; i < 3000; i++) {
      const mutant = mutateOnce(rng.pick(base), rng);
      if (!ajv(mutant)) continue;
      checked++;
      expect(trajectoryJson(mutant as Trajectory)).toBe(stableStringify(mutant));
    }
    expect(checked).toBeGreaterThan(200);
  });

  it.skipIf(!hasSharedData)('on the real trajectories in the shared data', async () => {
    const r = await readTrajectories(nodeVfs, [shared('trajectories')]);
    expect(r.trajectories.length).toBeGreaterThan(100);
    for (const t of r.trajectories) expect(trajectoryJson(t)).toBe(stableStringify(t));
  });
});

describe('text helpers match their plain definitions', () => {
  const referenceDetect = (text: string): string => {
    const sample = text.slice(0, 4000);
    const cjk = sample.match(/[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]/g)?.length ?? 0;
    const letters = sample.match(/\p{L}/gu)?.length ?? 0;
    if (letters === 0 || cjk / letters < 0.2) return 'en';
    // The majority script decides (a Chinese question may quote a Korean title).
    const hangul = sample.match(/[\uac00-\ud7af]/g)?.length ?? 0;
    const kana = sample.match(/[\u3040-\u30ff]/g)?.length ?? 0;
    if (hangul * 2 > cjk) return 'ko';
    if (kana * 5 >= cjk) return 'ja';
    return 'zh';
  };
  const referenceFirstLine = (text: string): string => {
    for (const raw of text.split('\n')) {
      const line = raw.replace(/\r/g, '').replace(/\t/g, ' ').trim();
      if (line) return line.length > 400 ? `${line.slice(0, 400)}…` : line;
    }
    return '';
  };
  const alphabet = ['a', 'Z', ' ', '\n', '\r', '\t', '1', '.', 'é', 'ß', '中', '文', 'の', 'カ', '한', '😀', '\ud800', 'Ω', '\u00a0', '_'];
  const randomText = (rng: Rng, max: number) => Array.from({ length: rng.int(max) }, () => rng.pick(alphabet)).join('');

  it('detectLanguage counts letters and CJK characters per code point as the regexes did', () => {
    expect(detectLanguage('修复这个函数的错误')).toBe('zh');
    expect(detectLanguage('この関数のバグを直す')).toBe('ja');
    expect(detectLanguage('이 함수의 버그를 수정')).toBe('ko');
    expect(detectLanguage('Fix the bug 😀 in parse()')).toBe('en');
    expect(detectLanguage('罗伟杰的妻子为2007年的韩剧《狗与狼的时间》（개와 늑대의 시간）中的哪一位角色配了音？')).toBe('zh');
    const rng = new Rng('detect-language');
    for (let i = 0; i < 3000; i++) {
      const text = randomText(rng, 60);
      expect(detectLanguage(text), JSON.stringify(text)).toBe(referenceDetect(text));
    }
    const long = `${'中'.repeat(900)}${'a'.repeat(3200)}${'中'.repeat(5000)}`;
    expect(detectLanguage(long)).toBe(referenceDetect(long));
  });

  const referenceOneLine = (text: string) => text.replace(/\s+/g, ' ').trim();
  const referenceClip = (text: string, limit: number) => {
    if (text.length <= limit) return text;
    const cut = text.slice(0, limit);
    const space = cut.lastIndexOf(' ');
    return `${(space > limit / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
  };
  /** derivePlan as first written: collapse the whole thought, then take its first sentence. */
  const referencePlan = (thought: string | null, actionText: string) => {
    const cleaned = thought ? referenceOneLine(thought.replace(/^\s*(THOUGHT|Thought|DISCUSSION)\s*:\s*/, '')) : '';
    if (cleaned) {
      const match = /^(.+?(?:[.!?](?=\s|$)|[。！？]))/u.exec(cleaned);
      return referenceClip(match ? match[1]! : cleaned, 200);
    }
    return referenceClip(`Run \`${actionText}\``, 200);
  };

  it('oneLine and derivePlan give what collapsing the whole text gave, for short and very long thoughts', () => {
    const rng = new Rng('derive-plan');
    const pieces = ['word', 'x', ' ', ' ', '  ', '\n', '\n\n', '\t', '\u3000', '.', '. ', '!', '?x', '。', '😀', '\ud83d', 'e.g.', 'THOUGHT: ', 'é'];
    for (let i = 0; i < 4000; i++) {
      // Lengths around the 800-character scan window and the 200-character plan limit.
      const size = rng.pick([5, 60, 150, 400, 700, 790, 810, 1200]);
      let text = '';
      const sparse = rng.int(3) === 0; // long runs without any sentence end
      while (text.length < size) text += sparse ? rng.pick(['word', ' ', '    ', '\n\n\n', 'x']) : rng.pick(pieces);
      if (rng.int(4) === 0) text = `${' '.repeat(rng.int(900))}${text}`; // whitespace swallowing the window
      expect(oneLine(text)).toBe(referenceOneLine(text));
      expect(derivePlan(text, 'shell', 'bash', 'ls -la'), JSON.stringify(text)).toBe(referencePlan(text, 'ls -la'));
    }
    expect(derivePlan(null, 'shell', 'bash', 'ls')).toBe('Run `ls`');
  });

  it('firstLine walks lines as split did', () => {
    const rng = new Rng('first-line');
    for (let i = 0; i < 3000; i++) {
      const text = randomText(rng, 40);
      expect(firstLine(text), JSON.stringify(text)).toBe(referenceFirstLine(text));
    }
    for (const text of ['', '\n', '\n\n  x', 'x\n', ' \t\r\n\r\n', `${'y'.repeat(500)}\nz`]) expect(firstLine(text)).toBe(referenceFirstLine(text));
  });
});

describe('readBoundedLines with lines inside and across chunks', () => {
  /** Serves the file in tiny chunks so lines start, end and straddle chunk boundaries everywhere. */
  class ChunkedVfs extends MemoryVfs {
    constructor(files: Record<string, Uint8Array>, private readonly size: number) {
      super(files);
    }
    override readChunks(p: string) {
      return super.readChunks(p, this.size);
    }
  }

  it('gives the lines (text and bytes), numbers, offsets and flags of a plain split, for every chunk size', async () => {
    const rng = new Rng('bounded-lines');
    const pieces = ['{"a":1}', 'é中😀', '', '\r', 'xxxxxxxxxxxxxxxxxxxxxxx', '\uFEFF'];
    for (let round = 0; round < 40; round++) {
      const lines = Array.from({ length: 1 + rng.int(12) }, () => Array.from({ length: rng.int(4) }, () => rng.pick(pieces)).join(''));
      const text = lines.join('\n') + (rng.int(2) ? '\n' : '');
      const bytes = new TextEncoder().encode(text);
      const max = 12 + rng.int(30);
      // Reference: split the whole byte string at newlines.
      const expected: BoundedLineEvent[] = [];
      let offset = 0;
      const parts = text.split('\n');
      parts.forEach((part, i) => {
        const terminated = i < parts.length - 1;
        if (!terminated && part === '') return;
        const size = new TextEncoder().encode(part).length;
        let body = part.endsWith('\r') ? part.slice(0, -1) : part;
        // TextDecoder drops a leading BOM on every decode call (each line here), and the first line loses one more.
        if (body.startsWith('\uFEFF')) body = body.slice(1);
        if (i === 0 && body.startsWith('\uFEFF')) body = body.slice(1);
        expected.push(size > max ? { kind: 'too-long', line: i + 1, offset, bytes: size } : { kind: 'line', line: i + 1, text: body, bytes: new TextEncoder().encode(body), offset, terminated });
        offset += size + 1;
      });
      for (const size of [1, 2, 3, 5, 8, 64 * 1024]) {
        const got: BoundedLineEvent[] = [];
        const vfs: Vfs = new ChunkedVfs({ '/f.jsonl': bytes }, size);
        // Copied at once: a line's bytes are a view valid only until the next event.
        for await (const ev of readBoundedLines(vfs, '/f.jsonl', max)) got.push(ev.kind === 'line' ? { ...ev, bytes: ev.bytes.slice() } : ev);
        expect(got, `round ${round}, chunk ${size}`).toEqual(expected);
      }
    }
  });
});

describe('content hashes and read-ahead', () => {
  const BOM = '\uFEFF';
  it('hashing the raw bytes gives the digest of the text, with BOMs and CRLF stripped as before', async () => {
    const doc = readFileSync(fixtures('trajectories', 'good', 'acme__widgets-12.traj'), 'utf8');
    const row = readFileSync(fixtures('trajectories', 'good', 'chat-messages.jsonl'), 'utf8').trim().split('\n')[0]!.replace(/"run_id": "[^"]*", /, '');
    const vfs = new MemoryVfs({
      '/h/a/acme__widgets-12.traj': doc,
      '/h/b/acme__widgets-12.traj': BOM + doc,
      '/h/c/acme__widgets-12.traj': BOM + BOM + doc,
      '/h/rows.jsonl': `${BOM}${BOM}${row}\r\n${row}\n${BOM}${row}\r\n`,
    });
    const r = await readTrajectories(vfs, ['/h']);
    expect(r.findings.filter((f) => f.severity === 'error')).toEqual([]);
    const runs = r.trajectories.map((t) => t.traj_id.split(':').pop());
    expect(runs).toEqual([...Array(3).fill(sha256(doc).slice(0, 10)), ...Array(3).fill(sha256(row).slice(0, 10))]);
  });

  it('reading ahead keeps the order of events and reports an unreadable file where it stands', async () => {
    const doc = readFileSync(fixtures('trajectories', 'good', 'acme__widgets-12.traj'), 'utf8');
    const files: Record<string, string> = {};
    for (let i = 0; i < 30; i++) files[`/d/${String(i).padStart(2, '0')}/acme__widgets-12.traj`] = doc;
    files['/d/15/notes.txt'] = 'skipped';
    files['/d/07/rows.jsonl'] = readFileSync(fixtures('trajectories', 'good', 'chat-messages.jsonl'), 'utf8');
    class FlakyVfs extends MemoryVfs {
      override async readBytes(p: string) {
        if (p.startsWith('/d/20/')) throw new Error('EIO: bad sector');
        return super.readBytes(p);
      }
    }
    const events: string[] = [];
    const { streamTrajectories } = await import('../../generator/core/trajectories/read.js');
    for await (const ev of streamTrajectories(new FlakyVfs(files), ['/d'])) {
      events.push(ev.kind === 'file' ? `file ${ev.summary.file}` : ev.kind === 'finding' ? `${ev.finding.code} ${ev.finding.path.file}` : 'trajectory');
    }
    const fileOrder = events.filter((e) => e.startsWith('file ')).map((e) => e.slice(5));
    expect(fileOrder).toEqual(Object.keys(files).filter((f) => !f.endsWith('.txt')).sort());
    // The failure is reported right before its own file's summary, not at the file read ahead of it.
    const failed = events.indexOf('traj-file-unreadable /d/20/acme__widgets-12.traj');
    expect(failed).toBeGreaterThan(0);
    expect(events[failed + 1]).toBe('file /d/20/acme__widgets-12.traj');
    expect(events.filter((e) => e === 'trajectory').length).toBe(29 + 3);
  });
});
