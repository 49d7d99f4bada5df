import type { SchemaOverview } from '../../../catalog/overview/types.js';
import type { Accountability } from '../../access/accountability.js';
import type { ReadAccess } from '../../access/read-access.js';

/** QUERY_LIMIT_DEFAULT, QUERY_LIMIT_MAX (Infinity = none), MAX_RELATIONAL_DEPTH. */
export interface QueryLimits {
  readonly queryLimitDefault: number;
  readonly queryLimitMax: number;
  readonly maxRelationalDepth: number;
}

/** Everything the AST builder consults besides the query itself. */
export interface BuildContext {
  readonly overview: SchemaOverview;
  readonly access: ReadAccess;
  readonly accountability: Pick<Accountability, 'user' | 'role' | 'admin'>;
  readonly limits: QueryLimits;
  /** `$NOW`: one instant per request. */
  readonly now: Date;
}
