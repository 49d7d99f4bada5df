/** Consecutive rows of a batch that set the same columns: one statement or COPY each. */
export interface ColumnRun {
  /** The first row of the run, and the one after its last. */
  readonly start: number;
  readonly end: number;
  /** The columns every row of the run sets, `except` left out. */
  readonly columns: readonly string[];
}

/** The runs of `rows`, in order; `except` (the key a COPY gives itself) is not compared. */
export function* columnRuns(rows: readonly Record<string, unknown>[], except?: string): Generator<ColumnRun> {
  // Compared name by name as they are set: an import's rows allocate nothing here.
  const setsColumns = (row: Record<string, unknown> | undefined, columns: readonly string[]) => {
    let count = 0;
    for (const column in row) {
      if (column === except) continue;
      if (columns[count] !== column) return false;
      count += 1;
    }
    return count === columns.length;
  };
  let start = 0;
  while (start < rows.length) {
    const columns = Object.keys(rows[start] ?? {}).filter((column) => column !== except);
    let end = start + 1;
    while (end < rows.length && setsColumns(rows[end], columns)) end += 1;
    yield { start, end, columns };
    start = end;
  }
}
