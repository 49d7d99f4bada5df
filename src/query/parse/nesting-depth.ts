/**
 * The deepest nesting a document from a request may have (JSON bodies, snapshot files,
 * query-string JSON and brackets, import cells, GraphQL documents). Parsers and everything
 * walking their result recurse once per level: `'['.repeat(100000)` once ran the process out of
 * memory. Real documents stay far below it (a snapshot nests 5 levels, a filter a few dozen).
 */
export const MAX_DOCUMENT_DEPTH = 100;

const OPEN_SQUARE = 0x5b;
const CLOSE_SQUARE = 0x5d;
const OPEN_CURLY = 0x7b;
const CLOSE_CURLY = 0x7d;
const OPEN_ROUND = 0x28;
const CLOSE_ROUND = 0x29;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const NEWLINE = 0x0a;
const SPACE = 0x20;
const TAB = 0x09;
const DASH = 0x2d;
const QUESTION = 0x3f;
const COLON = 0x3a;

export type NestingSyntax = 'json' | 'yaml' | 'graphql';

/**
 * Whether `text` nests deeper than `limit`, read before any parser sees it, in one pass
 * without building anything. JSON and GraphQL: `[` and `{` (and GraphQL's `(`) outside
 * double-quoted strings. YAML: flow brackets wherever they are (a quote may open a plain
 * scalar, so strings are not skipped: balanced brackets in a string cost nothing), plus on
 * each line its indentation and the block indicators (`- `, `? `) starting it, the levels a
 * block collection can open. `text` may be a Buffer (the bytes of the characters counted are
 * ASCII, so bytes and UTF-8 text count alike).
 */
export function nestsDeeperThan(text: string | Uint8Array, limit: number, syntax: NestingSyntax): boolean {
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  const yaml = syntax === 'yaml';
  const round = syntax === 'graphql';
  let depth = 0;
  let inString = false;
  let lineStart = true;
  let indent = 0;
  let indicators = 0;
  for (let i = 0; i < bytes.length; i += 1) {
    const c = bytes[i];
    if (inString) {
      if (c === BACKSLASH) i += 1;
      else if (c === QUOTE) inString = false;
      continue;
    }
    if (yaml) {
      if (c === NEWLINE) {
        lineStart = true;
        indent = 0;
        indicators = 0;
        continue;
      }
      if (lineStart) {
        if (c === SPACE || c === TAB) indent += 1;
        else if ((c === DASH || c === QUESTION || c === COLON) && isBlank(bytes[i + 1])) indicators += 1;
        else lineStart = false;
        if (depth + indent + indicators > limit) return true;
      }
    } else if (c === QUOTE) {
      inString = true;
      continue;
    }
    if (c === OPEN_SQUARE || c === OPEN_CURLY || (round && c === OPEN_ROUND)) {
      depth += 1;
      if (depth > limit) return true;
    } else if (c === CLOSE_SQUARE || c === CLOSE_CURLY || (round && c === CLOSE_ROUND)) {
      if (depth > 0) depth -= 1;
    }
  }
  return false;
}

function isBlank(c: number | undefined): boolean {
  return c === undefined || c === SPACE || c === TAB || c === NEWLINE || c === 0x0d;
}

/** The reason a too deep document is refused, naming what it was. */
export function tooDeepMessage(what: string, limit = MAX_DOCUMENT_DEPTH): string {
  return `${what} nests deeper than ${limit} levels`;
}
