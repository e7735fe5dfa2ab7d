import { isIP } from 'node:net';
import type { ConfigVariable } from './configVariables.ts';
import { checkVariable } from './variableSchema.ts';
import { maskSecret } from './maskSecret.ts';

const TRUE = new Set(['true', '1', 'on', 'yes']);
const FALSE = new Set(['false', '0', 'off', 'no']);
/** proxy-addr's names for address ranges, as Fastify accepts them. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function asBoolean(text: string): boolean | string {
  const lower = text.toLowerCase();
  return TRUE.has(lower) ? true : FALSE.has(lower) ? false : text;
}

function isProxyAddress(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry)) return true;
  const [address, bits, extra] = entry.split('/');
  if (extra !== undefined || !isIP(address)) return false;
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (isIP(address) === 4 ? 32 : 128));
}

/** The text as the variable's type: what the schema then checks. */
function decode(variable: ConfigVariable, text: string): unknown {
  switch (variable.kind) {
    case 'integer':
      return /^\d{1,16}$/.test(text) ? Number(text) : text;
    case 'boolean':
      return asBoolean(text);
    case 'trustProxy': {
      const flag = asBoolean(text);
      if (typeof flag === 'boolean') return flag;
      if (/^\d{1,3}$/.test(text)) return Number(text);
      const entries = text.split(',').map((e) => e.trim());
      return entries.every(isProxyAddress) ? entries : text;
    }
    case 'string':
      return text;
  }
}

export type VariableReading = { ok: true; value: unknown } | { ok: false; line: string };

/** Reads one variable from the environment: its typed value (or default), or the line that says why not. */
export function readVariable(variable: ConfigVariable, env: NodeJS.ProcessEnv): VariableReading {
  const text = env[variable.name]?.trim();
  if (text === undefined || text === '') return { ok: true, value: variable.fallback };
  const value = decode(variable, text);
  const shown = JSON.stringify(maskSecret(text, variable.secret));
  if (checkVariable(variable.schema, value) && (variable.refine?.(text) ?? true)) {
    const fault = variable.fault?.(text);
    return fault === undefined ? { ok: true, value } : { ok: false, line: `${variable.name}=${shown} is not valid: ${fault}` };
  }
  return { ok: false, line: `${variable.name}=${shown} is not valid: allowed is ${variable.allowed.replaceAll('`', '')}` };
}
