import { expect } from 'chai';
import {
  baseType,
  contentDisposition,
  diskName,
  filenameFromDisposition,
  filenameFromUrl,
  isTypeAllowed,
  titleOf,
} from '../../../src/files/file-names.js';

describe('file names', () => {
  it('filename_disk is <id> plus a plain extension of the name, or of the type', () => {
    expect(diskName('abc', 'Photo.JPG', 'image/jpeg')).to.equal('abc.jpg');
    expect(diskName('abc', 'archive', 'text/csv')).to.equal('abc.csv');
    expect(diskName('abc', 'evil.%2e%2e', 'application/x-unknown')).to.equal('abc');
    expect(diskName('abc', 'noext', 'application/x-unknown')).to.equal('abc');
  });

  it('titles are the humanised name without extension', () => {
    expect(titleOf('my-cool_photo.jpg')).to.equal('My Cool Photo');
    expect(titleOf('export-articles-20261121.csv')).to.equal('Export Articles 20261121');
    expect(titleOf('.env')).to.equal('.env');
  });

  it('matches types against the allow list with wildcards', () => {
    expect(isTypeAllowed('image/png', ['*/*'])).to.equal(true);
    expect(isTypeAllowed('image/png', ['image/*'])).to.equal(true);
    expect(isTypeAllowed('application/pdf', ['image/*', 'text/plain'])).to.equal(false);
    expect(isTypeAllowed('text/plain', ['image/*', 'text/plain'])).to.equal(true);
    expect(baseType('Text/CSV; charset=utf-8')).to.equal('text/csv');
    expect(baseType(undefined)).to.equal('application/octet-stream');
  });

  it('Content-Disposition carries an ASCII fallback and the exact name', () => {
    expect(contentDisposition('inline', 'report.csv')).to.equal('inline; filename="report.csv"');
    expect(contentDisposition('attachment', 'a "b"\\.txt')).to.equal(
      `attachment; filename="a _b__.txt"; filename*=UTF-8''a%20%22b%22%5C.txt`,
    );
    expect(contentDisposition('attachment', 'naïve.txt')).to.equal(
      `attachment; filename="na_ve.txt"; filename*=UTF-8''na%C3%AFve.txt`,
    );
  });

  it('reads names from Content-Disposition and URLs, never with folders', () => {
    expect(filenameFromDisposition('attachment; filename="a b.csv"')).to.equal('a b.csv');
    expect(filenameFromDisposition(`attachment; filename="x.csv"; filename*=UTF-8''na%C3%AFve.csv`)).to.equal(
      'naïve.csv',
    );
    expect(filenameFromDisposition('attachment; filename=../../etc/passwd')).to.equal('passwd');
    expect(filenameFromDisposition('inline')).to.equal(undefined);
    expect(filenameFromUrl(new URL('https://example.com/a/My%20File.pdf?x=1'))).to.equal('My File.pdf');
    expect(filenameFromUrl(new URL('https://example.com/a/'))).to.equal(undefined);
  });
});
