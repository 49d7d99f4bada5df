/**
 * One item's rights (GET /permissions/me/:collection/:id): a role whose update or delete rule
 * leaves this item out (e.g. `user_created` is `$CURRENT_USER`) is offered neither on it.
 */
import { useEffect, useState } from 'react';
import { useParams } from 'react-router-dom';
import { client } from '../../session.js';
import type { CollectionInfo } from '../catalogue.js';

export function useItemRights(collection: CollectionInfo | undefined): CollectionInfo | undefined {
  const id = useParams()['id'];
  const name = collection?.name;
  const [rights, setRights] = useState<{ key: string; update: boolean; delete: boolean } | null>(null);
  useEffect(() => {
    if (name === undefined || id === undefined) return;
    let isCurrent = true;
    client.permissions
      .readItemPermissions(name, id)
      .then((answer) => {
        if (isCurrent && answer !== undefined)
          setRights({ key: `${name}/${id}`, update: answer.update.access, delete: answer.delete.access });
      })
      .catch(() => undefined);
    return () => {
      isCurrent = false;
    };
  }, [name, id]);
  if (collection === undefined || rights === null || rights.key !== `${collection.name}/${String(id)}`)
    return collection;
  const can = {
    ...collection.can,
    update: collection.can.update && rights.update,
    delete: collection.can.delete && rights.delete,
  };
  return can.update === collection.can.update && can.delete === collection.can.delete
    ? collection
    : { ...collection, can };
}
