/**
 * What real upgrades showed replay judging wrongly: negotiation by equality, absent annotations
 * taken for changes, isError results, zod's safe-integer bounds, unions and renames. The values
 * are the shapes published servers produce (zod 4 JSON Schema, v1 and v2 SDK answers).
 */
import test from 'ava';
import { compareSchemas } from '../../replay/schema-variance/index.js';
import { judgeResponse } from '../../replay/verdicts/index.js';

const kinds = (ds: { kind: string; verdict: string }[]) => ds.map((d) => `${d.verdict}:${d.kind}`).sort();
const init = (protocolVersion: string) => ({ result: { protocolVersion, capabilities: {}, serverInfo: { name: 's', version: '1' } } });

test('negotiation: granting the revision the client asked for is compatible; any other new answer breaks', (t) => {
  // The recorded server counter-offered 2024-11-05 to a client asking for 2025-06-18; the new one grants it.
  t.deepEqual(kinds(judgeResponse('initialize', init('2024-11-05'), init('2025-06-18'), { requested: '2025-06-18' })), [
    'compatible:protocol-version-negotiated',
  ]);
  // It now counter-offers something else than before: a client that does not speak it refuses.
  t.deepEqual(kinds(judgeResponse('initialize', init('2025-06-18'), init('2025-03-26'), { requested: '2025-06-18' })), [
    'breaking:protocol-version-changed',
  ]);
  t.deepEqual(kinds(judgeResponse('initialize', init('2024-11-05'), init('2025-03-26'), { requested: '2025-06-18' })), [
    'breaking:protocol-version-changed',
  ]);
  t.deepEqual(judgeResponse('initialize', init('2025-06-18'), init('2025-06-18'), { requested: '2025-11-25' }), []);
});

const tools = (...list: unknown[]) => ({ result: { tools: list } });
const tool = (
  name: string,
  annotations?: Record<string, unknown>,
  inputSchema: unknown = { type: 'object', properties: { path: { type: 'string' } } },
) => ({ name, inputSchema, ...(annotations ? { annotations } : {}) });

test('annotations: an absent hint is its spec default', (t) => {
  // destructiveHint absent means true: "absent → true" is no change.
  t.deepEqual(judgeResponse('tools/list', tools(tool('rm')), tools(tool('rm', { destructiveHint: true }))), []);
  t.deepEqual(
    judgeResponse('tools/list', tools(tool('rm', { readOnlyHint: false, idempotentHint: false, openWorldHint: true })), tools(tool('rm'))),
    [],
  );
  // false → absent is a real change: the default is true.
  t.deepEqual(kinds(judgeResponse('tools/list', tools(tool('rm', { destructiveHint: false })), tools(tool('rm')))), [
    'breaking:destructive-hint-gained',
  ]);
  // A read-only tool that lost readOnlyHint and says nothing of destruction is destructive now.
  t.deepEqual(kinds(judgeResponse('tools/list', tools(tool('ls', { readOnlyHint: true })), tools(tool('ls', {})))), [
    'breaking:destructive-hint-gained',
    'breaking:readonly-hint-lost',
  ]);
  t.deepEqual(
    kinds(judgeResponse('tools/list', tools(tool('ls', { readOnlyHint: true })), tools(tool('ls', { destructiveHint: false })))),
    ['breaking:readonly-hint-lost'],
  );
  t.deepEqual(kinds(judgeResponse('tools/list', tools(tool('ls', { openWorldHint: false })), tools(tool('ls')))), [
    'warning:tool-annotations-changed',
  ]);
  t.deepEqual(kinds(judgeResponse('tools/list', tools(tool('ls', { title: 'List' })), tools(tool('ls', { title: 'List files' })))), [
    'warning:tool-annotations-changed',
  ]);
});

const ok = (text: string) => ({ result: { content: [{ type: 'text', text }] } });
const toolError = (text: string) => ({ result: { content: [{ type: 'text', text }], isError: true } });
const rpcError = (code: number, message: string) => ({ error: { code, message } });

