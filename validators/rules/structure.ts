import { isObject, since, type Interest, type Observed, type Rule, type RuleInfo } from '../rule.js';
import { CODED_ERRORS, isRevision, targetOf, typeProblems } from '../structure/check.js';
import { RULE_OF_TYPE, RULES_OF_ANY_TYPE, ruleOf } from '../structure/rule-of-type.js';
import { NOTIFICATION_TYPE, REQUEST_TYPE } from '../structure/sdk.js';

/**
 * Message structure, per revision: the SDK's published schemas corrected by our revision gates
 * (validators/structure/), reported under the `1·S` catalogue rules. These rules run last: a
 * problem a more specific rule already reported at the same place is not said twice, and the
 * JSON-RPC envelope belongs to the ENV rules.
 */
interface Finding {
  rule: string;
  path: string;
  message: string;
}

/** The findings of the message being judged (every structure rule asks about the same one). */
let last: { o: Observed; findings: Finding[] } | undefined;
/** Envelope members the ENV rules judge (ENV-JSONRPC20, ENV-REQ-ID-TYPE, ENV-RES-RESULT, ENV-ERR-SHAPE). */
const ENVELOPE = /^(|\/jsonrpc|\/id|\/method|\/result|\/error|\/error\/code|\/error\/message)$/;
const BROAD = new Set(['', '/result', '/params', '/error']);

function structureOf(o: Observed): Finding[] {
  if (last?.o === o) return last.findings;
  const f: Finding[] = [];
  last = { o, findings: f };
  // Every revision from 2024-11-05 on has its gates; an unknown revision string is not judged.
  if (!o.json || !isRevision(o.revision)) return f;
  const target = targetOf(o.json, o.revision, o.request?.method);
  if (!target) return f;
  for (const p of typeProblems(target.type, target.value, o.revision) ?? []) {
    const path = `${target.at}${p.path}`;
    if (ENVELOPE.test(path)) continue;
    f.push({
      rule: ruleOf(target.type, path),
      path,
      message: `${target.type}: ${path || '(root)'} ${p.message.replace(/^Invalid input: /, '')}`,
    });
  }
  return f;
}

/** Said already by a more specific rule: the same member, or one inside or around it. */
function covered(path: string, reported: string[] = []): boolean {
  return reported.some((r) => r === path || (!BROAD.has(r) && path.startsWith(`${r}/`)) || r.startsWith(`${path}/`));
}

/** Types only 2026-07-28 has (and the 2025-06-18 ElicitResult) are judged only there: `revisions`
 * says so to `rules` (the gates would find no such type elsewhere anyway). */
