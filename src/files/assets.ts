import { canReadCollection } from '../access/read-access.js';
import { ForbiddenError, RangeNotSatisfiableError } from '../errors.js';
import { readItemByKey, type ReadContext, type Reader } from '../query/index.js';
import { FILES_COLLECTION } from './file-library.js';
import type { Storage } from './storage/create-storage.js';
import type { Asset, ByteRange } from './storage/storage-driver.js';

interface AssetRow {
  readonly storage: string;
  readonly filename_disk: string | null;
  readonly filename_download: string;
  readonly type: string | null;
}

/**
 * The asset of a file the reader may read: read
 * permission on the svc_files row decides, whichever of its fields it lets the reader see
 * (as Directus checks access), and an unknown id, a row without content or content missing
 * from storage are all FORBIDDEN (nothing about existence leaks).
 */
export async function findAsset(ctx: ReadContext, reader: Reader, storage: Storage, id: string): Promise<Asset> {
  if (!canReadCollection(reader.access, FILES_COLLECTION)) throw new ForbiddenError();
  const rowReader: Reader = {
    ...reader,
    access: {
      rowFilter: (collection) => reader.access.rowFilter(collection),
      readableFields: (collection) =>
        collection === FILES_COLLECTION ? '*' : reader.access.readableFields(collection),
    },
  };
  await readItemByKey(ctx, FILES_COLLECTION, id, { fields: ['id'] }, rowReader);
  const row = await ctx
    .db<AssetRow>(FILES_COLLECTION)
    .where('id', id.toLowerCase())
    .first('storage', 'filename_disk', 'filename_download', 'type');
  if (row?.filename_disk === null || row?.filename_disk === undefined || !storage.locations.includes(row.storage))
    throw new ForbiddenError();
  const driver = storage.location(row.storage);
  const path = row.filename_disk;
  const stat = await driver.stat(path);
  if (stat === undefined) throw new ForbiddenError();
  return {
    type: servedType(row.type),
    filenameDownload: row.filename_download,
    size: stat.size,
    modified: stat.modified,
    open: (range) => driver.read(path, range),
  };
}

/** `type/subtype`, RFC 9110 tokens, then any parameters in visible ASCII. */
const MEDIA_TYPE = /^[!#$%&'*+.^_`|~0-9a-z-]+\/[!#$%&'*+.^_`|~0-9a-z-]+(\s*;[\x20-\x7e]*)?$/i;

/**
 * The `Content-Type` of a file's content: its `type` when that is a media type, else
 * application/octet-stream. `type` is anyone's text (a JSON write may set it), and one that
 * is no header value (a line break, characters beyond Latin-1) would fail the answer.
 */
function servedType(type: string | null): string {
  const trimmed = type?.trim() ?? '';
  return MEDIA_TYPE.test(trimmed) ? trimmed : 'application/octet-stream';
}

/**
 * `Range: bytes=a-b | a- | -n` against a file of `size` bytes. Undefined: serve the whole
 * file (no header, another unit, or several ranges, which RFC 9110 lets a server ignore).
 * A range that is malformed or starts beyond the end: RANGE_NOT_SATISFIABLE.
 */
export function parseRange(header: string | undefined, size: number): ByteRange | undefined {
  if (header === undefined) return undefined;
  const match = /^\s*bytes\s*=\s*(.*)$/i.exec(header);
  if (match === null) return undefined;
  const spec = (match[1] ?? '').trim();
  if (spec.includes(',')) return undefined;
  const parts = /^(\d*)-(\d*)$/.exec(spec);
  const fail = () => new RangeNotSatisfiableError(spec);
  if (parts === null) throw fail();
  const [, first = '', last = ''] = parts;
  if (first === '' && last === '') throw fail();
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) throw fail();
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (start >= size || end < start) throw fail();
  return { start, end };
}

/**
 * Media types a browser runs as a document or script when served inline from the API's origin:
 * HTML, and every XML type (`text/xml`, `application/xml`, any `+xml`: SVG, RSS, MathML...),
 * whose XHTML elements run scripts.
 */
const ACTIVE_CONTENT =
  /^(text\/html|text\/xml|application\/xml|[^/;\s]+\/[^;\s]*\+xml|text\/javascript|application\/javascript|application\/ecmascript|text\/xsl)\s*(;|$)/i;

/**
 * Headers that keep an uploaded file from acting as a page of the API's origin (a `type` is the
 * uploader's word): no sniffing for any asset, and a sandbox without scripts for active content.
 */
export function assetSafetyHeaders(type: string): Record<string, string> {
  const headers: Record<string, string> = { 'X-Content-Type-Options': 'nosniff' };
  if (ACTIVE_CONTENT.test(type.trim()))
    headers['Content-Security-Policy'] = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox";
  return headers;
}
