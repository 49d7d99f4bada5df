import type { PrimaryKey } from './primary-key.js';

/**
 * Keys noted once each, with a number that goes up with them (a row of the file, an ordinal),
 * in the order noted. While the keys are integers that only increase, as in a file exported
 * by id, they are held as runs (first key, first number, length): a million keys in a few
 * runs instead of a million Map entries (some 30 MB), so that an import's memory does not
 * grow with its file (issue 13). The first key that breaks the order, or is no integer,
 * turns them into a Map, in which repeats are found.
 */
export class KeyRuns {
  /** Runs of consecutive keys with consecutive numbers, three numbers each. */
  #runs: number[] = [];
  #map: Map<PrimaryKey, number> | undefined;
  #size = 0;

  /** The number noted with `key`, or undefined. */
  get(key: PrimaryKey): number | undefined {
    if (this.#map === undefined && isInteger(key) && key > this.#lastKey()) return undefined;
    return this.#asMap().get(key);
  }

  /** Notes `key` (not noted before: {@link get} says) with `number`. */
  set(key: PrimaryKey, number: number): void {
    this.#size += 1;
    const last = this.#lastKey();
    if (this.#map !== undefined || !isInteger(key) || key <= last) {
      this.#asMap().set(key, number);
      return;
    }
    const runs = this.#runs;
    const at = runs.length - 3;
    // The run goes on when the key and its number both follow its last ones.
    if (key === last + 1 && number === (runs[at + 1] ?? 0) + (runs[at + 2] ?? 0))
      runs[at + 2] = (runs[at + 2] ?? 0) + 1;
    else runs.push(key, number, 1);
  }

  /** Notes `key` unless it was, numbered by the order of the keys noted. */
  add(key: PrimaryKey): void {
    if (this.get(key) === undefined) this.set(key, this.#size);
  }

  /** The keys in the order noted: runs as ranges, keys past the runs as one array. */
  segments(): KeySegment[] {
    if (this.#map !== undefined) return [[...this.#map.keys()]];
    return [...this.#eachRun()].map(([first, , count]) => ({ first, count }));
  }

  #asMap(): Map<PrimaryKey, number> {
    if (this.#map === undefined) {
      this.#map = new Map();
      for (const [key, number, length] of this.#eachRun())
        for (let i = 0; i < length; i += 1) this.#map.set(key + i, number + i);
      this.#runs = [];
    }
    return this.#map;
  }

  /** The last key of the runs (-Infinity before the first). */
  #lastKey(): number {
    const runs = this.#runs;
    const at = runs.length - 3;
    return at < 0 ? -Infinity : (runs[at] ?? 0) + (runs[at + 2] ?? 0) - 1;
  }

  *#eachRun(): Generator<[number, number, number]> {
    const runs = this.#runs;
    for (let at = 0; at < runs.length; at += 3) yield [runs[at] ?? 0, runs[at + 1] ?? 0, runs[at + 2] ?? 0];
  }
}

/** Consecutive integer keys, `count` from `first`. */
interface KeyRange {
  readonly first: number;
  readonly count: number;
}

export type KeySegment = readonly PrimaryKey[] | KeyRange;

/**
 * Keys kept as arrays and ranges, read a slice at a time (the live-data feed reads and sends a
 * big change so): the keys of a million-row import are never copied into one array.
 */
export class KeyList {
  readonly length: number;

  constructor(readonly segments: readonly KeySegment[]) {
    this.length = segments.reduce((sum, segment) => sum + lengthOf(segment), 0);
  }

  /** The keys from `start` to before `end`, as Array.prototype.slice with indexes from 0 up. */
  slice(start = 0, end = this.length): PrimaryKey[] {
    const keys: PrimaryKey[] = [];
    let offset = 0;
    for (const segment of this.segments) {
      const count = lengthOf(segment);
      for (let i = Math.max(start - offset, 0); i < Math.min(end - offset, count); i += 1)
        keys.push('first' in segment ? segment.first + i : (segment[i] as PrimaryKey));
      offset += count;
      if (offset >= end) break;
    }
    return keys;
  }

  /** JSON (a message, a log line) takes the keys as an array. */
  toJSON(): PrimaryKey[] {
    return this.slice();
  }
}

function lengthOf(segment: KeySegment): number {
  return 'first' in segment ? segment.count : segment.length;
}

function isInteger(key: PrimaryKey): key is number {
  return typeof key === 'number' && Number.isSafeInteger(key);
}
