import type { FieldOverview } from '../../../catalog/overview/types.js';
import { canReadCollection, canReadField } from '../../access/read-access.js';
import { ForbiddenError } from '../../errors.js';
import type { BuildContext } from './build-context.js';
import type { HiddenValues } from './nodes.js';

/**
 * Columns that hold an item's values by field name, for the item its row's `collection`
 * names, and whether the row permission already keeps rows to collections the caller may
 * read (svc_revisions, svc_versions: build-condition.ts, the journal condition).
 */
const ITEM_VALUE_COLUMNS: Readonly<
  Record<string, { readonly columns: readonly string[]; readonly rowsReadable: boolean }>
> = {
  svc_revisions: { columns: ['data', 'delta'], rowsReadable: true },
  svc_versions: { columns: ['delta'], rowsReadable: true },
};

/**
 * What a non-admin may not see of an item-values column (svc_revisions.data/delta,
 * svc_versions.delta): the fields of each collection its read permission leaves out, as a
 * read of the item itself leaves them out (canReadField), and the collections it may not read
 * at all (their values read as null). Undefined: nothing to hold back (admins, other columns,
 * a caller reading every field of every collection the rows can name).
 */
export function hiddenValuesOf(ctx: BuildContext, collection: string, column: string): HiddenValues | undefined {
  const values = ITEM_VALUE_COLUMNS[collection];
  if (ctx.accountability.admin || values === undefined || !values.columns.includes(column)) return undefined;
  const whole: string[] = [];
  const partial: { collection: string; fields: string[] }[] = [];
  let isAnyUnreadable = false;
  for (const [name, target] of Object.entries(ctx.overview.collections)) {
    if (!canReadCollection(ctx.access, name)) {
      isAnyUnreadable = true;
      continue;
    }
    const fields = Object.keys(target.fields).filter((field) => !canReadField(ctx.access, name, field));
    if (fields.length === 0) whole.push(name);
    else partial.push({ collection: name, fields });
  }
  if (partial.length === 0 && (values.rowsReadable || !isAnyUnreadable)) return undefined;
  return { collectionColumn: 'collection', whole, partial };
}

/**
 * Sorting, grouping, aggregating or counting an item-values column the caller may only partly
 * read would reveal the rest: FORBIDDEN, as for masked fields (resolve.ts, requireUnmasked).
 */
export function requireWholeValues(ctx: BuildContext, collection: string, field: FieldOverview): FieldOverview {
  if (hiddenValuesOf(ctx, collection, field.field) !== undefined) throw new ForbiddenError();
  return field;
}
