#!/usr/bin/env node
/**
 * A client script for `check --client` (base-vs-PR mode): drives whatever server check hands it
 * with the official v2 SDK client, through the same scenario the replay tests record (both eras).
 * It connects to $MCP_CASSETTE_SERVER_ARGV (stdio, a JSON array of words) or $MCP_CASSETTE_URL.
 */
import { runTargetScenario } from '../replay/target-client.js';

const argv = process.env.MCP_CASSETTE_SERVER_ARGV;
const url = process.env.MCP_CASSETTE_URL;
if (!argv && !url) {
  process.stderr.write('check-client: neither MCP_CASSETTE_SERVER_ARGV nor MCP_CASSETTE_URL is set\n');
  process.exit(2);
}
const words = argv ? (JSON.parse(argv) as string[]) : [];
const target = url ? { url } : { command: words[0]!, args: words.slice(1) };
for (const mode of ['legacy', 'pin'] as const) await runTargetScenario(target, mode);
process.stderr.write('check-client: done\n');
