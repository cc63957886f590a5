/**
 * Reading a step written as JSON (a deep-research option or history step: `{"planning": …,
 * "execution": {"name": …, "args": …}}`): its object, its call and what it says without the
 * keys every step repeats. Any other text is no JSON step, and each reader says what it gives then.
 */

/** The text as a JSON object, when it is one. */
export function parseJsonObject(text: string): Record<string, unknown> | null {
  if (!text.startsWith('{')) return null;
  try {
    const parsed = JSON.parse(text) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The step's call: its `execution`, or the step itself when it has none; null when that is no object. */
export function executionOf(parsed: Record<string, unknown>): Record<string, unknown> | null {
  const execution = parsed.execution ?? parsed;
  return execution && typeof execution === 'object' ? (execution as Record<string, unknown>) : null;
}

/** `execution.args`/`arguments`/`parameters` of a JSON step (or of the step itself when it has no `execution`). */
export function callArguments(parsed: Record<string, unknown>): unknown {
  const execution = executionOf(parsed);
  return execution ? (execution.args ?? execution.arguments ?? execution.parameters) : undefined;
}

/** What a JSON step says it will do, beside its call: `planning`/`plan`/`thought`. */
export function planText(parsed: Record<string, unknown>): string {
  const plan = parsed.planning ?? parsed.plan ?? parsed.thought;
  return typeof plan === 'string' ? plan : '';
}

/** A JSON step's plan and argument values as plain text; any other text as it stands. */
export function contentText(text: string): string {
  const parsed = parseJsonObject(text);
  if (!parsed) return text;
  const args = callArguments(parsed);
  const values = args && typeof args === 'object' ? Object.values(args).map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join('\n') : '';
  return `${planText(parsed)}\n${values}`;
}

export function argumentCount(parsed: Record<string, unknown>): number {
  const args = callArguments(parsed);
  return args && typeof args === 'object' ? Object.keys(args).length : 0;
}
