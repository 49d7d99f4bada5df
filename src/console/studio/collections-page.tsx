/**
 * /admin/content: the collections the caller may read, by folder, with their item counts; the
 * API's refusal (a role that may read none) in one alert.
 */
import { useEffect, useState } from 'react';
import { Alert, Box, Card, CardActionArea, CardContent, Grid, Typography } from '@mui/material';
import { Title, useAuthenticated, usePermissions, useTranslate } from 'react-admin';
import { Link } from 'react-router-dom';
import { errorText } from '../dom.js';
import { client } from '../session.js';
import type { Catalogue, CollectionInfo } from './catalogue.js';
import { iconOf } from './layout.js';
import { NoAppAccess } from './list/no-app-access.js';

function useCounts(collections: readonly CollectionInfo[]): Record<string, number> {
  const [counts, setCounts] = useState<Record<string, number>>({});
  const names = collections.map((c) => c.name).join('/');
  useEffect(() => {
    let isCurrent = true;
    for (const name of names === '' ? [] : names.split('/')) {
      client
        .items(name)
        .readByQuery({ aggregate: { count: '*' } })
        .then((answer) => {
          const row = (answer.data ?? [])[0] as { count?: unknown } | undefined;
          if (isCurrent && row !== undefined) setCounts((previous) => ({ ...previous, [name]: Number(row.count) }));
        })
        .catch(() => undefined);
    }
    return () => {
      isCurrent = false;
    };
  }, [names]);
  return counts;
}

export function CollectionsPage() {
  useAuthenticated();
  const translate = useTranslate();
  const { permissions, isPending } = usePermissions<Catalogue | null>();
  const readable = (permissions?.collections ?? []).filter((c) => !c.isFolder && c.can.read);
  const counts = useCounts(readable);
  useEffect(() => {
    document.title = `${translate('svc.collections.title')} · ${translate('svc.app.title')}`;
  }, [translate]);
  const groups = [...new Set(readable.map((c) => c.group))].sort((a, b) => (a ?? '').localeCompare(b ?? ''));
  return (
    <Box sx={{ py: 2 }}>
      <Title title={translate('svc.collections.title')} />
      <NoAppAccess />
      {permissions?.error !== null && permissions?.error !== undefined && permissions.me?.appAccess !== false && (
        <Alert severity="error" role="alert">
          {errorText(permissions.error)}
        </Alert>
      )}
      {!isPending && permissions?.error === null && readable.length === 0 && (
        <Typography>{translate('svc.collections.none')}</Typography>
      )}
      {groups.map((group) => (
        <Box component="section" key={group ?? ''} sx={{ mb: 3 }} aria-label={group ?? translate('svc.nav.ungrouped')}>
          {group !== undefined && (
            <Typography variant="h6" component="h2" gutterBottom>
              {group}
            </Typography>
          )}
          <Grid container spacing={2}>
            {readable
              .filter((c) => c.group === group)
              .map((c) => (
                <Grid key={c.name} size={{ xs: 12, sm: 6, md: 4 }}>
                  <Card variant="outlined">
                    <CardActionArea component={Link} to={`/content/${encodeURIComponent(c.name)}`}>
                      <CardContent sx={{ display: 'flex', gap: 1.5, alignItems: 'center' }}>
                        {iconOf(c)}
                        <div>
                          <Typography component="span" variant="subtitle1" sx={{ display: 'block' }}>
                            {c.name}
                          </Typography>
                          <Typography component="span" variant="body2" color="text.secondary">
                            {counts[c.name] === undefined
                              ? (c.note ?? '')
                              : translate('svc.collections.items', { smart_count: counts[c.name] })}
                          </Typography>
                        </div>
                      </CardContent>
                    </CardActionArea>
                  </Card>
                </Grid>
              ))}
          </Grid>
        </Box>
      ))}
    </Box>
  );
}
