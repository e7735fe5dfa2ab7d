/**
 * Ways a client can spell a card number or an API key, and a reader of logs that undoes them,
 * for the tests that check secrets never reach a log line or an error (test/limits/).
 */

const FULL_WIDTH_ZERO = 0xff10;

const percentAll = (text: string) => [...Buffer.from(text, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
const fullWidth = (digits: string) => [...digits].map((d) => String.fromCodePoint(FULL_WIDTH_ZERO + Number(d))).join('');
const groups = (digits: string) => digits.match(/.{1,4}/g)!;

/** A card number as it may stand in a URL (every spelling is plain ASCII, ready for a request line). */
export function cardInUrl(digits: string): Record<string, string> {
  const g = groups(digits);
  return {
    plain: digits,
    'plus-separated (form encoding)': g.join('+'),
    '%20-separated (our client)': g.join('%20'),
    dashes: g.join('-'),
    dots: g.join('.'),
    'slashes encoded': g.join('%2F'),
    'mixed separators': `${g[0]}%20-${g[1]}.${g[2]}+${g.slice(3).join('_')}`,
    'double spaces': g.join('%20%20'),
    'encoded plus': g.join('%2B'),
    'every digit percent-encoded': percentAll(digits),
    'double-encoded separators': g.join('%2520'),
    'double-encoded digits': percentAll(digits).replace(/%/g, '%25'),
    'half encoded, half plain': percentAll(digits.slice(0, 8)) + digits.slice(8),
    'full-width digits (UTF-8)': percentAll(fullWidth(digits)),
    'no-break spaces': g.map(encodeURIComponent).join('%C2%A0'),
    'zero-width spaces': g.join('%E2%80%8B'),
    'en dashes': g.join('%E2%80%93'),
  };
}

/** A card number as text (headers, JSON bodies): the same spellings, decoded. */
export function cardInText(digits: string): Record<string, string> {
  const g = groups(digits);
  return {
    plain: digits,
    spaces: g.join(' '),
    dashes: g.join('-'),
    dots: g.join('.'),
    'mixed separators': `${g[0]} -${g[1]}.${g[2]}/${g.slice(3).join('_')}`,
    colons: g.join(':'),
    'percent-encoded': percentAll(digits),
    'JSON escapes': [...digits].map((d) => `\\u003${d}`).join(''),
  };
}

/** An API key as it may stand in a URL. */
export function keyInUrl(key: string): Record<string, string> {
  return {
    plain: key,
    'first letter encoded': `%61${key.slice(1)}`,
    'underscore encoded': `apk%5F${key.slice(4)}`,
    'every character encoded': percentAll(key),
    'double-encoded prefix': `%2561%2570%256B%255F${key.slice(4)}`,
    'split by an encoded body character': `${key.slice(0, 12)}${percentAll(key.slice(12, 14))}${key.slice(14)}`,
    'upper-case prefix': `APK_${key.slice(4)}`,
  };
}

/** Each way of undoing one more layer of encoding (percent, plus, \u escapes), until none is left. */
export function readingsOf(text: string): string[] {
  const readings = [text];
  let current = text;
  for (let layer = 0; layer < 6; layer++) {
    const next = current
      .replace(/\+/g, ' ')
      .replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
        try {
          return decodeURIComponent(run);
        } catch {
          return run;
        }
      })
      .replace(/\\u([0-9A-Fa-f]{4})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    if (next === current) break;
    readings.push((current = next));
  }
  return readings;
}

/** Letters and digits only, compatibility forms folded: `４２４２ 4242-…` → `42424242…`. */
export function bareAlphanumerics(text: string): string {
  return text.normalize('NFKC').replace(/[^\p{L}\p{N}]/gu, '');
}

/** Whether any reading of the text, separators dropped, holds the secret. */
export function reveals(text: string, secret: string): boolean {
  const bare = bareAlphanumerics(secret);
  return readingsOf(text).some((reading) => bareAlphanumerics(reading).includes(bare));
}

/** Every text (keys and values) in a JSON log line, or the line itself when it is not JSON. */
export function textsOfLogLine(line: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return [line];
  }
  const texts: string[] = [];
  const walk = (value: unknown) => {
    if (typeof value === 'string') texts.push(value);
    else if (typeof value === 'object' && value !== null) {
      for (const [key, inner] of Object.entries(value)) {
        texts.push(key);
        walk(inner);
      }
    }
  };
  walk(parsed);
  return texts;
}
