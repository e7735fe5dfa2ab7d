/**
 * Length of the well-formed UTF-8 sequence starting at `bytes[at]` (RFC 3629: no overlong
 * forms, no surrogates, nothing past U+10FFFF), or 0 when there is none there.
 */
export function utf8SequenceLength(bytes: ArrayLike<number>, at: number): number {
  const lead = bytes[at];
  const within = (k: number, low = 0x80, high = 0xbf) => at + k < bytes.length && bytes[at + k] >= low && bytes[at + k] <= high;
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return within(1) ? 2 : 0;
  if (lead >= 0xe0 && lead <= 0xef) {
    const second = lead === 0xe0 ? within(1, 0xa0) : lead === 0xed ? within(1, 0x80, 0x9f) : within(1);
    return second && within(2) ? 3 : 0;
  }
  if (lead >= 0xf0 && lead <= 0xf4) {
    const second = lead === 0xf0 ? within(1, 0x90) : lead === 0xf4 ? within(1, 0x80, 0x8f) : within(1);
    return second && within(2) && within(3) ? 4 : 0;
  }
  return 0;
}
