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
  const columnsOf = (row: Record<string, unknown> | undefined) => {
    const columns = Object.keys(row ?? {});
    return except === undefined ? columns : columns.filter((column) => column !== except);
  };
  let start = 0;
  while (start < rows.length) {
    const columns = columnsOf(rows[start]);
    const signature = columns.join('\u0000');
    let end = start + 1;
    while (end < rows.length && columnsOf(rows[end]).join('\u0000') === signature) end += 1;
    yield { start, end, columns };
    start = end;
  }
}
