import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The API extension types this service runs. */
export type ApiExtensionType = 'hook' | 'endpoint' | 'operation';

/**
 * One extension found in EXTENSIONS_PATH: its name (the package's, the legacy folder's, or the
 * bundle entry's), its type, and the module to import. A bundle's entries share one module,
 * whose `hooks` / `endpoints` lists name each entry's register function.
 */
export interface ExtensionEntry {
  readonly name: string;
  readonly type: ApiExtensionType;
  readonly file: string;
  /** Set for an entry of a bundle: the name it has in the bundle module's lists. */
  readonly bundleEntry?: string;
  /**
   * Set when the manifest says `"sandbox": { "enabled": true }`: the scopes it asks for
   * (`request`, `log`, `sleep`). Such an operation runs in an isolate (flows/sandboxed-operation.ts).
   */
  readonly sandbox?: { readonly requestedScopes: Readonly<Record<string, unknown>> };
}

/** An extension that cannot be loaded, found before anything runs: one log line each. */
export interface DiscoveryProblem {
  readonly name: string;
  readonly reason: string;
}

export interface Discovery {
  readonly entries: readonly ExtensionEntry[];
  readonly problems: readonly DiscoveryProblem[];
  /** Extensions of a type with no API part here (app extensions): skipped, named once. */
  readonly skipped: readonly string[];
}

/**
 * Directus 10's legacy layout, API types only: `<EXTENSIONS_PATH>/<type>s/<name>/index.js`, and
 * an operation's API part in `operations/<name>/api.js` (beside its app part, `app.js`).
 */
const LEGACY_FOLDERS: Readonly<Record<string, ApiExtensionType>> = {
  hooks: 'hook',
  endpoints: 'endpoint',
  operations: 'operation',
};
/** The other legacy type folders: app extensions, which have nothing to run here. */
const OTHER_LEGACY_FOLDERS = new Set([
  'interfaces',
  'displays',
  'layouts',
  'modules',
  'panels',
  'themes',
  'migrations',
]);
const ENTRY_FILES = ['index.js', 'index.mjs', 'index.cjs'];
const OPERATION_FILES = ['api.js', 'api.mjs', 'api.cjs'];
/** npm packages Directus 10 picks up by name: `directus-extension-*`, `@scope/directus-extension-*`. */
const PACKAGE_NAME = /^(@[^/]+\/)?directus-extension-/;

/**
 * Finds the extensions of `root` (EXTENSIONS_PATH), in a stable order: the legacy type folders,
 * then package folders, then `directus-extension-*` packages in `root/node_modules`. A missing
 * root holds none.
 */
export function discoverExtensions(root: string): Discovery {
  const found: Discovery = { entries: [], problems: [], skipped: [] };
  const base = resolve(root);
  if (!isDirectory(base)) return found;
  const folders = listDirectories(base);
  for (const folder of folders) {
    const type = LEGACY_FOLDERS[folder];
    if (type !== undefined) addLegacy(found, join(base, folder), type);
  }
  for (const folder of folders) {
    if (folder in LEGACY_FOLDERS || OTHER_LEGACY_FOLDERS.has(folder) || folder === 'node_modules') continue;
    const dir = join(base, folder);
    if (existsSync(join(dir, 'package.json'))) addPackage(found, dir, folder);
  }
  for (const dir of installedPackages(join(base, 'node_modules'))) addPackage(found, dir, dir);
  return found;
}

function addLegacy(found: Discovery, typeFolder: string, type: ApiExtensionType): void {
  const files = type === 'operation' ? OPERATION_FILES : ENTRY_FILES;
  for (const name of listDirectories(typeFolder)) {
    const file = files.map((f) => join(typeFolder, name, f)).find((f) => existsSync(f));
    if (file === undefined) {
      push(found.problems, { name, reason: `no ${files[0] ?? ''} in ${join(typeFolder, name)}` });
    } else {
      push(found.entries, { name, type, file });
    }
  }
}

interface Manifest {
  readonly type?: unknown;
  readonly path?: unknown;
  readonly entries?: unknown;
  readonly sandbox?: unknown;
}

