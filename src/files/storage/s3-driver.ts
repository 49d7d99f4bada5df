import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  paginateListObjectsV2,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { S3LocationConfig } from '../../config/index.js';
import { ForbiddenError, ServiceUnavailableError } from '../../errors.js';
import { isPlainFileName, type ByteRange, type StorageDriver, type StoredFileStat } from './storage-driver.js';

/** S3's limit for a single CopyObject; bigger objects are copied through a streamed upload. */
const COPY_OBJECT_LIMIT = 5 * 1024 ** 3;

export interface S3DriverOptions {
  /**
   * Bytes per part of a multipart upload (default and least: 5 MiB, S3's minimum): the memory a
   * write holds per part (bench/README.md: a 1 GB upload stays within ~40 MB of the idle RSS).
   */
  readonly partSize?: number;
  /** Parts uploaded at once (default 1: memory over throughput; one more part in memory each). */
  readonly queueSize?: number;
  /** Objects above this size are moved by streaming them to the new key rather than by CopyObject. */
  readonly copyObjectLimit?: number;
}

/**
 * Files as objects of a bucket (STORAGE_<KEY>_DRIVER=s3), under the key prefix
 * STORAGE_<KEY>_ROOT. A write streams through a multipart upload (lib-storage's `Upload`),
 * holding at most `queueSize` parts of `partSize` bytes in memory, never the whole file; the
 * object appears only when the upload completes, and a failed or cut write aborts the upload,
 * so nothing is left at the key (and no parts are kept). `move` is CopyObject + DeleteObject
 * (S3 has no rename); `read` with a range is a ranged GetObject.
 */
export class S3StorageDriver implements StorageDriver {
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #prefix: string;
  readonly #partSize: number;
  readonly #queueSize: number;
  readonly #copyObjectLimit: number;

  constructor(config: S3LocationConfig, root: string | undefined, options: S3DriverOptions = {}) {
    this.#client = new S3Client({
      region: config.region,
      forcePathStyle: config.forcePathStyle,
      ...(config.endpoint === undefined ? {} : { endpoint: config.endpoint }),
      ...(config.key === undefined || config.secret === undefined
        ? {}
        : { credentials: { accessKeyId: config.key, secretAccessKey: config.secret } }),
      // Checksums only where S3 requires them: S3-compatible servers (MinIO releases, s3rver)
      // differ in the trailing-checksum encodings the SDK now sends by default.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    this.#bucket = config.bucket;
    const trimmed = (root ?? '').replace(/^\/+|\/+$/g, '');
    this.#prefix = trimmed === '' ? '' : `${trimmed}/`;
    this.#partSize = Math.max(5 * 1024 * 1024, options.partSize ?? 5 * 1024 * 1024);
    this.#queueSize = options.queueSize ?? 1;
    this.#copyObjectLimit = options.copyObjectLimit ?? COPY_OBJECT_LIMIT;
  }

