import { readFileSync, writeFileSync } from 'node:fs';
import { CONFIG_VARIABLES } from '../../src/config/configVariables.ts';

/** The configuration guide's table and `.env.example`, both from the one list of variables. */
export const CONFIG_GUIDE = new URL('../../docs/operations.md', import.meta.url);
export const ENV_EXAMPLE = new URL('../../.env.example', import.meta.url);

const START = '<!-- configuration table: generated from src/config/configVariables.ts by `npm run generate` -->';
const END = '<!-- end of configuration table -->';

const cell = (text: string) => text.replaceAll('|', '\\|');

export function configTable(): string {
  const rows = CONFIG_VARIABLES.map((v) => `| \`${v.name}\` | ${cell(v.shownDefault)} | ${cell(v.allowed)} | ${cell(v.description)} |`);
  return [START, '| Variable | Default | Allowed | |', '|---|---|---|---|', ...rows, END].join('\n');
}

/** The configuration guide with its table replaced by the current one. */
export function guideWithConfigTable(guide: string): string {
  const start = guide.indexOf(START);
  const end = guide.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/operations.md lacks the configuration table markers`);
  return guide.slice(0, start) + configTable() + guide.slice(end + END.length);
}

export function envExample(): string {
  const lines = [
    '# Generated from src/config/configVariables.ts by `npm run generate`: every variable, with its default.',
    '# Copy to .env for `docker run --env-file`; unset or empty means the default.',
    '',
  ];
  for (const v of CONFIG_VARIABLES) {
    lines.push(`# ${v.description.replaceAll('`', '')}`, `# allowed: ${v.allowed.replaceAll('`', '')}; default: ${v.shownDefault.replaceAll('`', '')}`);
    lines.push(v.example === undefined ? `# ${v.name}=` : `${v.name}=${v.example}`, '');
  }
  return lines.join('\n');
}

if (import.meta.main) {
  writeFileSync(CONFIG_GUIDE, guideWithConfigTable(readFileSync(CONFIG_GUIDE, 'utf8')));
  writeFileSync(ENV_EXAMPLE, envExample());
}
