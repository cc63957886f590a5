/**
 * Examples shown at the end of every subcommand's `--help`, one table so no command can ship
 * without them. Paths name files that ship with the package (fixtures/, dist-tasks/) where the
 * example can run as written.
 */
export const COMMAND_EXAMPLES = {
  demo: ['aptpace demo                       # the whole pipeline on built-in data → out/demo/', 'aptpace demo --out /tmp/demo --force'],
  run: [
    'aptpace run --config aptpace.yaml                   # every configured stage, skipping up-to-date ones',
    'aptpace run --config aptpace.yaml ingest fit check  # some stages',
    'aptpace run --config aptpace.yaml check --set check.model=step-3000',
  ],
  inspect: ['aptpace inspect fixtures/trajectories/good', "aptpace inspect 'runs/**/*.traj' --report swebench/report.json --json"],
  normalize: ['aptpace normalize fixtures/canonical --out corpus.jsonl', 'aptpace normalize runs/ --report labels.jsonl --only-proven --out proven.jsonl'],
  build: ['aptpace build corpus.jsonl --out questions.jsonl --seed 0', 'aptpace build runs/ --report report.json --language zh --out zh.jsonl'],
  audit: ['aptpace audit questions.jsonl', 'aptpace audit questions.jsonl --max-shortcut-gain 5 --strict --json'],
  review: ['aptpace review questions.jsonl --out review/', 'aptpace review questions.jsonl --apply review-decisions.jsonl --status status.jsonl'],
  emit: ['aptpace emit questions.jsonl --suite my_suite --out suites/my_suite', 'aptpace emit questions.jsonl --suite my_suite --harness ~/src/lm-evaluation-harness'],
  plan: [
    'aptpace plan --reference reference.yaml --check-only',
    'aptpace plan --reference reference.yaml --suite suites/my_suite --shards 3 --out plans/',
    'bash plans/run.sh     # or: sbatch plans/slurm.sbatch',
  ],
  ingest: ['aptpace ingest runs/ --targets plans/targets.csv --mapping plans/model-names.csv --out store/', 'aptpace ingest --sources fixtures/example/sources --targets fixtures/example/targets --out store/'],
  fit: ['aptpace fit --store store/ --out fit/', 'aptpace fit --store store/ --budget 50 --suite suites/my_suite --out fit/'],
  predict: ['aptpace predict --model-file fit/model.json --model step-3000 --logs runs/step-3000 --json'],
  evaluate: ['aptpace evaluate --store store/ --out evaluation/'],
  simulate: ['aptpace simulate --models 50 --families 3 --nonlinear --missing 0.05 --out sim50/', 'aptpace evaluate --store sim50/ --out sim50-evaluation/'],
  check: ['aptpace check --model-file fit/model.json --model step-3000 --logs runs/step-3000 --min-score swe-bench=0.4 --out reports/step-3000'],
  ls: ['aptpace ls dist-tasks              # every suite in the folder and its tasks', 'aptpace ls store/ fit/model.json reference.yaml'],
  validate: ['aptpace validate dist-tasks/aptpace_fixtures', 'aptpace validate aptpace.yaml reference.yaml'],
  report: ['aptpace report --store store/ --model-file fit/model.json --out series/'],
} as const;

export type ExampleCommand = keyof typeof COMMAND_EXAMPLES;

export function examplesHelp(command: string): string {
  const lines = (COMMAND_EXAMPLES as Record<string, readonly string[]>)[command];
  return lines ? `\nExamples:\n${lines.map((l) => `  ${l}`).join('\n')}\n` : '';
}
