import type { Action, ToolSpec, Trajectory } from '../trajectories/types.js';

/**
 * Tools an agent framework declares to its agent when the trajectory file does not carry them.
 * InfoDeepSeek's agent is offered these three (APTBench's released deep-research rows list
 * exactly this set, with these descriptions).
 */
const FRAMEWORK_TOOLS: Record<string, ToolSpec[]> = {
  infodeepseek: [
    { name: 'web_search', description: 'Perform an internet search.', parameters: { type: 'object', properties: { text: { type: 'str', description: 'Search query.' } } } },
    {
      name: 'browse_website',
      description: 'Browse a specific website using the provided URL link.',
      parameters: { type: 'object', properties: { url: { type: 'str', description: "The website's URL link." }, question: { type: 'str', description: 'The specific content or topic sought on the website.' } } },
    },
    { name: 'task_complete', description: 'Indicate task completion without the need for further functions.', parameters: { type: 'object', properties: {} } },
  ],
};

/** Readers infer tools from the steps when a source declares none: marked `x-inferred`, or bare (no description, no parameters). */
function inferred(tool: ToolSpec): boolean {
  return Boolean(tool.parameters && (tool.parameters as Record<string, unknown>)['x-inferred']) || (!tool.description && !tool.parameters);
}

/** The name an option's action is checked against: its tool, or `bash` for a bare shell command. */
export function toolOf(action: Pick<Action, 'kind' | 'tool'>): string | null {
  if (action.tool) return action.tool;
  return action.kind === 'shell' ? 'bash' : null;
}

/**
 * Tools the prompt may list for a question anchored at `position`: the tools the agent was
 * offered (declared by the source or by its framework), else only tools it used before the
 * anchor, so the list never names a tool first used at or after the asked step.
 */
export function offeredTools(t: Trajectory, position: number | null): { tools: ToolSpec[]; declared: boolean } {
  const declared = t.environment.tools.filter((x) => !inferred(x));
  if (declared.length > 0) {
    // Agents that run shell commands beside declared tools (SWE-agent's classic interface) are offered the shell too.
    const names = new Set(declared.map((x) => x.name));
    const shell = [...new Set(t.steps.filter((s) => s.action.kind === 'shell').map((s) => toolOf(s.action)!))].filter((n) => !names.has(n)).sort();
    return { tools: [...declared, ...shell.map((name) => ({ name, description: 'Run a shell command.' }))], declared: true };
  }
  const framework = FRAMEWORK_TOOLS[t.source.framework];
  if (framework) return { tools: framework, declared: true };
  const end = position ?? t.steps.length;
  const seen = new Set<string>();
  const out: ToolSpec[] = [];
  for (const s of t.steps.slice(0, end)) {
    const name = toolOf(s.action);
    if (!name || s.action.kind === 'message' || seen.has(name)) continue;
    seen.add(name);
    const spec = t.environment.tools.find((x) => x.name === name);
    out.push(spec ? { name, description: spec.description ?? null, parameters: null } : { name });
  }
  return { tools: out.sort((a, b) => (a.name < b.name ? -1 : 1)), declared: false };
}
