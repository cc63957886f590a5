#!/usr/bin/env node
/**
 * `lm_eval` for tests that run the same harness job as another test in the same `npm test`
 * (the docs' workflow blocks and test/e2e/workflow.test.ts run the same reference models on the
 * same suite). Called exactly as lm_eval is called; the first call with given inputs runs the
 * real lm_eval and records what it wrote (exit code, stdout, stderr, the files under
 * --output_path), and a later call with the same inputs — in this test run — gets that record
 * written back instead of a second identical run.
 *
 * The key is the content, not the names: every argument as given, except that --include_path
 * stands for the sha256 of every file under it (read now, so a suite rewritten in place is a new
 * key), --samples for the sha256 of the file it names (or the JSON itself), and --output_path
 * for the folder relative to the working directory; options may come in any order. Absolute
 * paths of the include folder, the output folder and the working directory inside what the
 * harness wrote (stdout, stderr, results), and a relative --include_path where results name a
 * task's YAML by it (config_source), are recorded as placeholders and written back as the
 * caller's own. A call whose --output_path another call writes into at the same time must not
 * come here (what a call wrote is told by what changed under its --output_path). Only runs that exit 0 are recorded; a caller whose run is being recorded
 * by another process waits for it (a lock folder beside the record), so two tests never run the
 * same job at once.
 *
 * Environment: APTPACE_HARNESS_REAL the real lm_eval (required); APTPACE_HARNESS_CACHE the
 * folder of records for this test run (test/setup/global.ts makes a fresh one per run; without
 * it every call runs the real lm_eval).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

const real = process.env.APTPACE_HARNESS_REAL;
if (!real) {
  process.stderr.write('harness-cache: APTPACE_HARNESS_REAL is not set\n');
  process.exit(127);
}
const cacheRoot = process.env.APTPACE_HARNESS_CACHE;
const argv = process.argv.slice(2);
const cwd = process.cwd();

/** Runs the real lm_eval with this process's stdio passed through and captured. */
function runReal() {
  return new Promise((resolve) => {
    const child = spawn(real, argv, { stdio: ['inherit', 'pipe', 'pipe'] });
    // A caller's timeout or kill reaches the real run too (no orphaned harness).
    for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(sig, () => child.kill(sig));
    const out = [];
    const err = [];
    child.stdout.on('data', (d) => {
      out.push(d);
      process.stdout.write(d);
    });
    child.stderr.on('data', (d) => {
      err.push(d);
      process.stderr.write(d);
    });
    child.on('error', (e) => {
      process.stderr.write(`harness-cache: cannot run ${real}: ${e.message}\n`);
      resolve({ code: 127, stdout: Buffer.concat(out), stderr: Buffer.concat(err) });
    });
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), stdout: Buffer.concat(out), stderr: Buffer.concat(err) }));
  });
}

if (!cacheRoot) process.exit((await runReal()).code);

const sha = (data) => createHash('sha256').update(data).digest('hex');

/** Every file under `dir` (links followed, `__pycache__` left out: Python writes it on import). */
function treeHash(dir) {
  const h = createHash('sha256');
  const walk = (rel) => {
    for (const name of readdirSync(path.join(dir, rel)).sort()) {
      if (name === '__pycache__') continue;
      const p = rel ? `${rel}/${name}` : name;
      const st = statSync(path.join(dir, p));
      if (st.isDirectory()) walk(p);
      else if (st.isFile()) h.update(`${p}\0${sha(readFileSync(path.join(dir, p)))}\0`);
    }
  };
  walk('');
  return h.digest('hex');
}

/** argv as option groups (`--opt value…`), values of the path options replaced by what they stand for. */
function keyOf() {
  const groups = [];
  for (const a of argv) {
    if (a.startsWith('-') || groups.length === 0) groups.push([a]);
    else groups[groups.length - 1].push(a);
  }
  let includePath;
  let includeArg;
  let outputPath;
  const resolved = groups.map(([opt, ...values]) => {
    const value = values.join('\0');
    if ((opt === '--include_path' || opt === '--include-path') && values.length === 1) {
      includePath = path.resolve(cwd, value);
      includeArg = value;
      return [opt, `tree:${existsSync(includePath) ? treeHash(includePath) : `missing:${value}`}`];
    }
    if (opt === '--samples' && values.length === 1 && existsSync(path.resolve(cwd, value))) return [opt, `file:${sha(readFileSync(path.resolve(cwd, value)))}`];
    if ((opt === '--output_path' || opt === '-o') && values.length === 1) {
      outputPath = path.resolve(cwd, value);
      return [opt, `out:${path.relative(cwd, outputPath)}`];
    }
    return [opt, value];
  });
  // Options in any order are the same call, unless one is given twice (then the last one wins).
  const opts = resolved.map(([o]) => o);
  const ordered = new Set(opts).size === opts.length ? [...resolved].sort((a, b) => (a.join('\0') < b.join('\0') ? -1 : 1)) : resolved;
  const envKey = ['PYTHONHASHSEED'].map((k) => `${k}=${process.env[k] ?? ''}`);
  return { key: sha(JSON.stringify({ real, ordered, envKey })), includePath, includeArg, outputPath };
}

