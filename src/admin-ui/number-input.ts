// Reading a number as a person types it, whatever their locale. The rule:
//  - a comma or a point marks the decimals: 9,99 and 9.99 are both 9.99;
//  - thousands may be grouped with spaces (1 234 567,5), or, when both marks appear, with the one that is not
//    last (1,234,567.5 or 1.234.567,5); the same mark two or more times only groups (1,234,567);
//  - one mark followed by exactly three digits, after a whole part of 1 to 3 digits not starting with 0
//    (1,234 or 1.234), could be either a thousands group or decimals: it is refused with how to write each,
//    so that it never becomes a number the person did not mean.
// The browser's <input type=number> is not used: in an English browser it turns 9,99 into 999.

export interface NumberReading {
  /** `undefined` for an empty field, or when the text is refused. */
  value: number | undefined;
  /** Why the text was refused, to show next to the field. */
  problem?: string;
}

const NOT_A_NUMBER = 'must be a number, such as 149.99 or 149,99';
const BAD_GROUPING = 'must be a number: group thousands in threes (1 234 567,5 or 1,234,567.5), or leave the grouping out';

/** Spaces people and locales put between thousands: space, no-break space, narrow no-break space, thin space. */
const GROUP_SPACE = '[ \\u00a0\\u202f\\u2009]';
const SPACE_GROUPED = new RegExp(`^(\\d{1,3}(?:${GROUP_SPACE}\\d{3})+)(?:[.,](\\d+))?$`);
const EXPONENT = /^(?:\d+(?:\.\d+)?|\.\d+)e[+-]?\d+$/i;

function refused(problem: string): NumberReading {
  return { value: undefined, problem };
}

function grouped(mark: string): RegExp {
  const escaped = mark === '.' ? '\\.' : mark;
  return new RegExp(`^\\d{1,3}(?:${escaped}\\d{3})+$`);
}

function numberOf(sign: string, whole: string, fraction: string | undefined): NumberReading {
  const value = Number(`${sign}${whole === '' ? '0' : whole}${fraction === undefined ? '' : `.${fraction}`}`);
  return Number.isFinite(value) ? { value } : refused(NOT_A_NUMBER);
}

export function readNumberInput(text: string): NumberReading {
  let rest = text.trim();
  if (rest === '') return { value: undefined };
  let sign = '';
  if (/^[-+\u2212]/.test(rest)) {
    sign = rest[0] === '+' ? '' : '-';
    rest = rest.slice(1);
  }

  if (EXPONENT.test(rest)) return numberOf('', `${sign}${rest}`, undefined);

  if (new RegExp(GROUP_SPACE).test(rest)) {
    if (!/^[\d.,]/.test(rest) || /[^\d., \u00a0\u202f\u2009]/.test(rest)) return refused(NOT_A_NUMBER);
    const match = SPACE_GROUPED.exec(rest);
    if (!match) return refused(BAD_GROUPING);
    return numberOf(sign, match[1]!.replace(/\D/g, ''), match[2]);
  }

  if (!/^[\d.,]*\d[\d.,]*$/.test(rest) || /[.,]$/.test(rest)) return refused(NOT_A_NUMBER);
  const commas = rest.split(',').length - 1;
  const points = rest.split('.').length - 1;

  if (commas > 0 && points > 0) {
    const decimalMark = rest.lastIndexOf(',') > rest.lastIndexOf('.') ? ',' : '.';
    const groupMark = decimalMark === ',' ? '.' : ',';
    const at = rest.lastIndexOf(decimalMark);
    const whole = rest.slice(0, at);
    const fraction = rest.slice(at + 1);
    if (!grouped(groupMark).test(whole) || !/^\d+$/.test(fraction)) return refused(BAD_GROUPING);
    return numberOf(sign, whole.split(groupMark).join(''), fraction);
  }

  const mark = commas > 0 ? ',' : points > 0 ? '.' : null;
  if (mark === null) return numberOf(sign, rest, undefined);
  if (commas + points > 1) {
    if (!grouped(mark).test(rest)) return refused(BAD_GROUPING);
    return numberOf(sign, rest.split(mark).join(''), undefined);
  }
  const [whole = '', fraction = ''] = rest.split(mark);
  if (/^[1-9]\d{0,2}$/.test(whole) && fraction.length === 3) {
    return refused(
      `could be ${sign}${whole}${fraction} or ${sign}${whole}.${fraction}: ` +
        `write ${sign}${whole}${fraction} for the whole number, or ${sign}${whole}.${fraction}0 for the decimal`,
    );
  }
  return numberOf(sign, whole, fraction);
}
