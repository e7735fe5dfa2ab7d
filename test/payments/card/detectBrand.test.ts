import { describe, expect, it } from 'vitest';
import { detectBrand } from '../../../src/payments/card/detectBrand.ts';

describe('detectBrand reads the issuer from IIN ranges', () => {
  it.each([
    ['4242424242424242', 'visa'],
    ['4000056655665556', 'visa'],
    ['5555555555554444', 'mastercard'],
    ['5105105105105100', 'mastercard'],
    ['2223003122003222', 'mastercard'],
    ['2720990000000007', 'mastercard'],
    ['378282246310005', 'amex'],
    ['341111111111111', 'amex'],
    ['6011111111111117', 'discover'],
    ['6445644564456445', 'discover'],
    ['6500000000000002', 'discover'],
    ['6221260000000000', 'discover'],
    ['3566002020360505', 'jcb'],
    ['3530111333300000', 'jcb'],
    ['36227206271667', 'diners'],
    ['30569309025904', 'diners'],
    ['3852000002323700', 'diners'],
    ['6200000000000005', 'unionpay'],
    ['6229260000000000', 'unionpay'],
    ['8100000000000000', 'unionpay'],
  ])('%s is %s', (number, brand) => {
    expect(detectBrand(number)).toBe(brand);
  });

  it.each(['2220990000000000', '2721000000000000', '1234567890123456', '9000000000000000', '3400'.slice(0, 1)])('%s is no supported brand', (number) => {
    expect(detectBrand(number)).toBeUndefined();
  });
});
