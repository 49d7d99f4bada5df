import { queryFlag } from '../query-flag.js';
import { Router, type Request } from 'express';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { applySchema, diffSchema, promotionContext, snapshotSchema } from '../../../catalog/schema/index.js';
import type { SchemaContext } from '../../../catalog/ddl/context.js';
import { InvalidPayloadError, InvalidQueryError } from '../../errors.js';
import { MAX_DOCUMENT_DEPTH, nestsDeeperThan, tooDeepMessage } from '../../query/index.js';
import { contentDisposition } from '../../files/file-names.js';
import { SERVICE_VERSION } from '../../version.js';
import { isMultipart, readMultipart } from '../multipart.js';
import { requireAdmin } from '../require-admin.js';

/** The largest file POST /schema/diff and /schema/apply read from a multipart body. */
const SNAPSHOT_FILE_MAX_BYTES = 16 * 1024 * 1024;

/** The schema context plus the table exclusions the overview builder needs (DB_EXCLUDE_TABLES). */
export interface SchemaPromotionDeps extends SchemaContext {
  readonly excludeTables: readonly string[];
  /** MAX_PAYLOAD_SIZE: also the largest file taken by POST /schema/diff and /schema/apply. */
  readonly maxPayloadSize?: number;
}

/**
 * /schema (Directus 10's schema endpoints, admin only): GET /snapshot (`?export=json|yaml`
 * downloads it), POST /diff (`?force=true` across vendors; 204 when nothing differs),
 * POST /apply (`{hash, diff}`; `?allow_destructive=true` for steps that drop data; 204). Both
 * POSTs take their document as a JSON body or, as Directus's app uploads it, as the `file`
 * part of a multipart body (JSON or YAML).
 */
export function schemaRoutes(deps: SchemaPromotionDeps): Router {
  const router = Router();
  const ctx = promotionContext(deps, { service: SERVICE_VERSION, excludeTables: deps.excludeTables });

  router.get('/snapshot', async (req, res) => {
    requireAdmin(req);
    const format = req.query['export'];
    if (format !== undefined && format !== 'json' && format !== 'yaml') {
      throw new InvalidQueryError('"export" must be one of [json, yaml]');
    }
    const snapshot = await snapshotSchema(ctx);
    if (format === undefined) {
      res.json({ data: snapshot });
      return;
    }
    const name = `snapshot-${new Date().toISOString().replace(/[:.]/g, '-')}.${format}`;
    res.setHeader('Content-Disposition', contentDisposition('attachment', name));
    if (format === 'yaml') res.type('text/yaml; charset=utf-8').send(toYaml(snapshot));
    else res.type('application/json; charset=utf-8').send(JSON.stringify(snapshot, null, 2));
  });

  router.post('/diff', async (req, res) => {
    requireAdmin(req);
    const snapshot = await uploadedDocument(req, deps.maxPayloadSize);
    const plan = await diffSchema(ctx, snapshot, { force: queryFlag(req, 'force'), forceFlag: '?force=true' });
    if (plan === null) {
      res.status(204).end();
      return;
    }
    res.json({ data: { hash: plan.hash, diff: plan.diff } });
  });

  router.post('/apply', async (req, res) => {
    requireAdmin(req);
    await applySchema(ctx, await uploadedDocument(req, deps.maxPayloadSize), {
      allowDestructive: queryFlag(req, 'allow_destructive'),
    });
    res.status(204).end();
  });

  return router;
}

/** The request's document: its JSON body, or the `file` part of a multipart body. */
async function uploadedDocument(req: Request, maxPayloadSize: number | undefined): Promise<unknown> {
  return isMultipart(req) ? await documentFile(req, maxPayloadSize ?? SNAPSHOT_FILE_MAX_BYTES) : (req.body as unknown);
}

/** The `file` part of a multipart body, parsed as YAML (JSON is YAML too); INVALID_PAYLOAD otherwise. */
async function documentFile(req: Request, maxBytes: number): Promise<unknown> {
  for await (const part of readMultipart(req, maxBytes)) {
    if (part.kind !== 'file' || part.name !== 'file') continue;
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of part.stream as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBytes) throw new InvalidPayloadError(`The uploaded file is larger than ${maxBytes} bytes`);
      chunks.push(chunk);
    }
    const bytes = Buffer.concat(chunks);
    // The YAML parser recurses once per level: `'['.repeat(100000)` ran the process out of memory.
    if (nestsDeeperThan(bytes, MAX_DOCUMENT_DEPTH, 'yaml')) {
      throw new InvalidPayloadError(tooDeepMessage('The snapshot file'));
    }
    try {
      return parseYaml(bytes.toString('utf8')) as unknown;
    } catch (error) {
      throw new InvalidPayloadError(
        `The uploaded file is neither JSON nor YAML: ${(error as Error).message.split('\n')[0]}`,
      );
    }
  }
  throw new InvalidPayloadError('"file" is required');
}
