/**
 * Shell blocks in README.md and docs/*.md, as the docs test runs them. A block is a fenced
 * ```sh / ```bash / ```shell block. An HTML comment right before the fence may say how to run
 * it:
 *
 *   <!-- docs-test: skip (needs a GPU) -->      not run; the reason is required and shown
 *   <!-- docs-test: exit 1 -->                  run; the block's last command must exit 1
 *
 * Skips are for what this machine cannot do (a GPU, a cluster, a user's own checkout or
 * checkpoint), never for a command that merely fails.
 */
export interface DocBlock {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  script: string;
  skip?: string;
  expectExit: number;
}

const FENCE = /^```(sh|bash|shell)\s*$/;
const MARKER = /^<!--\s*docs-test:\s*(.*?)\s*-->\s*$/;

export function shellBlocks(file: string, text: string): DocBlock[] {
  const lines = text.split('\n');
  const out: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!FENCE.test(lines[i]!)) continue;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !/^```\s*$/.test(lines[j]!); j++) body.push(lines[j]!);
    let skip: string | undefined;
    let expectExit = 0;
    // Markers sit on the lines just above the fence (blank lines allowed between).
    for (let k = i - 1; k >= 0 && k >= i - 3; k--) {
      const m = MARKER.exec(lines[k]!);
      if (!m) {
        if (lines[k]!.trim() === '') continue;
        break;
      }
      const directive = m[1]!;
      const skipMatch = /^skip\s*\((.+)\)$/.exec(directive);
      const exitMatch = /^exit\s+(\d+)$/.exec(directive);
      if (skipMatch) skip = skipMatch[1]!;
      else if (exitMatch) expectExit = Number(exitMatch[1]);
      else throw new Error(`${file}:${k + 1}: unknown docs-test directive "${directive}"`);
    }
    out.push({ file, line: i + 1, script: body.join('\n'), ...(skip ? { skip } : {}), expectExit });
    i = j;
  }
  return out;
}
