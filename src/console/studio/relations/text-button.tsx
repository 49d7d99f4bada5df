import type { ReactElement } from 'react';
import { Button, type ButtonProps } from '@mui/material';

/** A button that keeps its text on a phone (react-admin's shows only its icon there). */
export function TextButton({
  label,
  icon,
  ...rest
}: { label: string; icon?: ReactElement } & Omit<ButtonProps, 'children'>) {
  return (
    <Button size="small" {...rest} {...(icon === undefined ? {} : { startIcon: icon })}>
      {label}
    </Button>
  );
}
