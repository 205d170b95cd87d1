/**
 * The ground truth of every ordered pair of the corpus (versions.ts): what replaying the cassette
 * recorded from the first version against the second SHOULD report, as difference signatures
 * (signatures.ts: `method name kind verdict`). Every interaction not named here must be `same`.
 *
 * Established from the servers themselves: their tools/list, prompts/list, resources and
 * templates compared by hand, their answers to the driver's calls (driver.ts) read from the
 * recordings, and their source where behaviour changed. The verdicts are the ones replay is meant
 * to give (issue 13), not necessarily today's:
 * - A value that differs between two runs of the same build (locale times, Date.toString() times,
 *   such times inside base64, the environment) is no difference. The environment is kept equal
 *   (the replay gets the one the recorded server had), times are left to the built-in normalisers.
 * - An absent annotation is its spec default (readOnlyHint false, destructiveHint true,
 *   idempotentHint false, openWorldHint true); a change is named `tool.annotation`. While
 *   readOnlyHint is true on either side, destructiveHint and idempotentHint mean nothing there and
 *   their changes are not listed; a read-only tool that loses readOnlyHint and says nothing of
 *   destruction becomes destructive (`destructive-hint-gained`).
 * - A tool call: isError → success is a warning `tool-call-error-fixed`, JSON-RPC error → success
 *   a warning `error-became-success`, success → isError only a breaking `tool-call-is-error`,
 *   isError with other text a warning `tool-error-message-changed`, JSON-RPC error ↔ isError a
 *   warning `tool-error-form-changed`; the result content is not compared in these cases.
 * - A tool removed and another added with the same input schema (deep-equal, key order aside) is
 *   one breaking `tool-renamed` (`old->new`). Only unambiguous pairs: add->get-sum and four more
 *   between everything 2025 and 2026.1.26; the 2026.8.31 schemas lost additionalProperties:false
 *   (zod 4), so no 2025 tool has its exact schema there.
 * - Lists are compared as a whole however the live server pages them: everything 2025 lists 100
 *   resources in 10 pages, 2026 seven in one; no `nextCursor` field differences, no duplicates.
 * - read_media_file's output items wrapped into anyOf (2026.7.10) are a warning
 *   `output-schema-alternatives-added` (the new embedded-resource branch), not removed
 *   properties; its image/audio branch lost `blob` from the enum (compatible
 *   `output-enum-narrowed`). Back again (issue 30), the one schema has the shape of the
 *   image/audio branch (the same type and properties) with `blob` back in its enum: a breaking
 *   `output-enum-widened` (a client of the 2026 contract may now get `type: "blob"`, which no
 *   MCP content block has), and the embedded-resource branch is gone (compatible
 *   `output-type-narrowed`). The image/audio items are not gone: nothing says so.
 * - An input narrowing is weighed against the session's replayed calls (issue 30): everything
 *   2026.8.31 → older versions closes additionalProperties on tools whose replayed calls send no
 *   unknown argument (the driver's valid call passes both schemas, its invalid one fails both),
 *   so each is a warning `input-additional-properties-closed`, not breaking.
 * - everything 2026.8.31's args-prompt dropped the description of its `state` argument: a
 *   warning `prompt-argument-changed` (issue 30); the other way, a description only added, is
 *   compatible.
 * - filesystem 2025.7.1 (zod-to-json-schema 3 under the zod 4 its SDK brings) lists 11 of its 12
 *   tools with an inputSchema of nothing but `$schema`. The v1 SDK client refuses that whole
 *   tools/list (its ToolSchema wants `type: "object"`), so the driver reads it once more without
 *   that check and still calls the tools. Towards 2025.7.1 each of the 11 is one breaking
 *   `input-schema-not-object` (issue 30), not a list of removed properties; from it, a warning
 *   `input-schema-now-object`. 2025.7.1 also has no read_text_file or read_media_file, no titles,
 *   annotations, `execution` or output schemas (so no structuredContent), no roots/list and no
 *   tools listChanged; its search_files matches names by substring, so the driver's glob pattern
 *   finds nothing (changed text); its errors read `Error: …`.
 * - A `listChanged` flag turned off (everything 2026 → 2025) is a warning `capability-changed`:
 *   the lists still answer, clients no longer hear of changes.
 * - Requests the server sends the client are matched to the client request they belong to:
 *   everything 2025.7.29 asks for sampling on resources/subscribe, later versions do not;
 *   2025.11.25 asks for roots at once, 2025.7.29 never. A recorded one the live server no longer
 *   sends is a warning `server-request-missing`.
 */

const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

/** everything 2025: 100 resources, paged 10 at a time. */
export const OLD_RESOURCES = range(100).map((i) => `test://static/resource/${i}`);
/** everything 2026: the seven documents, one page. */
export const NEW_RESOURCES = ['architecture', 'extension', 'features', 'how-it-works', 'instructions', 'startup', 'structure'].map(
  (d) => `demo://resource/static/document/${d}.md`,
);

export function listed(method: string, ids: readonly string[], kind: string, verdict: string): string[] {
  return ids.map((id) => `${method} ${id} ${kind} ${verdict}`);
}

/**
 * Signatures that depend on timing, not on the versions, and are left out of the comparison:
 * everything 2026 asks the client for its roots 350 ms after initialization (or when
 * get-roots-list runs first); a 2025 cassette never calls get-roots-list, so whether that request
 * arrives before the replayed session ends depends on how fast the session runs. Left out on both
 * sides: neither required nor refused.
 */
