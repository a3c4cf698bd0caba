import { existsSync, statSync } from 'node:fs';
import { dirname, extname, join, resolve } from 'node:path';
import type { Agent } from '../session/agent.ts';
import { CliError, readText } from './args.ts';
import { importUserModule, type UserModule } from './user-module.ts';

/** The one description of `--agent`, in every command's --help and in the docs. */
export const AGENT_HELP = 'your agent: a .ts or .js module that default-exports an Agent, or a folder with its index.ts or index.js, relative to the current directory (default: the built-in call-centre agent)';
/** `--phrasebook`, likewise (demo, console, serve, call, campaign). */
export const PHRASEBOOK_HELP = "more phrases for the embedded sandbox's recognizer, one per line (it is taught the intent examples of the agent and of the agents in its handoffs already)";

/** An option's line in a usage text: the flag padded to `column`, the text wrapped at 100 columns. */
export function optionLine(flag: string, help: string, column: number): string {
  const lines: string[] = [];
  let line = `  ${flag}`.padEnd(column);
  for (const word of help.split(' ')) {
    if (line.length + word.length + 1 > 100 && line.trim().length > flag.length) {
      lines.push(line.trimEnd());
      line = ' '.repeat(column);
    }
    line += `${line.endsWith(' ') ? '' : ' '}${word}`;
  }
  return [...lines, line].join('\n');
}

/** A folder's module, in the order looked for. */
const AGENT_EXTENSIONS = ['.ts', '.mts', '.js', '.mjs'];
const INDEX_FILES = AGENT_EXTENSIONS.map((ext) => `index${ext}`);
const TS = new Set(['.ts', '.mts', '.cts']);
const JS = new Set(['.js', '.mjs', '.cjs']);

/** An agent the CLI loaded, and where from (for scenario.json beside it). */
export interface LoadedAgent {
  agent: Agent;
  /** The module's file; undefined for the built-in agent. */
  file?: string;
  /** The folder named by --agent (or the module's folder). */
  dir?: string;
}

/**
 * The module file `--agent PATH` names (the folder's index file for a folder), checked without
 * loading it: `hiwar serve` says a wrong path before it looks at its ports.
 */
export function agentModuleFile(path: string, cwd = process.cwd()): { file: string; dir: string } {
  const where = `--agent ${path}`;
  const target = resolve(cwd, path);
  // `agents/call-centre` is the repository's folder, not a user project's: the built-in agent needs no --agent.
  const builtIn = /^(\.\/)?agents\/call-centre\/?$/.test(path) ? ' (the built-in call-centre agent is the default: leave out --agent to use it)' : '';
  if (!existsSync(target)) {
    // `--agent ./reminder` for reminder.mjs: named without its extension, as an import would not take it either.
    const withExt = AGENT_EXTENSIONS.map((ext) => `${path.replace(/\/+$/, '')}${ext}`).find((p) => existsSync(resolve(cwd, p)));
    throw new CliError(`${where}: no such file or folder${withExt ? ` (there is ${withExt}: name the file with its extension)` : builtIn}`);
  }
  let file = target;
  const dir = statSync(target).isDirectory() ? target : dirname(target);
  if (statSync(target).isDirectory()) {
    const index = INDEX_FILES.map((f) => join(target, f)).find((f) => existsSync(f));
    if (!index) throw new CliError(`${where}: the folder has no ${INDEX_FILES.join(', ')}`);
    file = index;
  }
  const ext = extname(file);
  if (!TS.has(ext) && !JS.has(ext)) throw new CliError(`${where}: not a .ts or .js module`);
  return { file, dir };
}

/**
 * The agent of `--agent PATH`, or the built-in call-centre agent without one. A `.ts` module is
 * loaded through tsx's `tsImport`, so it works when hiwar itself runs as plain JavaScript, and
 * its imports (zod, hiwar) resolve from the agent's own project, as they would in the user's code.
 */
export async function loadAgent(path: string | undefined, cwd = process.cwd()): Promise<LoadedAgent> {
  if (path === undefined) return { agent: (await import('../../agents/call-centre/index.ts')).default };
  const where = `--agent ${path}`;
  const { file, dir } = agentModuleFile(path, cwd);
  let mod: UserModule;
  try {
    mod = await importUserModule(file, 'agent');
  } catch (err) {
    throw new CliError(`${where}: ${(err as Error).message}`);
  }
  // `agent` is the named export `hiwar serve` accepted before.
  const agent = mod.default ?? mod.named.agent;
  if (agent === undefined) throw new CliError(`${where}: ${file} has no default export (export default your Agent)`);
  const problem = (await import('../session/check-agent.ts')).agentProblem(agent);
  if (problem) throw new CliError(`${where}: the default export of ${file} is not an Agent (${problem})`);
  return { agent: agent as Agent, file, dir };
}

/** Phrases for the embedded sandbox: the agent's intent examples, the lines of `--phrasebook`, and `more` (a config's `sandbox.phrasebook`). */
export async function sandboxPhrases(agent: Agent | undefined, phrasebook?: string, more: readonly string[] = []): Promise<string[]> {
  const { sandboxPhrasebook } = await import('../session/agent-phrases.ts');
  return sandboxPhrasebook(agent, [...(phrasebook ? (await readText(phrasebook, '--phrasebook')).split('\n') : []), ...more]);
}
