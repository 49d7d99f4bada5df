import { Router, type Request, type Response } from 'express';
import type { CollectionOverview, SchemaOverview } from '../../../catalog/overview/types.js';
import type { Item, PrimaryKey, Selection } from '../../commands/types.js';
import { InvalidPayloadError } from '../../errors.js';
import { MAX_DOCUMENT_DEPTH, nestsDeeperThan, tooDeepMessage } from '../../query/index.js';
import { FILES_COLLECTION, type FileLibrary, type StagedFile } from '../../files/file-library.js';
import { isMultipart, readMultipart } from '../multipart.js';
import { requestQuery } from '../read-context.js';
import { ItemsService } from '../../items/items-service.js';
import { readSelection, requireItem, requireKey, type ItemWriteDeps } from './item-writes.js';
import type { WriteAction } from '../../access/write-permissions.js';

export interface FileRouteDeps extends ItemWriteDeps {
  readonly files: FileLibrary;
}

/**
 * The writes of svc_files that are more than item writes, on /files and /items/svc_files alike:
 * uploads (POST multipart), content
 * replacement (PATCH /:id multipart), deletes (which remove the content too) and, on /files,
 * POST /import. JSON bodies of POST and PATCH fall through to the item write routes.
 */
export function fileWriteRoutes(deps: FileRouteDeps, options: { withImport: boolean }): Router {
  const router = Router();

  // Permission to `action` files at all is decided before the body is read (item-writes.ts).
  const context = async (req: Request, action: WriteAction) => {
    const items = new ItemsService(FILES_COLLECTION, deps, { accountability: req.accountability });
    const collection = await items.requireAllowed([action]);
    const overview = await items.schemaOverview();
    const ctx = await items.commandContext();
    // Parsed before writing: a malformed query string must not leave a write behind.
    const query = requestQuery(req);
    const reply = async (res: Response, keys: readonly PrimaryKey[], shape: 'one' | 'many') => {
      const written = await items.readWritten(keys, query, shape);
      if (written === null) res.status(204).end();
      else res.json({ data: written });
    };
    return { overview, collection, ctx, reply, items };
  };

  if (options.withImport) {
    router.post('/import', async (req, res) => {
      const { ctx, reply } = await context(req, 'create');
      const { url, data } = requireItem(req.body ?? {});
      if (url === undefined) throw new InvalidPayloadError('"url" is required');
      const key = await deps.files.importUrl(ctx, url, data === undefined || data === null ? {} : requireItem(data));
      await reply(res, [key], 'one');
    });
  }

  // Text parts are the fields of the files after them; each `file` part is one file.
  router.post('/', async (req, res, next) => {
    if (!isMultipart(req)) {
      next();
      return;
    }
    const { overview, collection, ctx, reply } = await context(req, 'create');
    const fields: Record<string, unknown> = {};
    const staged: StagedFile[] = [];
    try {
      for await (const part of readMultipart(req, deps.config.maxPayloadSize)) {
        if (part.kind === 'field') fields[part.name] = formValue(overview, collection, part.name, part.value);
        else staged.push(await deps.files.stage(ctx, part, { ...fields }));
      }
    } catch (error) {
      await deps.files.discard(staged);
      throw error;
    }
    if (staged.length === 0) throw new InvalidPayloadError('"file" is required');
    const keys = await deps.files.create(ctx, staged);
    await reply(res, keys, staged.length === 1 ? 'one' : 'many');
  });

  // Text parts before the `file` part update the row with the new content; a body without a
  // file part is a plain update. Parts after the file part are not read.
  router.patch('/:id', async (req, res, next) => {
    if (!isMultipart(req)) {
      next();
      return;
    }
    const { overview, collection, ctx, reply, items } = await context(req, 'update');
    const id = req.params['id'];
    const fields: Record<string, unknown> = {};
    let key: PrimaryKey | undefined;
    for await (const part of readMultipart(req, deps.config.maxPayloadSize)) {
      if (part.kind === 'field') {
        fields[part.name] = formValue(overview, collection, part.name, part.value);
        continue;
      }
      key = await deps.files.replace(ctx, id, part, fields);
      break;
    }
    key ??= (await items.update({ keys: [id], data: fields }))[0];
    await reply(res, key === undefined ? [] : [key], 'one');
  });

  router.delete('/', async (req, res) => {
    const { items } = await context(req, 'delete');
    const body: unknown = req.body;
    const selection: Selection = Array.isArray(body)
      ? { keys: body.map(requireKey) }
      : readSelection(requireItem(body ?? {}));
    await items.delete(selection);
    res.status(204).end();
  });

  router.delete('/:id', async (req, res) => {
    const { items } = await context(req, 'delete');
    await items.deleteOne(req.params['id']);
    res.status(204).end();
  });

  return router;
}

/**
 * A text part's value: `null`, `true` and `false` as JSON; JSON text for json fields
 * (`tags`, `metadata`); everything else as the string it is.
 */
function formValue(overview: SchemaOverview, collection: CollectionOverview, name: string, value: string): unknown {
  const trimmed = value.trim();
  if (trimmed === 'null') return null;
  if (trimmed === 'true' || trimmed === 'false') return trimmed === 'true';
  if (overview.collections[collection.collection]?.fields[name]?.type === 'json') {
    if (nestsDeeperThan(trimmed, MAX_DOCUMENT_DEPTH, 'json'))
      throw new InvalidPayloadError(tooDeepMessage(`"${name}"`));
    try {
      return JSON.parse(trimmed) as Item;
    } catch {
      return value;
    }
  }
  return value;
}
