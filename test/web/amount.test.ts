import { describe, expect, it } from 'vitest';
import { parseAmount } from '../../web/shared/amount.js';

const ru = (text: string, rules = {}) => parseAmount(text, { language: 'ru', negative: true, ...rules });
const en = (text: string, rules = {}) => parseAmount(text, { language: 'en', negative: true, ...rules });
const value = (reading: ReturnType<typeof parseAmount>) => (reading.ok ? reading.value : reading.problem);

/** The money fields of the console read amounts as the reader's language writes them, and never guess. */
describe('parseAmount', () => {
  it.each([
    ['1000,50', 1000.5],
    ['1 000,50', 1000.5],
    ['1\u00a0000,50', 1000.5],
    ['1\u202f000,5', 1000.5],
    ['1000.50', 1000.5],
    ['1 000.50', 1000.5],
    ['1.000,50', 1000.5],
    ['1.000.000', 1_000_000],
    ['-250', -250],
    ['\u2212250,5', -250.5],
    ['+3', 3],
    ['0,000001', 0.000001],
    ['0,125', 0.125],
    ['0.125', 0.125],
  ])('reads %j in Russian as %d', (text, expected) => expect(value(ru(text))).toBe(expected));

  it.each([
    ['1,000.50', 1000.5],
    ['1000.50', 1000.5],
    ['1000,50', 1000.5],
    ['1,000', 1000],
    ['12,345,678.9', 12_345_678.9],
    ['1 000', 1000],
    ['1.000', 1],
    ['-0.25', -0.25],
    ['0,125', 0.125],
  ])('reads %j in English as %d', (text, expected) => expect(value(en(text))).toBe(expected));

  it.each([
    ['', 'empty'],
    ['   ', 'empty'],
    ['1.000', 'ambiguous'],
    ['12.345', 'ambiguous'],
    ['1,2,3', 'invalid'],
    ['1,000,50', 'invalid'],
    ['10 00', 'invalid'],
    ['abc', 'invalid'],
    ['1e5', 'invalid'],
    ['1,', 'invalid'],
    ['--1', 'invalid'],
    ['1,0000001', 'decimals'],
    ['0', 'zero'],
    ['10000000000000', 'tooLarge'],
  ])('refuses %j in Russian: %s', (text, problem) => expect(value(ru(text))).toBe(problem));

  it('refuses what English cannot read either way, and negatives where a debit makes no sense', () => {
    expect(value(en('1000,500'))).toBe('ambiguous');
    expect(value(en('1.000,5'))).toBe(1000.5);
    expect(value(parseAmount('-1', { language: 'en' }))).toBe('negative');
    expect(value(parseAmount('0', { language: 'en', zero: true }))).toBe(0);
    expect(value(parseAmount('0,125', { language: 'ru', maxDecimals: 2 }))).toBe('decimals');
  });
});