/** A package folder: its package.json's `directus:extension` manifest says what it is. */
function addPackage(found: Discovery, dir: string, label: string): void {
  let pkg: { name?: unknown; 'directus:extension'?: Manifest };
  try {
    pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as typeof pkg;
  } catch (error) {
    push(found.problems, { name: label, reason: `its package.json cannot be read (${describe(error)})` });
    return;
  }
  const name = typeof pkg.name === 'string' && pkg.name !== '' ? pkg.name : label;
  const manifest = pkg['directus:extension'];
  if (manifest === undefined) {
    push(found.problems, { name, reason: 'its package.json has no "directus:extension" manifest' });
    return;
  }
  const { type, path } = manifest;
  if (type === 'hook' || type === 'endpoint') {
    if (typeof path !== 'string') {
      push(found.problems, { name, reason: `"directus:extension".path must name the ${type}'s module` });
      return;
    }
    addFile(found, { name, type, file: join(dir, path) });
    return;
  }
  if (type === 'operation') {
    const api = apiPathOf(path);
    if (api === undefined) {
      push(found.problems, { name, reason: 'an operation\'s "directus:extension".path.api must name its API module' });
      return;
    }
    const sandbox = sandboxOf(manifest.sandbox);
    addFile(found, { name, type, file: join(dir, api), ...(sandbox === undefined ? {} : { sandbox }) });
    return;
  }
  if (type === 'bundle') {
    addBundle(found, dir, name, manifest);
    return;
  }
  push(found.skipped, `${name} (${String(type)})`);
}

/** A bundle: `path.api` is one module for every API entry of `entries` (`{type, name}` each). */
function addBundle(found: Discovery, dir: string, name: string, manifest: Manifest): void {
  const { path, entries } = manifest;
  const api = apiPathOf(path);
  if (!Array.isArray(entries)) {
    push(found.problems, { name, reason: 'a bundle\'s "directus:extension" needs its "entries"' });
    return;
  }
  const apiEntries: { type: ApiExtensionType; name: string }[] = [];
  for (const entry of entries as unknown[]) {
    const { type, name: entryName } = (entry ?? {}) as { type?: unknown; name?: unknown };
    if (typeof entryName !== 'string') continue;
    if (type === 'hook' || type === 'endpoint' || type === 'operation') apiEntries.push({ type, name: entryName });
    else push(found.skipped, `${name}/${entryName} (${String(type)})`);
  }
  if (apiEntries.length === 0) return;
  if (api === undefined) {
    push(found.problems, {
      name,
      reason: 'a bundle with hooks, endpoints or operations needs "directus:extension".path.api',
    });
    return;
  }
  for (const entry of apiEntries) {
    addFile(found, { name: entry.name, type: entry.type, file: join(dir, api), bundleEntry: entry.name });
  }
}

/** `path.api` of a manifest whose `path` is `{ app, api }`. */
function apiPathOf(path: unknown): string | undefined {
  const api = typeof path === 'object' && path !== null ? (path as { api?: unknown }).api : undefined;
  return typeof api === 'string' && api !== '' ? api : undefined;
}

/** `"sandbox": { "enabled": true, "requestedScopes": {...} }`; undefined when not enabled. */
function sandboxOf(sandbox: unknown): ExtensionEntry['sandbox'] {
  if (typeof sandbox !== 'object' || sandbox === null) return undefined;
  const { enabled, requestedScopes } = sandbox as { enabled?: unknown; requestedScopes?: unknown };
  if (enabled !== true) return undefined;
  const scopes = typeof requestedScopes === 'object' && requestedScopes !== null ? requestedScopes : {};
  return { requestedScopes: scopes as Readonly<Record<string, unknown>> };
}

function addFile(found: Discovery, entry: ExtensionEntry): void {
  if (existsSync(entry.file)) push(found.entries, entry);
  else push(found.problems, { name: entry.name, reason: `its module ${entry.file} does not exist (not built?)` });
}

/** `node_modules/directus-extension-*` and `node_modules/@scope/directus-extension-*`. */
function installedPackages(nodeModules: string): string[] {
  const dirs: string[] = [];
  for (const name of listDirectories(nodeModules)) {
    if (name.startsWith('@')) {
      for (const scoped of listDirectories(join(nodeModules, name))) {
        if (PACKAGE_NAME.test(`${name}/${scoped}`)) dirs.push(join(nodeModules, name, scoped));
      }
    } else if (PACKAGE_NAME.test(name)) {
      dirs.push(join(nodeModules, name));
    }
  }
  return dirs;
}

/** Sub-folders (symbolic links to folders included: npm links packages), sorted; dot folders left out. */
function listDirectories(dir: string): string[] {
  if (!isDirectory(dir)) return [];
  return readdirSync(dir)
    .filter((name) => !name.startsWith('.') && isDirectory(join(dir, name)))
    .sort();
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function push<T>(list: readonly T[], item: T): void {
  (list as T[]).push(item);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
