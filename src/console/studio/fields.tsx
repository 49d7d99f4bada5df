/**
 * A field's column and its input, chosen by its type and `meta.interface` (as Directus's Data
 * Studio does): the scalar ones from inputs/ (scalar-input.tsx, displays.tsx), and a many-to-one
 * picker showing the related collection's display template.
 */
import type { ReactElement } from 'react';
import { AutocompleteInput, ReferenceField, ReferenceInput, required } from 'react-admin';
import { CONTENT } from './providers.js';
import type { CollectionInfo, FieldInfo } from './catalogue.js';
import type { FieldState } from './inputs/conditions.js';
import { displayColumnOf } from './inputs/displays.js';
import { scalarInputOf } from './inputs/scalar-input.js';

/** Fields an editor sees: stored ones and many-to-ones, not hidden, not aliases (o2m, m2m: later). */
export function visibleFields(collection: CollectionInfo): FieldInfo[] {
  return collection.fields.filter((f) => !f.hidden && f.type !== 'alias');
}

/** The columns shown before the editor picks: the key and the next five non-JSON fields. */
export function defaultColumns(collection: CollectionInfo): string[] {
  const fields = visibleFields(collection);
  const pk = fields.filter((f) => f.isPrimaryKey);
  return [...pk, ...fields.filter((f) => !f.isPrimaryKey && f.type !== 'json')].slice(0, 6).map((f) => f.name);
}

export function columnOf(f: FieldInfo): ReactElement {
  const common = { source: f.name, label: f.name, key: f.name };
  if (f.relatedCollection !== undefined)
    return <ReferenceField {...common} reference={`${CONTENT}${f.relatedCollection}`} link="edit" />;
  return displayColumnOf(f);
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
  if (f.relatedCollection !== undefined)
    return (
      <ReferenceInput source={f.name} reference={`${CONTENT}${f.relatedCollection}`} key={f.name}>
        <AutocompleteInput
          label={f.name}
          disabled={disabled}
          {...(isRequired && !disabled ? { validate: required() } : {})}
          {...(f.note === undefined ? {} : { helperText: f.note })}
        />
      </ReferenceInput>
    );
  return scalarInputOf(f, common, context.state?.options ?? f.options);
}
