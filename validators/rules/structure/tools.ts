/** RULES.md §5: the structure rules of tools (TOOLS), judged as support.ts says. */
import { isObject, type Rule } from '../../rule.js';
import { structureRules } from './support.js';

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Image and audio data is base64 (format `byte`: an annotation to the schema, so checked here). */
export const mediaRule: Rule = {
  id: 'TOOLS-MEDIA-B64',
  level: 'schema',
  obs: '1',
  era: 'all',
  source: 'server/tools.mdx §Tool Result',
  title: 'Image and audio tool results carry base64 data and a mimeType',
  on: ['result tools/call'],
  check(o, report) {
    const r = o.request?.method === 'tools/call' && o.json && isObject(o.json.result) ? o.json.result : undefined;
    if (!r || !Array.isArray(r.content)) return;
    r.content.forEach((c, i) => {
      if (!isObject(c) || (c.type !== 'image' && c.type !== 'audio')) return;
      if (typeof c.data === 'string' && !BASE64.test(c.data)) report(`/result/content/${i}/data`, `${c.type} content data is not base64`);
    });
  },
};

export const toolStructureRules: Rule[] = structureRules([
  {
    id: 'TOOLS-LIST-SHAPE',
    level: 'schema',
    source: 'server/tools.mdx §Listing Tools',
    title: 'A ListToolsResult has tools: Tool[] (name, inputSchema), nextCursor?, ttlMs, cacheScope',
  },
  {
    id: 'TOOLS-CALL-SHAPE',
    level: 'schema',
    source: 'server/tools.mdx §Calling Tools',
    title: 'A CallToolResult has content: ContentBlock[], structuredContent?, isError?',
  },
]);
