/**
 * The JSON report of `check` (`--json FILE`): the whole run, as every other report renders it
 * (check/types.ts `CheckRun`), so a script reads what the summary shows and merge-reports can
 * put the parts of a sharded run together and render each report again. `root` is the working
 * directory the run's paths were taken in: merge-reports moves them under its own when a part
 * ran in another checkout folder.
 */
import { readFileSync } from 'node:fs';
import { CassetteError, ioReason } from '../lib/errors.js';
import { isObject } from '../lib/plain-object.js';
import type { CheckRun } from './types.js';

export const CHECK_REPORT_FORMAT = 'mcp-cassette-check';

export interface CheckReportFile extends CheckRun {
  format: typeof CHECK_REPORT_FORMAT;
  version: 1;
  root: string;
}

export function renderJson(run: CheckRun, root = process.cwd()): string {
  const file: CheckReportFile = { format: CHECK_REPORT_FORMAT, version: 1, root, ...run };
  return `${JSON.stringify(file, null, 2)}\n`;
}

/** A JSON report read back; an unreadable file, or one that is no check report, is a
 * CassetteError naming it. */
export function readJsonReport(path: string): CheckReportFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new CassetteError(
      'MCPC_FILE_UNREADABLE',
      `cannot read the check report ${path} (${ioReason(err)}); each part writes it with check --json <dir>/results.json`,
      { cause: err },
    );
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    doc = undefined;
  }
  if (!isObject(doc) || doc.format !== CHECK_REPORT_FORMAT || !Array.isArray(doc.cassettes) || !Array.isArray(doc.findings)) {
    throw new CassetteError(
      'MCPC_FILE_UNREADABLE',
      `${path} is not a check report (JSON with "format": "${CHECK_REPORT_FORMAT}"); give the folders check --json wrote into`,
    );
  }
  if (doc.version !== 1)
    throw new CassetteError(
      'MCPC_FILE_UNREADABLE',
      `${path} is a check report of version ${String(doc.version)}; this mcp-cassette reads version 1`,
    );
  return doc as unknown as CheckReportFile;
}
