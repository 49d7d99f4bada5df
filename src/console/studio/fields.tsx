/**
 * A field's column and its input, chosen by its type and `meta.interface` (as Directus's Data
 * Studio does): text, textarea, number, toggle, date/time, dropdown from `options.choices`, JSON,
 * and a many-to-one picker showing the related collection's display template.
 */
import type { ReactElement } from 'react';
import {
  AutocompleteInput,
  BooleanField,
  BooleanInput,
  DateField,
  DateInput,
  DateTimeInput,
  FunctionField,
  NumberField,
  NumberInput,
  PasswordInput,
  ReferenceField,
  ReferenceInput,
  SelectField,
  SelectInput,
  TextField,
  TextInput,
  required,
} from 'react-admin';
import { CONTENT } from './providers.js';
import type { CollectionInfo, FieldInfo } from './catalogue.js';
import { isRelationalList, relationalColumn, relationalInput } from './relations/index.js';

const NUMBER_TYPES = new Set(['integer', 'bigInteger', 'float', 'decimal']);
const DATETIME_TYPES = new Set(['dateTime', 'timestamp']);

const choicesOf = (f: FieldInfo) => f.choices.map((c) => ({ id: c.value as string, name: c.text }));

/** Fields an editor sees: stored ones and the relational lists (o2m, m2m, m2a, files), not hidden. */
export function visibleFields(collection: CollectionInfo): FieldInfo[] {
  return collection.fields.filter((f) => !f.hidden && (f.type !== 'alias' || isRelationalList(f)));
}

/** The columns shown before the editor picks: the key and the next five non-JSON fields. */
export function defaultColumns(collection: CollectionInfo): string[] {
  const fields = visibleFields(collection);
  const pk = fields.filter((f) => f.isPrimaryKey);
  return [...pk, ...fields.filter((f) => !f.isPrimaryKey && f.type !== 'json')].slice(0, 6).map((f) => f.name);
}

export function columnOf(f: FieldInfo): ReactElement {
  if (f.relation !== undefined) return relationalColumn(f);
  const common = { source: f.name, label: f.name, key: f.name };
  if (f.relatedCollection !== undefined)
    return <ReferenceField {...common} reference={`${CONTENT}${f.relatedCollection}`} link="edit" />;
  if (f.choices.length > 0) return <SelectField {...common} choices={choicesOf(f)} />;
  if (f.type === 'boolean') return <BooleanField {...common} />;
  if (NUMBER_TYPES.has(f.type)) return <NumberField {...common} />;
  if (DATETIME_TYPES.has(f.type)) return <DateField {...common} showTime />;
  if (f.type === 'date') return <DateField {...common} />;
  if (f.type === 'json')
    return (
      <FunctionField
        {...common}
        render={(record: Record<string, unknown>) =>
          record[f.name] === null || record[f.name] === undefined ? '' : JSON.stringify(record[f.name])
        }
      />
    );
  return <TextField {...common} />;
}

interface InputContext {
  readonly isCreate: boolean;
  /** Fields the role may write (`*` or names), from /permissions/me. */
  readonly writable: (field: string) => boolean;
}

/** The input for `f`, or null when the form does not show it (the key on create, generated values). */
export function inputOf(f: FieldInfo, context: InputContext): ReactElement | null {
  if (f.relation !== undefined) return relationalInput(f, context, inputOf);
  if (context.isCreate && f.isGenerated) return null;
  const disabled = f.readonly || (f.isPrimaryKey && !context.isCreate) || f.isGenerated || !context.writable(f.name);
  const common = {
    source: f.name,
    label: f.name,
    key: f.name,
    disabled,
    ...(f.note === undefined ? {} : { helperText: f.note }),
    ...(f.required && !disabled ? { validate: required() } : {}),
  };
  if (f.relatedCollection !== undefined)
    return (
      <ReferenceInput source={f.name} reference={`${CONTENT}${f.relatedCollection}`} key={f.name}>
        <AutocompleteInput
          label={f.name}
          disabled={disabled}
          {...(f.required && !disabled ? { validate: required() } : {})}
          {...(f.note === undefined ? {} : { helperText: f.note })}
        />
      </ReferenceInput>
    );
  if (f.choices.length > 0) return <SelectInput {...common} choices={choicesOf(f)} />;
  if (f.type === 'boolean') return <BooleanInput {...common} />;
  if (NUMBER_TYPES.has(f.type))
    return <NumberInput {...common} {...(f.type === 'float' || f.type === 'decimal' ? { step: 'any' } : {})} />;
  if (DATETIME_TYPES.has(f.type)) return <DateTimeInput {...common} />;
  if (f.type === 'date') return <DateInput {...common} />;
  if (f.type === 'hash') return <PasswordInput {...common} />;
  if (f.type === 'json')
    return (
      <TextInput
        {...common}
        multiline
        minRows={3}
        format={(value: unknown) => (value === null || value === undefined ? '' : JSON.stringify(value, null, 2))}
        parse={(text: string) => {
          if (text.trim() === '') return null;
          try {
            return JSON.parse(text) as unknown;
          } catch {
            return text;
          }
        }}
      />
    );
  const isLong = f.type === 'text' || f.interface === 'input-multiline' || f.interface === 'input-rich-text-md';
  return <TextInput {...common} {...(isLong ? { multiline: true, minRows: 3 } : {})} />;
}