export function timingDependent(pair: string, signature: string): boolean {
  if (/^everything@2025\.\S+ -> everything@2026\./.test(pair) && signature.startsWith('(server request) roots/list ')) return true;
  // A 2026 recording holds one or two roots/list (and the log line each answer causes), and so
  // does a live run: the 350 ms timer and a get-roots-list call can each ask, so whether a
  // second one comes, and the notification stream with it, depends on the speed of the run.
  return (
    /^everything@2026\./.test(pair) &&
    (signature.startsWith('(server request) roots/list ') || signature === 'notifications - notifications-changed warning')
  );
}

/** filesystem 2026.7.10 added openWorldHint: false to all 14 tools (absent meant true). */
const FS_TOOLS = [
  'create_directory',
  'directory_tree',
  'edit_file',
  'get_file_info',
  'list_allowed_directories',
  'list_directory',
  'list_directory_with_sizes',
  'move_file',
  'read_file',
  'read_media_file',
  'read_multiple_files',
  'read_text_file',
  'search_files',
  'write_file',
];
const OPEN_WORLD_FALSE = FS_TOOLS.map((t) => `tools/list ${t}.openWorldHint tool-annotations-changed warning`);

/** filesystem 2025.7.1's twelve tools (no read_text_file, no read_media_file). */
const FS_2025_7_1_TOOLS = FS_TOOLS.filter((t) => t !== 'read_text_file' && t !== 'read_media_file');
/** Its eleven tools whose inputSchema is nothing but `$schema` (list_allowed_directories alone says `type: "object"`). */
const FS_NOT_OBJECT = FS_2025_7_1_TOOLS.filter((t) => t !== 'list_allowed_directories');
/** Its tools the later versions mark readOnlyHint: true. */
const FS_READ_ONLY = FS_2025_7_1_TOOLS.filter((t) => !['create_directory', 'edit_file', 'move_file', 'write_file'].includes(t));
/** Tools whose calls answer with text a later version also puts in structuredContent. */
const FS_STRUCTURED = FS_2025_7_1_TOOLS.filter(
  (t) => !['create_directory', 'directory_tree', 'list_directory_with_sizes', 'move_file'].includes(t),
);
/** Tools 2025.11.25 fails with an output validation error (its structuredContent does not fit its own outputSchema). */
const FS_2025_11_25_OUTPUT_BUG = ['directory_tree', 'list_directory_with_sizes', 'move_file'];
/** Tools whose invalid call fails on both sides with other words (2025.7.1: `Error: Invalid arguments for …`). */
const FS_ERROR_WORDING = [...FS_TOOLS.filter((t) => t !== 'list_allowed_directories'), 'corpus-no-such-tool'];

/**
 * Recorded from a later filesystem, replayed against 2025.7.1 (`from`: the later version): what
 * 2025.7.1 lacks, by the ground truth above. 2026.7.10 and later also drop openWorldHint: false.
 */
function toFilesystem2025_7_1(from: '2025.11.25' | '2026.7.4' | '2026.7.10' | '2026.8.31'): string[] {
  const bug = from === '2025.11.25';
  return [
    '(server request) roots/list server-request-missing warning',
    'initialize capabilities/tools/listChanged capability-changed warning',
    ...FS_ERROR_WORDING.map((t) => `tools/call ${t} tool-error-message-changed warning`),
    ...FS_STRUCTURED.map((t) => `tools/call ${t} result-field-removed breaking`),
    ...FS_2025_11_25_OUTPUT_BUG.map((t) =>
      bug ? `tools/call ${t} tool-call-error-fixed warning` : `tools/call ${t} result-field-removed breaking`,
    ),
    'tools/call read_text_file tool-call-is-error breaking',
    'tools/call read_media_file tool-call-is-error breaking',
    'tools/call search_files output-changed changed',
    ...(from === '2026.8.31'
      ? [
          'tools/call create_directory tool-call-is-error breaking',
          'tools/call list_directory output-changed changed',
          'tools/call list_directory_with_sizes output-changed changed',
        ]
      : []),
    'tools/list read_text_file tool-removed breaking',
    'tools/list read_media_file tool-removed breaking',
    ...FS_NOT_OBJECT.map((t) => `tools/list ${t} input-schema-not-object breaking`),
    ...FS_2025_7_1_TOOLS.flatMap((t) => [
      `tools/list ${t} output-schema-removed breaking`,
      `tools/list ${t} tool-changed warning`,
      `tools/list ${t} tool-title-changed warning`,
    ]),
    ...['list_allowed_directories', 'read_file', 'search_files'].map((t) => `tools/list ${t} tool-description-changed warning`),
    ...FS_READ_ONLY.flatMap((t) => [
      `tools/list ${t}.readOnlyHint readonly-hint-lost breaking`,
      `tools/list ${t}.destructiveHint destructive-hint-gained breaking`,
    ]),
    'tools/list create_directory.destructiveHint destructive-hint-gained breaking',
    'tools/list create_directory.idempotentHint tool-annotations-changed warning',
    'tools/list write_file.idempotentHint tool-annotations-changed warning',
    ...(bug ? ['tools/list move_file.destructiveHint destructive-hint-gained breaking'] : []),
    ...(from === '2026.7.10' || from === '2026.8.31'
      ? OPEN_WORLD_FALSE.filter((s) => FS_2025_7_1_TOOLS.some((t) => s.includes(` ${t}.`)))
      : []),
  ];
}

