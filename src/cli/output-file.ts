import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, unlinkSync } from 'node:fs';
import { open, realpath, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { CliError, EXIT } from './context.js';

/**
 * Runs `body` with a stream to the file `path`, which appears only when `body` succeeded: the
 * text goes to a temporary file beside it (same folder, so same file system), synced and
 * renamed over `path` at the end. A failure (a refused query, an unknown collection, the
 * database, a full disk) leaves an existing `path` as it was and no partial file; so does an
 * interrupt. A path that cannot be written fails at once, before `body` runs, with
 * `Can't write "<path>": <why>` (EXIT.failed). An existing device or pipe, and anything under
 * /dev or /proc (`/dev/stdout` redirected to a file), is written to directly, appending.
 */
export async function withOutputFile<T>(path: string, body: (out: Writable) => Promise<T>): Promise<T> {
  const existing = await stat(path).catch((error: unknown) => {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw cantWrite(path, error);
  });
  if (existing?.isDirectory() === true) throw cantWrite(path, 'it is a directory');
  if ((existing !== undefined && !existing.isFile()) || SPECIAL_FILES.test(path)) return writeDirectly(path, body);

  // Beside the file itself, so that a symbolic link keeps pointing at the new text.
  const target = existing === undefined ? path : await realpath(path).catch(() => path);
  const temporary = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.part`);
  let handle: FileHandle;
  try {
    handle = await open(temporary, 'wx', existing === undefined ? 0o666 : existing.mode & 0o7777);
  } catch (error) {
    throw cantWrite(path, error);
  }
  const removeOnSignal = (signal: NodeJS.Signals) => {
    try {
      unlinkSync(temporary);
    } catch {
      // already gone
    }
    process.kill(process.pid, signal);
  };
  process.once('SIGINT', removeOnSignal);
  process.once('SIGTERM', removeOnSignal);
  let failedWrite: unknown;
  // Not closed at its end: synced first. Destroying it closes the file.
  const stream = handle.createWriteStream({ autoClose: false });
  stream.on('error', (error) => (failedWrite ??= error));
  let renamed = false;
  try {
    let result: T;
    try {
      result = await body(stream);
      if (!stream.writableEnded) stream.end();
      await finished(stream);
      await handle.sync();
      await closeStream(stream);
    } catch (error) {
      throw failedWrite === undefined ? error : cantWrite(path, failedWrite);
    }
    try {
      await rename(temporary, target);
    } catch (error) {
      throw cantWrite(path, error);
    }
    renamed = true;
    return result;
  } finally {
    process.off('SIGINT', removeOnSignal);
    process.off('SIGTERM', removeOnSignal);
    if (!renamed) {
      await closeStream(stream);
      await rm(temporary, { force: true });
    }
  }
}

/** Destroys `stream` and waits until its file is closed. */
async function closeStream(stream: Writable & { readonly closed: boolean }): Promise<void> {
  if (stream.closed) return;
  const closed = once(stream, 'close');
  stream.destroy();
  await closed;
}

/** Names of a process's streams and devices: written to, never replaced. */
const SPECIAL_FILES = /^\/(dev|proc)\//;

/** `text` written to the file `path` as withOutputFile does: whole, or not at all. */
export function writeOutputFile(path: string, text: string): Promise<void> {
  return withOutputFile(path, async (out) => {
    out.end(text);
    await finished(out);
  });
}

/** A device or named pipe: nothing to replace, written to as it is. */
async function writeDirectly<T>(path: string, body: (out: Writable) => Promise<T>): Promise<T> {
  const stream = createWriteStream(path, { flags: 'a' });
  let failedWrite: unknown;
  stream.on('error', (error) => (failedWrite ??= error));
  try {
    const result = await body(stream);
    if (!stream.writableEnded) stream.end();
    await finished(stream);
    return result;
  } catch (error) {
    throw failedWrite === undefined ? error : cantWrite(path, failedWrite);
  } finally {
    stream.destroy();
  }
}

function cantWrite(path: string, reason: unknown): CliError {
  return new CliError(`Can't write "${path}": ${typeof reason === 'string' ? reason : describe(reason)}`, EXIT.failed);
}

/** Why a file system call failed, in words (the errno's code in brackets). */
function describe(error: unknown): string {
  const code = errorCode(error);
  if (code === 'ENOENT') {
    return `the folder "${dirname((error as { path?: string }).path ?? '')}" does not exist (ENOENT)`;
  }
  const why = code === undefined ? undefined : REASONS[code];
  return why === undefined ? (error as Error).message || String(error) : `${why} (${code ?? ''})`;
}

const REASONS: Readonly<Record<string, string>> = {
  ENOTDIR: 'a part of the path is not a folder',
  EISDIR: 'it is a directory',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space left on the device',
};

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
