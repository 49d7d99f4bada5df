/**
 * A page loaded on demand: its module becomes a chunk of its own (esbuild's code splitting), out
 * of the initial bundle (docs/console.md, the budget), fetched the first time the page shows.
 */
import { lazy, Suspense, type ComponentType } from 'react';
import { Loading } from 'react-admin';

export function onDemand(load: () => Promise<ComponentType>): ComponentType {
  const Page = lazy(async () => ({ default: await load() }));
  return function OnDemand() {
    return (
      <Suspense fallback={<Loading />}>
        <Page />
      </Suspense>
    );
  };
}
