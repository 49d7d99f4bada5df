import { randomBytes, randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { requireCollection } from '../../catalog/overview/lookup.js';
import { handleCreate } from '../commands/create.js';
import { variantPrefix } from './transform/transformer.js';
import { handleDelete } from '../commands/delete.js';
import { toPrimaryKey } from '../commands/primary-key.js';
import { selectByQuery } from '../commands/select-by-query.js';
import type { CommandContext, Item, PrimaryKey, Selection } from '../commands/types.js';
import { handleUpdate } from '../commands/update.js';
import type { Config } from '../config/index.js';
import {
  ForbiddenError,
  invariant,
  InvalidPayloadError,
  ServiceError,
  ServiceUnavailableError,
  UnsupportedMediaTypeError,
} from '../errors.js';
import { AddressDenyList } from './address-deny-list.js';
import { fetchExternal } from './fetch-external.js';
import {
  baseType,
  cleanName,
  diskName,
  filenameFromDisposition,
  filenameFromUrl,
  isTypeAllowed,
  shortenName,
  titleOf,
} from './file-names.js';
import { imageSize } from './image-size.js';
import type { Storage } from './storage/create-storage.js';
import { UploadMeter } from './upload-meter.js';

export const FILES_COLLECTION = 'svc_files';

/** One file's content as it arrives: a multipart part, a URL's response, an export. */
export interface Upload {
  readonly stream: Readable;
  /** The original file name (becomes `filename_download`). */
  readonly filename: string;
  /** The MIME type of the content (becomes `type`). */
  readonly type: string;
}

/** Stored content waiting for its svc_files row. */
export interface StagedFile {
  /** The caller's fields over the upload's defaults: written with the caller's permissions. */
  readonly payload: Item;
  /** What only the content tells (`id`, `filename_disk`, `storage`, `filesize`, ...): the service's. */
  readonly serverValues: Item;
  readonly location: string;
  /** `filename_disk`: where the content goes once its row is written. */
  readonly path: string;
  /** Where the content waits until then. */
  readonly staging: string;
}

export interface FileLibraryDeps {
  readonly config: Pick<Config, 'mimeTypeAllowList' | 'storage' | 'importIpDenyList'>;
  readonly storage: Storage;
  readonly logger: { warn(details: Record<string, unknown>, message: string): void };
}

interface FileRow {
  readonly id: string;
  readonly storage: string;
  readonly filename_disk: string | null;
}

/**
 * The file library: svc_files rows written through
 * the write side (permissions, validation, journal) and their contents in storage, kept in
 * step. Content is streamed to storage before its row is written, so a row never points at
 * a half-written file; when the row cannot be written the content is removed again, and
 * deleting rows deletes their contents after the commit.
 */
export class FileLibrary {
  readonly #denyList: AddressDenyList;

  constructor(private readonly deps: FileLibraryDeps) {
    this.#denyList = new AddressDenyList(deps.config.importIpDenyList);
  }

  /**
   * Stores the content of a new file and returns the row to create for it: `fields` (the
   * caller's partial file object) over the defaults from the upload (`filename_download`,
   * `title`), and the server's values, what only the content can tell (`id`, `storage`,
   * `filename_disk`, `type`, `filesize`, `width`/`height`, `uploaded_on`; a `filename_disk`
   * or `filesize` among `fields` is ignored by the write side). The caller's create
   * permission is checked before a byte is stored. The content waits under a staging name
   * until {@link create} wrote its row: an upload naming the `id` of an existing file never
   * touches that file's content. Content the service made itself (`isGenerated`: exports,
   * under an id the service reserved) goes straight to its place, so that a retry overwrites
   * what a dead worker left, and is not held to the limits of uploads
   * (FILES_MIME_TYPE_ALLOW_LIST, FILES_MAX_UPLOAD_SIZE).
   */
  async stage(
    ctx: CommandContext,
    upload: Upload,
    fields: Item,
    options: { isGenerated?: boolean } = {},
  ): Promise<StagedFile> {
    const isGenerated = options.isGenerated === true;
    if (!isGenerated) this.#requireAllowedType(upload);
    ctx.permissions.checkPayload('create', FILES_COLLECTION, fields);
    const id = fields['id'] === undefined ? randomUUID() : requireUuid(fields['id']);
    const location = this.#locationOf(fields);
    const filename = fileNameOf(upload);
    const path = diskName(id, filename, upload.type);
    const staging = isGenerated ? path : `${path}.${randomBytes(6).toString('hex')}.staging`;
    const content = await this.#store(
      location,
      staging,
      upload.stream,
      isGenerated ? Infinity : this.deps.config.storage.maxUploadSize,
    );
    return {
      location,
      path,
      staging,
      payload: { filename_download: filename, title: titleOf(filename), ...fields },
      serverValues: { ...content, id, storage: location, filename_disk: path, type: upload.type },
    };
  }

  /**
   * POST /files/import: the file at `url` becomes a new file. The URL
   * may not lead into IMPORT_IP_DENY_LIST, not even through DNS or a redirect; that, and any
   * failed fetch, is SERVICE_UNAVAILABLE `external-file`. Name and type come from the
   * response's Content-Disposition and Content-Type, or the URL's path.
   */
  async importUrl(ctx: CommandContext, url: unknown, fields: Item): Promise<PrimaryKey> {
    if (typeof url !== 'string' || !URL.canParse(url)) throw new InvalidPayloadError('"url" must be a valid uri');
    ctx.permissions.checkPayload('create', FILES_COLLECTION, fields);
    const unavailable = (error: unknown) => {
      this.deps.logger.warn({ err: error, url }, 'file import: fetch failed');
      return new ServiceUnavailableError('external-file', `Couldn't fetch file from URL "${url}"`);
    };
    let fetched: Awaited<ReturnType<typeof fetchExternal>>;
    try {
      fetched = await fetchExternal(url, { denyList: this.#denyList });
    } catch (error) {
      throw unavailable(error);
    }
    const { headers } = fetched.response;
    const upload: Upload = {
      stream: fetched.response,
      filename: filenameFromDisposition(headers['content-disposition']) ?? filenameFromUrl(fetched.url) ?? 'file',
      type: baseType(headers['content-type']),
    };
    let staged: StagedFile;
    try {
      staged = await this.stage(ctx, upload, fields);
    } catch (error) {
      throw error instanceof ServiceError ? error : unavailable(error);
    }
    const [key] = await this.create(ctx, [staged]);
    invariant(key !== undefined, 'an imported file has its key');
    return key;
  }

  /**
   * Creates the rows of staged files in one transaction, then puts their contents in place;
   * their contents go when it fails.
   */
  async create(ctx: CommandContext, staged: readonly StagedFile[]): Promise<PrimaryKey[]> {
    let keys: PrimaryKey[];
    try {
      const command = {
        kind: 'create',
        collection: FILES_COLLECTION,
        data: staged.map((s) => s.payload),
        serverValues: staged.map((s) => s.serverValues),
      } as const;
      keys = await handleCreate(command, ctx);
    } catch (error) {
      await this.discard(staged);
      throw error;
    }
    for (const file of staged) {
      if (file.staging !== file.path) await this.deps.storage.location(file.location).move(file.staging, file.path);
    }
    return keys;
  }

  /** Removes the contents of staged files whose rows will not be written. */
  async discard(staged: readonly StagedFile[]): Promise<void> {
    for (const file of staged) await this.#deleteContent(file.location, file.staging);
  }

  /**
   * PATCH /files/:id with a new `file` part: once the caller may update the file (a file they
   * may not is FORBIDDEN as a missing one is, nothing read), the new content is stored aside,
   * the row updated (through the write side, with the caller's permissions) and only then the
   * content put in place; a failed update leaves the old content and row as they were.
   */
  async replace(ctx: CommandContext, rawKey: unknown, upload: Upload, fields: Item): Promise<PrimaryKey> {
    const row = await this.#requireRow(ctx, rawKey);
    // A file the caller may not update is refused as a missing one is: before any content is stored.
    await ctx.db.transaction((trx) => ctx.permissions.checkItems(trx, 'update', FILES_COLLECTION, [row.id]));
    this.#requireAllowedType(upload);
    ctx.permissions.checkPayload('update', FILES_COLLECTION, fields);
    const location = fields['storage'] === undefined ? row.storage : this.#locationOf(fields);
    const filename = fileNameOf(upload);
    const path = diskName(row.id, filename, upload.type);
    const staging = `${row.id}.${randomBytes(6).toString('hex')}.replacing`;
    const content = await this.#store(location, staging, upload.stream, this.deps.config.storage.maxUploadSize);
    let keys: PrimaryKey[];
    try {
      const serverValues = { ...content, storage: location, filename_disk: path, type: upload.type };
      const command = {
        kind: 'update',
        collection: FILES_COLLECTION,
        keys: [row.id],
        data: { filename_download: filename, ...fields },
        serverValues,
      } as const;
      keys = await handleUpdate(command, ctx);
    } catch (error) {
      await this.#deleteContent(location, staging);
      throw error;
    }
    await this.deps.storage.location(location).move(staging, path);
    if (row.filename_disk !== null && (row.storage !== location || row.filename_disk !== path)) {
      await this.#deleteContent(row.storage, row.filename_disk);
    }
    if (row.filename_disk !== null) await this.#deleteVariants(row.storage, row.id);
    return keys[0] ?? row.id;
  }

  /** Deletes file rows (through the write side) and, after the commit, their contents. */
  async delete(ctx: CommandContext, selection: Selection): Promise<PrimaryKey[]> {
    const collection = requireCollection(ctx.overview, FILES_COLLECTION);
    const keys =
      'keys' in selection
        ? selection.keys
        : await ctx.db.transaction((trx) => selectByQuery(ctx, trx, collection, selection.query));
    const valid = keys
      .map((key) => toPrimaryKey(collection, key))
      .filter((key): key is PrimaryKey => key !== undefined);
    const rows =
      valid.length === 0
        ? []
        : await ctx.db<FileRow>(FILES_COLLECTION).whereIn('id', valid).select('id', 'storage', 'filename_disk');
    const deleted = await handleDelete({ kind: 'delete', collection: FILES_COLLECTION, keys }, ctx);
    for (const row of rows) {
      if (row.filename_disk !== null) await this.#deleteContent(row.storage, row.filename_disk);
      await this.#deleteVariants(row.storage, row.id);
    }
    return deleted;
  }

  #requireAllowedType(upload: Upload): void {
    if (!isTypeAllowed(upload.type, this.deps.config.mimeTypeAllowList)) {
      upload.stream.resume();
      throw new UnsupportedMediaTypeError(upload.type, 'file upload');
    }
  }

  /** `storage` of the payload (a configured location), or the default location. */
  #locationOf(fields: Item): string {
    const requested = fields['storage'];
    if (requested === undefined || requested === null) return this.deps.storage.defaultLocation;
    if (typeof requested !== 'string' || !this.deps.storage.locations.includes(requested)) {
      throw new InvalidPayloadError(
        `Storage location "${typeof requested === 'string' ? requested : JSON.stringify(requested)}" doesn't exist`,
      );
    }
    return requested;
  }

  /** Streams content to storage; the values of the row that only the content can tell. */
  async #store(location: string, path: string, stream: Readable, maxSize: number): Promise<Item> {
    const meter = new UploadMeter(maxSize);
    const results = await Promise.allSettled([
      pipeline(stream, meter),
      this.deps.storage.location(location).write(path, meter),
    ]);
    const failures = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
    if (failures.length > 0) {
      // A cut or oversize upload leaves nothing behind (the driver may have written a part).
      await this.#deleteContent(location, path);
      // The meter's own error (CONTENT_TOO_LARGE) explains the other side's premature close.
      throw failures.find((e) => e instanceof ServiceError) ?? failures[0];
    }
    const size = imageSize(meter.head());
    return {
      filesize: meter.size,
      width: size?.width ?? null,
      height: size?.height ?? null,
      uploaded_on: new Date().toISOString(),
    };
  }

  /** The row of an existing file, or FORBIDDEN (spec, Errors, rule 1). */
  async #requireRow(ctx: CommandContext, rawKey: unknown): Promise<FileRow> {
    const key = toPrimaryKey(requireCollection(ctx.overview, FILES_COLLECTION), rawKey);
    const row =
      key === undefined
        ? undefined
        : await ctx.db<FileRow>(FILES_COLLECTION).where('id', key).first('id', 'storage', 'filename_disk');
    if (row === undefined) throw new ForbiddenError();
    return row;
  }

  /** The image variants of a file (transform/), made from content that is gone or replaced. */
  async #deleteVariants(location: string, id: string): Promise<void> {
    if (!this.deps.storage.locations.includes(location)) return;
    const driver = this.deps.storage.location(location);
    try {
      for (const name of await driver.list(variantPrefix(id))) await this.#deleteContent(location, name);
    } catch (error) {
      this.deps.logger.warn({ err: error, location, id }, 'image variants could not be listed for deletion');
    }
  }

  /** Content left behind is logged, not fatal: the rows are what callers see. */
  async #deleteContent(location: string, path: string): Promise<void> {
    try {
      await this.deps.storage.location(location).delete(path);
    } catch (error) {
      this.deps.logger.warn({ err: error, location, path }, 'file content could not be deleted');
    }
  }
}

/** svc_files.filename_download and title: varchar(255). */
const MAX_NAME_LENGTH = 255;

/**
 * The upload's name as `filename_download`: without folders or control characters (a NUL
 * that PostgreSQL cannot store, line breaks), as a URL import's name is, `file` when nothing
 * is left; a longer name than the column holds shortened, its extension kept.
 */
function fileNameOf(upload: Upload): string {
  return shortenName(cleanName(upload.filename) ?? 'file', MAX_NAME_LENGTH);
}

function requireUuid(value: unknown): string {
  const text = typeof value === 'string' ? value.toLowerCase() : '';
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(text)) {
    throw new InvalidPayloadError('"id" must be a valid GUID');
  }
  return text;
}
