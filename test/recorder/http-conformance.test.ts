import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createExampleServer } from '../../recorder/demo/example-tools.js';
import { node22, NODE22_HINT, node22Peer, node22Ready } from '../helpers/paths.js';
import { startTappedUpstream } from '../helpers/http-taps.js';
import { startHttpRecorder } from '../helpers/http-recorder.js';
import { tempDir } from '../helpers/tmp.js';
import { testWhen } from '../helpers/skip.js';

const node22Test = testWhen(node22Ready, 'official conformance suite tests', NODE22_HINT);

const run = promisify(execFile);
const conformance = node22Peer('node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');

interface Check {
  scenario: string;
  id: string;
  status: string;
  errorMessage?: string;
}

/** Runs the official conformance suite (Node 22) against a URL; returns every check and the exit code. */
async function runConformance(url: string, requirements: string, out: string): Promise<{ code: number; checks: Check[] }> {
  let code = 0;
  try {
    await run(node22!, [conformance, 'server', '--url', url, '--requirements', requirements, '-o', out], {
      maxBuffer: 64 * 1024 * 1024,
      timeout: 120_000,
    });
  } catch (err) {
    code = (err as { code?: number }).code ?? -1;
  }
  const checks: Check[] = [];
  for (const dir of readdirSync(out).sort()) {
    const scenario = dir.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, '');
    const file = join(out, dir, 'checks.json');
    if (!existsSync(file)) continue;
    for (const c of JSON.parse(readFileSync(file, 'utf8')) as Check[]) {
      checks.push({ scenario, id: c.id, status: c.status, ...(c.errorMessage ? { errorMessage: normalise(c.errorMessage) } : {}) });
    }
  }
  checks.sort((a, b) => `${a.scenario}/${a.id}`.localeCompare(`${b.scenario}/${b.id}`));
  return { code, checks };
}

/** Ports and clock values differ between two runs; nothing else may. */
function normalise(text: string): string {
  return text
    .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:PORT')
    .replace(/localhost:\d+/g, 'localhost:PORT')
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, 'TIME');
}

for (const requirements of ['2026-07-28', '2025-11-25']) {
  node22Test(`official conformance suite (${requirements}): identical per-check results directly and through the proxy`, async (t) => {
    const dir = tempDir(t);
    // The example server with its own DNS-rebinding protection, so that scenario passes directly too.
    const handler = toNodeHandler(createMcpHandler(() => createExampleServer(), { legacy: 'stateless' }));
    const upstream = await startTappedUpstream(t, (req, res) => {
      const host = req.headers.host ?? '';
      const origin = req.headers.origin;
      if (
        !/^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(host) ||
        (origin && !/^https?:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(origin))
      ) {
        res
          .writeHead(403, { 'content-type': 'application/json' })
          .end('{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Forbidden"}}');
        return;
      }
      void handler(req, res);
    });
    const direct = await runConformance(upstream.url, requirements, join(dir, 'direct'));
    const proxy = await startHttpRecorder(t, upstream.url, join(dir, 'conformance.cassette.json'));
    const proxied = await runConformance(proxy.url, requirements, join(dir, 'proxied'));
    const { cassette } = await proxy.stop();

    t.true(direct.checks.length > 50, `the suite ran (${direct.checks.length} checks)`);
    t.deepEqual(proxied.checks, direct.checks, 'same checks pass, same checks fail, same messages');
    t.is(proxied.code, direct.code);
    const rebinding = proxied.checks.filter((c) => c.scenario === 'dns-rebinding-protection');
    t.deepEqual(
      rebinding.map((c) => [c.id, c.status]),
      [
        ['localhost-host-rebinding-rejected', 'SUCCESS'],
        ['localhost-host-valid-accepted', 'SUCCESS'],
      ],
      "the proxy's own listener passes dns-rebinding-protection",
    );
    t.true(cassette.sessions.length > 20, 'the conformance traffic was recorded');
  });
}
