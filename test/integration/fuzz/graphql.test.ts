import fc from 'fast-check';
import type { RawAnswer } from '../../support/raw-request.js';
import { describeEachDatabase } from '../../support/server.js';
import { graphqlDocument, graphqlVariables, jsonBodyText } from './arbitraries.js';
import {
  checkProperty,
  createFuzzWorld,
  FUZZ_ENV,
  fuzzIt,
  JSON_HEADERS,
  ROLES,
  send,
  sendWrite,
  type FuzzWorld,
} from './fuzz-world.js';

/*
 * Property: whatever the GraphQL document, variables or body, /graphql answers below 500,
 * with the error body from 400 on and no INTERNAL_SERVER_ERROR among the resolver errors of
 * a 200; a mutation that reports errors changes no row (fuzz-world.ts).
 */

const role = fc.constantFrom(...ROLES);
const hasErrors = (answer: RawAnswer) =>
  answer.status >= 400 || (answer.json as { errors?: unknown } | undefined)?.errors !== undefined;

describeEachDatabase(
  'fuzz: GraphQL',
  (ctx) => {
    let world: FuzzWorld;
    before(async () => {
      world = await createFuzzWorld(ctx());
    });

    fuzzIt('POST of any document with any variables', () =>
      checkProperty(
        fc.tuple(role, graphqlDocument, graphqlVariables, fc.constantFrom('/graphql', '/graphql', '/graphql/system')),
        async ([who, doc, variables, path]) => {
          const body = JSON.stringify({ query: doc.query, ...(variables === undefined ? {} : { variables }) });
          const req = { method: 'POST', path, headers: JSON_HEADERS, body };
          if (doc.isMutation) await sendWrite(world, who, req, hasErrors);
          else await send(world, who, req);
        },
      ),
    );

    fuzzIt('GET with the document in the query string', () =>
      checkProperty(fc.tuple(role, graphqlDocument), async ([who, doc]) => {
        await sendWrite(
          world,
          who,
          { method: 'GET', path: `/graphql?query=${encodeURIComponent(doc.query)}` },
          hasErrors,
        );
      }),
    );

    fuzzIt('bodies that are not a GraphQL request', () =>
      checkProperty(
        fc.tuple(role, jsonBodyText, fc.constantFrom('application/json', 'application/graphql', 'text/plain')),
        async ([who, body, type]) => {
          await sendWrite(
            world,
            who,
            { method: 'POST', path: '/graphql', headers: { 'Content-Type': type }, body },
            hasErrors,
          );
        },
      ),
    );
  },
  { env: FUZZ_ENV },
);
