/**
 * The input of a scalar (non-relational) field, by its `meta.interface` and `meta.options`, as
 * Directus's Data Studio chooses it; an interface the Studio does not know falls back by type.
 * The heavy editors (TipTap, CodeMirror) are loaded on demand (lazy-editors.tsx).
 */
import type { ReactElement } from 'react';
import {
  BooleanInput,
  CheckboxGroupInput,
  DateInput,
  DateTimeInput,
  NumberInput,
  PasswordInput,
  RadioButtonGroupInput,
  SelectArrayInput,
  SelectInput,
  TextArrayInput,
  TextInput,
  TimeInput,
  maxValue,
  minValue,
} from 'react-admin';
import { choicesIn, type FieldInfo } from '../catalogue.js';
import { ColorInput } from './color-input.js';
import type { CommonProps } from './common-props.js';
import { LazyCodeInput, LazyRichTextInput } from './lazy-editors.js';

const NUMBER_TYPES = new Set(['integer', 'bigInteger', 'float', 'decimal']);

const numberOption = (options: Readonly<Record<string, unknown>>, key: string): number | undefined => {
  const value = options[key];
  return typeof value === 'number' ? value : typeof value === 'string' && value !== '' ? Number(value) : undefined;
};

/** `options.choices` as react-admin's choices. */
const choicesOf = (options: Readonly<Record<string, unknown>>): { id: string; name: string }[] =>
  choicesIn(options['choices']).map((c) => ({ id: String(c.value), name: c.text }));

/** Lowercase words joined by dashes, as the editor types (a trailing dash stays for the next word). */
function slugify(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '');
}

/** Arrays from the API, a csv string from an older row: always an array in the form. */
const asArray = (value: unknown): unknown[] =>
  Array.isArray(value) ? value : typeof value === 'string' && value !== '' ? value.split(',') : [];

/** A `datetime-local` value as the API's timestamp (UTC): the browser knows its own offset. */
const toTimestamp = (value: string): string | null => {
  if (value === '') return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toISOString();
};

export function scalarInputOf(
  f: FieldInfo,
  common: CommonProps,
  options: Readonly<Record<string, unknown>>,
): ReactElement {
  const placeholder = typeof options['placeholder'] === 'string' ? { placeholder: options['placeholder'] } : {};
  const choices = choicesOf(options);
  const validators = common.validate === undefined ? [] : [common.validate].flat();
  switch (f.interface) {
    case 'input-rich-text-html':
      return <LazyRichTextInput {...common} />;
    case 'input-rich-text-md':
      return <LazyCodeInput {...common} language="markdown" />;
    case 'input-code':
      return <LazyCodeInput {...common} language={f.type === 'json' ? 'json' : String(options['language'] ?? '')} />;
    case 'select-dropdown':
      if (choices.length > 0) return <SelectInput {...common} choices={choices} />;
      break;
    case 'select-radio':
      if (choices.length > 0) return <RadioButtonGroupInput {...common} choices={choices} />;
      break;
    case 'select-multiple-checkbox':
    case 'select-multiple-checkbox-tree':
      return <CheckboxGroupInput {...common} choices={choices} format={asArray} />;
    case 'select-multiple-dropdown':
      return <SelectArrayInput {...common} choices={choices} format={asArray} />;
    case 'tags':
      return (
        <TextArrayInput
          {...common}
          format={asArray}
          {...(Array.isArray(options['presets']) ? { options: options['presets'].map(String) } : {})}
          parse={(tags: string[]) =>
            options['lowercase'] === true
              ? tags.map((t) => t.toLowerCase())
              : options['trim'] === false
                ? tags
                : tags.map((t) => t.trim())
          }
        />
      );
    case 'select-color':
      return <ColorInput {...common} />;
    case 'slug':
      return <TextInput {...common} {...placeholder} parse={(v: string) => (v === '' ? null : slugify(v))} />;
    case 'input-multiline':
      return <TextInput {...common} {...placeholder} multiline minRows={3} />;
    case 'input':
      if (options['slug'] === true)
        return <TextInput {...common} {...placeholder} parse={(v: string) => (v === '' ? null : slugify(v))} />;
      if (options['masked'] === true) return <PasswordInput {...common} {...placeholder} />;
      break;
    default:
      break;
  }
  // By type: an interface the Studio does not know, or none.
  if (f.choices.length > 0 && f.type !== 'json') return <SelectInput {...common} choices={choices} />;
  if (f.type === 'boolean') return <BooleanInput {...common} />;
  if (NUMBER_TYPES.has(f.type)) {
    const min = numberOption(options, 'min');
    const max = numberOption(options, 'max');
    const step = numberOption(options, 'step');
    return (
      <NumberInput
        {...common}
        {...placeholder}
        {...(min === undefined ? {} : { min })}
        {...(max === undefined ? {} : { max })}
        step={step ?? (f.type === 'float' || f.type === 'decimal' ? 'any' : 1)}
        validate={[
          ...validators,
          ...(min === undefined ? [] : [minValue(min)]),
          ...(max === undefined ? [] : [maxValue(max)]),
        ]}
      />
    );
  }
  if (f.type === 'timestamp') return <DateTimeInput {...common} parse={toTimestamp} />;
  if (f.type === 'dateTime') return <DateTimeInput {...common} />;
  if (f.type === 'date') return <DateInput {...common} />;
  if (f.type === 'time')
    return (
      <TimeInput
        {...common}
        format={(v: unknown) => (typeof v === 'string' ? v.slice(0, 5) : '')}
        parse={(v: string) => (v === '' ? null : v)}
      />
    );
  if (f.type === 'hash') return <PasswordInput {...common} />;
  if (f.type === 'json') return <LazyCodeInput {...common} language="json" />;
  if (f.type === 'csv') return <TextArrayInput {...common} format={asArray} />;
  const isLong = f.type === 'text';
  return <TextInput {...common} {...placeholder} {...(isLong ? { multiline: true, minRows: 3 } : {})} />;
}
