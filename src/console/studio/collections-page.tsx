/**
 * /admin/content: the collections the caller may read, by folder, with their item counts (archived
 * items left out, as their lists show them); the API's refusal (a role that may read none) in one
 * alert.
 */
import { useEffect } from 'react';
import { Alert, Box, Card, CardActionArea, CardContent, Grid, Typography } from '@mui/material';
import { Title, useAuthenticated, usePermissions, useTranslate } from 'react-admin';
import { Link } from 'react-router-dom';
import { errorText } from '../dom.js';
import type { Catalogue } from './catalogue.js';
import { iconOf } from './layout.js';
import { useItemCounts } from './item-counts.js';
import { NoAppAccess } from './list/no-app-access.js';

export function CollectionsPage() {
  useAuthenticated();
  const translate = useTranslate();
  const { permissions, isPending } = usePermissions<Catalogue | null>();
  const readable = (permissions?.collections ?? []).filter((c) => !c.isFolder && c.can.read);
  const counts = useItemCounts(readable);
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
                            {counts.has(c.name)
                              ? translate('svc.collections.items', { smart_count: counts.get(c.name) })
                              : (c.note ?? '')}
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
