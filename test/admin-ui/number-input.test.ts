// What a person types into a number field of the record form, read the same whatever their locale: a comma or a
// point for decimals, thousands grouped with spaces, or with the other mark when both appear. Input that could mean
// two numbers is refused with a message saying how to write each; nothing becomes a silently different number.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readNumberInput } from '../../src/admin-ui/number-input.js';

function valueOf(text: string): number | undefined {
  const result = readNumberInput(text);
  assert.equal(result.problem, undefined, `${JSON.stringify(text)} refused: ${result.problem}`);
  return result.value;
}

function problemOf(text: string): string {
  const result = readNumberInput(text);
  assert.equal(result.value, undefined, `${JSON.stringify(text)} read as ${result.value}`);
  assert.ok(result.problem, `${JSON.stringify(text)} has no problem`);
  return result.problem;
}

describe('readNumberInput', () => {
  test('a comma or a point before the decimals: 9,99 and 9.99 are both 9.99', () => {
    const cases: [string, number][] = [
      ['9,99', 9.99],
      ['9.99', 9.99],
      ['149.99', 149.99],
      ['149,99', 149.99],
      ['0,125', 0.125],
      ['0.125', 0.125],
      ['1234,5', 1234.5],
      ['1234.567', 1234.567],
      ['12,3456', 12.3456],
      [',5', 0.5],
      ['.5', 0.5],
      ['-9,99', -9.99],
      ['−9,99', -9.99],
      ['+2.5', 2.5],
    ];
    for (const [text, expected] of cases) assert.equal(valueOf(text), expected, text);
  });

  test('whole numbers, blanks around them, exponents', () => {
    assert.equal(valueOf('0'), 0);
    assert.equal(valueOf('42'), 42);
    assert.equal(valueOf('  1234 '), 1234);
    assert.equal(valueOf('-7'), -7);
    assert.equal(valueOf('1e3'), 1000);
    assert.equal(valueOf('2.5E-3'), 0.0025);
    assert.equal(valueOf('1e+21'), 1e21);
  });

  test('an empty field is no value, not zero', () => {
    assert.deepEqual(readNumberInput(''), { value: undefined });
    assert.deepEqual(readNumberInput('   '), { value: undefined });
  });

  test('thousands grouped with spaces (also no-break and thin spaces), the decimals after a comma or a point', () => {
    const cases: [string, number][] = [
      ['1 234,5', 1234.5],
      ['1 234.5', 1234.5],
      ['1 234', 1234],
      ['12 345 678', 12345678],
      ['1\u00a0234,5', 1234.5],
      ['1\u202f234,50', 1234.5],
      ['1\u2009234', 1234],
      ['-1 234,5', -1234.5],
      ['1 234,567', 1234.567],
    ];
    for (const [text, expected] of cases) assert.equal(valueOf(text), expected, JSON.stringify(text));
  });

  test('both a comma and a point: the last one is the decimal mark, the other groups thousands', () => {
    const cases: [string, number][] = [
      ['1,234.5', 1234.5],
      ['1.234,5', 1234.5],
      ['1,234,567.89', 1234567.89],
      ['1.234.567,89', 1234567.89],
      ['-12,345.678', -12345.678],
    ];
    for (const [text, expected] of cases) assert.equal(valueOf(text), expected, text);
  });

  test('the same mark twice or more can only group thousands', () => {
    assert.equal(valueOf('1,234,567'), 1234567);
    assert.equal(valueOf('1.234.567'), 1234567);
  });

  test('one mark followed by exactly three digits could be either: refused, with how to write each', () => {
    for (const text of ['1,234', '1.234', '12,345', '999.999', '-1,234', '1,500']) problemOf(text);
    assert.equal(problemOf('1,234'), 'could be 1234 or 1.234: write 1234 for the whole number, or 1.2340 for the decimal');
    assert.equal(
      problemOf('-12.345'),
      'could be -12345 or -12.345: write -12345 for the whole number, or -12.3450 for the decimal',
    );
  });

  test('badly grouped thousands are refused with how to group them', () => {
    const message = 'must be a number: group thousands in threes (1 234 567,5 or 1,234,567.5), or leave the grouping out';
    for (const text of ['1,23,456', '12,34.5', '1.2.3', '1 23', '1234 567', '1,234.5,6', '1.234,567.8', '1 234.567,8']) {
      assert.equal(problemOf(text), message, text);
    }
  });

  test('anything else is not a number', () => {
    const message = 'must be a number, such as 149.99 or 149,99';
    for (const text of [
      'abc',
      '9,99 €',
      '$5',
      '1,',
      '5.',
      '-',
      '1e',
      '1,5e3',
      'Infinity',
      'NaN',
      '0x10',
      '1_000',
      '--1',
      '1-2',
      '١٢٣',
      '1e400',
    ]) {
      assert.equal(problemOf(text), message, text);
    }
  });
});
