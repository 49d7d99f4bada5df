import {
  getNamedType,
  getNullableType,
  isInputObjectType,
  isListType,
  type GraphQLInputObjectType,
  type GraphQLInputType,
} from 'graphql';
import { setOwn, type Filter } from '../query/index.js';
import './type-meta.js';

type Input = Readonly<Record<string, unknown>>;

/**
 * A `C_filter` value as the read side's filter: keys are mapped
 * back to field names, `F_func: {year: ...}` becomes `year(F)`, `item__<c>` becomes `item:<c>`,
 * and operator objects pass through as given.
 */
export function toFilter(type: GraphQLInputObjectType, value: Input): Filter {
  const fields = type.getFields();
  const filter: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(value)) {
    const field = fields[key];
    const meta = field?.extensions.svcFilter;
    if (field === undefined || meta === undefined || raw === null || raw === undefined) continue;
    switch (meta.kind) {
      case 'logical':
        filter[key] = (raw as readonly (Input | null)[]).map((item) => (item === null ? {} : toFilter(type, item)));
        break;
      case 'quantifier':
        filter[key] = toFilter(type, raw as Input);
        break;
      case 'field': {
        const inner = getNamedType(field.type);
        const isCollectionFilter = isInputObjectType(inner) && inner.extensions.svcFilterOf !== undefined;
        setOwn(filter, meta.field, isCollectionFilter ? toFilter(inner, raw as Input) : raw);
        break;
      }
      case 'function':
        for (const [fn, operators] of Object.entries(raw as Input)) {
          if (operators !== null && operators !== undefined) setOwn(filter, `${fn}(${meta.field})`, operators);
        }
        break;
      case 'scope': {
        const inner = getNamedType(field.type);
        if (isInputObjectType(inner)) setOwn(filter, `${meta.field}:${meta.collection}`, toFilter(inner, raw as Input));
        break;
      }
    }
  }
  return filter;
}

/**
 * A `create_C_input` / `update_C_input` value as the write side's payload: keys mapped back
 * to field names, nested inputs (m2o objects, o2m lists) mapped the same way, integer keys
 * given as `ID` strings turned into numbers.
 */
export function toPayload(type: GraphQLInputObjectType, value: Input): Record<string, unknown> {
  const fields = type.getFields();
  const payload: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(value)) {
    const field = fields[key];
    const meta = field?.extensions.svcInput;
    if (field === undefined || meta === undefined || raw === undefined) continue;
    let mapped = toValue(field.type, raw);
    if (
      meta.isIntegerKey &&
      typeof mapped === 'string' &&
      /^-?\d+$/.test(mapped) &&
      Number.isSafeInteger(Number(mapped))
    ) {
      mapped = Number(mapped);
    }
    setOwn(payload, meta.field, mapped);
  }
  return payload;
}

function toValue(type: GraphQLInputType, value: unknown): unknown {
  if (value === null) return null;
  const nullable = getNullableType(type);
  if (isListType(nullable)) {
    const itemType = nullable.ofType;
    return (value as readonly unknown[]).map((item) => toValue(itemType, item));
  }
  if (isInputObjectType(nullable) && nullable.extensions.svcInputOf !== undefined) {
    return toPayload(nullable, value as Input);
  }
  return value;
}
