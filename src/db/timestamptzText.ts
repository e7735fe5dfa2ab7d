/**
 * PostgreSQL's text of a `timestamptz` (DateStyle ISO) as an RFC 3339 instant in UTC with
 * milliseconds: `2026-05-01 14:00:00.12+02` → `2026-05-01T12:00:00.120Z`. The session's TimeZone
 * is not always UTC (a server's zone, a pooler dropping it), and offsets can be `+05:30` or in
 * seconds (LMT), so the offset is read and subtracted exactly; digits past the ms are cut.
 */
const TIMESTAMPTZ = /^(\d{4,})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?([+-])(\d\d)(?::(\d\d))?(?::(\d\d))?( BC)?$/;

export function timestamptzToIso(text: string): string {
  // The common case by far (a session in UTC): no arithmetic.
  if (text.endsWith('+00') && text.length >= 22 && text.charCodeAt(4) === 45) {
    const fraction =
      text.length > 22
        ? text
            .slice(19, text.length - 3)
            .slice(0, 4)
            .padEnd(4, '0')
        : '.000';
    return `${text.slice(0, 10)}T${text.slice(11, 19)}${fraction}Z`;
  }
  const m = TIMESTAMPTZ.exec(text);
  if (!m) {
    if (text === 'infinity' || text === '-infinity') return text;
    throw new Error(`unexpected timestamptz text from PostgreSQL: ${JSON.stringify(text)} (is DateStyle ISO?)`);
  }
  const [, y, mo, d, h, mi, s, fraction = '', sign, oh, om = '0', os = '0', bc] = m;
  const year = bc ? 1 - Number(y) : Number(y);
  const at = new Date(0);
  at.setUTCFullYear(year, Number(mo) - 1, Number(d));
  at.setUTCHours(Number(h), Number(mi), Number(s), Number(fraction.slice(0, 3).padEnd(3, '0')));
  const offsetMs = (Number(oh) * 3600 + Number(om) * 60 + Number(os)) * 1000;
  return new Date(at.getTime() - (sign === '+' ? offsetMs : -offsetMs)).toISOString();
}