/** Recorded from 2025.7.1 (its session called the tools it read leniently), replayed against a later filesystem. */
function fromFilesystem2025_7_1(to: '2025.11.25' | '2026.7.4' | '2026.7.10' | '2026.8.31'): string[] {
  const bug = to === '2025.11.25';
  return [
    '(server request) roots/list unexpected-server-request breaking',
    'initialize capabilities/tools/listChanged capability-added compatible',
    ...FS_ERROR_WORDING.filter((t) => t !== 'read_text_file' && t !== 'read_media_file').map(
      (t) => `tools/call ${t} tool-error-message-changed warning`,
    ),
    ...FS_STRUCTURED.map((t) => `tools/call ${t} result-field-added compatible`),
    ...FS_2025_11_25_OUTPUT_BUG.map((t) =>
      bug ? `tools/call ${t} tool-call-is-error breaking` : `tools/call ${t} result-field-added compatible`,
    ),
    'tools/call search_files output-changed changed',
    ...(to === '2026.8.31'
      ? [
          'tools/call create_directory tool-call-error-fixed warning',
          'tools/call list_directory output-changed changed',
          'tools/call list_directory_with_sizes output-changed changed',
        ]
      : []),
    'tools/list read_text_file tool-added compatible',
    'tools/list read_media_file tool-added compatible',
    ...FS_NOT_OBJECT.map((t) => `tools/list ${t} input-schema-now-object warning`),
    ...FS_2025_7_1_TOOLS.flatMap((t) => [
      `tools/list ${t} output-schema-added compatible`,
      `tools/list ${t} tool-changed compatible`,
      `tools/list ${t} tool-title-changed warning`,
    ]),
    ...['list_allowed_directories', 'read_file', 'search_files'].map((t) => `tools/list ${t} tool-description-changed warning`),
    ...FS_READ_ONLY.map((t) => `tools/list ${t}.readOnlyHint tool-annotations-changed warning`),
    'tools/list create_directory.destructiveHint tool-annotations-changed warning',
    'tools/list create_directory.idempotentHint tool-annotations-changed warning',
    'tools/list write_file.idempotentHint tool-annotations-changed warning',
    ...(bug ? ['tools/list move_file.destructiveHint tool-annotations-changed warning'] : []),
    ...(to === '2026.7.10' || to === '2026.8.31'
      ? OPEN_WORLD_FALSE.filter((s) => FS_2025_7_1_TOOLS.some((t) => s.includes(` ${t}.`)))
      : []),
  ];
}

/** Every pair recorded from a 2025 everything and replayed against a 2026 one: the rewrite. */
const OLD_TO_NEW: string[] = [
  '(server request) elicitation/create server-request-missing warning',
  '(server request) sampling/createMessage server-request-missing warning',
  'initialize capabilities/prompts/listChanged capability-added compatible',
  'initialize capabilities/resources/listChanged capability-added compatible',
  'initialize capabilities/tasks capability-added compatible',
  'initialize capabilities/tools/listChanged capability-added compatible',
  'initialize instructions server-info-changed warning',
  'initialize serverInfo/name server-info-changed warning',
  'initialize serverInfo/title server-info-changed warning',
  'notifications - notifications-changed warning',
  'prompts/get complex_prompt success-became-error breaking',
  'prompts/get resource_prompt success-became-error breaking',
  'prompts/get simple_prompt success-became-error breaking',
  'prompts/list args-prompt prompt-added compatible',
  'prompts/list completable-prompt prompt-added compatible',
  'prompts/list complex_prompt prompt-removed breaking',
  'prompts/list resource-prompt prompt-added compatible',
  'prompts/list resource_prompt prompt-removed breaking',
  'prompts/list simple-prompt prompt-added compatible',
  'prompts/list simple_prompt prompt-removed breaking',
  'resources/read corpus://no/such/resource error-code-changed breaking',
  'resources/read corpus://no/such/resource error-message-changed compatible',
  'resources/read test://static/resource/1 success-became-error breaking',
  'resources/read test://static/resource/16 success-became-error breaking',
  'resources/read test://static/resource/2 success-became-error breaking',
  'resources/read test://static/resource/56 success-became-error breaking',
  'resources/templates/list demo://resource/dynamic/blob/{resourceId} resource-template-added compatible',
  'resources/templates/list demo://resource/dynamic/text/{resourceId} resource-template-added compatible',
  'resources/templates/list test://static/resource/{id} resource-template-removed breaking',
  'tools/call add tool-call-is-error breaking',
  'tools/call add tool-error-form-changed warning',
  'tools/call annotatedMessage tool-call-is-error breaking',
  'tools/call annotatedMessage tool-error-form-changed warning',
  'tools/call corpus-no-such-tool tool-error-form-changed warning',
  'tools/call echo tool-error-form-changed warning',
  'tools/call getResourceLinks tool-call-is-error breaking',
  'tools/call getResourceLinks tool-error-form-changed warning',
  'tools/call getResourceReference tool-call-is-error breaking',
  'tools/call getResourceReference tool-error-form-changed warning',
  'tools/call getTinyImage tool-call-is-error breaking',
  'tools/call longRunningOperation progress-changed warning',
  'tools/call longRunningOperation tool-call-is-error breaking',
  'tools/call longRunningOperation tool-error-form-changed warning',
  'tools/call printEnv tool-call-is-error breaking',
  'tools/call sampleLLM tool-call-is-error breaking',
  'tools/call sampleLLM tool-error-form-changed warning',
  'tools/call startElicitation tool-call-is-error breaking',
  'tools/call structuredContent tool-call-is-error breaking',
  'tools/call structuredContent tool-error-form-changed warning',
  'tools/list echo tool-changed compatible',
  'tools/list echo tool-description-changed warning',
  'tools/list echo tool-title-changed warning',
  'tools/list get-env tool-added compatible',
  'tools/list get-resource-reference tool-added compatible',
  'tools/list get-roots-list tool-added compatible',
  'tools/list get-structured-content tool-added compatible',
  'tools/list get-tiny-image tool-added compatible',
  'tools/list getResourceReference tool-removed breaking',
  'tools/list getTinyImage tool-removed breaking',
  'tools/list gzip-file-as-resource tool-added compatible',
  'tools/list printEnv tool-removed breaking',
  'tools/list simulate-research-query tool-added compatible',
  'tools/list startElicitation tool-removed breaking',
  'tools/list structuredContent tool-removed breaking',
  'tools/list toggle-simulated-logging tool-added compatible',
  'tools/list toggle-subscriber-updates tool-added compatible',
  'tools/list trigger-elicitation-request tool-added compatible',
  ...listed('resources/list', OLD_RESOURCES, 'resource-removed', 'breaking'),
  ...listed('resources/list', NEW_RESOURCES, 'resource-added', 'compatible'),
];

