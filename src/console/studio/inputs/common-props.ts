import type { Validator } from 'react-admin';

/** What every input gets from the form (fields.tsx): source, label, disabled, note, validators. */
export interface CommonProps {
  readonly source: string;
  readonly label: string;
  readonly disabled: boolean;
  readonly helperText?: string;
  readonly validate?: Validator | Validator[];
}
