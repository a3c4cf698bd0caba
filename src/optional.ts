import { createRequire } from 'node:module';
import { docPath } from './docs-path.ts';

/**
 * Packages hiwar uses for one feature only, which a user installs when they want that feature
 * (optional peer dependencies): what each is for and where its page is. A missing one gives one
 * line at the point of use, never a silent downgrade; the line names the page's full path here.
 */
export const OPTIONAL_PACKAGES = {
  mediasoup: { feature: 'WebRTC', doc: 'docs/webrtc.md' },
  '@discordjs/opus': { feature: 'WebRTC (the Opus codec)', doc: 'docs/webrtc.md' },
  ioredis: { feature: 'A cluster (REDIS_URL)', doc: 'docs/scaling.md' },
  bullmq: { feature: 'Call analytics jobs (hiwar worker)', doc: 'docs/analytics.md' },
  'onnxruntime-node': { feature: 'Native voice activity detection', doc: 'docs/installing.md#voice-activity-detection-two-engines-one-model' },
  // With a range (package.json's peer range): the install line names it, because npm on Node 20
  // would otherwise pick an older release (the newest need Node 22) that the range refuses: ERESOLVE.
  '@opentelemetry/sdk-trace': { feature: 'Tracing (--otel)', doc: 'docs/observability.md', range: '^2.12.1' },
  '@opentelemetry/context-async-hooks': { feature: 'Tracing (--otel)', doc: 'docs/observability.md', range: '^2.12.1' },
  '@opentelemetry/exporter-trace-otlp-http': { feature: 'Tracing (--otel)', doc: 'docs/observability.md', range: '^0.223.1' },
  '@opentelemetry/resources': { feature: 'Tracing (--otel)', doc: 'docs/observability.md', range: '^2.12.1' },
} as const;

export type OptionalPackage = keyof typeof OPTIONAL_PACKAGES;

/** An optional package a feature needs is not installed. */
export class MissingDependencyError extends Error {
  override readonly name = 'MissingDependencyError';
  /** `message` names every missing package of a feature at once (see `missingPackages`). */
  constructor(readonly pkg: OptionalPackage, message?: string) {
    const { feature, doc } = OPTIONAL_PACKAGES[pkg];
    super(message ?? `${feature} needs ${pkg}: npm install ${installSpec(pkg)}; see ${docPath(doc)}`);
  }
}

/** What `npm install` is given for a package: its name, with hiwar's peer range where it has one. */
export function installSpec(pkg: OptionalPackage): string {
  const { range } = OPTIONAL_PACKAGES[pkg] as { range?: string };
  return range ? `${pkg}@${range}` : pkg;
}

const require = createRequire(import.meta.url);

function isMissing(err: unknown, pkg: string): boolean {
  const e = err as NodeJS.ErrnoException;
  return (e?.code === 'ERR_MODULE_NOT_FOUND' || e?.code === 'MODULE_NOT_FOUND') && e.message.includes(`'${pkg}`);
}

/** Whether an optional package is installed where hiwar can load it (without loading it). */
export function isInstalled(pkg: OptionalPackage): boolean {
  try {
    require.resolve(pkg);
    return true;
  } catch {
    return false;
  }
}

/** One line for a feature whose packages are not all installed (`installed` says), or undefined when they are. */
export function missingPackages(feature: string, pkgs: OptionalPackage[], doc: `docs/${string}`, installed: (pkg: OptionalPackage) => boolean = isInstalled): string | undefined {
  const missing = pkgs.filter((p) => !installed(p));
  if (missing.length === 0) return undefined;
  return `${feature} needs ${missing.join(' and ')}: npm install ${missing.map(installSpec).join(' ')}; see ${docPath(doc)}`;
}

/** Loads an optional CommonJS package synchronously, or throws `MissingDependencyError`. */
export function requireOptional<T>(pkg: OptionalPackage): T {
  try {
    return require(pkg) as T;
  } catch (err) {
    throw isMissing(err, pkg) ? new MissingDependencyError(pkg) : err;
  }
}

/** Imports an optional package (the loader keeps its types), or throws `MissingDependencyError`. */
export async function importOptional<T>(pkg: OptionalPackage, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    throw isMissing(err, pkg) ? new MissingDependencyError(pkg) : err;
  }
}
