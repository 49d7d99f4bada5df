import { expect } from 'chai';
import {
  FILTER_OPERATORS,
  OPERATORS_BY_TYPE,
  operatorSpec,
  type FilterOperator,
} from '../../../catalog/overview/filter-operators.js';
import type { FieldType } from '../../../catalog/overview/types.js';
import { operatorsOf, SHAPE } from '../../../src/console/studio/filter-operators.js';

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

  it("each operator has the shape the API gives it; only the one-to-many quantifiers are not the builder's", () => {
    const shapes = Object.fromEntries(
      FILTER_OPERATORS.filter((op) => SHAPE.has(op)).map((op) => [op, operatorSpec(op).shape]),
    );
    expect(Object.fromEntries(SHAPE)).to.deep.equal(shapes);
    expect(FILTER_OPERATORS.filter((op) => !SHAPE.has(op))).to.deep.equal(['_some', '_none']);
  });

  it('validation rules add _regex and _submitted', () => {
    const added = operatorsOf('string', true).filter((op) => !operatorsOf('string').includes(op));
    expect(added).to.have.members(['_regex', '_submitted'] satisfies FilterOperator[]);
  });
});
