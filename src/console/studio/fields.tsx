/**
 * A field's column and its input, chosen by its type and `meta.interface` (as Directus's Data
 * Studio does): the relational ones from relations/ (many-to-one, files, the to-many lists), the
 * scalar ones from inputs/ (scalar-input.tsx, displays.tsx).
 */
import type { ReactElement } from 'react';
import { required } from 'react-admin';
import type { CollectionInfo, FieldInfo } from './catalogue.js';
import { isRelationalList, relationalColumn, relationalInput } from './relations/index.js';
import type { FieldState } from './inputs/conditions.js';
import { displayColumnOf } from './inputs/displays.js';
import { scalarInputOf } from './inputs/scalar-input.js';

/** Fields an editor sees: stored ones and the relational lists (o2m, m2m, m2a, files), not hidden. */
export function visibleFields(collection: CollectionInfo): FieldInfo[] {
  return collection.fields.filter((f) => !f.hidden && (f.type !== 'alias' || isRelationalList(f)));
}

/** The columns shown before the editor picks: the key and the next five stored, non-JSON fields. */
export function defaultColumns(collection: CollectionInfo): string[] {
  const fields = visibleFields(collection);
  const pk = fields.filter((f) => f.isPrimaryKey);
  return [...pk, ...fields.filter((f) => !f.isPrimaryKey && f.type !== 'json' && f.type !== 'alias')]
    .slice(0, 6)
    .map((f) => f.name);
}

export function columnOf(f: FieldInfo): ReactElement {
  return f.relation === undefined ? displayColumnOf(f) : relationalColumn(f);
}

interface InputContext {
  readonly isCreate: boolean;
  /** Fields the role may write (`*` or names), from /permissions/me. */
  readonly writable: (field: string) => boolean;
  /** What the field's meta.conditions make of it for the form's values (inputs/form-fields.tsx). */
  readonly state?: FieldState;
}

/** The input for `f`, or null when the form does not show it (the key on create, generated values). */
export function inputOf(f: FieldInfo, context: InputContext): ReactElement | null {
  if (f.relation !== undefined) return relationalInput(f, context, inputOf);
  if (context.isCreate && f.isGenerated) return null;
  const isReadonly = context.state?.readonly ?? f.readonly;
  const isRequired = context.state?.required ?? f.required;
  const disabled = isReadonly || (f.isPrimaryKey && !context.isCreate) || f.isGenerated || !context.writable(f.name);
  const common = {
    source: f.name,
    label: f.name,
    disabled,
    ...(f.note === undefined ? {} : { helperText: f.note }),
    ...(isRequired && !disabled ? { validate: required() } : {}),
  };
  return scalarInputOf(f, common, context.state?.options ?? f.options);
}
