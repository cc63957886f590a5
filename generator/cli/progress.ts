import type { ProgressCallback } from '../core/kernel/progress.js';

/** Where a progress bar may be drawn: a terminal stream (process.stderr), or a fake one in tests. */
export interface ProgressStream {
  isTTY?: boolean;
  columns?: number;
  write(chunk: string): boolean;
}

export interface ProgressReporter {
  onProgress: ProgressCallback;
  /** Ends the bar (also after a failure); resolves once it has been cleared from the screen. */
  stop(): Promise<void>;
  /** True when a bar is drawn (callers then leave out per-step progress lines). */
  active?: boolean;
}

export const silentProgress: ProgressReporter = { onProgress: () => undefined, stop: async () => undefined };
/** Redraws at most this often, so 10,000 callbacks do not mean 10,000 screen updates. */
const REDRAW_MS = 100;
const BAR_WIDTH = 24;
/** Narrower terminals get no bar. */
const MIN_COLUMNS = 40;

/** `[#######.........]  42% 4200/10000 trajectories read`, or a bare counter when the total is unknown. */
export function progressLine(done: number, total: number | undefined, label: string): string {
  if (total === undefined || total <= 0) return `${done} ${label}`;
  const share = Math.min(1, Math.max(0, done / total));
  const filled = Math.round(share * BAR_WIDTH);
  return `[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${String(Math.floor(share * 100)).padStart(3)}% ${done}/${total} ${label}`;
}

/**
 * A one-task listr2 list whose title is the progress line. Drawn only on a terminal
 * (`stream.isTTY`) at least 40 columns wide and only when `enabled` (not --json, not --quiet); otherwise nothing is
 * written and listr2 is never loaded.
 */
export async function startProgress(title: string, stream: ProgressStream | undefined, enabled: boolean): Promise<ProgressReporter> {
  // A terminal too narrow for the line (0 columns in some CI pseudo-terminals) would get it one character per row.
  if (!enabled || !stream || stream.isTTY !== true || (typeof stream.columns === 'number' && stream.columns < MIN_COLUMNS)) return silentProgress;
  const { Listr, DefaultRenderer, ListrLogger, ProcessOutput } = await import('listr2');
  // listr2 checks process.stdout for a TTY; this list draws on `stream`, whose TTY-ness was checked above.
  class StreamRenderer extends DefaultRenderer {
    static override nonTTY = true;
  }
  const out = stream as unknown as NodeJS.WriteStream;
  const discard = { write: () => true } as unknown as NodeJS.WriteStream;
  let setTitle: (text: string) => void = () => undefined;
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const list = new Listr(
    [
      {
        title,
        task: async (_ctx, task) => {
          setTitle = (text) => (task.title = text);
          if (latest) task.title = latest;
          await finished;
        },
      },
    ],
    {
      renderer: StreamRenderer,
      rendererOptions: { logger: new ListrLogger({ useIcons: true, processOutput: new ProcessOutput(out, discard) }) },
      exitOnError: false,
    },
  );
  const running = list.run();
  let last = 0;
  let latest = '';
  return {
    active: true,
    onProgress(done, total, label) {
      latest = `${title}: ${progressLine(done, total, label)}`;
      const now = Date.now();
      if (now - last < REDRAW_MS && done !== total) return;
      last = now;
      setTitle(latest);
    },
    async stop() {
      if (latest) setTitle(latest);
      finish();
      await running;
    },
  };
}

/** Runs `work` with a progress bar (when the context offers one), stopping the bar even when `work` throws. */
export async function withProgress<T>(
  ctx: { progressBar?: (title: string) => Promise<ProgressReporter> },
  title: string,
  work: (onProgress: ProgressCallback, barShown: boolean) => Promise<T>,
): Promise<T> {
  const bar = ctx.progressBar ? await ctx.progressBar(title) : silentProgress;
  try {
    return await work(bar.onProgress, bar.active === true);
  } finally {
    await bar.stop();
  }
}
