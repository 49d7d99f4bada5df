/**
 * "Add existing": a dialog searching a related collection (the API's `search`), its items shown
 * by their display template, one or many ticked, then added.
 */
import { useState } from 'react';
import {
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  List,
  ListItem,
  ListItemButton,
  ListItemIcon,
  ListItemText,
  TextField,
  Typography,
  useMediaQuery,
  type Theme,
} from '@mui/material';
import CheckBoxIcon from '@mui/icons-material/CheckBox';
import CheckBoxOutlineBlankIcon from '@mui/icons-material/CheckBoxOutlineBlank';
import { LinearProgress, useGetList, useTranslate, type RaRecord } from 'react-admin';
import { displayOf, type CollectionInfo } from '../catalogue.js';
import { CONTENT } from '../providers.js';
import { TextButton } from './text-button.js';

export interface PickerDialogProps {
  readonly collection: string;
  readonly info: CollectionInfo | undefined;
  readonly title: string;
  readonly isMultiple: boolean;
  /** Keys already in the list: not offered again. */
  readonly exclude: readonly unknown[];
  readonly label?: (item: RaRecord) => string;
  readonly onPick: (items: RaRecord[]) => void;
  readonly onClose: () => void;
}

export function PickerDialog(props: PickerDialogProps) {
  const { collection, info, title, isMultiple, exclude, onPick, onClose } = props;
  const translate = useTranslate();
  const isSmall = useMediaQuery<Theme>((theme) => theme.breakpoints.down('sm'));
  const [search, setSearch] = useState('');
  const [picked, setPicked] = useState<RaRecord[]>([]);
  const { data, isPending } = useGetList(`${CONTENT}${collection}`, {
    pagination: { page: 1, perPage: 20 },
    sort: { field: 'id', order: 'ASC' },
    filter: search === '' ? {} : { q: search },
  });
  const excluded = new Set(exclude.map(String));
  const items = (data ?? []).filter((item) => !excluded.has(String(item.id)));
  const label = props.label ?? ((item: RaRecord) => displayOf(info, item));
  const isPicked = (item: RaRecord) => picked.some((p) => p.id === item.id);
  const toggle = (item: RaRecord) => {
    if (!isMultiple) {
      onPick([item]);
      return;
    }
    setPicked((current) => (isPicked(item) ? current.filter((p) => p.id !== item.id) : [...current, item]));
  };
  const titleId = `svc-picker-${collection}`;
  return (
    <Dialog open onClose={onClose} fullScreen={isSmall} fullWidth maxWidth="sm" aria-labelledby={titleId}>
      <DialogTitle id={titleId}>{title}</DialogTitle>
      <DialogContent>
        <TextField
          label={translate('svc.relations.search')}
          value={search}
          onChange={(event) => setSearch(event.target.value)}
          fullWidth
          autoFocus
          margin="dense"
          type="search"
        />
        {isPending ? <LinearProgress /> : null}
        {!isPending && items.length === 0 ? (
          <Typography sx={{ py: 2 }}>{translate('svc.relations.nothing_found')}</Typography>
        ) : null}
        <List aria-label={title}>
          {items.map((item) => (
            <ListItem key={String(item.id)} disablePadding>
              <ListItemButton
                onClick={() => toggle(item)}
                role={isMultiple ? 'checkbox' : 'button'}
                aria-checked={isMultiple ? isPicked(item) : undefined}
              >
                {isMultiple ? (
                  <ListItemIcon>
                    {isPicked(item) ? <CheckBoxIcon color="primary" /> : <CheckBoxOutlineBlankIcon />}
                  </ListItemIcon>
                ) : null}
                <ListItemText primary={label(item)} sx={{ overflowWrap: 'anywhere' }} />
              </ListItemButton>
            </ListItem>
          ))}
        </List>
      </DialogContent>
      <DialogActions>
        <TextButton label={translate('ra.action.cancel')} onClick={onClose} />
        {isMultiple ? (
          <TextButton
            label={
              picked.length === 0
                ? translate('svc.relations.add')
                : translate('svc.relations.add_picked', { smart_count: picked.length })
            }
            disabled={picked.length === 0}
            onClick={() => onPick(picked)}
            variant="contained"
          />
        ) : null}
      </DialogActions>
    </Dialog>
  );
}