test('tool failures: isError and JSON-RPC errors are both failures, a fix is no content change', (t) => {
  t.deepEqual(kinds(judgeResponse('tools/call', toolError('Error: ENOENT'), ok('hello'))), ['warning:tool-call-error-fixed']);
  t.deepEqual(kinds(judgeResponse('tools/call', rpcError(-32602, 'Tool nope not found'), ok('hello'))), ['warning:error-became-success']);
  t.deepEqual(kinds(judgeResponse('tools/call', ok('hello'), toolError('boom'))), ['breaking:tool-call-is-error']);
  t.deepEqual(kinds(judgeResponse('tools/call', ok('hello'), rpcError(-32603, 'boom'))), ['breaking:success-became-error']);
  t.deepEqual(kinds(judgeResponse('tools/call', toolError('Unknown tool: nope'), toolError('Tool nope not found'))), [
    'warning:tool-error-message-changed',
  ]);
  t.deepEqual(judgeResponse('tools/call', toolError('Unknown tool: nope'), toolError('Unknown tool: nope')), []);
  // An unknown tool: the v1 SDK answers with isError, the v2 SDK with -32602. Still a failure.
  const form = judgeResponse('tools/call', toolError('Tool nope not found'), rpcError(-32602, 'Tool nope not found'));
  t.deepEqual(kinds(form), ['warning:tool-error-form-changed']);
  t.notRegex(form[0]!.message, /now succeeds/);
  t.deepEqual(kinds(judgeResponse('tools/call', rpcError(-32602, 'Tool nope not found'), toolError('Tool nope not found'))), [
    'warning:tool-error-form-changed',
  ]);
  // Two JSON-RPC errors are judged as for any method.
  t.deepEqual(kinds(judgeResponse('tools/call', rpcError(-32602, 'a'), rpcError(-32603, 'a'))), ['breaking:error-code-changed']);
});

test('schemas: zod 4 safe-integer bounds are no tightening', (t) => {
  const old = { type: 'object', properties: { n: { type: 'integer' } } };
  const zod = { type: 'object', properties: { n: { type: 'integer', minimum: -9007199254740991, maximum: 9007199254740991 } } };
  t.deepEqual(compareSchemas(old, zod, 'input', [], 'x'), []);
  t.deepEqual(compareSchemas(zod, old, 'input', [], 'x'), []);
  t.deepEqual(kinds(compareSchemas(old, { type: 'object', properties: { n: { type: 'integer', maximum: 100 } } }, 'input', [], 'x')), [
    'breaking:input-constraint-tightened',
  ]);
});

test('schemas: unions judged branch by branch', (t) => {
  const flag = (s: unknown) => ({ type: 'object', properties: { flag: s } });
  // boolean → boolean | string (zod's anyOf, or a type list): callers' booleans still pass.
  t.deepEqual(
    kinds(compareSchemas(flag({ type: 'boolean' }), flag({ anyOf: [{ type: 'boolean' }, { type: 'string' }] }), 'input', [], 'x')),
    ['compatible:input-type-widened'],
  );
  t.deepEqual(kinds(compareSchemas(flag({ type: 'boolean' }), flag({ type: ['boolean', 'string'] }), 'input', [], 'x')), [
    'compatible:input-type-widened',
  ]);
  t.deepEqual(
    compareSchemas(flag({ type: ['boolean', 'string'] }), flag({ anyOf: [{ type: 'string' }, { type: 'boolean' }] }), 'input', [], 'x'),
    [],
  );
  // boolean | string → boolean narrows.
  t.deepEqual(
    kinds(compareSchemas(flag({ anyOf: [{ type: 'boolean' }, { type: 'string' }] }), flag({ type: 'boolean' }), 'input', [], 'x')),
    ['breaking:input-type-narrowed'],
  );
  // An output schema wrapped into anyOf with its old shape as a branch: nothing was removed.
  const shape = { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] };
  const wrapped = { anyOf: [shape, { type: 'object', properties: { error: { type: 'string' } }, required: ['error'] }] };
  const d = compareSchemas(shape, wrapped, 'output', ['outputSchema'], 'x');
  t.deepEqual(kinds(d), ['warning:output-schema-alternatives-added']);
  t.false(d.some((x) => x.kind === 'output-property-removed'));
  t.deepEqual(kinds(compareSchemas(wrapped, shape, 'output', [], 'x')), ['compatible:output-type-narrowed']);
  // A branch whose own shape breaks is still found and judged.
  t.deepEqual(
    kinds(
      compareSchemas(
        { oneOf: [{ type: 'string' }, shape] },
        {
          oneOf: [
            { type: 'string' },
            { type: 'object', properties: { sum: { type: 'number' }, unit: { type: 'string' } }, required: ['sum'] },
          ],
        },
        'output',
        [],
        'x',
      ),
    ),
    ['compatible:output-property-added'],
  );
});