/** Every pair recorded from a 2026 everything and replayed against a 2025 one: the rewrite undone. */
const NEW_TO_OLD: string[] = [
  '(server request) elicitation/create server-request-missing warning',
  '(server request) sampling/createMessage server-request-missing warning',
  'initialize capabilities/prompts/listChanged capability-changed warning',
  'initialize capabilities/resources/listChanged capability-changed warning',
  'initialize capabilities/tasks capability-removed breaking',
  'initialize capabilities/tools/listChanged capability-changed warning',
  'initialize instructions server-info-changed warning',
  'initialize serverInfo/name server-info-changed warning',
  'initialize serverInfo/title server-info-changed warning',
  'notifications - notifications-changed warning',
  'prompts/get args-prompt success-became-error breaking',
  'prompts/get completable-prompt success-became-error breaking',
  'prompts/get resource-prompt success-became-error breaking',
  'prompts/get simple-prompt success-became-error breaking',
  'prompts/list args-prompt prompt-removed breaking',
  'prompts/list completable-prompt prompt-removed breaking',
  'prompts/list complex_prompt prompt-added compatible',
  'prompts/list resource-prompt prompt-removed breaking',
  'prompts/list resource_prompt prompt-added compatible',
  'prompts/list simple-prompt prompt-removed breaking',
  'prompts/list simple_prompt prompt-added compatible',
  'resources/read corpus://no/such/resource error-code-changed breaking',
  'resources/read corpus://no/such/resource error-message-changed compatible',
  'resources/read demo://resource/dynamic/blob/1 success-became-error breaking',
  'resources/read demo://resource/dynamic/text/1 success-became-error breaking',
  'resources/read demo://resource/static/document/architecture.md success-became-error breaking',
  'resources/read demo://resource/static/document/extension.md success-became-error breaking',
  'resources/templates/list demo://resource/dynamic/blob/{resourceId} resource-template-removed breaking',
  'resources/templates/list demo://resource/dynamic/text/{resourceId} resource-template-removed breaking',
  'resources/templates/list test://static/resource/{id} resource-template-added compatible',
  'tools/call corpus-no-such-tool tool-error-form-changed warning',
  'tools/call echo tool-error-form-changed warning',
  'tools/call get-annotated-message success-became-error breaking',
  'tools/call get-annotated-message tool-error-form-changed warning',
  'tools/call get-env success-became-error breaking',
  'tools/call get-resource-links success-became-error breaking',
  'tools/call get-resource-links tool-error-form-changed warning',
  'tools/call get-resource-reference success-became-error breaking',
  'tools/call get-resource-reference tool-error-form-changed warning',
  'tools/call get-roots-list success-became-error breaking',
  'tools/call get-structured-content success-became-error breaking',
  'tools/call get-structured-content tool-error-form-changed warning',
  'tools/call get-sum success-became-error breaking',
  'tools/call get-sum tool-error-form-changed warning',
  'tools/call get-tiny-image success-became-error breaking',
  'tools/call gzip-file-as-resource success-became-error breaking',
  'tools/call gzip-file-as-resource tool-error-form-changed warning',
  'tools/call simulate-research-query tool-error-form-changed warning',
  'tools/call toggle-subscriber-updates success-became-error breaking',
  'tools/call trigger-elicitation-request success-became-error breaking',
  'tools/call trigger-long-running-operation progress-changed warning',
  'tools/call trigger-long-running-operation success-became-error breaking',
  'tools/call trigger-long-running-operation tool-error-form-changed warning',
  'tools/call trigger-sampling-request success-became-error breaking',
  'tools/call trigger-sampling-request tool-error-form-changed warning',
  'tools/list echo tool-changed warning',
  'tools/list echo tool-description-changed warning',
  'tools/list echo tool-title-changed warning',
  'tools/list get-env tool-removed breaking',
  'tools/list get-resource-reference tool-removed breaking',
  'tools/list get-roots-list tool-removed breaking',
  'tools/list get-structured-content tool-removed breaking',
  'tools/list get-tiny-image tool-removed breaking',
  'tools/list getResourceReference tool-added compatible',
  'tools/list getTinyImage tool-added compatible',
  'tools/list gzip-file-as-resource tool-removed breaking',
  'tools/list printEnv tool-added compatible',
  'tools/list simulate-research-query tool-removed breaking',
  'tools/list startElicitation tool-added compatible',
  'tools/list structuredContent tool-added compatible',
  'tools/list toggle-simulated-logging tool-removed breaking',
  'tools/list toggle-subscriber-updates tool-removed breaking',
  'tools/list trigger-elicitation-request tool-removed breaking',
  ...listed('resources/list', OLD_RESOURCES, 'resource-added', 'compatible'),
  ...listed('resources/list', NEW_RESOURCES, 'resource-removed', 'breaking'),
];

