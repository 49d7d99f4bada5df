/** Bytes of a file's start that are enough to find the dimensions of common images. */
export const IMAGE_HEADER_BYTES = 512 * 1024;

export interface ImageSize {
  readonly width: number;
  readonly height: number;
}

/**
 * Width and height of a PNG, GIF, JPEG or WebP image from the first bytes of its content
 * (image files get `width`/`height`); undefined for anything else or
 * when the header is not in `head`.
 */
export function imageSize(head: Buffer): ImageSize | undefined {
  if (head.length >= 24 && head.readUInt32BE(0) === 0x89504e47 && head.toString('latin1', 12, 16) === 'IHDR') {
    return sized(head.readUInt32BE(16), head.readUInt32BE(20));
  }
  if (head.length >= 10 && /^GIF8[79]a$/.test(head.toString('latin1', 0, 6))) {
    return sized(head.readUInt16LE(6), head.readUInt16LE(8));
  }
  if (head.length >= 4 && head[0] === 0xff && head[1] === 0xd8) return jpegSize(head);
  if (head.length >= 30 && head.toString('latin1', 0, 4) === 'RIFF' && head.toString('latin1', 8, 12) === 'WEBP') {
    return webpSize(head);
  }
  return undefined;
}

/** JPEG: walk the segments to the first start-of-frame marker. */
function jpegSize(head: Buffer): ImageSize | undefined {
  let offset = 2;
  while (offset + 9 < head.length) {
    if (head[offset] !== 0xff) return undefined;
    const marker = head[offset + 1] ?? 0;
    if (marker === 0xff) {
      offset += 1;
      continue;
    }
    const length = head.readUInt16BE(offset + 2);
    const isStartOfFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isStartOfFrame) return sized(head.readUInt16BE(offset + 7), head.readUInt16BE(offset + 5));
    offset += 2 + length;
  }
  return undefined;
}

function webpSize(head: Buffer): ImageSize | undefined {
  const chunk = head.toString('latin1', 12, 16);
  if (chunk === 'VP8 ') return sized(head.readUInt16LE(26) & 0x3fff, head.readUInt16LE(28) & 0x3fff);
  if (chunk === 'VP8L') {
    const bits = head.readUInt32LE(21);
    return sized((bits & 0x3fff) + 1, ((bits >> 14) & 0x3fff) + 1);
  }
  if (chunk === 'VP8X') return sized(head.readUIntLE(24, 3) + 1, head.readUIntLE(27, 3) + 1);
  return undefined;
}

function sized(width: number, height: number): ImageSize | undefined {
  return width > 0 && height > 0 ? { width, height } : undefined;
}
