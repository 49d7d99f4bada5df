/** Progress of a long command: a bar on a terminal, nothing when stderr is a file or pipe. */
export interface Progress {
  update(done: number, total: number | null): void;
  done(): void;
}

const WIDTH = 30;

/** A bar on `stream` (stderr) when it is a terminal, redrawn at most every 100 ms. */
export function progressBar(label: string, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!stream.isTTY) return { update: () => undefined, done: () => undefined };
  let last = 0;
  let shown = false;
  return {
    update(done, total) {
      const now = Date.now();
      if (now - last < 100 && done !== total) return;
      last = now;
      shown = true;
      const ratio = total === null || total === 0 ? 0 : Math.min(1, done / total);
      const filled = Math.round(ratio * WIDTH);
      const counts = total === null ? String(done) : `${String(done)}/${String(total)}`;
      stream.write(
        `\r${label} [${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}] ${String(Math.round(ratio * 100)).padStart(3)}% ${counts}`,
      );
    },
    done() {
      if (shown) stream.write('\n');
    },
  };
}
