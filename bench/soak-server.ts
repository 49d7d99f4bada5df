/**
 * The server of bench/soak.ts: src/server.ts's start, plus the samples the soak asks for over
 * IPC (RSS, heap, event-loop delay since the last sample). Not run by hand.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { loadConfigOrExit } from '../src/config/index.js';
import { startServer } from '../src/server.js';

const RESOLUTION_MS = 10;
const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
delay.enable();
const server = await startServer(loadConfigOrExit(process.env));
/** The histogram holds each timer's whole period: the delay is what exceeds the resolution. */
const ms = (ns: number) => Math.max(0, Math.round(ns / 1e4 - RESOLUTION_MS * 100) / 100);

process.on('message', (message: unknown) => {
  if (message === 'sample') {
    const { rss, heapUsed } = process.memoryUsage();
    process.send?.({
      rss,
      heapUsed,
      delayP50: ms(delay.percentile(50)),
      delayP99: ms(delay.percentile(99)),
      delayMax: ms(delay.max),
    });
    delay.reset();
  } else if (message === 'stop') {
    void server.close().then(() => process.exit(0));
  }
});
process.send?.({ url: server.url });
