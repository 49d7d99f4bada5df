import type { SchemaOverview } from '../../../catalog/overview/types.js';
import { findField, getFieldRelation } from '../../../catalog/overview/lookup.js';
import { adjustNow, parseDynamicValue } from '../../access/dynamic-values.js';
import { InvalidQueryError } from '../../errors.js';
import type { BuildContext } from './build-context.js';
import type { LookupStep, Value } from './nodes.js';

/**
 * Dynamic variables: `$NOW`, `$NOW(<adjustment>)`, `$CURRENT_USER[.path]`,
 * `$CURRENT_ROLE[.path]`. Paths are looked up in the same statement (no extra round trip).
 */
export function resolveDynamicValue(ctx: BuildContext, text: string): Value {
  const variable = parseDynamicValue(text);
  if (variable === undefined) throw new InvalidQueryError(`Invalid dynamic variable "${text}"`);
  if (variable.kind === 'now') {
    const { adjustment } = variable;
    const date = adjustment === undefined ? ctx.now : adjustDate(ctx.now, adjustment, text);
    return { kind: 'literal', value: date, type: 'timestamp' };
  }
  const isUser = variable.kind === 'user';
  const key = isUser ? ctx.accountability.user : ctx.accountability.role;
  const collection = isUser ? 'svc_users' : 'svc_roles';
  const { path } = variable;
  if (path === undefined) return { kind: 'literal', value: key, type: 'uuid' };
  const steps = lookupSteps(ctx.overview, collection, path.split('.'), text);
  if (key === null) return { kind: 'literal', value: null, type: 'unknown' };
  return { kind: 'lookup', key, steps };
}

function adjustDate(now: Date, adjustment: string, text: string): Date {
  const date = adjustNow(now, adjustment);
  if (date === undefined) throw new InvalidQueryError(`Invalid dynamic variable "${text}"`);
  return date;
}

/** `role.name` from svc_users: [{svc_users, id, role}, {svc_roles, id, name}]. */
function lookupSteps(overview: SchemaOverview, start: string, path: readonly string[], text: string): LookupStep[] {
  const steps: LookupStep[] = [];
  let collection = start;
  path.forEach((segment, i) => {
    const field = findField(overview, collection, segment);
    const primary = overview.collections[collection]?.primary;
    if (field === undefined || primary === undefined || field.isAlias) {
      throw new InvalidQueryError(`Invalid dynamic variable "${text}"`);
    }
    steps.push({ collection, keyColumn: primary, column: segment });
    if (i < path.length - 1) {
      const relation = getFieldRelation(overview, collection, segment);
      if (relation?.kind !== 'm2o') throw new InvalidQueryError(`Invalid dynamic variable "${text}"`);
      collection = relation.related;
    }
  });
  return steps;
}
