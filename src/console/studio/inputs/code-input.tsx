/**
 * Markdown (`input-rich-text-md`), code (`input-code`) and JSON fields in CodeMirror 6, loaded on
 * demand (lazy-editors.tsx). A JSON field's text is parsed as the editor types: text that is not
 * JSON stays in the editor and is refused at the field (never sent); a valid value is stored as
 * the JSON value it stands for.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { Box, FormControl, FormHelperText, FormLabel } from '@mui/material';
import CodeMirror from '@uiw/react-codemirror';
import type { Extension } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { json } from '@codemirror/lang-json';
import { markdown } from '@codemirror/lang-markdown';
import { FieldTitle, InputHelperText, useInput, type Validator } from 'react-admin';
import { pageNonce } from '../page-nonce.js';
import type { CommonProps } from './common-props.js';

export type CodeLanguage = 'json' | 'markdown';

/** What a JSON field holds while its text is not JSON: the form refuses it (see `validJson`). */
class InvalidJson {
  constructor(
    readonly text: string,
    readonly reason: string,
  ) {}
}

const validJson: Validator = (value: unknown) =>
  value instanceof InvalidJson ? { message: 'svc.inputs.json_invalid', args: { error: value.reason } } : undefined;

const jsonText = (value: unknown): string =>
  value === null || value === undefined
    ? ''
    : value instanceof InvalidJson
      ? value.text
      : JSON.stringify(value, null, 2);

const identity = (value: unknown) => value;

export default function CodeInput(props: CommonProps & { readonly language: string }) {
  const isJson = props.language === 'json';
  const validate = [...(props.validate === undefined ? [] : [props.validate].flat()), ...(isJson ? [validJson] : [])];
  const { id, field, fieldState, isRequired } = useInput({
    source: props.source,
    validate,
    disabled: props.disabled,
    format: identity,
    parse: identity,
  });
  const toText = (value: unknown) => (isJson ? jsonText(value) : typeof value === 'string' ? value : '');
  const [text, setText] = useState(() => toText(field.value));
  // The last value this editor gave the form: another one (a record loaded, a reset) replaces the text.
  const own = useRef<unknown>(field.value);
  useEffect(() => {
    if (field.value === own.current) return;
    own.current = field.value;
    setText(toText(field.value));
  }, [field.value]);

  const onChange = (next: string) => {
    setText(next);
    let value: unknown = next === '' ? null : next;
    if (isJson && next.trim() !== '') {
      try {
        value = JSON.parse(next) as unknown;
      } catch (error) {
        value = new InvalidJson(next, (error as Error).message);
      }
    } else if (isJson) value = null;
    own.current = value;
    field.onChange(value);
  };

  const labelId = `${id}-label`;
  const helperId = `${id}-helper-text`;
  const extensions = useMemo((): Extension[] => {
    const nonce = pageNonce();
    return [
      ...(props.language === 'json' ? [json()] : props.language === 'markdown' ? [markdown()] : []),
      EditorView.lineWrapping,
      EditorView.contentAttributes.of({
        id,
        'aria-labelledby': labelId,
        'aria-describedby': helperId,
        ...(fieldState.invalid ? { 'aria-invalid': 'true' } : {}),
        ...(isRequired ? { 'aria-required': 'true' } : {}),
      }),
      ...(nonce === undefined ? [] : [EditorView.cspNonce.of(nonce)]),
    ];
  }, [props.language, id, labelId, helperId, fieldState.invalid, isRequired]);

  const error = fieldState.invalid ? fieldState.error?.message : undefined;
  return (
    <FormControl fullWidth error={fieldState.invalid} disabled={props.disabled} sx={{ mt: 1, mb: 0.5 }}>
      <FormLabel id={labelId} sx={{ fontSize: '0.85rem', mb: 0.5 }}>
        <FieldTitle label={props.label} source={props.source} isRequired={isRequired} />
      </FormLabel>
      <Box
        sx={{
          border: 1,
          borderColor: fieldState.invalid ? 'error.main' : 'divider',
          borderRadius: 1,
          overflow: 'hidden',
          '&:focus-within': { borderColor: 'primary.main', outline: 1, outlineColor: 'primary.main' },
        }}
      >
        <CodeMirror
          value={text}
          onChange={onChange}
          onBlur={field.onBlur}
          editable={!props.disabled}
          extensions={extensions}
          minHeight="6em"
          maxHeight="24em"
          indentWithTab={false}
          basicSetup={{
            lineNumbers: false,
            foldGutter: false,
            closeBrackets: false,
            autocompletion: false,
            highlightActiveLine: false,
          }}
        />
      </Box>
      <FormHelperText id={helperId}>
        <InputHelperText {...(error === undefined ? {} : { error })} helperText={props.helperText} />
      </FormHelperText>
    </FormControl>
  );
}