const { key, includePath, includeArg, outputPath } = keyOf();
if (!outputPath) process.exit((await runReal()).code);

const record = path.join(cacheRoot, key);
const lock = `${record}.lock`;
// Placeholders for this call's absolute paths, longest first so a path inside another is replaced whole.
const places = [
  ['@@APTPACE_OUTPUT@@', outputPath],
  ['@@APTPACE_INCLUDE@@', includePath],
  ['@@APTPACE_CWD@@', cwd],
]
  .filter(([, p]) => p)
  .sort((a, b) => b[1].length - a[1].length);
// A relative --include_path is also written as given (results' config_source: "work/suite/x.yaml").
if (includeArg && !path.isAbsolute(includeArg)) places.push(['"@@APTPACE_INCLUDE_ARG@@/', `"${includeArg.replace(/\/+$/, '')}/`]);
const toPlaceholders = (text) => places.reduce((t, [tag, p]) => t.split(p).join(tag), text);
const fromPlaceholders = (text) => places.reduce((t, [tag, p]) => t.split(tag).join(p), text);

/** Files under `dir` → [size, mtime] (what a run adds or changes is what it wrote). */
function listing(dir) {
  const files = new Map();
  if (!existsSync(dir)) return files;
  const walk = (rel) => {
    for (const e of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const p = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) {
        const st = statSync(path.join(dir, p));
        files.set(p, `${st.size}:${st.mtimeMs}`);
      }
    }
  };
  walk('');
  return files;
}

/** One line per call in the run's log.jsonl (the global teardown counts them). */
const note = (what) => {
  try {
    writeFileSync(path.join(cacheRoot, 'log.jsonl'), `${JSON.stringify({ what, key: key.slice(0, 12), cwd, argv })}\n`, { flag: 'a' });
  } catch {}
};

function replay() {
  note('shared');
  const meta = JSON.parse(readFileSync(path.join(record, 'meta.json'), 'utf8'));
  for (const rel of meta.files) {
    const to = path.join(outputPath, rel);
    mkdirSync(path.dirname(to), { recursive: true });
    writeFileSync(to, fromPlaceholders(readFileSync(path.join(record, 'files', rel), 'utf8')));
  }
  process.stdout.write(fromPlaceholders(readFileSync(path.join(record, 'stdout'), 'utf8')));
  process.stderr.write(fromPlaceholders(readFileSync(path.join(record, 'stderr'), 'utf8')));
  process.exit(meta.code);
}

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
};

mkdirSync(cacheRoot, { recursive: true });
for (;;) {
  if (existsSync(path.join(record, 'meta.json'))) replay();
  try {
    mkdirSync(lock);
    writeFileSync(path.join(lock, 'pid'), String(process.pid));
    break;
  } catch (e) {
    if (e.code !== 'EEXIST') throw e;
    // Another process records this job: wait for it (or take over if it died).
    let owner = NaN;
    try {
      owner = Number(readFileSync(path.join(lock, 'pid'), 'utf8'));
    } catch {}
    if (Number.isFinite(owner) && owner > 0 && !alive(owner)) rmSync(lock, { recursive: true, force: true });
    else await new Promise((r) => setTimeout(r, 500));
  }
}

let result;
try {
  const before = listing(outputPath);
  result = await runReal();
  note(result.code === 0 ? 'ran' : `ran, exit ${result.code} (not recorded)`);
  if (result.code === 0) {
    const after = listing(outputPath);
    const written = [...after].filter(([p, stamp]) => before.get(p) !== stamp).map(([p]) => p).sort();
    const tmp = `${record}.tmp-${process.pid}`;
    rmSync(tmp, { recursive: true, force: true });
    for (const rel of written) {
      const to = path.join(tmp, 'files', rel);
      mkdirSync(path.dirname(to), { recursive: true });
      writeFileSync(to, toPlaceholders(readFileSync(path.join(outputPath, rel), 'utf8')));
    }
    mkdirSync(tmp, { recursive: true });
    writeFileSync(path.join(tmp, 'stdout'), toPlaceholders(result.stdout.toString('utf8')));
    writeFileSync(path.join(tmp, 'stderr'), toPlaceholders(result.stderr.toString('utf8')));
    writeFileSync(path.join(tmp, 'meta.json'), JSON.stringify({ code: result.code, files: written, argv, cwd }));
    renameSync(tmp, record);
  }
} finally {
  rmSync(lock, { recursive: true, force: true });
}
process.exit(result.code);
