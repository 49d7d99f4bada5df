/**
 * The cards layout: each item as a card with its image (the collection's first image field, a
 * thumbnail from /assets/<id>?width=…, read with the session) and its display template.
 */
import { useEffect, useState, type ReactElement } from 'react';
import { Box, Card, CardActionArea, CardContent, CardMedia, Checkbox, Grid, Typography } from '@mui/material';
import ImageIcon from '@mui/icons-material/ImageOutlined';
import { useCreatePath, useListContext, useTranslate, type RaRecord } from 'react-admin';
import { Link } from 'react-router-dom';
import { client } from '../../session.js';
import { displayOf, type CollectionInfo, type FieldInfo } from '../catalogue.js';
import { CONTENT } from '../providers.js';

/** The field whose image a card shows: a file field (an image interface first), if any. */
export function imageFieldOf(collection: CollectionInfo): FieldInfo | undefined {
  const files = collection.fields.filter((f) => f.relation?.kind === 'file');
  return files.find((f) => f.interface === 'file-image') ?? files[0];
}

function Thumbnail({ file, alt }: { file: unknown; alt: string }): ReactElement {
  const [url, setUrl] = useState<string | null>(null);
  const id = typeof file === 'object' && file !== null ? (file as { id?: unknown }).id : file;
  useEffect(() => {
    if (typeof id !== 'string' || id === '') return undefined;
    let made: string | null = null;
    let isCurrent = true;
    client.assets
      .readOne(id, { width: 320, height: 200, fit: 'cover' })
      .then(async (stream) => (stream === null ? null : new Response(stream).blob()))
      .then((blob) => {
        if (blob === null || !isCurrent) return;
        made = URL.createObjectURL(blob);
        setUrl(made);
      })
      .catch(() => undefined);
    return () => {
      isCurrent = false;
      if (made !== null) URL.revokeObjectURL(made);
    };
  }, [id]);
  if (url === null)
    return (
      <Box
        sx={{ height: 140, display: 'flex', alignItems: 'center', justifyContent: 'center', bgcolor: 'action.hover' }}
      >
        <ImageIcon color="disabled" fontSize="large" />
      </Box>
    );
  return <CardMedia component="img" height="140" image={url} alt={alt} />;
}

export function CardsLayout({
  collection,
  selectable,
}: {
  collection: CollectionInfo;
  selectable: boolean;
}): ReactElement {
  const { data, selectedIds, onToggleItem } = useListContext();
  const translate = useTranslate();
  const createPath = useCreatePath();
  const image = imageFieldOf(collection);
  return (
    <Grid container spacing={2} sx={{ p: 2 }} data-testid="cards">
      {(data ?? []).map((record: RaRecord) => {
        const title = displayOf(collection, record);
        return (
          <Grid key={String(record.id)} size={{ xs: 12, sm: 6, md: 4, lg: 3 }}>
            <Card variant="outlined" sx={{ position: 'relative' }}>
              {selectable && (
                <Checkbox
                  checked={selectedIds.includes(record.id)}
                  onChange={() => onToggleItem(record.id)}
                  inputProps={{ 'aria-label': translate('svc.list.select_item', { name: title }) }}
                  sx={{ position: 'absolute', top: 4, right: 4, zIndex: 1, bgcolor: 'background.paper' }}
                />
              )}
              <CardActionArea
                component={Link}
                to={createPath({ resource: `${CONTENT}${collection.name}`, id: record.id, type: 'edit' })}
              >
                {image !== undefined && <Thumbnail file={record[image.name]} alt={title} />}
                <CardContent>
                  <Typography variant="subtitle1" component="span" sx={{ display: 'block', overflowWrap: 'anywhere' }}>
                    {title}
                  </Typography>
                  <Typography variant="body2" color="text.secondary" component="span">
                    {collection.primaryKey} {String(record.id)}
                  </Typography>
                </CardContent>
              </CardActionArea>
            </Card>
          </Grid>
        );
      })}
    </Grid>
  );
}
