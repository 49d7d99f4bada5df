/**
 * A colour (`select-color`): the hex text, and the browser's own colour picker beside it (a native
 * `<input type="color">`, keyboard-usable); a value that is not `#rrggbb` is refused at the field.
 */
import { Box, InputAdornment, TextField } from '@mui/material';
import { FieldTitle, InputHelperText, regex, useInput, useTranslate, type Validator } from 'react-admin';
import type { CommonProps } from './common-props.js';

const HEX = /^#[0-9a-fA-F]{6}$/;

export function ColorInput(props: CommonProps) {
  const translate = useTranslate();
  const validators: Validator[] = [
    ...(props.validate === undefined ? [] : [props.validate].flat()),
    regex(HEX, 'svc.inputs.color_invalid'),
  ];
  const { id, field, fieldState, isRequired } = useInput({
    source: props.source,
    validate: validators,
    disabled: props.disabled,
  });
  const value = typeof field.value === 'string' ? field.value : '';
  const error = fieldState.invalid ? fieldState.error?.message : undefined;
  return (
    <TextField
      {...field}
      id={id}
      value={value}
      onChange={(event) => field.onChange(event.target.value === '' ? null : event.target.value)}
      label={<FieldTitle label={props.label} source={props.source} isRequired={isRequired} />}
      disabled={props.disabled}
      error={fieldState.invalid}
      helperText={<InputHelperText {...(error === undefined ? {} : { error })} helperText={props.helperText} />}
      fullWidth
      slotProps={{
        htmlInput: { spellCheck: false, maxLength: 7 },
        input: {
          startAdornment: (
            <InputAdornment position="start">
              <Box
                component="input"
                type="color"
                sx={{ width: 32, height: 28, p: 0, border: 0, background: 'none', cursor: 'pointer' }}
                aria-label={translate('svc.inputs.pick_color', { field: props.label })}
                value={HEX.test(value) ? value.toLowerCase() : '#000000'}
                disabled={props.disabled}
                onChange={(event) => field.onChange(event.target.value)}
              />
            </InputAdornment>
          ),
        },
      }}
    />
  );
}
