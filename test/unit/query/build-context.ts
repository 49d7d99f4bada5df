import type { SchemaOverview } from '../../../catalog/overview/types.js';
import { FULL_READ_ACCESS, type ReadAccess } from '../../../src/access/read-access.js';
import type { BuildContext } from '../../../src/query/ast/build-context.js';
import { FIXTURE_OVERVIEW } from './fixture-overview.js';

export const FIXED_NOW = new Date('2024-05-01T12:00:00.000Z');

/** An admin reading the fixture at a fixed instant, with the default limits. */
export function testBuildContext(overrides: Partial<BuildContext> = {}): BuildContext {
  return {
    overview: FIXTURE_OVERVIEW satisfies SchemaOverview,
    access: FULL_READ_ACCESS satisfies ReadAccess,
    accountability: {
      user: '00000000-0000-4000-8000-000000000001',
      role: '00000000-0000-4000-8000-000000000002',
      admin: true,
    },
    limits: { queryLimitDefault: 100, queryLimitMax: Infinity, maxRelationalDepth: 10 },
    now: FIXED_NOW,
    ...overrides,
  };
}