/** 2025 → 2026.1.26: five tools keep their exact input schema under a new name. */
const TO_2026_1_26: string[] = [
  'tools/list add->get-sum tool-renamed breaking',
  'tools/list annotatedMessage->get-annotated-message tool-renamed breaking',
  'tools/list getResourceLinks->get-resource-links tool-renamed breaking',
  'tools/list longRunningOperation->trigger-long-running-operation tool-renamed breaking',
  'tools/list sampleLLM->trigger-sampling-request tool-renamed breaking',
];

/** 2025 → 2026.8.31: no exact schema survives (zod 4 dropped additionalProperties:false), so removed + added; echo gains annotations. */
const TO_2026_8_31: string[] = [
  'tools/list add tool-removed breaking',
  'tools/list annotatedMessage tool-removed breaking',
  'tools/list echo input-additional-properties-opened compatible',
  'tools/list echo.openWorldHint tool-annotations-changed warning',
  'tools/list echo.readOnlyHint tool-annotations-changed warning',
  'tools/list get-annotated-message tool-added compatible',
  'tools/list get-resource-links tool-added compatible',
  'tools/list get-sum tool-added compatible',
  'tools/list getResourceLinks tool-removed breaking',
  'tools/list longRunningOperation tool-removed breaking',
  'tools/list sampleLLM tool-removed breaking',
  'tools/list trigger-long-running-operation tool-added compatible',
  'tools/list trigger-sampling-request tool-added compatible',
];

/** 2026.1.26 → 2025: the five renames back. */
const FROM_2026_1_26: string[] = [
  'tools/list get-annotated-message->annotatedMessage tool-renamed breaking',
  'tools/list get-resource-links->getResourceLinks tool-renamed breaking',
  'tools/list get-sum->add tool-renamed breaking',
  'tools/list trigger-long-running-operation->longRunningOperation tool-renamed breaking',
  'tools/list trigger-sampling-request->sampleLLM tool-renamed breaking',
];

/** 2026.8.31 → 2025: removed + added; echo loses its annotations (absent destructiveHint means true) and closes its input
 * (a warning: neither replayed echo call sends an unknown argument). */
const FROM_2026_8_31: string[] = [
  'tools/list add tool-added compatible',
  'tools/list annotatedMessage tool-added compatible',
  'tools/list echo input-additional-properties-closed warning',
  'tools/list echo.destructiveHint destructive-hint-gained breaking',
  'tools/list echo.openWorldHint tool-annotations-changed warning',
  'tools/list echo.readOnlyHint readonly-hint-lost breaking',
  'tools/list get-annotated-message tool-removed breaking',
  'tools/list get-resource-links tool-removed breaking',
  'tools/list get-sum tool-removed breaking',
  'tools/list getResourceLinks tool-added compatible',
  'tools/list longRunningOperation tool-added compatible',
  'tools/list sampleLLM tool-added compatible',
  'tools/list trigger-long-running-operation tool-removed breaking',
  'tools/list trigger-sampling-request tool-removed breaking',
];