const MODERN_TYPES = since('2026-07-28');
const CATALOGUE: (Omit<RuleInfo, 'obs' | 'era'> & { era?: RuleInfo['era'] })[] = [
  {
    id: 'ENV-JSONRPC20',
    level: 'MUST',
    source: 'basic/index.mdx §Messages',
    title: 'Messages have the structure of their spec type (types no other rule names)',
  },
  {
    id: 'ENV-IMPL-SHAPE',
    level: 'schema',
    source: 'schema.ts:Implementation',
    title: 'clientInfo and serverInfo are Implementation objects (name and version required)',
  },
  {
    id: 'VER-DISCOVER-REQ',
    level: 'schema',
    source: 'server/discover.mdx §Request',
    title: 'A server/discover request carries only _meta in params',
    revisions: MODERN_TYPES,
  },
  {
    id: 'VER-DISCOVER-RESULT',
    level: 'MUST',
    source: 'server/discover.mdx §Response',
    title: 'A DiscoverResult has the DiscoverResult structure',
    revisions: MODERN_TYPES,
  },
  {
    id: 'VER-UNSUPPORTED-32022',
    level: 'MUST',
    source: 'basic/versioning.mdx §Protocol Version Negotiation',
    title: '-32022 has the UnsupportedProtocolVersionError structure',
    revisions: MODERN_TYPES,
  },
  {
    id: 'VER-MISSING-CAP-32021',
    level: 'MUST',
    source: 'basic/index.mdx §`_meta`',
    title: '-32021 carries data.requiredCapabilities in the ClientCapabilities shape',
    revisions: MODERN_TYPES,
  },
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
  {
    id: 'RES-LIST-SHAPE',
    level: 'schema',
    source: 'server/resources.mdx §Listing Resources',
    title: 'resources/list and resources/templates/list results have their structure',
  },
  {
    id: 'RES-READ-SHAPE',
    level: 'schema',
    source: 'server/resources.mdx §Reading Resources',
    title: 'resources/read returns contents[] of {uri, text} or {uri, blob}',
  },
  {
    id: 'RES-ANNOTATIONS',
    level: 'schema',
    source: 'server/resources.mdx §Annotations',
    title: 'Annotations: priority in [0,1], audience of user/assistant',
  },
  {
    id: 'PROMPTS-LIST-SHAPE',
    level: 'schema',
    source: 'server/prompts.mdx §Listing Prompts',
    title: 'A ListPromptsResult has prompts: Prompt[] (name; arguments[])',
  },
  {
    id: 'PROMPTS-GET-SHAPE',
    level: 'schema',
    source: 'server/prompts.mdx §Getting a Prompt',
    title: 'A GetPromptResult has messages of {role, content}',
  },
  {
    id: 'PROMPTS-ARGS-STRINGS',
    level: 'schema',
    source: 'server/prompts.mdx §Getting a Prompt',
    title: 'prompts/get arguments map strings to strings',
  },
  {
    id: 'COMPL-REQ-SHAPE',
    level: 'schema',
    source: 'server/utilities/completion.mdx §Requesting Completions',
    title: 'completion/complete has ref, argument {name, value} and context?',
  },
  {
    id: 'COMPL-RESULT-SHAPE',
    level: 'MUST',
    source: 'server/utilities/completion.mdx §Completion Results',
    title: 'A CompleteResult has the CompleteResult structure',
  },
  {
    id: 'LOG-SHAPE',
    level: 'schema',
    source: 'server/utilities/logging.mdx §Log Message Notifications',
    title: 'notifications/message has level, data and logger?',
  },
  {
    id: 'PROG-SHAPE',
    level: 'schema',
    source: 'basic/patterns/progress.mdx §Progress Flow',
    title: 'notifications/progress has progressToken, progress, total?, message?',
  },
  {
    id: 'PROG-TOKEN-TYPE',
    level: 'MUST',
    source: 'basic/patterns/progress.mdx §Progress Flow',
    title: '_meta.progressToken is a string or an integer',
  },
  {
    id: 'SUB-REQ-SHAPE',
    level: 'schema',
    source: 'basic/patterns/subscriptions.mdx',
    title: 'subscriptions/listen carries params.notifications (a SubscriptionFilter)',
    revisions: MODERN_TYPES,
  },
  {
    id: 'MRTR-KINDS',
    level: 'MUST',
    source: 'basic/patterns/mrtr.mdx §Server Requirements',
    title: 'inputRequests values are bare {method, params} asks of the three kinds',
    revisions: MODERN_TYPES,
  },
  {
    id: 'MRTR-STATE-STRING',
    level: 'schema',
    source: 'basic/patterns/mrtr.mdx §InputRequiredResult',
    title: 'requestState is a string',
    revisions: MODERN_TYPES,
  },
  {
    id: 'ELICIT-RESULT-SHAPE',
    level: 'schema',
    source: 'client/elicitation.mdx §Response Actions',
    title: 'An ElicitResult has action accept/decline/cancel and content values of the allowed types',
    revisions: since('2025-06-18'),
  },
  {
    id: 'SAMP-REQ-SHAPE',
    level: 'schema',
    source: 'client/sampling.mdx §Request Fields',
    title: 'A sampling request has messages[], maxTokens and valid preferences',
  },
  {
    id: 'SAMP-RESULT-SHAPE',
    level: 'schema',
    source: 'client/sampling.mdx §Result Fields',
    title: 'A CreateMessageResult has role, content and model',
  },
];

/**
 * The messages whose structure can yield a finding under a rule, from the tables that decide it:
 * requests and notifications are checked as the type of their method, results as the result type
 * of the method they answer (or an InputRequiredResult), errors by their code (targetOf), and a
 * finding falls under the rule of its type unless a member rule or the fallback takes it (ruleOf).
 */
function interestsOf(id: string): Interest[] {
  if (RULES_OF_ANY_TYPE.has(id)) return ['json'];
  const on: Interest[] = [];
  for (const [method, type] of REQUEST_TYPE) {
    if (RULE_OF_TYPE[type] === id) on.push(`request ${method}`);
    if (RULE_OF_TYPE[`${type.slice(0, -'Request'.length)}Result`] === id) on.push(`result ${method}`);
  }
  for (const [method, type] of NOTIFICATION_TYPE) if (RULE_OF_TYPE[type] === id) on.push(`notification ${method}`);
  if (Object.values(CODED_ERRORS).some((type) => RULE_OF_TYPE[type] === id)) on.push('error');
  if (RULE_OF_TYPE.InputRequiredResult === id) on.push('result');
  return on.length > 0 ? on : ['json'];
}

const structureRules: Rule[] = CATALOGUE.map((info) => ({
  obs: '1' as const,
  era: 'all' as const,
  ...info,
  on: interestsOf(info.id),
  check(o, report) {
    for (const f of structureOf(o)) if (f.rule === info.id && !covered(f.path, o.reported)) report(f.path, f.message);
  },
}));

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Image and audio data is base64 (format `byte`: an annotation to the schema, so checked here). */
const mediaRule: Rule = {
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

/** Run after every other rule (see index.ts). */
export const structureRulesLast: Rule[] = [mediaRule, ...structureRules];
