/** Every enveloped response is uncached by default. */
export const ENVELOPE_HEADERS: Readonly<Record<string, string>> = {
  'Cache-Control': 'no-cache',
  Vary: 'Origin, Cache-Control',
};
