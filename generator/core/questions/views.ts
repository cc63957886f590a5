import type { Step, ToolSpec, Trajectory } from '../trajectories/types.js';
import { planOf } from './plans.js';
import { pyJson } from './pyjson.js';

/** One earlier step as templates see it. */
export interface StepView {
  /** 1-based position in the trajectory. */
  number: number;
  plan: string;
  thought: string | null;
  /** Canonical one-line action. */
  action: string;
  /** The action as the source wrote it (may span lines). */
  raw: string;
  tool: string | null;
  args: Record<string, unknown>;
  observation: string | null;
  /** True when the observation was cut to its cap. */
  cut: boolean;
}

/** Keeps the head and the tail of a long text with a visible marker in between. */
export function middleCut(text: string, maxChars: number): { text: string; cut: boolean } {
  if (text.length <= maxChars) return { text, cut: false };
  const head = Math.ceil(maxChars * 0.6);
  const tail = Math.max(0, maxChars - head);
  const omitted = text.length - head - tail;
  return { text: `${text.slice(0, head)}\n[... ${omitted} characters omitted ...]\n${text.slice(text.length - tail)}`, cut: true };
}

export function stepView(step: Step, observationChars: number): StepView {
  const obs = step.observation == null ? null : middleCut(step.observation, observationChars);
  return {
    number: step.index + 1,
    plan: planOf(step),
    thought: step.thought?.trim() ? step.thought.trim() : null,
    action: step.action.text,
    raw: step.action.raw ?? step.action.text,
    tool: step.action.tool,
    args: step.action.args,
    observation: obs?.text ?? null,
    cut: obs?.cut ?? false,
  };
}

/** Steps before `position`, oldest first. */
export function historyBefore(t: Trajectory, position: number, observationChars: number): StepView[] {
  return t.steps.slice(0, position).map((s) => stepView(s, observationChars));
}

export function toolsText(t: Trajectory): string {
  return toolListText(t.environment.tools);
}

/** The numbered tool list prompts show: `(1) {"name": …, "description": …, "parameters": …}`. */
export function toolListText(tools: readonly ToolSpec[]): string {
  if (tools.length === 0) return '';
  return tools
    .map((tool, i) => {
      const spec: Record<string, unknown> = { name: tool.name };
      if (tool.description) spec.description = tool.description;
      if (tool.parameters) spec.parameters = tool.parameters;
      return `(${i + 1}) ${pyJson(spec)}`;
    })
    .join('\n');
}

export function hasThoughts(t: Trajectory): boolean {
  return t.steps.some((s) => Boolean(s.thought?.trim()) || Boolean(s.plan?.trim()));
}
