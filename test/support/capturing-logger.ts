import { Writable } from 'node:stream';
import { pino } from 'pino';

/** A logger at `level` (info) whose lines (parsed) land in `lines`, for tests that assert what is logged. */
export function capturingLogger(lines: Record<string, unknown>[], level = 'info') {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n'))
        if (line !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return pino({ level }, sink);
}
