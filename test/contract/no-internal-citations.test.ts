import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// The team's working documents (the API spec, its reference notes, the design and style notes)
// are not part of the repository, so no tracked file may send a reader to them: a comment or
// doc says the rule in its own words, or points to docs/*.md, README.md or a folder's README.md.
// The patterns are put together from pieces so that this file does not match them itself.
const root = fileURLToPath(new URL('../../', import.meta.url));
const CITATION = new RegExp(
  [
    ['reference', '[a-z0-9-]+\\.md'].join('/'),
    ['\\.\\.', 'shared'].join('/'),
    ['', 'work', 'shared'].join('/'),
    ['spec', 'content-data'].join('/'),
    ['DESIGN', 'md'].join('\\.'),
    ['STYLE', 'md'].join('\\.'),
  ].join('|'),
);

function trackedFiles(): string[] {
  const listing = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
  return listing
    .split('\0')
    .filter((path) => path !== '' && existsSync(`${root}${path}`) && statSync(`${root}${path}`).isFile());
}

describe('no citations of documents outside the repository', () => {
  it('no tracked file names the internal spec, reference notes, DESIGN or STYLE notes', () => {
    const hits: string[] = [];
    for (const path of trackedFiles()) {
      const text = readFileSync(`${root}${path}`, 'utf8');
      if (text.includes('\0')) continue; // binary (images)
      text.split('\n').forEach((line, index) => {
        if (CITATION.test(line)) hits.push(`${path}:${index + 1}: ${line.trim()}`);
      });
    }
    expect(hits, `cited documents a clone does not have:\n${hits.join('\n')}`).to.deep.equal([]);
  });
});