test('a tool removed while another with the same input schema appeared is a likely rename', (t) => {
  const schema = { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] };
  const d = judgeResponse(
    'tools/list',
    tools(tool('add', undefined, schema), tool('echo')),
    tools(tool('get-sum', undefined, schema), tool('echo')),
  );
  t.deepEqual(kinds(d), ['breaking:tool-renamed']);
  t.regex(d[0]!.message, /"add".*"get-sum"/);
  // Two candidates with that schema: no guess.
  t.deepEqual(
    kinds(
      judgeResponse(
        'tools/list',
        tools(tool('add', undefined, schema)),
        tools(tool('sum', undefined, schema), tool('plus', undefined, schema)),
      ),
    ),
    ['breaking:tool-removed', 'compatible:tool-added', 'compatible:tool-added'],
  );
  // Tools without parameters all look alike: they pair only with equal descriptions.
  const bare = (name: string, description: string) => ({ name, description, inputSchema: { type: 'object', properties: {} } });
  t.deepEqual(kinds(judgeResponse('tools/list', tools(bare('printEnv', 'Prints env')), tools(bare('get-env', 'Returns env')))), [
    'breaking:tool-removed',
    'compatible:tool-added',
  ]);
  t.deepEqual(kinds(judgeResponse('tools/list', tools(bare('printEnv', 'Prints env')), tools(bare('print-env', 'Prints env')))), [
    'breaking:tool-renamed',
  ]);
});

test('capability flags: turned off is the same change whether set to false or dropped', (t) => {
  const caps = (resources: Record<string, unknown>) => ({
    result: { protocolVersion: '2025-11-25', capabilities: { resources }, serverInfo: { name: 's', version: '1' } },
  });
  // resources/subscribe now fails: breaking either way.
  t.deepEqual(kinds(judgeResponse('initialize', caps({ subscribe: true }), caps({ subscribe: false }))), ['breaking:capability-removed']);
  t.deepEqual(kinds(judgeResponse('initialize', caps({ subscribe: true }), caps({}))), ['breaking:capability-removed']);
  // No more list_changed notifications, the lists still answer: a warning either way.
  t.deepEqual(kinds(judgeResponse('initialize', caps({ listChanged: true }), caps({ listChanged: false }))), [
    'warning:capability-changed',
  ]);
  t.deepEqual(kinds(judgeResponse('initialize', caps({ listChanged: true }), caps({}))), ['warning:capability-changed']);
  t.deepEqual(judgeResponse('initialize', caps({ listChanged: false }), caps({})), [], 'off either way');
  t.deepEqual(kinds(judgeResponse('initialize', caps({ subscribe: false }), caps({ subscribe: true }))), ['compatible:capability-added']);
});

/** filesystem's read_media_file output items, as the published versions list them. */
const media = (types: string[]) => ({
  type: 'object',
  properties: { type: { type: 'string', enum: types }, data: { type: 'string' }, mimeType: { type: 'string' } },
  required: ['type', 'data', 'mimeType'],
  additionalProperties: false,
});
const embedded = {
  type: 'object',
  properties: {
    type: { type: 'string', const: 'resource' },
    resource: {
      type: 'object',
      properties: { uri: { type: 'string' }, mimeType: { type: 'string' }, blob: { type: 'string' } },
      required: ['uri', 'blob'],
      additionalProperties: false,
    },
  },
  required: ['type', 'resource'],
  additionalProperties: false,
};
const mediaOutput = (items: unknown) => ({
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: { content: { type: 'array', items } },
  required: ['content'],
  additionalProperties: false,
});
/** 2025.11.25 (and 2026.7.4): one item shape whose type may be image, audio or blob. */
const MEDIA_2025 = mediaOutput(media(['image', 'audio', 'blob']));
/** 2026.7.10 and later: image/audio items, or an embedded resource. */
const MEDIA_2026 = mediaOutput({ anyOf: [media(['image', 'audio']), embedded] });

test('schemas: an output alternative that comes back as one wider schema is judged as that alternative (filesystem read_media_file)', (t) => {
  const judge = (a: unknown, b: unknown) => compareSchemas(a, b, 'output', ['result', 'tools', 'read_media_file', 'outputSchema'], 'x');
  // 2025 → 2026: the image/audio items lost "blob", and an embedded resource may come: a shape
  // clients have not seen.
  const up = judge(MEDIA_2025, MEDIA_2026);
  t.deepEqual(kinds(up), ['compatible:output-enum-narrowed', 'warning:output-schema-alternatives-added']);
  t.deepEqual(up.find((d) => d.kind === 'output-schema-alternatives-added')!.live, embedded);
  // 2026 → 2025: the one schema is the image/audio alternative whose type may now be "blob" (no
  // MCP content block has that type), and the embedded resource is gone. The image/audio items
  // are not gone: nothing says "no longer image, audio".
  const down = judge(MEDIA_2026, MEDIA_2025);
  t.deepEqual(kinds(down), ['breaking:output-enum-widened', 'compatible:output-type-narrowed']);
  const widened = down.find((d) => d.kind === 'output-enum-widened')!;
  t.is(widened.path, '/result/tools/read_media_file/outputSchema/properties/content/items/properties/type/enum');
  t.regex(widened.message, /may now be "blob"/);
  t.deepEqual(down.find((d) => d.kind === 'output-type-narrowed')!.recorded, embedded);
  t.false(
    down.some((d) => /image/.test(d.message)),
    down.map((d) => d.message).join('\n'),
  );
  // A new alternative of another shape is still a warning, not a match with breaking changes.
  const other = mediaOutput({ type: 'object', properties: { type: { const: 'text' }, text: { type: 'string' } } });
  t.deepEqual(kinds(judge(MEDIA_2026, other)), [
    'compatible:output-type-narrowed',
    'compatible:output-type-narrowed',
    'warning:output-schema-alternatives-added',
  ]);
});

