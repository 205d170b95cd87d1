import { readFileSync } from 'node:fs';
import { applyEdits, modify, parse, printParseErrorCode, type FormattingOptions, type ParseError } from 'jsonc-parser';
import { CassetteError } from '../../lib/errors.js';
import { isObject } from '../../lib/plain-object.js';

/**
 * A host's MCP config file, edited in place with jsonc-parser so comments, formatting and every
 * key we do not touch survive (VS Code's mcp.json allows comments and trailing commas).
 * Claude Desktop and Cursor keep servers under `mcpServers`; VS Code under `servers`.
 */
export interface ServerEntry {
  command?: unknown;
  args?: unknown;
  url?: unknown;
  type?: unknown;
  [key: string]: unknown;
}

export interface HostConfig {
  path: string;
  text: string;
  /** `mcpServers` or `servers`. */
  key: string;
  servers: Record<string, ServerEntry>;
}

export function readHostConfig(path: string): HostConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new CassetteError(
      'MCPC_CONFIG_NOT_FOUND',
      `host config ${path} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
      { cause: err },
    );
  }
  return parseHostConfig(path, text);
}

export function parseHostConfig(path: string, text: string): HostConfig {
  const errors: ParseError[] = [];
  const doc = parse(text, errors, { allowTrailingComma: true, disallowComments: false }) as unknown;
  if (errors.length > 0) {
    const e = errors[0]!;
    const line = text.slice(0, e.offset).split('\n').length;
    throw new CassetteError(
      'MCPC_CONFIG_INVALID',
      `host config ${path} cannot be parsed: ${printParseErrorCode(e.error)} at line ${line}; fix the file, nothing was changed`,
    );
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
    throw new CassetteError('MCPC_CONFIG_INVALID', `host config ${path} is not a JSON object`);
  }
  const obj = doc as Record<string, unknown>;
  const key = isObject(obj.mcpServers) ? 'mcpServers' : isObject(obj.servers) ? 'servers' : undefined;
  if (!key) {
    throw new CassetteError(
      'MCPC_CONFIG_INVALID',
      `host config ${path} has no "mcpServers" (Claude Desktop, Cursor) or "servers" (VS Code) object; point wrap at the file that lists your MCP servers`,
    );
  }
  return { path, text, key, servers: obj[key] as Record<string, ServerEntry> };
}

export function isHttpEntry(entry: ServerEntry): boolean {
  return typeof entry.url === 'string' || entry.type === 'http' || entry.type === 'sse' || entry.type === 'streamable-http';
}

function formatting(text: string): FormattingOptions {
  const indent = /\n([ \t]+)\S/.exec(text)?.[1] ?? '  ';
  return {
    insertSpaces: !indent.startsWith('\t'),
    tabSize: indent.startsWith('\t') ? 1 : indent.length,
    eol: text.includes('\r\n') ? '\r\n' : '\n',
  };
}

/** Sets (or, with `undefined`, removes) one value, leaving the rest of the text as it was. */
export function setValue(text: string, path: (string | number)[], value: unknown): string {
  return applyEdits(text, modify(text, path, value, { formattingOptions: formatting(text) }));
}