  async write(path: string, content: Readable): Promise<{ size: number }> {
    const key = this.#key(path);
    let size = 0;
    const counted = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        size += chunk.length;
        callback(null, chunk);
      },
    });
    const upload = new Upload({
      client: this.#client,
      params: { Bucket: this.#bucket, Key: key, Body: counted },
      partSize: this.#partSize,
      queueSize: this.#queueSize,
      leavePartsOnError: false,
    });
    // A source that fails destroys `counted`, which fails the upload (aborted, no object) with
    // the source's error; an upload that fails stops reading, so it destroys `counted` in turn
    // to end the source's pipeline.
    const done = upload.done().catch((error: unknown) => {
      counted.destroy(error instanceof Error ? error : new Error(String(error)));
      throw error;
    });
    const [source, stored] = await Promise.allSettled([pipeline(content, counted), done]);
    if (stored.status === 'rejected') {
      // The source's own failure (a cut upload, the size limit) when it caused this one; else S3's.
      const isSourceFailure = source.status === 'rejected' && source.reason === stored.reason;
      throw isSourceFailure ? source.reason : unavailable(stored.reason);
    }
    if (source.status === 'rejected') {
      await this.delete(path);
      throw source.reason;
    }
    return { size };
  }

  async read(path: string, range?: ByteRange): Promise<Readable> {
    const key = this.#key(path);
    const result = await this.#client
      .send(
        new GetObjectCommand({
          Bucket: this.#bucket,
          Key: key,
          ...(range === undefined ? {} : { Range: `bytes=${range.start}-${range.end}` }),
        }),
      )
      .catch((error: unknown) => {
        throw isNotFound(error) ? error : unavailable(error);
      });
    const body = result.Body;
    if (!(body instanceof Readable)) throw new Error('S3 GetObject answered without a stream body');
    return body;
  }

  async stat(path: string): Promise<StoredFileStat | undefined> {
    const key = this.#key(path);
    try {
      const head = await this.#client.send(new HeadObjectCommand({ Bucket: this.#bucket, Key: key }));
      return { size: head.ContentLength ?? 0, modified: head.LastModified ?? new Date(0) };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw unavailable(error);
    }
  }

  async move(from: string, to: string): Promise<void> {
    const source = this.#key(from);
    const target = this.#key(to);
    const stat = await this.stat(from);
    if (stat === undefined) throw Object.assign(new Error(`no object at ${source}`), { code: 'ENOENT' });
    if (stat.size <= this.#copyObjectLimit) {
      const copySource = `${this.#bucket}/${source.split('/').map(encodeURIComponent).join('/')}`;
      await this.#client
        .send(new CopyObjectCommand({ Bucket: this.#bucket, Key: target, CopySource: copySource }))
        .catch((error: unknown) => {
          throw unavailable(error);
        });
    } else {
      await this.write(to, await this.read(from));
    }
    await this.delete(from);
  }

  async delete(path: string): Promise<void> {
    await this.#client
      .send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: this.#key(path) }))
      .catch((error: unknown) => {
        throw unavailable(error);
      });
  }

  async list(prefix: string): Promise<string[]> {
    // A prefix with a path separator could only match keys this driver never writes.
    if (prefix.includes('/')) return [];
    const names: string[] = [];
    const pages = paginateListObjectsV2(
      { client: this.#client },
      { Bucket: this.#bucket, Prefix: this.#prefix + prefix },
    );
    try {
      for await (const page of pages) {
        for (const object of page.Contents ?? []) {
          const name = (object.Key ?? '').slice(this.#prefix.length);
          if (isPlainFileName(name)) names.push(name);
        }
      }
    } catch (error) {
      throw unavailable(error);
    }
    return names;
  }

  /** Closes the client's connections. */
  destroy(): void {
    this.#client.destroy();
  }

  /** The object key of `path`, a plain file name under the root prefix; FORBIDDEN for anything else. */
  #key(path: string): string {
    if (!isPlainFileName(path)) throw new ForbiddenError();
    return this.#prefix + path;
  }
}

/**
 * A failure of the S3 service (unreachable, refusing the credentials, a 5xx): SERVICE_UNAVAILABLE
 * `storage` (503), not a 500; the SDK has already retried it. The reason names the kind of
 * failure only (`AccessDenied`, `ECONNREFUSED`...): S3's and the network's messages may name
 * hosts, ports and buckets, which callers have no business knowing. The error is the `cause`.
 */
function unavailable(error: unknown): ServiceUnavailableError {
  const kind =
    error instanceof Error
      ? [error.name, (error as NodeJS.ErrnoException).code].filter((part) => part !== undefined && part !== 'Error')
      : [];
  const reason = `S3 storage failed${kind.length > 0 ? ` (${kind.join(' ')})` : ''}`;
  return Object.assign(new ServiceUnavailableError('storage', reason), { cause: error });
}

function isNotFound(error: unknown): boolean {
  return (
    error instanceof S3ServiceException &&
    (error.name === 'NotFound' || error.name === 'NoSuchKey' || error.$metadata.httpStatusCode === 404)
  );
}