/** Ordered pair (`recorded -> live`) → every difference it should report. Self pairs: none. */
export const EXPECTED: Record<string, string[]> = {
  'everything@2025.7.29 -> everything@2025.11.25': [
    '(server request) elicitation/create server-request-changed warning',
    '(server request) roots/list unexpected-server-request breaking',
    '(server request) sampling/createMessage server-request-missing warning',
    'initialize capabilities/elicitation capability-removed breaking',
    'notifications - notifications-changed warning',
    'tools/call startElicitation output-changed changed',
    'tools/list - tool-order-changed warning',
    'tools/list listRoots tool-added compatible',
    'tools/list startElicitation tool-description-changed warning',
    'tools/list zip tool-added compatible',
  ],
  'everything@2025.7.29 -> everything@2026.1.26': [
    ...OLD_TO_NEW,
    ...TO_2026_1_26,
    'initialize capabilities/elicitation capability-removed breaking',
  ],
  'everything@2025.7.29 -> everything@2026.8.31': [
    ...OLD_TO_NEW,
    ...TO_2026_8_31,
    'initialize capabilities/elicitation capability-removed breaking',
  ],
  'everything@2025.11.25 -> everything@2025.7.29': [
    '(server request) elicitation/create server-request-changed warning',
    '(server request) roots/list server-request-missing warning',
    '(server request) sampling/createMessage unexpected-server-request breaking',
    'initialize capabilities/elicitation capability-added compatible',
    'notifications - notifications-changed warning',
    'tools/call listRoots success-became-error breaking',
    'tools/call startElicitation output-changed changed',
    'tools/call zip error-code-changed breaking',
    'tools/call zip error-message-changed compatible',
    'tools/list - tool-order-changed warning',
    'tools/list listRoots tool-removed breaking',
    'tools/list startElicitation tool-description-changed warning',
    'tools/list zip tool-removed breaking',
  ],
  'everything@2025.11.25 -> everything@2026.1.26': [
    ...OLD_TO_NEW,
    ...TO_2026_1_26,
    'tools/call listRoots tool-call-is-error breaking',
    'tools/call zip tool-error-form-changed warning',
    'tools/list listRoots tool-removed breaking',
    'tools/list zip tool-removed breaking',
  ],
  'everything@2025.11.25 -> everything@2026.8.31': [
    ...OLD_TO_NEW,
    ...TO_2026_8_31,
    'tools/call listRoots tool-call-is-error breaking',
    'tools/call zip tool-error-form-changed warning',
    'tools/list listRoots tool-removed breaking',
    'tools/list zip tool-removed breaking',
  ],
  'everything@2026.1.26 -> everything@2025.7.29': [
    ...NEW_TO_OLD,
    ...FROM_2026_1_26,
    '(server request) roots/list server-request-missing warning',
    '(server request) sampling/createMessage unexpected-server-request breaking',
    'initialize capabilities/elicitation capability-added compatible',
  ],
  'everything@2026.1.26 -> everything@2025.11.25': [
    ...NEW_TO_OLD,
    ...FROM_2026_1_26,
    'tools/list listRoots tool-added compatible',
    'tools/list zip tool-added compatible',
  ],
  'everything@2026.1.26 -> everything@2026.8.31': [
    'prompts/list args-prompt prompt-argument-changed warning',
    'tools/call echo tool-error-message-changed warning',
    'tools/call get-annotated-message tool-error-message-changed warning',
    'tools/call get-resource-links tool-error-message-changed warning',
    'tools/call get-resource-reference tool-error-message-changed warning',
    'tools/call get-structured-content tool-error-message-changed warning',
    'tools/call get-sum tool-error-message-changed warning',
    'tools/call gzip-file-as-resource tool-error-message-changed warning',
    'tools/call trigger-long-running-operation tool-error-message-changed warning',
    'tools/call trigger-sampling-request tool-error-message-changed warning',
    'tools/list echo input-additional-properties-opened compatible',
    'tools/list echo.openWorldHint tool-annotations-changed warning',
    'tools/list echo.readOnlyHint tool-annotations-changed warning',
    'tools/list get-annotated-message input-additional-properties-opened compatible',
    'tools/list get-annotated-message.openWorldHint tool-annotations-changed warning',
    'tools/list get-annotated-message.readOnlyHint tool-annotations-changed warning',
    'tools/list get-env.openWorldHint tool-annotations-changed warning',
    'tools/list get-env.readOnlyHint tool-annotations-changed warning',
    'tools/list get-resource-links input-additional-properties-opened compatible',
    'tools/list get-resource-links.openWorldHint tool-annotations-changed warning',
    'tools/list get-resource-links.readOnlyHint tool-annotations-changed warning',
    'tools/list get-resource-reference input-additional-properties-opened compatible',
    'tools/list get-resource-reference.openWorldHint tool-annotations-changed warning',
    'tools/list get-resource-reference.readOnlyHint tool-annotations-changed warning',
    'tools/list get-roots-list.openWorldHint tool-annotations-changed warning',
    'tools/list get-roots-list.readOnlyHint tool-annotations-changed warning',
    'tools/list get-structured-content input-additional-properties-opened compatible',
    'tools/list get-structured-content.openWorldHint tool-annotations-changed warning',
    'tools/list get-structured-content.readOnlyHint tool-annotations-changed warning',
    'tools/list get-sum input-additional-properties-opened compatible',
    'tools/list get-sum.openWorldHint tool-annotations-changed warning',
    'tools/list get-sum.readOnlyHint tool-annotations-changed warning',
    'tools/list get-tiny-image.openWorldHint tool-annotations-changed warning',
    'tools/list get-tiny-image.readOnlyHint tool-annotations-changed warning',
    'tools/list gzip-file-as-resource input-additional-properties-opened compatible',
    'tools/list gzip-file-as-resource.destructiveHint tool-annotations-changed warning',
    'tools/list gzip-file-as-resource.idempotentHint tool-annotations-changed warning',
    'tools/list simulate-research-query input-additional-properties-opened compatible',
    'tools/list simulate-research-query.destructiveHint tool-annotations-changed warning',
    'tools/list simulate-research-query.openWorldHint tool-annotations-changed warning',
    'tools/list toggle-simulated-logging.destructiveHint tool-annotations-changed warning',
    'tools/list toggle-simulated-logging.openWorldHint tool-annotations-changed warning',
    'tools/list toggle-subscriber-updates.destructiveHint tool-annotations-changed warning',
    'tools/list toggle-subscriber-updates.openWorldHint tool-annotations-changed warning',
    'tools/list trigger-elicitation-request.destructiveHint tool-annotations-changed warning',
    'tools/list trigger-elicitation-request.openWorldHint tool-annotations-changed warning',
    'tools/list trigger-long-running-operation input-additional-properties-opened compatible',
    'tools/list trigger-long-running-operation.openWorldHint tool-annotations-changed warning',
    'tools/list trigger-long-running-operation.readOnlyHint tool-annotations-changed warning',
    'tools/list trigger-sampling-request input-additional-properties-opened compatible',
    'tools/list trigger-sampling-request.destructiveHint tool-annotations-changed warning',
  ],
  'everything@2026.8.31 -> everything@2025.7.29': [
    ...NEW_TO_OLD,
    ...FROM_2026_8_31,
    '(server request) roots/list server-request-missing warning',
    '(server request) sampling/createMessage unexpected-server-request breaking',
    'initialize capabilities/elicitation capability-added compatible',
  ],
  'everything@2026.8.31 -> everything@2025.11.25': [
    ...NEW_TO_OLD,
    ...FROM_2026_8_31,
    'tools/list listRoots tool-added compatible',
    'tools/list zip tool-added compatible',
  ],
  'everything@2026.8.31 -> everything@2026.1.26': [
    'prompts/list args-prompt prompt-argument-changed compatible',
    'tools/call echo tool-error-message-changed warning',
    'tools/call get-annotated-message tool-error-message-changed warning',
    'tools/call get-resource-links tool-error-message-changed warning',
    'tools/call get-resource-reference tool-error-message-changed warning',
    'tools/call get-structured-content tool-error-message-changed warning',
    'tools/call get-sum tool-error-message-changed warning',
    'tools/call gzip-file-as-resource tool-error-message-changed warning',
    'tools/call trigger-long-running-operation tool-error-message-changed warning',
    'tools/call trigger-sampling-request tool-error-message-changed warning',
    'tools/list echo input-additional-properties-closed warning',
    'tools/list echo.destructiveHint destructive-hint-gained breaking',
    'tools/list echo.openWorldHint tool-annotations-changed warning',
    'tools/list echo.readOnlyHint readonly-hint-lost breaking',
    'tools/list get-annotated-message input-additional-properties-closed warning',
    'tools/list get-annotated-message.destructiveHint destructive-hint-gained breaking',
    'tools/list get-annotated-message.openWorldHint tool-annotations-changed warning',
    'tools/list get-annotated-message.readOnlyHint readonly-hint-lost breaking',
    'tools/list get-env.destructiveHint destructive-hint-gained breaking',
    'tools/list get-env.openWorldHint tool-annotations-changed warning',
    'tools/list get-env.readOnlyHint readonly-hint-lost breaking',
    'tools/list get-resource-links input-additional-properties-closed warning',
    'tools/list get-resource-links.destructiveHint destructive-hint-gained breaking',
    'tools/list get-resource-links.openWorldHint tool-annotations-changed warning',
    'tools/list get-resource-links.readOnlyHint readonly-hint-lost breaking',
    'tools/list get-resource-reference input-additional-properties-closed warning',
    'tools/list get-resource-reference.destructiveHint destructive-hint-gained breaking',
    'tools/list get-resource-reference.openWorldHint tool-annotations-changed warning',
    'tools/list get-resource-reference.readOnlyHint readonly-hint-lost breaking',
    'tools/list get-roots-list.destructiveHint destructive-hint-gained breaking',
    'tools/list get-roots-list.openWorldHint tool-annotations-changed warning',
    'tools/list get-roots-list.readOnlyHint readonly-hint-lost breaking',
    'tools/list get-structured-content input-additional-properties-closed warning',
    'tools/list get-structured-content.destructiveHint destructive-hint-gained breaking',
    'tools/list get-structured-content.openWorldHint tool-annotations-changed warning',
    'tools/list get-structured-content.readOnlyHint readonly-hint-lost breaking',
    'tools/list get-sum input-additional-properties-closed warning',
    'tools/list get-sum.destructiveHint destructive-hint-gained breaking',
    'tools/list get-sum.openWorldHint tool-annotations-changed warning',
    'tools/list get-sum.readOnlyHint readonly-hint-lost breaking',
    'tools/list get-tiny-image.destructiveHint destructive-hint-gained breaking',
    'tools/list get-tiny-image.openWorldHint tool-annotations-changed warning',
    'tools/list get-tiny-image.readOnlyHint readonly-hint-lost breaking',
    'tools/list gzip-file-as-resource input-additional-properties-closed warning',
    'tools/list gzip-file-as-resource.destructiveHint destructive-hint-gained breaking',
    'tools/list gzip-file-as-resource.idempotentHint tool-annotations-changed warning',
    'tools/list simulate-research-query input-additional-properties-closed warning',
    'tools/list simulate-research-query.destructiveHint destructive-hint-gained breaking',
    'tools/list simulate-research-query.openWorldHint tool-annotations-changed warning',
    'tools/list toggle-simulated-logging.destructiveHint destructive-hint-gained breaking',
    'tools/list toggle-simulated-logging.openWorldHint tool-annotations-changed warning',
    'tools/list toggle-subscriber-updates.destructiveHint destructive-hint-gained breaking',
    'tools/list toggle-subscriber-updates.openWorldHint tool-annotations-changed warning',
    'tools/list trigger-elicitation-request.destructiveHint destructive-hint-gained breaking',
    'tools/list trigger-elicitation-request.openWorldHint tool-annotations-changed warning',
    'tools/list trigger-long-running-operation input-additional-properties-closed warning',
    'tools/list trigger-long-running-operation.destructiveHint destructive-hint-gained breaking',
    'tools/list trigger-long-running-operation.openWorldHint tool-annotations-changed warning',
    'tools/list trigger-long-running-operation.readOnlyHint readonly-hint-lost breaking',
    'tools/list trigger-sampling-request input-additional-properties-closed warning',
    'tools/list trigger-sampling-request.destructiveHint destructive-hint-gained breaking',
  ],
  'filesystem@2025.7.1 -> filesystem@2025.11.25': fromFilesystem2025_7_1('2025.11.25'),
  'filesystem@2025.7.1 -> filesystem@2026.7.4': fromFilesystem2025_7_1('2026.7.4'),
  'filesystem@2025.7.1 -> filesystem@2026.7.10': fromFilesystem2025_7_1('2026.7.10'),
  'filesystem@2025.7.1 -> filesystem@2026.8.31': fromFilesystem2025_7_1('2026.8.31'),
  'filesystem@2025.11.25 -> filesystem@2025.7.1': toFilesystem2025_7_1('2025.11.25'),
  'filesystem@2026.7.4 -> filesystem@2025.7.1': toFilesystem2025_7_1('2026.7.4'),
  'filesystem@2026.7.10 -> filesystem@2025.7.1': toFilesystem2025_7_1('2026.7.10'),
  'filesystem@2026.8.31 -> filesystem@2025.7.1': toFilesystem2025_7_1('2026.8.31'),
  'filesystem@2025.11.25 -> filesystem@2026.7.4': [
    'tools/call directory_tree tool-call-error-fixed warning',
    'tools/call list_directory_with_sizes tool-call-error-fixed warning',
    'tools/call move_file tool-call-error-fixed warning',
    'tools/list move_file.destructiveHint destructive-hint-gained breaking',
  ],
  'filesystem@2025.11.25 -> filesystem@2026.7.10': [
    'tools/call directory_tree tool-call-error-fixed warning',
    'tools/call list_directory_with_sizes tool-call-error-fixed warning',
    'tools/call move_file tool-call-error-fixed warning',
    'tools/list move_file.destructiveHint destructive-hint-gained breaking',
    'tools/list read_media_file output-enum-narrowed compatible',
    'tools/list read_media_file output-schema-alternatives-added warning',
    'tools/list read_media_file tool-description-changed warning',
    ...OPEN_WORLD_FALSE,
  ],
  'filesystem@2025.11.25 -> filesystem@2026.8.31': [
    'tools/call create_directory tool-call-error-fixed warning',
    'tools/call directory_tree tool-call-error-fixed warning',
    'tools/call list_directory output-changed changed',
    'tools/call list_directory_with_sizes tool-call-error-fixed warning',
    'tools/call move_file tool-call-error-fixed warning',
    'tools/list move_file.destructiveHint destructive-hint-gained breaking',
    'tools/list read_media_file output-enum-narrowed compatible',
    'tools/list read_media_file output-schema-alternatives-added warning',
    'tools/list read_media_file tool-description-changed warning',
    ...OPEN_WORLD_FALSE,
  ],
  'filesystem@2026.7.4 -> filesystem@2025.11.25': [
    'tools/call directory_tree tool-call-is-error breaking',
    'tools/call list_directory_with_sizes tool-call-is-error breaking',
    'tools/call move_file tool-call-is-error breaking',
    'tools/list move_file.destructiveHint tool-annotations-changed warning',
  ],
  'filesystem@2026.7.4 -> filesystem@2026.7.10': [
    'tools/list read_media_file output-enum-narrowed compatible',
    'tools/list read_media_file output-schema-alternatives-added warning',
    'tools/list read_media_file tool-description-changed warning',
    ...OPEN_WORLD_FALSE,
  ],
  'filesystem@2026.7.4 -> filesystem@2026.8.31': [
    'tools/call create_directory tool-call-error-fixed warning',
    'tools/call list_directory output-changed changed',
    'tools/call list_directory_with_sizes output-changed changed',
    'tools/list read_media_file output-enum-narrowed compatible',
    'tools/list read_media_file output-schema-alternatives-added warning',
    'tools/list read_media_file tool-description-changed warning',
    ...OPEN_WORLD_FALSE,
  ],
  'filesystem@2026.7.10 -> filesystem@2025.11.25': [
    'tools/call directory_tree tool-call-is-error breaking',
    'tools/call list_directory_with_sizes tool-call-is-error breaking',
    'tools/call move_file tool-call-is-error breaking',
    'tools/list move_file.destructiveHint tool-annotations-changed warning',
    'tools/list read_media_file output-enum-widened breaking',
    'tools/list read_media_file output-type-narrowed compatible',
    'tools/list read_media_file tool-description-changed warning',
    ...OPEN_WORLD_FALSE,
  ],
  'filesystem@2026.7.10 -> filesystem@2026.7.4': [
    'tools/list read_media_file output-enum-widened breaking',
    'tools/list read_media_file output-type-narrowed compatible',
    'tools/list read_media_file tool-description-changed warning',
    ...OPEN_WORLD_FALSE,
  ],
  'filesystem@2026.7.10 -> filesystem@2026.8.31': [
    'tools/call create_directory tool-call-error-fixed warning',
    'tools/call list_directory output-changed changed',
    'tools/call list_directory_with_sizes output-changed changed',
  ],
  'filesystem@2026.8.31 -> filesystem@2025.11.25': [
    'tools/call create_directory tool-call-is-error breaking',
    'tools/call directory_tree tool-call-is-error breaking',
    'tools/call list_directory output-changed changed',
    'tools/call list_directory_with_sizes tool-call-is-error breaking',
    'tools/call move_file tool-call-is-error breaking',
    'tools/list move_file.destructiveHint tool-annotations-changed warning',
    'tools/list read_media_file output-enum-widened breaking',
    'tools/list read_media_file output-type-narrowed compatible',
    'tools/list read_media_file tool-description-changed warning',
    ...OPEN_WORLD_FALSE,
  ],
  'filesystem@2026.8.31 -> filesystem@2026.7.4': [
    'tools/call create_directory tool-call-is-error breaking',
    'tools/call list_directory output-changed changed',
    'tools/call list_directory_with_sizes output-changed changed',
    'tools/list read_media_file output-enum-widened breaking',
    'tools/list read_media_file output-type-narrowed compatible',
    'tools/list read_media_file tool-description-changed warning',
    ...OPEN_WORLD_FALSE,
  ],
  'filesystem@2026.8.31 -> filesystem@2026.7.10': [
    'tools/call create_directory tool-call-is-error breaking',
    'tools/call list_directory output-changed changed',
    'tools/call list_directory_with_sizes output-changed changed',
  ],
};
