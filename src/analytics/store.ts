import { access, mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';

/**
 * Where recordings and the analytics results of each job live. Keys are relative paths
 * (`recordings/<call>.wav`, `results/<job>/transcription.json`). A local folder is the default;
 * an S3-compatible store implements the same four methods over a bucket (put = PutObject,
 * get = GetObject, has = HeadObject, locate = the object's s3:// or https:// address).
 * Workers on other machines need a store they can all reach: a shared folder or a bucket.
 */
export interface RecordingStore {
  /** Stores bytes (or text) under a key, replacing what was there. */
  put(key: string, bytes: Uint8Array | string): Promise<void>;
  /** The stored bytes, or undefined when there is nothing under the key. */
  get(key: string): Promise<Uint8Array | undefined>;
  /** Whether something is stored under the key. */
  has(key: string): Promise<boolean>;
  /** Where a person or another system finds the object (a file path, a URL). */
  locate(key: string): string;
  /**
   * The keys directly inside a folder key (`calls` → `calls/<name>`), for the list of recorded
   * calls (`/calls`); a store without it serves single calls only (ListObjectsV2 on a bucket).
   */
  list?(folder: string): Promise<string[]>;
}

/** A key that names a file inside the store, never outside it. */
export function checkKey(key: string): string {
  if (!key || key.startsWith('/') || key.includes('\\') || key.split('/').some((p) => p === '' || p === '.' || p === '..')) {
    throw new Error(`bad store key "${key}": a relative path without "." or ".." parts`);
  }
  return key;
}

/** Recordings and results as files under one folder. Writes are atomic (temp file, rename). */
export class LocalFolderStore implements RecordingStore {
  readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  private path(key: string): string {
    const p = resolve(this.root, checkKey(key));
    if (!p.startsWith(this.root + sep)) throw new Error(`bad store key "${key}"`);
    return p;
  }

  /** Writes the bytes to the key's file, creating its folders. */
  async put(key: string, bytes: Uint8Array | string): Promise<void> {
    const p = this.path(key);
    await mkdir(dirname(p), { recursive: true });
    // A worker killed mid-write must not leave half a result that a retry would trust.
    const tmp = `${p}.${process.pid}.${Date.now()}.tmp`;
    await writeFile(tmp, bytes);
    await rename(tmp, p);
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    try {
      return new Uint8Array(await readFile(this.path(key)));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  /** Whether the key's file exists. */
  async has(key: string): Promise<boolean> {
    return access(this.path(key)).then(
      () => true,
      () => false,
    );
  }

  locate(key: string): string {
    return this.path(key);
  }

  /** The files directly inside the folder (none when it does not exist), in-progress writes left out. */
  async list(folder: string): Promise<string[]> {
    try {
      const entries = await readdir(this.path(folder), { withFileTypes: true });
      return entries.filter((e) => e.isFile() && !e.name.endsWith('.tmp')).map((e) => `${folder}/${e.name}`);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
  }
}
