/**
 * What the item sidebar's panels share: a value as text, the names of users (as far as the
 * caller may read them), a revision's diff as a table with insertions and deletions marked.
 */
import { Box, Table, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { useTranslate } from 'react-admin';
import type { RevisionDiff } from '../../../client/index.js';
import { client } from '../../session.js';
import { useSystemAccess } from './access.js';

/** A field's value as one line of text (`—` for none). */
export function textOf(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

export function whenOf(timestamp: unknown): string {
  const date = new Date(String(timestamp));
  return Number.isNaN(date.getTime()) ? String(timestamp) : date.toLocaleString();
}

export interface UserName {
  readonly id: string;
  readonly name: string;
}

export function nameOf(user: object): string {
  const row = user as Record<string, unknown>;
  const name = [row['first_name'], row['last_name']].filter((p) => typeof p === 'string' && p !== '').join(' ');
  return name === '' ? String(row['email'] ?? row['id']) : name;
}

/** The names of `ids` the caller may read; the others stay unnamed (shown by id). */
export function useUserNames(ids: readonly string[]): ReadonlyMap<string, string> {
  const unique = [...new Set(ids)].sort();
  const may = useSystemAccess();
  const { data } = useQuery({
    queryKey: ['studio.item.users', unique],
    enabled: unique.length > 0 && may('svc_users', 'read'),
    queryFn: async () => {
      const rows = await client.users
        .readByQuery({ filter: { id: { _in: unique } }, fields: ['id', 'email', 'first_name', 'last_name'] })
        .catch(() => ({ data: [] }));
      return new Map((rows.data ?? []).map((row) => [String(row.id), nameOf(row)]));
    },
  });
  return data ?? new Map<string, string>();
}

type FieldChange = RevisionDiff['fields'][string];

function Before({ change }: { change: FieldChange }) {
  if (change.changes === undefined) return <del>{textOf(change.before)}</del>;
  return (
    <span>
      {change.changes
        .filter((c) => c.added !== true)
        .map((c, i) => (c.removed === true ? <del key={i}>{c.value}</del> : <span key={i}>{c.value}</span>))}
    </span>
  );
}

function After({ change }: { change: FieldChange }) {
  if (change.changes === undefined) return <ins>{textOf(change.after)}</ins>;
  return (
    <span>
      {change.changes
        .filter((c) => c.removed !== true)
        .map((c, i) => (c.added === true ? <ins key={i}>{c.value}</ins> : <span key={i}>{c.value}</span>))}
    </span>
  );
}

const cell = { wordBreak: 'break-word', verticalAlign: 'top', px: 1 } as const;
/** Deletions and insertions marked by more than colour (struck through, underlined). */
const marks = {
  '& del': { backgroundColor: '#ffebee', color: '#8e0000' },
  '& ins': { backgroundColor: '#e8f5e9', color: '#1b5e20' },
} as const;

export function DiffTable({ diff, caption }: { diff: RevisionDiff; caption: string }) {
  const translate = useTranslate();
  const fields = Object.entries(diff.fields);
  if (fields.length === 0) return <Typography variant="body2">{translate('svc.item.no_change')}</Typography>;
  return (
    <Box sx={{ overflowX: 'auto', ...marks }}>
      <Table size="small" sx={{ tableLayout: 'fixed' }} className="diff-table">
        <caption>{caption}</caption>
        <TableHead>
          <TableRow>
            <TableCell sx={cell} scope="col">
              {translate('svc.item.field')}
            </TableCell>
            <TableCell sx={cell} scope="col">
              {translate('svc.item.before')}
            </TableCell>
            <TableCell sx={cell} scope="col">
              {translate('svc.item.after')}
            </TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {fields.map(([name, change]) => (
            <TableRow key={name}>
              <TableCell sx={cell} component="th" scope="row">
                {name}
              </TableCell>
              <TableCell sx={cell}>
                <Before change={change} />
              </TableCell>
              <TableCell sx={cell}>
                <After change={change} />
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </Box>
  );
}

/** An item's fields and values, read-only (a moment in its history, a version). */
export function ItemValues({ item, fields }: { item: Record<string, unknown>; fields: readonly string[] }) {
  return (
    <Box component="dl" sx={{ m: 0, '& dt': { fontWeight: 600, mt: 1 }, '& dd': { m: 0, wordBreak: 'break-word' } }}>
      {fields.map((name) => (
        <Box key={name}>
          <dt>{name}</dt>
          <dd>{textOf(item[name])}</dd>
        </Box>
      ))}
    </Box>
  );
}
