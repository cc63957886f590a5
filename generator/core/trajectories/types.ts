/**
 * The canonical trajectory: one JSON object per trajectory, one line per object in JSONL.
 * The JSON Schema in schema.ts is the contract; these types mirror it.
 */
export const TRAJECTORY_SCHEMA_VERSION = 'traj/1';

/** `ctf`: capture-the-flag / security challenges (SWE-agent's CTF mode), told apart from `swe` fixes. */
export type Domain = 'swe' | 'deep_research' | 'env_setup' | 'ctf' | 'other';
export const DOMAINS: readonly Domain[] = ['swe', 'deep_research', 'env_setup', 'ctf', 'other'];
export type ActionKind = 'shell' | 'tool_call' | 'code' | 'message' | 'finish' | 'llm_call';
/** Only the first four are evidence of success; `self_report` and `unknown` are not. */
export type SuccessSource = 'harness_report' | 'dataset_label' | 'answer_match' | 'benchmark_construction' | 'self_report' | 'unknown';
export const SUCCESS_EVIDENCE: readonly SuccessSource[] = ['harness_report', 'dataset_label', 'answer_match', 'benchmark_construction'];

export interface ToolSpec {
  name: string;
  description?: string | null;
  /** JSON Schema of the tool's parameters when the source gives one. */
  parameters?: Record<string, unknown> | null;
}

export interface Action {
  kind: ActionKind;
  tool: string | null;
  args: Record<string, unknown>;
  /** Canonical one-line rendering; the exact-match target of next-action questions. */
  text: string;
  /** The action exactly as the source wrote it (e.g. a multi-line bash block). */
  raw?: string | null;
}

export interface Step {
  index: number;
  thought: string | null;
  /** One-line intent, given by the source or derived deterministically. */
  plan: string | null;
  action: Action;
  observation: string | null;
  obs_meta?: { exit_code?: number | null; ok?: boolean | null } | null;
  stage?: string | null;
  /** ISO time of the action when the source records it. */
  timestamp?: string | null;
}

export interface Trajectory {
  schema_version: typeof TRAJECTORY_SCHEMA_VERSION;
  /** `framework:instance:run`, unique within a corpus. */
  traj_id: string;
  domain: Domain;
  source: {
    framework: string;
    format: string;
    /** File the trajectory was read from, as given on the command line. */
    path: string;
    /** Record / line inside that file when it holds several trajectories (1-based line). */
    line?: number | null;
    repo?: string | null;
    commit?: string | null;
    license: string;
  };
  task: {
    instance_id: string;
    goal: string;
    /** Natural language of the goal (`en`, `zh`, …), detected from its script when the source does not say. */
    language: string;
    /** Programming language of the repository when the source says (e.g. Multi-SWE-bench rows). */
    code_language?: string | null;
    gold_answer?: string | null;
    gold_patch?: string | null;
    gold_test_patch?: string | null;
  };
  environment: {
    repo?: string | null;
    base_commit?: string | null;
    workdir?: string | null;
    image?: string | null;
    tools: ToolSpec[];
  };
  agent: { model?: string | null; agent_class?: string | null; system_prompt?: string | null };
  steps: Step[];
  outcome: {
    exit_status?: string | null;
    /** Final patch or final answer. */
    submission?: string | null;
    success: boolean | null;
    success_source: SuccessSource;
    /** Where the evidence came from, e.g. the report file. */
    success_evidence?: string | null;
    self_report?: string | null;
  };
  metrics: {
    cost_usd?: number | null;
    api_calls?: number | null;
    tokens_in?: number | null;
    tokens_out?: number | null;
    wall_s?: number | null;
  };
  extra?: Record<string, unknown>;
}

/** True only when success rests on evidence (a report, a label, an answer match, construction). */
export function isProvenSuccess(t: Pick<Trajectory, 'outcome'>): boolean {
  return t.outcome.success === true && SUCCESS_EVIDENCE.includes(t.outcome.success_source);
}
