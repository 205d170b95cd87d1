/**
 * Which catalogue rule a structure finding is reported under: the `1·S` rules of RULES.md name
 * the spec type they stand for (TOOLS-CALL-SHAPE for CallToolResult, …). A few members have a
 * rule of their own wherever they sit (annotations, progress tokens, requestState, inputRequests).
 * Findings in types no rule names fall back to ENV-JSONRPC20 ("every message is JSON-RPC 2.0").
 */
export const RULE_OF_TYPE: Record<string, string> = {
  CallToolResult: 'TOOLS-CALL-SHAPE',
  CallToolResultResponse: 'TOOLS-CALL-SHAPE',
  ListToolsResult: 'TOOLS-LIST-SHAPE',
  ListToolsResultResponse: 'TOOLS-LIST-SHAPE',
  ListResourcesResult: 'RES-LIST-SHAPE',
  ListResourceTemplatesResult: 'RES-LIST-SHAPE',
  ReadResourceResult: 'RES-READ-SHAPE',
  ListPromptsResult: 'PROMPTS-LIST-SHAPE',
  GetPromptResult: 'PROMPTS-GET-SHAPE',
  GetPromptRequest: 'PROMPTS-ARGS-STRINGS',
  CompleteRequest: 'COMPL-REQ-SHAPE',
  CompleteResult: 'COMPL-RESULT-SHAPE',
  LoggingMessageNotification: 'LOG-SHAPE',
  ProgressNotification: 'PROG-SHAPE',
  SubscriptionsListenRequest: 'SUB-REQ-SHAPE',
  ElicitResult: 'ELICIT-RESULT-SHAPE',
  CreateMessageRequest: 'SAMP-REQ-SHAPE',
  CreateMessageResult: 'SAMP-RESULT-SHAPE',
  DiscoverRequest: 'VER-DISCOVER-REQ',
  DiscoverResult: 'VER-DISCOVER-RESULT',
  InitializeResult: 'ENV-IMPL-SHAPE',
  InitializeRequest: 'ENV-IMPL-SHAPE',
  MissingRequiredClientCapabilityError: 'VER-MISSING-CAP-32021',
  UnsupportedProtocolVersionError: 'VER-UNSUPPORTED-32022',
  InputRequiredResult: 'MRTR-KINDS',
};

/** Members with a rule of their own, by the last segments of their path. */
const RULE_OF_MEMBER: [RegExp, string][] = [
  [/\/annotations(\/|$)/, 'RES-ANNOTATIONS'],
  [/\/_meta\/progressToken$/, 'PROG-TOKEN-TYPE'],
  [/^\/(result\/)?requestState$/, 'MRTR-STATE-STRING'],
  [/\/(clientInfo|serverInfo|io\.modelcontextprotocol~1(clientInfo|serverInfo))(\/|$)/, 'ENV-IMPL-SHAPE'],
];

/** The rules a finding in any type may fall under: the member rules and the fallback. */
export const RULES_OF_ANY_TYPE: ReadonlySet<string> = new Set(['ENV-JSONRPC20', ...RULE_OF_MEMBER.map(([, rule]) => rule)]);

export function ruleOf(type: string, path: string): string {
  for (const [re, rule] of RULE_OF_MEMBER) if (re.test(path)) return rule;
  const rule = RULE_OF_TYPE[type] ?? 'ENV-JSONRPC20';
  // An initialize problem outside clientInfo/serverInfo is not an Implementation problem.
  return rule === 'ENV-IMPL-SHAPE' ? 'ENV-JSONRPC20' : rule;
}
