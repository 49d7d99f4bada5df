import { expect } from 'chai';
import {
  FILTER_OPERATORS,
  OPERATORS_BY_TYPE,
  operatorSpec,
  operatorsOfShape,
  type FilterOperator,
} from '../../../catalog/overview/filter-operators.js';
import type { FieldType } from '../../../catalog/overview/types.js';
import { operatorsOf, QUANTIFIERS, SHAPE } from '../../../src/console/studio/filter-operators.js';

/**
 * The Studio's filter builder mirrors the API's operator table (the console imports only the
 * client library): the same operators per field type, in the same order, each with the API's
 * shape, so the builder never offers a rule the API refuses nor hides one it takes.
 */
describe("console: the filter builder's operators mirror the API's table", () => {
  for (const type of Object.keys(OPERATORS_BY_TYPE) as FieldType[]) {
    it(`a ${type} field`, () => {
      const api = FILTER_OPERATORS.filter((op) => OPERATORS_BY_TYPE[type].has(op));
      expect(operatorsOf(type)).to.deep.equal(api);
    });
  }

  it('has every operator of the API, in its order, each with the shape the API gives it', () => {
    expect([...SHAPE]).to.deep.equal(FILTER_OPERATORS.map((op) => [op, operatorSpec(op).shape]));
  });

  it('offers a to-many field the quantifiers, _some and _none, and no field type those', () => {
    expect(QUANTIFIERS).to.deep.equal(operatorsOfShape('quantifier'));
    expect(QUANTIFIERS).to.deep.equal(['_some', '_none'] satisfies FilterOperator[]);
    for (const type of Object.keys(OPERATORS_BY_TYPE))
      expect(operatorsOf(type, true).filter((op) => QUANTIFIERS.includes(op))).to.deep.equal([]);
  });

  it('validation rules add _regex and _submitted', () => {
    const added = operatorsOf('string', true).filter((op) => !operatorsOf('string').includes(op));
    expect(added).to.have.members(['_regex', '_submitted'] satisfies FilterOperator[]);
  });
});