test('input schemas: one that lost type "object" is one breaking difference for the tool (filesystem 2025.11.25 → 2025.7.1)', (t) => {
  // What 2025.11.25 lists for read_file, and what 2025.7.1 lists (zod-to-json-schema under zod 4
  // wrote nothing but $schema for 11 of its 12 tools).
  const v20251125 = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: {
      path: { type: 'string' },
      tail: { description: 'If provided, returns only the last N lines of the file', type: 'number' },
      head: { description: 'If provided, returns only the first N lines of the file', type: 'number' },
    },
    required: ['path'],
  };
  const v202571 = { $schema: 'http://json-schema.org/draft-07/schema#' };
  const lost = judgeResponse('tools/list', tools(tool('read_file', undefined, v20251125)), tools(tool('read_file', undefined, v202571)));
  t.deepEqual(kinds(lost), ['breaking:input-schema-not-object']);
  t.is(lost[0]!.path, '/result/tools/read_file/inputSchema/type');
  t.is(
    lost[0]!.message,
    'tool "read_file": inputSchema no longer has type "object" (the spec requires it; the official v1 client rejects the whole tools/list)',
  );
  // No inputSchema at all is the same break.
  t.deepEqual(kinds(judgeResponse('tools/list', tools(tool('read_file', undefined, v20251125)), tools({ name: 'read_file' }))), [
    'breaking:input-schema-not-object',
  ]);
  // The other way: a fix that declares the arguments, not a list of new required properties.
  t.deepEqual(
    kinds(judgeResponse('tools/list', tools(tool('read_file', undefined, v202571)), tools(tool('read_file', undefined, v20251125)))),
    ['warning:input-schema-now-object'],
  );
  // Object schemas on both sides are still compared by variance.
  t.deepEqual(
    kinds(
      judgeResponse(
        'tools/list',
        tools(tool('read_file', undefined, v20251125)),
        tools(tool('read_file', undefined, { ...v20251125, required: ['path', 'head'] })),
      ),
    ),
    ['breaking:input-required-added'],
  );
});

test('prompt arguments: a description or title changed is a warning on that argument; only added, or no longer required, is compatible', (t) => {
  const prompts = (...args: unknown[]) => ({
    result: { prompts: [{ name: 'args-prompt', description: 'Two arguments', arguments: args }] },
  });
  // everything 2026.1.26 → 2026.8.31: args-prompt's `state` lost its description.
  const city = { name: 'city', description: 'Name of the city', required: true };
  const d = judgeResponse(
    'prompts/list',
    prompts(city, { name: 'state', description: 'Name of the state', required: false }),
    prompts(city, { name: 'state', required: false }),
  );
  t.deepEqual(kinds(d), ['warning:prompt-argument-changed']);
  t.is(d[0]!.path, '/result/prompts/args-prompt/arguments/state/description');
  t.is(d[0]!.message, 'prompt "args-prompt": argument "state": description was removed (hosts show it, models read it)');
  t.deepEqual(kinds(judgeResponse('prompts/list', prompts({ ...city, title: 'City' }), prompts({ ...city, title: 'Town' }))), [
    'warning:prompt-argument-changed',
  ]);
  t.deepEqual(kinds(judgeResponse('prompts/list', prompts(city), prompts({ ...city, description: 'The city' }))), [
    'warning:prompt-argument-changed',
  ]);
  t.deepEqual(kinds(judgeResponse('prompts/list', prompts({ name: 'city' }), prompts({ name: 'city', title: 'City' }))), [
    'compatible:prompt-argument-changed',
  ]);
  t.deepEqual(kinds(judgeResponse('prompts/list', prompts(city), prompts({ ...city, required: false }))), [
    'compatible:prompt-argument-changed',
  ]);
  // Newly required is still breaking, and nothing else is said of it.
  t.deepEqual(kinds(judgeResponse('prompts/list', prompts({ ...city, required: false }), prompts(city))), [
    'breaking:prompt-argument-required',
  ]);
  t.deepEqual(judgeResponse('prompts/list', prompts(city), prompts({ ...city })), []);
});
