import type { CARD_BRANDS } from '../paymentListSpec.ts';

export type CardBrand = (typeof CARD_BRANDS)[number];

interface BrandRule {
  brand: CardBrand;
  /** Inclusive IIN ranges, compared on as many leading digits as the bounds have. */
  ranges: Array<[number, number]>;
  lengths: number[];
  cvcLength: number;
}

/**
 * IIN ranges of the major networks. Order matters where ranges overlap: Discover's
 * 622126–622925 sits inside UnionPay's 62, so Discover is checked first.
 */
export const BRAND_RULES: BrandRule[] = [
  {
    brand: 'amex',
    ranges: [
      [34, 34],
      [37, 37],
    ],
    lengths: [15],
    cvcLength: 4,
  },
  { brand: 'visa', ranges: [[4, 4]], lengths: [13, 16, 19], cvcLength: 3 },
  {
    brand: 'mastercard',
    ranges: [
      [51, 55],
      [2221, 2720],
    ],
    lengths: [16],
    cvcLength: 3,
  },
  {
    brand: 'discover',
    ranges: [
      [6011, 6011],
      [644, 649],
      [65, 65],
      [622126, 622925],
    ],
    lengths: [16, 17, 18, 19],
    cvcLength: 3,
  },
  { brand: 'jcb', ranges: [[3528, 3589]], lengths: [16, 17, 18, 19], cvcLength: 3 },
  {
    brand: 'diners',
    ranges: [
      [300, 305],
      [3095, 3095],
      [36, 36],
      [38, 39],
    ],
    lengths: [14, 15, 16, 17, 18, 19],
    cvcLength: 3,
  },
  {
    brand: 'unionpay',
    ranges: [
      [62, 62],
      [81, 81],
    ],
    lengths: [16, 17, 18, 19],
    cvcLength: 3,
  },
];

function inRange(digits: string, [low, high]: [number, number]): boolean {
  const width = String(low).length;
  const prefix = Number(digits.slice(0, width));
  return digits.length >= width && prefix >= low && prefix <= high;
}

export function brandRuleOf(digits: string): BrandRule | undefined {
  return BRAND_RULES.find((rule) => rule.ranges.some((range) => inRange(digits, range)));
}

export function detectBrand(digits: string): CardBrand | undefined {
  return brandRuleOf(digits)?.brand;
}
