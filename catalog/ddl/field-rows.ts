import type { Knex } from 'knex';
import { typeFixedBy } from '../overview/field-type.js';
import type { FieldType } from '../overview/types.js';
import { FIELD_ROW, FIELD_ROW_DEFAULTS, encodeRow, parseCsv } from '../overview/meta-rows.js';

/** Specials that make a field without a column an alias. */
const ALIAS_SPECIALS = ['alias', 'o2m', 'm2m', 'm2a', 'files', 'translations', 'no-data', 'group'];

/**
 * The specials a field of `type` needs for its type to read back (a hash column is a plain
 * varchar to the database; an alias needs an alias special to exist at all). A csv field gets
 * `cast-csv` only when asked, as in Directus 10: without it the column is text and its values
 * read and write as the stored string.
 */
function specialFor(type: FieldType, given: unknown): string[] | null {
  const special = parseCsv(given) ?? [];
  const needed =
    type === 'hash'
      ? ['hash']
      : type === 'alias' && !special.some((s) => ALIAS_SPECIALS.includes(s))
        ? ['alias', 'no-data']
        : [];
  const merged = [...special, ...needed.filter((s) => !special.includes(s))];
  return merged.length === 0 ? null : merged;
}

/** A new svc_fields row: the migration's defaults under the caller's meta. */
export function newFieldRow(
  collection: string,
  field: string,
  type: FieldType,
  meta: Readonly<Record<string, unknown>> | undefined,
): Record<string, unknown> {
  const given = meta ?? {};
  return {
    ...encodeRow(FIELD_ROW, { ...FIELD_ROW_DEFAULTS, ...given, special: specialFor(type, given['special']) }),
    collection,
    field,
    id: undefined,
  };
}

/** The specials in `special` that make a field of another type than `type` (`hash` of a string). */
export function specialsOfOtherTypes(type: FieldType, special: unknown): string[] {
  return (parseCsv(special) ?? []).filter((flag) => (typeFixedBy(flag) ?? type) !== type);
}

/**
 * Updates the field's svc_fields row with `meta`, creating the row when the field had none.
 * The stored specials that fix another type than `type` go (a hash field changed to string
 * drops `hash`, or it would still read as hash); `meta.special` is taken as given.
 */
export async function upsertFieldRow(
  trx: Knex.Transaction,
  collection: string,
  field: string,
  type: FieldType,
  meta: Readonly<Record<string, unknown>>,
): Promise<void> {
  const existing = await trx('svc_fields')
    .where({ collection, field })
    .first<{ special: unknown } | undefined>('special');
  if (existing === undefined) {
    await trx('svc_fields').insert(withoutUndefined(newFieldRow(collection, field, type, meta)));
    return;
  }
  const others = specialsOfOtherTypes(type, existing.special);
  const special =
    'special' in meta ? meta['special'] : (parseCsv(existing.special) ?? []).filter((flag) => !others.includes(flag));
  const {
    id: _id,
    collection: _c,
    field: _f,
    ...changes
  } = encodeRow(FIELD_ROW, { ...meta, special: specialFor(type, special) });
  await trx('svc_fields').where({ collection, field }).update(changes);
}

export function withoutUndefined(row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row).filter(([, v]) => v !== undefined));
}
