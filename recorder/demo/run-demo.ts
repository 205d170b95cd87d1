#!/usr/bin/env node
/**
 * `npm start`: records a real session between the official v2 SDK client and the example server
 * through `mcp-cassette record`, then prints where the cassette is and what it holds.
 */
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadCassette } from '../../lib/cassette/store.js';
import { cliPath, packageRoot } from '../../lib/paths.js';
import { formatSummary, summarise } from '../show-command.js';
import { runExampleScenario, type NegotiationMode } from './example-client.js';

const cassette = resolve(process.argv[2] ?? 'mcp-cassette-demo.cassette.json');
const modes: NegotiationMode[] = ['auto', 'legacy'];
const server = resolve(packageRoot, 'dist', 'recorder', 'demo', 'example-server.js');

rmSync(cassette, { force: true });
for (const mode of modes) {
  const result = await runExampleScenario(
    {
      command: process.execPath,
      args: [
        cliPath,
        'record',
        '--log-level',
        'warn',
        '--cassette',
        cassette,
        '--label',
        `example ${mode}`,
        '--',
        process.execPath,
        server,
        'stdio',
      ],
    },
    mode,
  );
  process.stdout.write(
    `client (${mode} negotiation) ran 6 steps on protocol ${result.protocolVersion ?? 'unknown'} (${result.era ?? '?'} era) through the proxy\n`,
  );
}
process.stdout.write('\n' + formatSummary(cassette, summarise(loadCassette(cassette))));
process.stdout.write(`\nSee every message: node ${cliPath} show ${cassette} --messages\n`);
