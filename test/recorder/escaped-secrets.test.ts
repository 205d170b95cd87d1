import test from 'ava';
import type { ChildProcess } from 'node:child_process';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { join } from 'node:path';
import { messageBytes } from '../../lib/message.js';
import { echoSecretsServer, filesHolding } from '../helpers/capture.js';
import { receivedSpans, startOtlpReceiver } from '../helpers/otlp.js';
import { node } from '../helpers/paths.js';
import { spawnTracked, waitForOutput } from '../helpers/proc.js';
import { PipeTransport, v2Client } from '../helpers/real-server.js';
import { readCassette, recordArgs } from '../helpers/recording.js';
import { tempDir } from '../helpers/tmp.js';
import { LIVE_URL } from '../helpers/view.js';
import { startWebhook } from '../helpers/webhook.js';

/**
 * Credentials in an encoding that hides their shape, through a real recording: the official v2
 * client writes its requests with the AWS key as JSON `\u` escapes (`"\u0041KIA…"`, which every
 * JSON reader decodes to the key) and a GitHub token base64-encoded in a field; a line the client
 * writes on stdin that is no MCP message carries the escaped key into a live alert. The real
 * server (echo-secrets, v2 SDK) gets every byte as sent and echoes the decoded key. The cassette,
 * the alert at the webhook, the spans at an OTLP receiver and the live view (`--ui`) hold each
 * masked like a plain one.
 */
const AWS = 'AKIAPLANTED0KEY12345';
const ESCAPED_AWS = '\\u0041\\u004bIAPLANTED0KEY12345';
const GITHUB = 'ghp_PlantedGithubToken0123456789';
const B64_GITHUB = Buffer.from(`token: ${GITHUB}`).toString('base64');
const NEEDLES = ['PLANTED0KEY', 'PlantedGithubToken', B64_GITHUB];

/** The client's pipe, with the AWS key written as JSON escapes in every request (the bytes are
 * what the proxy forwards unchanged and the server decodes). */
class EscapingPipe extends PipeTransport {
  constructor(private readonly proc: ChildProcess) {
    super(proc);
  }

  override async send(message: JSONRPCMessage): Promise<void> {
    this.proc.stdin!.write(`${JSON.stringify(message).replaceAll(AWS, ESCAPED_AWS)}\n`);
  }
}

/** Every string the live view gives for a message, walked node by node through its JSON API. */
async function viewTexts(view: string, session: number, seq: number, pointer = ''): Promise<string[]> {
  const url = new URL(view);
  url.pathname = '/api/node';
  url.search = new URLSearchParams({ token: url.searchParams.get('token')!, i: String(session), seq: String(seq), p: pointer }).toString();
  const node = (await (await fetch(url)).json()) as { text?: string; children?: { pointer: string; type: string; preview?: string }[] };
  const out = node.text !== undefined ? [node.text] : [];
  for (const c of node.children ?? []) {
    if (c.type === 'object' || c.type === 'array') out.push(...(await viewTexts(view, session, seq, c.pointer)));
    else out.push(c.preview ?? '');
  }
  return out;
}

test('a key written with JSON escapes and a token in base64: masked like plain ones in the cassette, a live alert, the spans and the live view', async (t) => {
  const hook = await startWebhook(t, (r, h) => h.answer(r, 204));
  const receiver = await startOtlpReceiver(t);
  const dir = tempDir(t);
  const path = join(dir, 'escaped.cassette.json');
  const extra = ['--otel', '--include-payloads', '--ui', '127.0.0.1:0', '--alert-webhook', hook.url, '--log-file', join(dir, 'proxy.log')];
  const child = spawnTracked(t, node, recordArgs(path, [node, echoSecretsServer], extra), {
    cwd: dir,
    env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url },
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const view = LIVE_URL.exec(await waitForOutput(child.stderr!, (s) => LIVE_URL.test(s)))![1]!;
  const client = v2Client();
  await client.connect(new EscapingPipe(child));
  let texts: string[] = [];
  try {
    const r = await client.callTool({ name: 'echo', arguments: { text: `key ${AWS}`, note: B64_GITHUB } });
    t.deepEqual(r.structuredContent, { echoed: `key ${AWS}` }, 'the server decoded the escapes: it got the key');
    // A line that is no MCP message, with the escaped key: the live validator quotes it in an alert.
    child.stdin!.write(`{"note":"${ESCAPED_AWS}"}\n`);
    await hook.until(() => hook.requests.some((x) => x.alert.violation.rule === 'STDIO-STDIN-CLEAN'));
    await client.listTools(); // after the line: its verdict has reached the view too
    const overview = new URL(view);
    overview.pathname = '/api/session';
    overview.searchParams.set('i', '0');
    const session = (await (await fetch(overview)).json()) as { rows: { seq: number }[]; violations?: unknown[] };
    texts = [JSON.stringify(session)];
    for (const row of session.rows) texts.push(...(await viewTexts(view, 0, row.seq)));
  } finally {
    await client.close();
  }
  t.is(await exited, 0, stderr);

  const alert = hook.requests.find((x) => x.alert.violation.rule === 'STDIO-STDIN-CLEAN')!.alert;
  t.regex(alert.text, /non-MCP input on stdin: .*\[REDACTED\]/, 'the alert keeps its shape, the key masked');
  t.deepEqual(
    NEEDLES.filter((n) => hook.requests.some((x) => JSON.stringify(x.alert).includes(n))),
    [],
    'no alert holds the key',
  );
  const viewed = texts.join('\n');
  t.true(viewed.includes('key [REDACTED]'), 'the live view shows the request masked');
  t.deepEqual(
    NEEDLES.filter((n) => viewed.includes(n)),
    [],
    `nor does the live view: ${texts.filter((x) => NEEDLES.some((n) => x.includes(n))).join('\n')}`,
  );
  await receiver.until((posts) => receivedSpans(posts).some((s) => s.name === 'tools/call echo'));
  const sent = Buffer.concat(receiver.posts.map((p) => p.body)).toString('latin1');
  t.deepEqual(
    NEEDLES.filter((n) => sent.includes(n)),
    [],
    'no span holds it',
  );
  const echo = receivedSpans(receiver.posts).find((s) => s.name === 'tools/call echo')!;
  t.deepEqual(JSON.parse(String(echo.attributes['gen_ai.tool.call.arguments'])), { text: 'key [REDACTED]', note: '[REDACTED]' });

  const cassette = readCassette(path);
  t.deepEqual(filesHolding(dir, NEEDLES), [], 'no file the proxy wrote holds it: cassette, journal, log');
  const call = cassette.sessions[0]!.messages.find((m) => (m.json as { method?: string } | undefined)?.method === 'tools/call')!;
  t.deepEqual((call.json as { params: { arguments: unknown } }).params.arguments, { text: 'key [REDACTED]', note: '[REDACTED]' });
  const stored = messageBytes(call).toString('utf8');
  t.true(
    stored.includes('"name":"echo","arguments":{"text":"key [REDACTED]","note":"[REDACTED]"}'),
    `the rest of the stored frame is as it was sent: ${stored}`,
  );
});
