import { expect } from 'chai';
import { inspect } from 'node:util';
import { TransportError } from '../../src/client/index.js';

describe('client: TransportError as Node shows it', () => {
  const response = {
    status: 401,
    statusText: 'Unauthorized',
    headers: Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`x-header-${i}`, 'value'])),
    raw: { body: 'x'.repeat(2000) },
    errors: [{ message: 'Invalid user credentials.', extensions: { code: 'INVALID_CREDENTIALS' } }],
  };

  it('is its message, the stack and the errors, not the whole response (a wrong password is a few lines)', () => {
    const error = new TransportError(null, response);
    const shown = inspect(error);
    expect(shown.split('\n')[0]).to.equal('TransportError: Invalid user credentials.');
    expect(shown).to.contain('errors: [');
    expect(shown).not.to.contain('x-header-');
    expect(shown.split('\n').length).to.be.below(20);
  });

  it('still carries the response and the cause for code that reads them', () => {
    const cause = new TypeError('fetch failed');
    expect(new TransportError(null, response).response?.status).to.equal(401);
    expect(new TransportError(cause).parent).to.equal(cause);
  });
});
