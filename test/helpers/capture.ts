import { StreamableHTTPClientTransport, type Client } from '@modelcontextprotocol/client';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ExecutionContext } from 'ava';
import { emptyCassette, type Cassette } from '../../lib/cassette/cassette.js';
import { startHttpRecorder } from './http-recorder.js';
import { node, root } from './paths.js';
import { spawnTracked, waitForOutput } from './proc.js';
import { PipeTransport, v2Client } from './real-server.js';
import { readCassette, startRecorder, waitForDirFinishers, waitForFinishers } from './recording.js';
import { cassettesIn } from '../../lib/cassette/directory.js';

/** The production-capture tests' real server (test/servers/echo-secrets-server.ts). */
export const echoSecretsServer = join(root, 'dist', 'test', 'servers', 'echo-secrets-server.js');

/**
 * Credentials of every well-known shape, planted in the traffic. Each `needle` is a part of the
 * secret that no masked form keeps: a file that holds it holds the secret.
 */
export const PLANTED = {
  bearer: { text: 'Bearer b3arerT0ken.Planted-abcdefgh1234', needle: 'b3arerT0ken' },
  jwt: { text: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwbGFudGVkLXVzZXIifQ.c2lnbmF0dXJlUGxhbnRlZDEyMw', needle: 'eyJzdWIiOiJwbGFudGVkLXVzZXIifQ' },
  aws: { text: 'AKIAPLANTED0KEY12345', needle: 'PLANTED0KEY' },
  sk: { text: 'sk-proj-PlantedOpenAiKey0123456789', needle: 'PlantedOpenAiKey' },
  privateKey: {
    text: '-----BEGIN RSA PRIVATE KEY-----\nMIIEplantedKEYmaterialLINE1\nplantedKEYmaterialLINE2==\n-----END RSA PRIVATE KEY-----',
    needle: 'KEYmaterialLINE',
  },
} as const;

/** Every file under `dir`, with every planted needle (or extra string) it holds. */
export function filesHolding(dir: string, needles: readonly string[]): string[] {
  const hits: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else {
        const text = readFileSync(path, 'latin1');
        for (const n of needles) if (text.includes(n)) hits.push(`${name}: ${n}`);
      }
    }
  };
  walk(dir);
  return hits;
}

export function allFiles(dir: string): string[] {
  return readdirSync(dir).filter((f) => statSync(join(dir, f)).isFile());
}

/** What a test's client does; `stderr` is the recorder's stderr so far (stdio). */
export type Steps = (client: Client, stderr?: () => string) => Promise<void>;

/** `record -- echo-secrets-server` with the v2 client on the recorder's stdio; the cassette once
 * the recorder exited, and its stderr. */
export async function recordStdio(
  t: ExecutionContext,
  cassette: string,
  extra: string[],
  steps: Steps,
  into: '--cassette' | '--cassette-dir' = '--cassette',
  env?: Record<string, string>,
): Promise<{ cassette: Cassette; stderr: string; code: number | null }> {
  const recorder = startRecorder(t, cassette, [node, echoSecretsServer], {
    extra,
    into,
    ...(env ? { env: { ...process.env, ...env } } : {}),
  });
  let stderr = '';
  recorder.stderr!.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  const done = new Promise<number | null>((resolve) => recorder.on('close', (code) => resolve(code)));
  const client = v2Client();
  await client.connect(new PipeTransport(recorder));
  try {
    await steps(client, () => stderr);
  } finally {
    await client.close();
  }
  const code = await done;
  // The recorder exited with its server; its finisher writes the cassette (or the directory's
  // last one). A recording whose sessions were all left out (--sample) writes no cassette; a
  // directory's cassettes are read as one.
  if (into === '--cassette-dir') waitForDirFinishers(cassette);
  else waitForFinishers(cassette);
  if (into === '--cassette-dir') {
    const files = cassettesIn(cassette);
    return { cassette: { ...emptyCassette(), sessions: files.flatMap((f) => readCassette(f).sessions) }, stderr, code };
  }
  return { cassette: existsSync(cassette) ? readCassette(cassette) : emptyCassette(), stderr, code };
}

/** The echo-secrets server over Streamable HTTP; its URL. */
export async function startEchoHttp(t: ExecutionContext): Promise<string> {
  const server = spawnTracked(t, node, [echoSecretsServer, '--http']);
  server.stderr!.on('data', () => {});
  return (await waitForOutput(server.stdout!, (s) => s.includes('\n'))).split('\n')[0]!.trim();
}

/** `record --upstream` in front of it, a v2 client through the proxy, then SIGINT. */
export async function recordHttp(
  t: ExecutionContext,
  upstream: string,
  cassette: string,
  extra: string[],
  steps: Steps,
): Promise<{ cassette: Cassette; stderr: string; code: number | null }> {
  const recorder = await startHttpRecorder(t, upstream, cassette, extra);
  const client = v2Client();
  await client.connect(new StreamableHTTPClientTransport(new URL(recorder.url)));
  try {
    await steps(client, () => '');
  } finally {
    await client.close();
  }
  const { cassette: c, result } = await recorder.stop();
  return { cassette: c, stderr: result.stderr, code: result.code };
}

export interface CredentialHeaders {
  authorization: string | null;
  'x-api-key': string | null;
}

/** The echo-secrets server over Streamable HTTP with `--log-headers`: its URL, and the credential
 * headers of every request it got so far. */
export async function startEchoHttpSeeingHeaders(t: ExecutionContext): Promise<{ url: string; seen: () => CredentialHeaders[] }> {
  const server = spawnTracked(t, node, [echoSecretsServer, '--http', '--log-headers']);
  let log = '';
  server.stderr!.setEncoding('utf8').on('data', (s: string) => (log += s));
  const url = (await waitForOutput(server.stdout!, (s) => s.includes('\n'))).split('\n')[0]!.trim();
  const seen = () =>
    log
      .split('\n')
      .filter((l) => l.startsWith('{"headers"'))
      .map((l) => (JSON.parse(l) as { headers: CredentialHeaders }).headers);
  return { url, seen };
}
