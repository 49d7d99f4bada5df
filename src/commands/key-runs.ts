import type { PrimaryKey } from './types.js';

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
  #lastKey = -Infinity;
  #lastNumber = Number.NaN;
  #map: Map<PrimaryKey, number> | undefined;
  #size = 0;

  /** The number noted with `key`, or undefined. */
  get(key: PrimaryKey): number | undefined {
    if (this.#map === undefined && isInteger(key) && key > this.#lastKey) return undefined;
    return this.#asMap().get(key);
  }

  /** Notes `key` (not noted before: {@link get} says) with `number`. */
  set(key: PrimaryKey, number: number): void {
    this.#size += 1;
    if (this.#map !== undefined || !isInteger(key) || key <= this.#lastKey) {
      this.#asMap().set(key, number);
      return;
    }
    const runs = this.#runs;
    const at = runs.length - 3;
    if (key === this.#lastKey + 1 && number === this.#lastNumber + 1 && at >= 0) runs[at + 2] = (runs[at + 2] ?? 0) + 1;
    else runs.push(key, number, 1);
    this.#lastKey = key;
    this.#lastNumber = number;
  }

  /** Notes `key` unless it was, numbered by the order of the keys noted. */
  add(key: PrimaryKey): void {
    if (this.get(key) === undefined) this.set(key, this.#size);
  }

  /** The keys in the order noted. */
  *keys(): Generator<PrimaryKey> {
    if (this.#map !== undefined) {
      yield* this.#map.keys();
      return;
    }
    for (const [first, , length] of this.#eachRun()) for (let key = first; key < first + length; key += 1) yield key;
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

  *#eachRun(): Generator<[number, number, number]> {
    const runs = this.#runs;
    for (let at = 0; at < runs.length; at += 3) yield [runs[at] ?? 0, runs[at + 1] ?? 0, runs[at + 2] ?? 0];
  }
}

function isInteger(key: PrimaryKey): key is number {
  return typeof key === 'number' && Number.isSafeInteger(key);
}
