/**
 * How a fuzz finding is seen (lib/fuzz-finding.ts), shared by `fuzz` and the replay of a finding's
 * cassette: a runtime's panic on stderr and nothing else, and a JSON-RPC error only where the spec
 * wants something else (tools.mdx §Error Handling, the catalogue's conflict C3).
 */
import test from 'ava';
import { misusedError, panicLine } from '../../lib/fuzz-finding.js';

test('a panic is the first line a runtime writes for a failure nobody handled, not a log line', (t) => {
  t.is(
    panicLine(['starting', 'panic: runtime error: index out of range [3] with length 3', 'goroutine 1 [running]:']),
    'panic: runtime error: index out of range [3] with length 3',
  );
  t.is(panicLine(["thread 'main' panicked at src/main.rs:4:5:"]), "thread 'main' panicked at src/main.rs:4:5:");
  t.is(panicLine(['Traceback (most recent call last):', '  File "x.py", line 1']), 'Traceback (most recent call last):');
  t.is(
    panicLine(['FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory']),
    'FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory',
  );
  t.is(panicLine(['[info] tool echo called', 'Error: bad input (handled)', 'a panic: that is not at the start']), undefined);
});

const error = (code: number) => ({ jsonrpc: '2.0', id: 1, error: { code, message: 'm' } });

test('tools/call: -32603 is never right for arguments; a JSON-RPC error for allowed arguments is a tool failure', (t) => {
  t.is(misusedError({ method: 'tools/call', invalidArguments: true }, error(-32603))?.rule, 'TOOLS-ERR-EXECUTION');
  t.regex(
    misusedError({ method: 'tools/call', invalidArguments: true }, error(-32603))!.message,
    /break the tool's inputSchema drew -32603/,
  );
  t.regex(misusedError({ method: 'tools/call' }, error(-32603))!.message, /the tool failed with -32603/);
  t.is(misusedError({ method: 'tools/call' }, error(-32602))?.code, -32602, 'schema-valid arguments rejected in code: C3 says fail');
  t.is(
    misusedError({ method: 'tools/call', invalidArguments: true }, error(-32602)),
    undefined,
    'C3: -32602 for schema-invalid arguments is allowed',
  );
  t.is(misusedError({ method: 'tools/call' }, error(-32601)), undefined);
  t.is(
    misusedError({ method: 'tools/call', invalidArguments: true }, { jsonrpc: '2.0', id: 1, result: { content: [], isError: true } }),
    undefined,
  );
});

test('prompts/get: -32603 for arguments the prompt does not allow is PROMPTS-ERR-ARGS; other methods are left to the validator', (t) => {
  t.is(misusedError({ method: 'prompts/get', invalidArguments: true }, error(-32603))?.rule, 'PROMPTS-ERR-ARGS');
  t.is(misusedError({ method: 'prompts/get' }, error(-32603)), undefined);
  t.is(misusedError({ method: 'resources/read', invalidArguments: true }, error(-32603)), undefined);
});
