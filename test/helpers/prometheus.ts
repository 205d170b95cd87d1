import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExecutionContext } from 'ava';
import { spawnTracked } from './proc.js';
import { logged } from './real-server.js';
import { tempDir } from './tmp.js';

/** The real Prometheus server (Debian's `prometheus` package; .ci/run installs it), if here. */
export const prometheusBinary: string | undefined = (() => {
  try {
    return execFileSync('sh', ['-c', 'command -v prometheus'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
})();

export const PROMETHEUS_HINT = 'prometheus is not installed: `apt-get install -y prometheus` (as .ci/run does) to run the scrape test';

export interface RunningPrometheus {
  /** Runs a PromQL instant query; the result vector. */
  query(promql: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]>;
}

/** Prometheus on 127.0.0.1 with a temporary config and data folder, scraping `target` (host:port)
 * every second; stopped (SIGKILL) and its folder removed when the test ends. */
export async function startPrometheus(t: ExecutionContext, target: string): Promise<RunningPrometheus> {
  const dir = tempDir(t, 'prometheus-');
  const config = join(dir, 'prometheus.yml');
  writeFileSync(
    config,
    [
      'global:',
      '  scrape_interval: 1s',
      '  scrape_timeout: 900ms',
      'scrape_configs:',
      '  - job_name: mcp-cassette',
      '    static_configs:',
      `      - targets: ['${target}']`,
      '',
    ].join('\n'),
  );
  // Port 0: the kernel picks a free one, and Prometheus logs it ("Listening on", at info).
  const child = spawnTracked(t, prometheusBinary!, [
    `--config.file=${config}`,
    `--storage.tsdb.path=${join(dir, 'data')}`,
    '--web.listen-address=127.0.0.1:0',
    '--log.level=info',
  ]);
  let log = '';
  const listening = logged(child.stderr!, /msg="Listening on" address=127\.0\.0\.1:(\d+)/);
  child.stderr!.setEncoding('utf8').on('data', (s: string) => (log = (log + s).slice(-4000)));
  child.stdout!.on('data', () => {});
  const port = Number((await listening)[1]);
  const base = `http://127.0.0.1:${port}`;
  await until(
    async () => (await fetch(`${base}/-/ready`).catch(() => undefined))?.ok === true,
    () => `prometheus not ready: ${log}`,
  );
  return {
    async query(promql) {
      const res = await fetch(`${base}/api/v1/query?query=${encodeURIComponent(promql)}`);
      const body = (await res.json()) as {
        status: string;
        data: { result: { metric: Record<string, string>; value: [number, string] }[] };
      };
      if (body.status !== 'success') throw new Error(`query ${promql} failed: ${JSON.stringify(body)}`);
      return body.data.result;
    },
  };
}

/** Polls `check` until it holds (a generous deadline: scrapes come every second). */
export async function until(check: () => Promise<boolean>, why: () => string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(why());
    await new Promise((r) => setTimeout(r, 200));
  }
}
