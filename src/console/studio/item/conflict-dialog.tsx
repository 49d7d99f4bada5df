/**
 * A conflict on save: the item changed since the form opened (someone else saved). The save
 * reads the item again first; when a field differs from what the form was opened with, this
 * dialog shows what changed, theirs beside the editor's, and lets the editor keep theirs
 * ("keep mine": the editor's changes are written, fields only they changed stay theirs), take
 * the other's (nothing written, the form shows their item), or pick field by field.
 */
import { useState } from 'react';
import {
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  FormControlLabel,
  Radio,
  RadioGroup,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import { useTranslate } from 'react-admin';
import { textOf } from './shared.js';

export type Side = 'mine' | 'theirs';
export type ConflictChoice = { kind: 'mine' } | { kind: 'theirs' } | { kind: 'merge'; pick: Record<string, Side> };

export interface Conflict {
  readonly fields: readonly string[];
  readonly mine: Record<string, unknown>;
  readonly base: Record<string, unknown>;
  readonly theirs: Record<string, unknown>;
  readonly resolve: (choice: ConflictChoice) => void;
}

const cell = { wordBreak: 'break-word', verticalAlign: 'top', px: 1 } as const;

export function ConflictDialog({ conflict }: { conflict: Conflict | null }) {
  const translate = useTranslate();
  const [pick, setPick] = useState<Record<string, Side>>({});
  if (conflict === null) return null;
  const isMine = (field: string) => JSON.stringify(conflict.mine[field]) !== JSON.stringify(conflict.base[field]);
  const sideOf = (field: string): Side => pick[field] ?? (isMine(field) ? 'mine' : 'theirs');
  const done = (choice: ConflictChoice) => {
    setPick({});
    conflict.resolve(choice);
  };
  return (
    <Dialog open aria-labelledby="studio-conflict-title" maxWidth="md" fullWidth>
      <DialogTitle id="studio-conflict-title">{translate('svc.item.conflict_title')}</DialogTitle>
      <DialogContent>
        <Typography variant="body2" sx={{ mb: 1 }}>
          {translate('svc.item.conflict_text')}
        </Typography>
        <Table size="small" sx={{ tableLayout: 'fixed' }} className="conflict">
          <TableHead>
            <TableRow>
              <TableCell sx={cell} scope="col">
                {translate('svc.item.field')}
              </TableCell>
              <TableCell sx={cell} scope="col">
                {translate('svc.item.theirs')}
              </TableCell>
              <TableCell sx={cell} scope="col">
                {translate('svc.item.mine')}
              </TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {conflict.fields.map((field) => (
              <TableRow key={field} data-field={field}>
                <TableCell sx={cell} component="th" scope="row">
                  {field}
                </TableCell>
                <TableCell sx={cell}>{textOf(conflict.theirs[field])}</TableCell>
                <TableCell sx={cell}>
                  {textOf(conflict.mine[field])}
                  <RadioGroup
                    row
                    aria-label={translate('svc.item.keep_for', { field })}
                    value={sideOf(field)}
                    onChange={(event) => setPick({ ...pick, [field]: event.target.value as Side })}
                  >
                    <FormControlLabel
                      value="mine"
                      control={<Radio size="small" />}
                      label={translate('svc.item.mine')}
                    />
                    <FormControlLabel
                      value="theirs"
                      control={<Radio size="small" />}
                      label={translate('svc.item.theirs')}
                    />
                  </RadioGroup>
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </DialogContent>
      <DialogActions sx={{ flexWrap: 'wrap', gap: 1 }}>
        <Button onClick={() => done({ kind: 'theirs' })}>{translate('svc.item.take_theirs')}</Button>
        <Button
          onClick={() => done({ kind: 'merge', pick: Object.fromEntries(conflict.fields.map((f) => [f, sideOf(f)])) })}
        >
          {translate('svc.item.merge')}
        </Button>
        <Button variant="contained" onClick={() => done({ kind: 'mine' })}>
          {translate('svc.item.keep_mine')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
