// Image transform parameters (src/media/transform-params.ts): what a query asks for, normalised; every bad parameter
// named; `format=auto` negotiated from Accept, and marked as varying by it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { negotiateFormat, parseTransform, TransformParamError } from '../../src/media/transform-params.js';

const CHROME_ACCEPT = 'image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8';

function refusal(param: string, reason: string | RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof TransformParamError, `a TransformParamError, not ${String(error)}`);
    assert.equal(error.param, param);
    assert.equal(error.code, 'BAD_USER_INPUT');
    assert.deepEqual(error.extensions, { field: param });
    if (typeof reason === 'string') assert.equal(error.message, `${param}: ${reason}`);
    else assert.match(error.message, reason);
    return true;
  };
}

describe('parseTransform', () => {
  test('no transform parameter is no transform: the original is served', () => {
    assert.equal(parseTransform({}, CHROME_ACCEPT), null);
    assert.equal(parseTransform({ expires: '1900000000', sig: 'abc' }, CHROME_ACCEPT), null);
    assert.equal(parseTransform({ w: undefined }, undefined), null);
  });

  test('a request is normalised with its defaults', () => {
    assert.deepEqual(parseTransform({ w: '800' }, undefined), {
      width: 800,
      height: null,
      fit: 'cover',
      format: 'original',
      quality: 80,
      variesByAccept: false,
    });
    assert.deepEqual(parseTransform({ w: '1', h: '4000', fit: 'inside', format: 'png', q: '100', sig: 's' }, undefined), {
      width: 1,
      height: 4000,
      fit: 'inside',
      format: 'png',
      quality: 100,
      variesByAccept: false,
    });
    assert.equal(parseTransform({ w: '0800' }, undefined)?.width, 800, 'leading zeros: the same number');
    assert.equal(parseTransform({ h: ['300'] }, undefined)?.height, 300, 'a list of one is that value');
    for (const fit of ['cover', 'contain', 'inside']) assert.equal(parseTransform({ fit }, undefined)?.fit, fit);
    for (const format of ['webp', 'avif', 'jpeg', 'png']) {
      const request = parseTransform({ format }, CHROME_ACCEPT);
      assert.equal(request?.format, format);
      assert.equal(request?.variesByAccept, false, 'a named format does not depend on Accept');
    }
  });

  test('w and h: integers from 1 to 4000', () => {
    for (const param of ['w', 'h']) {
      for (const bad of ['0', '4001', '-5', '1.5', '1e3', 'abc', '', ' 80', '80px', '99999999999999999999', '0x10']) {
        assert.throws(() => parseTransform({ [param]: bad }, undefined), refusal(param, 'expected an integer from 1 to 4000'));
      }
    }
  });

  test('q: an integer from 1 to 100', () => {
    for (const bad of ['0', '101', '50.5', 'high', '']) {
      assert.throws(() => parseTransform({ q: bad }, undefined), refusal('q', 'expected an integer from 1 to 100'));
    }
  });

  test('fit and format: one of their values, case and all', () => {
    for (const bad of ['fill', 'Cover', '', 'outside']) {
      assert.throws(() => parseTransform({ fit: bad }, undefined), refusal('fit', 'expected one of cover, contain, inside'));
    }
    for (const bad of ['gif', 'WEBP', 'jpg', '', 'svg']) {
      assert.throws(
        () => parseTransform({ format: bad }, undefined),
        refusal('format', 'expected one of webp, avif, jpeg, png, auto'),
      );
    }
  });

  test('an unknown parameter is refused by name, even beside valid ones', () => {
    assert.throws(() => parseTransform({ width: '800' }, undefined), refusal('width', /^width: unknown parameter/));
    assert.throws(() => parseTransform({ w: '800', blur: '3' }, undefined), refusal('blur', /^blur: unknown parameter/));
    assert.throws(() => parseTransform({ W: '800' }, undefined), refusal('W', /unknown parameter; expected one of w, h/));
  });

  test('a repeated parameter is refused by name', () => {
    for (const param of ['w', 'h', 'fit', 'format', 'q', 'expires', 'sig']) {
      assert.throws(() => parseTransform({ [param]: ['1', '1'] }, undefined), refusal(param, 'given more than once'));
    }
  });

  test('format=auto: AVIF, else WebP, else the original, always varying by Accept', () => {
    const auto = (accept: string | undefined) => parseTransform({ w: '100', format: 'auto' }, accept);
    assert.deepEqual(
      [CHROME_ACCEPT, 'image/webp,*/*', 'image/png,image/*;q=0.8,*/*;q=0.5', '*/*', '', undefined].map((accept) => {
        const request = auto(accept);
        return [request?.format, request?.variesByAccept];
      }),
      [
        ['avif', true],
        ['webp', true],
        ['original', true],
        ['original', true],
        ['original', true],
        ['original', true],
      ],
    );
  });

  test('Accept negotiation reads media ranges: case, spaces, parameters and q=0', () => {
    assert.equal(negotiateFormat(' IMAGE/AVIF ; q=0.9 , text/html'), 'avif');
    assert.equal(negotiateFormat('image/avif;q=0, image/webp'), 'webp', 'q=0: not acceptable');
    assert.equal(negotiateFormat('image/avif;q=0.0,image/webp;q=0'), 'original');
    assert.equal(negotiateFormat('image/*'), 'original', 'a wildcard does not say AVIF or WebP is decoded');
    assert.equal(negotiateFormat('image/avifx, image/webp2'), 'original');
    assert.equal(negotiateFormat(',,;'), 'original');
  });
});
