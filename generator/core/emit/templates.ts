import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Vfs } from '../kernel/vfs.js';

/** Compiled Handlebars templates for the prose and Python of a suite (never for YAML). */
export interface SuiteTemplates {
  readme: (context: object) => string;
  utils: (context: object) => string;
}

const TEMPLATE_FILES = { readme: 'README.md.hbs', utils: 'utils.py.hbs' } as const satisfies Record<keyof SuiteTemplates, string>;

/** `templates/<sub>` of this package (holding `probe`): three levels up from source, four from `build/`. */
async function packageTemplateDir(vfs: Vfs, sub: string, probe: string): Promise<string> {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = path.join(dir, 'templates', sub);
    if ((await vfs.stat(path.join(candidate, probe)))?.isFile) return candidate;
    dir = path.dirname(dir);
  }
  throw new Error(`internal: templates/${sub} not found beside the aptpace package`);
}

export function defaultSuiteTemplateDir(vfs: Vfs): Promise<string> {
  return packageTemplateDir(vfs, 'suite', TEMPLATE_FILES.utils);
}

/** run.sh's plan-set check (templates/plan/verify-plan-set.sh), verbatim. */
export async function loadPlanSetCheck(vfs: Vfs): Promise<string> {
  return vfs.readText(path.join(await packageTemplateDir(vfs, 'plan', 'verify-plan-set.sh'), 'verify-plan-set.sh'));
}

/** The proxy suite's Python module (templates/proxy-suite/aptpace_pace.py), verbatim. */
export async function loadPaceModule(vfs: Vfs): Promise<string> {
  return vfs.readText(path.join(await packageTemplateDir(vfs, 'proxy-suite', 'aptpace_pace.py'), 'aptpace_pace.py'));
}

/** templates/trackers/aptpace_track.py: the Python that hands a check to W&B or MLflow. */
export async function trackerScriptPath(vfs: Vfs): Promise<string> {
  return path.join(await packageTemplateDir(vfs, 'trackers', 'aptpace_track.py'), 'aptpace_track.py');
}

export async function loadSuiteTemplates(vfs: Vfs, dir?: string): Promise<SuiteTemplates> {
  const root = dir ?? (await defaultSuiteTemplateDir(vfs));
  const { default: Handlebars } = await import('handlebars');
  const hb = Handlebars.create();
  hb.registerHelper('pyBool', (v: unknown) => (v ? 'True' : 'False'));
  hb.registerHelper('pyList', (v: unknown) => `[${(v as string[]).map((s) => JSON.stringify(s)).join(', ')}]`);
  hb.registerHelper('eq', (a: unknown, b: unknown) => a === b);
  hb.registerHelper('json', (v: unknown) => JSON.stringify(v));

  const compile = async (file: string) => hb.compile(await vfs.readText(path.join(root, file)), { noEscape: true, strict: true });
  return { readme: await compile(TEMPLATE_FILES.readme), utils: await compile(TEMPLATE_FILES.utils) };
}
