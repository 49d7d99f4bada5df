// s3rver ships no types; the few parts test/support/s3-server.ts uses.
declare module 's3rver' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface S3rverOptions {
    readonly directory: string;
    readonly silent?: boolean;
    readonly configureBuckets?: readonly { readonly name: string }[];
  }

  export default class S3rver {
    constructor(options: S3rverOptions);
    configureBuckets(): Promise<void>;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    readonly logger: { readonly exceptions: { unhandle(): void }; close(): void };
  }
}
