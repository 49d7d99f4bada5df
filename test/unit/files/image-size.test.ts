import { expect } from 'chai';
import { imageSize } from '../../../src/files/image-size.js';
import { pngHeader } from '../../support/png-header.js';

describe('image size', () => {
  it('reads PNG, GIF, JPEG and WebP headers', () => {
    expect(imageSize(pngHeader(640, 480))).to.deep.equal({ width: 640, height: 480 });
    const gif = Buffer.from('GIF89a\x20\x03\x58\x02', 'latin1');
    expect(imageSize(gif)).to.deep.equal({ width: 800, height: 600 });
    // SOI, an APP0 segment of 16 bytes, then SOF0 with height 300 and width 400.
    const jpeg = Buffer.concat([
      Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]),
      Buffer.alloc(14),
      Buffer.from([0xff, 0xc0, 0x00, 0x11, 0x08, 0x01, 0x2c, 0x01, 0x90, 0x03]),
    ]);
    expect(imageSize(jpeg)).to.deep.equal({ width: 400, height: 300 });
    const webp = Buffer.alloc(30);
    webp.write('RIFF', 0, 'latin1');
    webp.write('WEBPVP8X', 8, 'latin1');
    webp.writeUIntLE(99, 24, 3);
    webp.writeUIntLE(49, 27, 3);
    expect(imageSize(webp)).to.deep.equal({ width: 100, height: 50 });
  });

  it('is undefined for anything else', () => {
    expect(imageSize(Buffer.from('hello, world'))).to.equal(undefined);
    expect(imageSize(Buffer.alloc(0))).to.equal(undefined);
  });
});
