import * as path from 'node:path';
import { namedOutputTarget, OutputError, refuseInputAsOutput } from '../core/kernel/confine.js';
import { openOutputFile } from '../core/kernel/output.js';
import type { Finding } from '../core/kernel/findings.js';
import { FOLDED_CODE } from '../core/kernel/finding-collector.js';
import type { Vfs } from '../core/kernel/vfs.js';

/** Bytes of an existing file read to recognise an earlier findings file; larger ones are never ours to guess. */
const RECOGNISE_BYTES = 64 << 20;

/**
 * Decides, before the command runs, whether `--findings-file` may be written: never onto one of
 * the command's inputs (a positional argument or any path another option names), even with
 * --force; an existing file only with --force or when it is a findings
 * file (JSON Lines of findings, or empty) an earlier run wrote. Throws OutputError otherwise.
 */
export async function prepareFindingsFile(vfs: Vfs, cwd: string, file: string, args: readonly string[], opts: Record<string, unknown>): Promise<string> {
  const target = path.resolve(cwd, file);
  await refuseInputAsOutput(vfs, target, args.map((a) => path.resolve(cwd, a)));
  const named = Object.entries(opts)
    .filter(([key]) => key !== 'findingsFile')
    .flatMap(([, v]) => (typeof v === 'string' ? [v] : Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []));
  await refuseInputAsOutput(vfs, target, named.map((v) => path.resolve(cwd, v)));
  const real = await namedOutputTarget(vfs, target);
  const existing = await vfs.lstat(real);
  if (existing && !opts.force && !(existing.isFile && existing.size <= RECOGNISE_BYTES && isFindingsText(await vfs.readText(real)))) throw new OutputError('output-exists', file);
  return target;
}

function isFindingsText(text: string): boolean {
  for (const line of text.split('\n')) {
    if (!line) continue;
    try {
      const f = JSON.parse(line) as Partial<Finding>;
      if (!f || typeof f.code !== 'string' || typeof f.severity !== 'string' || typeof f.path !== 'object' || typeof f.args !== 'object') return false;
    } catch {
      return false;
    }
  }
  return true;
}

/** Bytes of findings gathered before one write: few writes, little held. */
const STREAM_BATCH_CHARS = 1 << 16;

/**
 * The findings file `prepareFindingsFile` allowed, written as findings come: `stream` adds one
 * JSON line (the readers stream every finding here) and returns a promise that waits for the
 * disk only when a batch is being written, so a caller that cannot wait (a synchronous
 * reader) may drop it; `finish` adds the command's returned findings that were not streamed
 * and replaces the file atomically; `abort` leaves the old file as it was.
 */
export async function openFindingsFile(vfs: Vfs, target: string): Promise<{ stream: (f: Finding) => Promise<void>; finish: (findings: readonly Finding[]) => Promise<void>; abort: () => Promise<void> }> {
  const writer = await openOutputFile(vfs, target, { force: true });
  const streamed = new WeakSet<Finding>();
  let batch = '';
  // One write in flight at a time, in order; a failure surfaces at the next stream or at finish.
  let written: Promise<void> = Promise.resolve();
  const flush = (): Promise<void> => {
    const chunk = batch;
    batch = '';
    written = written.then(() => writer.write(chunk));
    // Handled here so a caller that does not wait never sees an unhandled rejection; finish rethrows it.
    written.catch(() => undefined);
    return written;
  };
  return {
    stream(f) {
      streamed.add(f);
      batch += `${JSON.stringify(f)}\n`;
      return batch.length >= STREAM_BATCH_CHARS ? flush() : written;
    },
    async finish(findings) {
      // A fold only says "the file lists them all": the file itself has no use for it.
      for (const f of findings) if (!streamed.has(f) && f.code !== FOLDED_CODE) batch += `${JSON.stringify(f)}\n`;
      await flush();
      await writer.commit();
    },
    async abort() {
      await written.catch(() => undefined);
      await writer.abort();
    },
  };
}
