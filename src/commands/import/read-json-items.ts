import { StringDecoder } from 'node:string_decoder';
import { InvalidPayloadError } from '../../errors.js';
import { ROWS_PER_STEP } from '../give-way.js';
import { MAX_DOCUMENT_DEPTH, nestsDeeperThan, tooDeepMessage } from '../../query/index.js';
import type { Item } from '../types.js';

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;

type State = 'start' | 'first' | 'next' | 'after' | 'item' | 'end';

/**
 * The items of a JSON import file, a top-level array of objects,
 * as the bytes arrive, ROWS_PER_STEP at a time (as read-csv-items.ts): only the items being
 * read are held. Anything else is INVALID_PAYLOAD naming the row (1-based position in the array).
 */
export async function* readJsonItems(source: AsyncIterable<Buffer | string>): AsyncGenerator<Item[]> {
  const scanner = new ArrayScanner();
  let piece: Item[] = [];
  for await (const text of texts(source)) {
    for (const item of scanner.scan(text)) {
      if (piece.push(item) === ROWS_PER_STEP) {
        yield piece;
        piece = [];
      }
    }
  }
  if (piece.length > 0) yield piece;
  scanner.finish();
}

/** The file's text chunk by chunk, without its byte order mark. */
async function* texts(source: AsyncIterable<Buffer | string>): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  let isFirstChunk = true;
  for await (const chunk of source) {
    let text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
    if (isFirstChunk && text !== '') {
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      isFirstChunk = false;
    }
    yield text;
  }
  yield decoder.end();
}

/** Splits the text of a JSON array into its elements' texts, chunk by chunk. */
class ArrayScanner {
  #state: State = 'start';
  #depth = 0;
  #inString = false;
  #escaped = false;
  #pieces: string[] = [];
  #row = 0;

  *scan(text: string): Generator<Item> {
    let start = this.#state === 'item' ? 0 : -1;
    for (let i = 0; i < text.length; i += 1) {
      const c = text.charCodeAt(i);
      if (this.#state === 'item') {
        if (this.#inString) {
          if (this.#escaped) this.#escaped = false;
          else if (c === BACKSLASH) this.#escaped = true;
          else if (c === QUOTE) this.#inString = false;
        } else if (c === QUOTE) this.#inString = true;
        else if (c === OPEN_BRACE || c === OPEN_BRACKET) this.#depth += 1;
        else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && --this.#depth === 0) {
          this.#pieces.push(text.slice(start, i + 1));
          const item = parseItem(this.#pieces.join(''), this.#row);
          this.#pieces = [];
          this.#state = 'after';
          yield item;
        }
        continue;
      }
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
      switch (this.#state) {
        case 'start':
          if (c !== OPEN_BRACKET) throw new InvalidPayloadError(NOT_AN_ARRAY);
          this.#state = 'first';
          break;
        case 'after':
          if (c === COMMA) this.#state = 'next';
          else if (c === CLOSE_BRACKET) this.#state = 'end';
          else throw new InvalidPayloadError(`Invalid JSON after row ${this.#row}: expected "," or "]"`);
          break;
        case 'first':
        case 'next':
          if (this.#state === 'first' && c === CLOSE_BRACKET) {
            this.#state = 'end';
            break;
          }
          this.#row += 1;
          if (c !== OPEN_BRACE) throw new InvalidPayloadError(`Row ${this.#row} has to be an object`);
          this.#state = 'item';
          this.#depth = 1;
          start = i;
          break;
        case 'end':
          throw new InvalidPayloadError('Invalid JSON: content after the array of items');
      }
    }
    if (this.#state === 'item') this.#pieces.push(text.slice(start));
  }

  /** INVALID_PAYLOAD unless the array was closed. */
  finish(): void {
    if (this.#state === 'end') return;
    throw new InvalidPayloadError(
      this.#state === 'start' ? NOT_AN_ARRAY : `Invalid JSON: the file ends inside row ${this.#row}`,
    );
  }
}

const NOT_AN_ARRAY = 'The JSON file has to contain an array of items';

function parseItem(text: string, row: number): Item {
  if (nestsDeeperThan(text, MAX_DOCUMENT_DEPTH, 'json')) throw new InvalidPayloadError(tooDeepMessage(`Row ${row}`));
  try {
    return JSON.parse(text) as Item;
  } catch (error) {
    throw new InvalidPayloadError(`Invalid JSON in row ${row}: ${(error as Error).message}`);
  }
}
