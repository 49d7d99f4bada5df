import { extname } from 'node:path';

/** Extensions for types whose uploads often come without a file name (URL imports, exports). */
const EXTENSION_OF_TYPE: Readonly<Record<string, string>> = {
  'application/json': '.json',
  'application/pdf': '.pdf',
  'application/xml': '.xml',
  'image/gif': '.gif',
  'image/jpeg': '.jpg',
  'image/png': '.png',
  'image/svg+xml': '.svg',
  'image/webp': '.webp',
  'text/csv': '.csv',
  'text/html': '.html',
  'text/plain': '.txt',
  'text/xml': '.xml',
  'text/yaml': '.yaml',
};

/**
 * `filename_disk` = `<id>.<ext>`: the extension of the
 * original name, or of the type; only letters and digits, so a name can never steer the path.
 */
export function diskName(id: string, filename: string, type: string): string {
  const fromName = extname(filename).toLowerCase();
  const extension = /^\.[a-z0-9]{1,16}$/.test(fromName) ? fromName : (EXTENSION_OF_TYPE[type] ?? '');
  return `${id}${extension}`;
}

/** `title` default: the file name humanised (extension dropped, `-`/`_` → space, title case). */
export function titleOf(filename: string): string {
  const base = filename.slice(0, filename.length - extname(filename).length) || filename;
  return base
    .split(/[-_\s]+/)
    .filter((word) => word !== '')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(' ');
}

/** The MIME type without parameters, lower-cased; `application/octet-stream` when absent. */
export function baseType(contentType: string | undefined): string {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return type === '' ? 'application/octet-stream' : type;
}

/** FILES_MIME_TYPE_ALLOW_LIST: exact types, `type/*` wildcards, or `*` + `/*` for everything. */
export function isTypeAllowed(type: string, allowList: readonly string[]): boolean {
  const [major] = type.split('/');
  return allowList.some((entry) => {
    const pattern = entry.toLowerCase();
    return pattern === '*/*' || pattern === type || pattern === `${major}/*`;
  });
}

/**
 * `Content-Disposition` of a download: the name as an ASCII fallback with quotes and
 * control characters replaced, plus the exact name as RFC 5987 `filename*` when it differs.
 */
export function contentDisposition(kind: 'inline' | 'attachment', filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const header = `${kind}; filename="${fallback}"`;
  return fallback === filename ? header : `${header}; filename*=UTF-8''${encodeRFC5987(filename)}`;
}

/** The file name a `Content-Disposition` response header carries, if any. */
export function filenameFromDisposition(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const extended = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(header)?.[1];
  if (extended !== undefined) {
    try {
      return cleanName(decodeURIComponent(extended.trim()));
    } catch {
      // A malformed encoding: fall back to the plain parameter.
    }
  }
  const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]+))/.exec(header);
  const value = plain?.[1]?.replace(/\\(.)/g, '$1') ?? plain?.[2]?.trim();
  return value === undefined ? undefined : cleanName(value);
}

/** The last segment of a URL's path, decoded; undefined when the path ends in `/`. */
export function filenameFromUrl(url: URL): string | undefined {
  const segment = url.pathname.split('/').pop() ?? '';
  try {
    return cleanName(decodeURIComponent(segment));
  } catch {
    return cleanName(segment);
  }
}

/**
 * `name` within `max` characters (code points, as a varchar counts them): the part before
 * the extension shortened, the extension (as `diskName` reads it) kept.
 */
export function shortenName(name: string, max: number): string {
  const characters = Array.from(name);
  if (characters.length <= max) return name;
  const extension = extname(name);
  const kept = /^\.[A-Za-z0-9]{1,16}$/.test(extension) ? extension : '';
  return characters.slice(0, max - kept.length).join('') + kept;
}

/** A name without folders or control characters; undefined when nothing is left. */
export function cleanName(name: string): string | undefined {
  const base = name.split(/[\\/]/).pop() ?? '';
  const cleaned = base.replace(/[\x00-\x1f\x7f]/g, '').trim();
  return cleaned === '' || cleaned === '.' || cleaned === '..' ? undefined : cleaned;
}

function encodeRFC5987(value: string): string {
  return encodeURIComponent(value).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
