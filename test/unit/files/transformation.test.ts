import { expect } from 'chai';
import { IllegalAssetTransformationError } from '../../../src/errors.js';
import {
  askedTransformation,
  resolveTransformation,
  transformSettings,
  type TransformSettings,
} from '../../../src/files/transform/transformation.js';
import { outputSize } from '../../../src/files/transform/transformer.js';

const LIMITS = { maxOperations: 2, maxDimension: 1000 };
const ALL: TransformSettings = { policy: 'all', presets: [{ key: 'thumb', width: 100, height: 100, fit: 'cover' }] };

const resolve = (query: Record<string, unknown>, settings: TransformSettings = ALL) => {
  const asked = askedTransformation(query, LIMITS);
  return asked === undefined ? undefined : resolveTransformation(asked, settings, LIMITS);
};
const refusal = (query: Record<string, unknown>, settings: TransformSettings = ALL): string => {
  try {
    resolve(query, settings);
  } catch (error) {
    expect(error).to.be.instanceOf(IllegalAssetTransformationError);
    return (error as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify(query)}`);
};

describe('asset transformation parameters (files/transform/transformation.ts)', () => {
  it('reads the parameters; none, or an empty transforms alone, is no transformation', () => {
    expect(resolve({})).to.equal(undefined);
    expect(resolve({ download: '' })).to.equal(undefined);
    expect(resolve({ transforms: '[]' })).to.equal(undefined);
    expect(
      resolve({
        width: '100',
        height: '50',
        fit: 'inside',
        quality: '80',
        format: 'webp',
        withoutEnlargement: 'true',
        transforms: '[["blur", 2], ["rotate", 90]]',
      }),
    ).to.deep.equal({
      width: 100,
      height: 50,
      fit: 'inside',
      quality: 80,
      format: 'webp',
      withoutEnlargement: true,
      transforms: [
        ['blur', 2],
        ['rotate', 90],
      ],
    });
  });

  it('refuses values out of range, unknown operations and too many of them, with the reason', () => {
    for (const query of [
      { width: '0' },
      { width: '-3' },
      { height: 'x' },
      { width: '1001' },
      { quality: '101' },
      { fit: 'stretch' },
      { format: 'bmp' },
      { withoutEnlargement: 'yes' },
      { transforms: '{' },
      { transforms: '{}' },
      { transforms: '[["toFile", "/tmp/x"]]' },
      { transforms: '[["constructor"]]' },
      { transforms: '[["blur", 5000]]' },
      { transforms: '[["rotate", 45]]' },
      { transforms: '[["flip"], ["flop"], ["negate"]]' },
    ]) {
      expect(refusal(query), JSON.stringify(query)).to.match(/^Illegal asset transformation: .+\.$/);
    }
    expect(refusal({ width: '1001' })).to.include('ASSETS_TRANSFORM_IMAGE_MAX_DIMENSION');
    expect(refusal({ transforms: '[["flip"], ["flop"], ["negate"]]' })).to.include('ASSETS_TRANSFORM_MAX_OPERATIONS');
  });

  it('key: a system or project preset, alone; what the policy allows', () => {
    expect(resolve({ key: 'thumb' })).to.deep.equal({ width: 100, height: 100, fit: 'cover' });
    expect(resolve({ key: 'system-small-cover' })).to.include({ width: 64, height: 64, fit: 'cover' });
    expect(refusal({ key: 'thumb', width: '10' })).to.include('cannot be combined');
    expect(refusal({ key: 'nope' })).to.include('no preset named "nope"');
    const presetsOnly = { ...ALL, policy: 'presets' as const };
    expect(resolve({ key: 'thumb' }, presetsOnly)).to.include({ width: 100 });
    expect(refusal({ width: '10' }, presetsOnly)).to.include('presets (key) only');
    const none = { ...ALL, policy: 'none' as const };
    expect(refusal({ key: 'thumb' }, none)).to.include('no preset');
    expect(resolve({ key: 'system-large-contain' }, none)).to.include({ width: 800 });
    const oversized: TransformSettings = { policy: 'all', presets: [{ key: 'huge', width: 5000 }] };
    expect(refusal({ key: 'huge' }, oversized)).to.include('ASSETS_TRANSFORM_IMAGE_MAX_DIMENSION');
  });

  it('settings: JSON text or values; anything but presets/none is all', () => {
    expect(transformSettings(undefined)).to.deep.equal({ policy: 'all', presets: [] });
    expect(
      transformSettings({
        storage_asset_transform: 'presets',
        storage_asset_presets: '[{"key":"a","width":5},{"x":1}]',
      }),
    ).to.deep.equal({ policy: 'presets', presets: [{ key: 'a', width: 5 }] });
    expect(
      transformSettings({ storage_asset_transform: 'none', storage_asset_presets: 'not json' }).presets,
    ).to.deep.equal([]);
  });

  it('the largest output of a resize, for the output limit', () => {
    expect(outputSize(4000, 1000, { width: 200 })).to.deep.equal({ width: 200, height: 50 });
    expect(outputSize(10, 1000, { width: 900, fit: 'outside' })).to.deep.equal({ width: 900, height: 90000 });
    expect(outputSize(100, 100, { width: 300, height: 200, fit: 'inside' })).to.deep.equal({ width: 200, height: 200 });
    expect(outputSize(100, 100, { width: 300, height: 200, fit: 'outside', withoutEnlargement: true })).to.deep.equal({
      width: 100,
      height: 100,
    });
    expect(outputSize(100, 50, { width: 30, height: 20, fit: 'cover' })).to.deep.equal({ width: 30, height: 20 });
    expect(outputSize(100, 50, {})).to.deep.equal({ width: 100, height: 50 });
  });
});
