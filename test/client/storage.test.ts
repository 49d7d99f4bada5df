import { expect } from 'chai';
import { LocalStorage, MemoryStorage, type WebStorage } from '../../src/client/index.js';

/** A Web Storage over a Map: the browser's localStorage is a process edge here. */
function mapStore(): WebStorage & { readonly entries: Map<string, string> } {
  const entries = new Map<string, string>();
  return {
    entries,
    getItem: (key) => entries.get(key) ?? null,
    setItem: (key, value) => void entries.set(key, value),
    removeItem: (key) => void entries.delete(key),
  };
}

describe('client storage', () => {
  it('MemoryStorage keeps the auth keys apart per prefix, numbers as numbers', () => {
    const a = new MemoryStorage({ prefix: 'a_' });
    const b = new MemoryStorage({ prefix: 'b_' });
    a.auth_token = 'token-a';
    a.auth_expires = 900000;
    a.auth_expires_at = 1700000000000;
    expect([a.auth_token, a.auth_expires, a.auth_expires_at, a.auth_refresh_token]).to.deep.equal([
      'token-a',
      900000,
      1700000000000,
      null,
    ]);
    expect(b.auth_token).to.equal(null);
    expect(a.get('auth_token')).to.equal('token-a');
    expect(a.delete('auth_token')).to.equal('token-a');
    expect(a.auth_token).to.equal(null);
  });

  it('LocalStorage writes prefixed keys into the Web Storage and null removes them', () => {
    const store = mapStore();
    const storage = new LocalStorage({ prefix: 'app1_', store });
    storage.auth_refresh_token = 'refresh';
    storage.auth_expires_at = 42;
    expect([...store.entries]).to.deep.equal([
      ['app1_auth_refresh_token', 'refresh'],
      ['app1_auth_expires_at', '42'],
    ]);
    storage.auth_refresh_token = null;
    expect([...store.entries.keys()]).to.deep.equal(['app1_auth_expires_at']);
    expect(storage.set('custom', 'v')).to.equal('v');
    expect(store.entries.get('app1_custom')).to.equal('v');
  });

  it('LocalStorage refuses to start where there is no localStorage', () => {
    expect(() => new LocalStorage()).to.throw(/MemoryStorage/);
  });
});
