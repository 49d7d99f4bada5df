import { createHash } from 'node:crypto';
import { InvalidPayloadError } from '../../src/errors.js';
import { isSystemName } from '../system/definitions.js';

/**
 * Longest collection or field name: PostgreSQL's identifier limit (63 bytes), so the same
 * names work on every dialect (MySQL allows 64, svc_* name columns hold 64).
 */
const MAX_NAME_LENGTH = 63;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Names no collection or field may have: `prototype` and every member of Object.prototype
 * (`__proto__`, `constructor`, `toString`, `valueOf`, `hasOwnProperty`, ...). Names become
 * object keys all through a request (payloads, items, permissions, GraphQL types), where such a
 * key reads or sets what every object inherits: a collection `constructor` once made every
 * request needing the schema a 500, a field `__proto__` stored null. The service still serves
 * such tables made outside it (catalog/overview/name-map.ts); it only never creates them.
 */
const RESERVED_NAMES: ReadonlySet<string> = new Set(['prototype', ...Object.getOwnPropertyNames(Object.prototype)]);

/** A collection name the service may create: an identifier, not reserved, not too long. */
export function assertCollectionName(name: unknown): asserts name is string {
  assertIdentifier('Collection', 'collection', name);
  if (isSystemName(name)) throw new InvalidPayloadError(`Collections can't start with "svc_"`);
}

/** A field name the service may create in `collection`. */
export function assertFieldName(name: unknown, collection: string): asserts name is string {
  assertIdentifier(`Field in collection "${collection}"`, 'field', name);
}

function assertIdentifier(what: string, key: string, name: unknown): asserts name is string {
  if (name === undefined || name === null || name === '') throw new InvalidPayloadError(`"${key}" is required`);
  if (typeof name !== 'string') throw new InvalidPayloadError(`"${key}" must be a string`);
  if (name.length > MAX_NAME_LENGTH) {
    throw new InvalidPayloadError(`${what} name "${name}" is longer than ${MAX_NAME_LENGTH} characters`);
  }
  if (!IDENTIFIER.test(name)) {
    throw new InvalidPayloadError(
      `${what} name "${name}" is not an identifier (letters, digits and "_", not starting with a digit)`,
    );
  }
  if (RESERVED_NAMES.has(name)) {
    throw new InvalidPayloadError(
      `${what} name "${name}" is reserved: "prototype" and the names of Object.prototype's members (such as "__proto__", "constructor", "toString") can't be used`,
    );
  }
}

/**
 * The name among `taken` that `name` equals ignoring case, or undefined. Collection and field
 * names are unique ignoring case on every database: SQLite compares table and column names so,
 * MariaDB's svc_collections / svc_fields rows too (a second `THINGS` was a 500 there), and
 * PostgreSQL would make a second table or column that only the case tells apart.
 */
export function sameNameIgnoringCase(name: string, taken: Iterable<string>): string | undefined {
  const lower = name.toLowerCase();
  for (const other of taken) if (other.toLowerCase() === lower) return other;
  return undefined;
}

/** `<what> "<name>" already exists`, and `as "<other>"` when the other differs in case. */
export function alreadyExists(what: string, name: string, existing: string, where = ''): string {
  return `${what} "${name}" already exists${where}${existing === name ? '' : ` as "${existing}"`}`;
}

/**
 * A constraint or index name for `table.column` that fits every dialect (MySQL refuses names
 * over 64 characters; PostgreSQL truncates at 63): knex's own pattern, shortened with a hash
 * when too long.
 */
export function constraintName(table: string, column: string, kind: 'foreign' | 'unique' | 'index'): string {
  const name = `${table}_${column}_${kind}`;
  if (name.length <= 60) return name;
  const hash = createHash('sha1').update(name).digest('hex').slice(0, 10);
  return `${name.slice(0, 49)}_${hash}`;
}
