import type { Accountability } from '../access/accountability.js';

declare module 'express-serve-static-core' {
  interface Request {
    /** Set by the accountability middleware before any route runs. */
    accountability: Accountability;
  }
}

export {};
