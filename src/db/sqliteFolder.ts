import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

/** A `sqlite:` path whose folder does not exist: a typo, more often than a wish for new folders. */
export class MissingSqliteFolder extends Error {
  /** The first folder of the path that is missing, and the file's own folder. */
  readonly missing: string;
  readonly folder: string;
  constructor(missing: string, folder: string) {
    super(`the folder ${missing} does not exist`);
    this.name = 'MissingSqliteFolder';
    this.missing = missing;
    this.folder = folder;
  }
}

/**
 * The folder of a SQLite file: created when `create` (the embedded default's ./data, which the
 * README promises without setup), else it must exist; SQLite itself creates only the file.
 */
export function ensureSqliteFolder(path: string, create: boolean): void {
  const folder = dirname(path);
  if (existsSync(folder)) return;
  if (create) {
    mkdirSync(folder, { recursive: true });
    return;
  }
  let missing = folder;
  while (!existsSync(dirname(missing)) && dirname(missing) !== missing) missing = dirname(missing);
  throw new MissingSqliteFolder(missing, folder);
}
