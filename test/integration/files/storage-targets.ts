import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startS3Server, type S3TestServer } from '../../support/s3-server.js';
import { storedNames } from './helpers.js';

/**
 * Where a suite's server keeps file contents: the local driver in a temporary folder, or the
 * s3 driver on a real S3-compatible server (s3rver) on a loopback port. A suite declared once
 * per target runs the same tests against both drivers.
 */
export interface StorageTarget {
  readonly label: string;
  /** The storage location key files get (`storage` of their rows). */
  readonly location: string;
  /** Starts what the target needs (call in a `before`). */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The server's STORAGE_* variables. */
  env(): Record<string, string>;
  /** Every name stored, temporary files and unfinished uploads included, sorted. */
  names(): Promise<string[]>;
  /** The stored content of a file, as text. */
  content(name: string): Promise<string>;
}

export function localTarget(): StorageTarget {
  let root: string | undefined;
  const folder = () => {
    if (root === undefined) throw new Error('storage target not started');
    return root;
  };
  return {
    label: 'local',
    location: 'local',
    async start() {
      root = mkdtempSync(join(tmpdir(), 'svc-files-'));
    },
    async stop() {
      if (root !== undefined) rmSync(root, { recursive: true, force: true });
    },
    env: () => ({ STORAGE_LOCAL_ROOT: folder() }),
    names: () => storedNames(folder()),
    content: (name) => readFile(join(folder(), name), 'utf8'),
  };
}

export function s3Target(): StorageTarget {
  let server: S3TestServer | undefined;
  const s3 = () => {
    if (server === undefined) throw new Error('storage target not started');
    return server;
  };
  return {
    label: 's3',
    location: 's3',
    async start() {
      server = await startS3Server();
    },
    async stop() {
      await server?.close();
    },
    env: () => ({ STORAGE_LOCATIONS: 's3', ...s3().env('s3', 'uploads') }),
    async names() {
      const keys = (await s3().objectKeys()).map((key) => key.replace(/^uploads\//, ''));
      const pending = (await s3().pendingUploads()).map((id) => `(upload ${id})`);
      return [...keys, ...pending].sort();
    },
    content: (name) => s3().objectText(`uploads/${name}`),
  };
}

/** Both drivers, each with its own storage. */
export const storageTargets = (): StorageTarget[] => [localTarget(), s3Target()];
