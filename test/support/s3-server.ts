import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

// The AWS SDK warns once per process that its releases after January 2027 need Node 22; the
// supported Node lines are package.json's `engines`, so a test run does not repeat it. Set
// here, before any S3 client exists, and inherited by the processes the suites spawn.
process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';

/** s3rver's fixed credentials. */
const KEY = 'S3RVER';

/** A real S3-compatible server (s3rver) on a loopback port, its data in a temporary folder. */
export interface S3TestServer {
  readonly endpoint: string;
  readonly bucket: string;
  /** The STORAGE_* variables of a location `key` (upper-cased in the names) on this bucket. */
  env(key?: string, root?: string): Record<string, string>;
  /** Keys of the objects in the bucket, sorted. */
  objectKeys(): Promise<string[]>;
  /** An object's content as text. */
  objectText(key: string): Promise<string>;
  /** Multipart uploads begun and neither completed nor aborted (parts a failed write left). */
  pendingUploads(): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * Starts s3rver with one bucket. s3rver has no AbortMultipartUpload (it answers 405), which
 * every S3 implementation has and the driver relies on: this server answers it the way S3
 * does, by dropping the upload's parts, so a test can tell a driver that aborts from one
 * that leaves parts behind.
 */
export async function startS3Server(bucket = 'svc-files'): Promise<S3TestServer> {
  const directory = await mkdtemp(join(tmpdir(), 'svc-s3rver-'));
  const s3rver = new S3rver({ directory, silent: true, configureBuckets: [{ name: bucket }] });
  await s3rver.configureBuckets();
  const uploadsOf = (name: string) => join(directory, name, '._S3rver_uploads');
  const handle = s3rver.callback();
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://s3');
    const uploadId = url.searchParams.get('uploadId');
    const [, name] = url.pathname.split('/');
    if (req.method === 'DELETE' && uploadId !== null && name !== undefined && /^[\w-]+$/.test(uploadId)) {
      req.resume();
      rm(join(uploadsOf(name), uploadId), { recursive: true, force: true }).then(
        () => res.writeHead(204).end(),
        () => res.writeHead(500).end(),
      );
      return;
    }
    handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new S3Client({
    region: 'us-east-1',
    endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: KEY, secretAccessKey: KEY },
  });
  return {
    endpoint,
    bucket,
    env(key = 's3', root) {
      const prefix = `STORAGE_${key.toUpperCase()}`;
      return {
        [`${prefix}_DRIVER`]: 's3',
        [`${prefix}_KEY`]: KEY,
        [`${prefix}_SECRET`]: KEY,
        [`${prefix}_BUCKET`]: bucket,
        [`${prefix}_REGION`]: 'us-east-1',
        [`${prefix}_ENDPOINT`]: endpoint,
        [`${prefix}_FORCE_PATH_STYLE`]: 'true',
        ...(root === undefined ? {} : { [`${prefix}_ROOT`]: root }),
      };
    },
    async objectKeys() {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(
          new ListObjectsV2Command({ Bucket: bucket, ...(token === undefined ? {} : { ContinuationToken: token }) }),
        );
        keys.push(...(page.Contents ?? []).flatMap((object) => (object.Key === undefined ? [] : [object.Key])));
        token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
      } while (token !== undefined);
      return keys.sort();
    },
    async objectText(key) {
      const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      if (object.Body === undefined) throw new Error(`no body for ${key}`);
      return object.Body.transformToString();
    },
    async pendingUploads() {
      try {
        return (await readdir(uploadsOf(bucket))).sort();
      } catch {
        return [];
      }
    },
    async close() {
      client.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      s3rver.logger.exceptions.unhandle();
      s3rver.logger.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
