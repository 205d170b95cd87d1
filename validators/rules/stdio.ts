import type { Rule } from '../rule.js';
import { framingFragment } from './wire-stdio.js';

const isMcp = (kind: string) => kind === 'request' || kind === 'notification' || kind === 'response' || kind === 'error';

/** §18 of RULES.md: the stdio transport. */
export const stdioRules: Rule[] = [
  {
    id: 'STDIO-STDOUT-CLEAN', level: 'MUST NOT', obs: '1', era: 'all', transport: 'stdio', source: 'basic/transports/stdio.mdx',
    title: 'Every stdout line is an MCP message: no banners or log lines',
    on: ['other', 'nonjson'],
    check(o, report, state) {
      // A line of a message printed over several lines is STDIO-FRAMING's.
      if (o.msg.channel === 'stdout' && !isMcp(o.msg.kind) && o.msg.kind !== 'batch' && !framingFragment(o, state)) {
        const text = o.msg.raw ?? (o.msg.rawBase64 !== undefined ? '<not UTF-8>' : JSON.stringify(o.msg.json));
        report('', `non-MCP output on stdout: ${JSON.stringify(text.slice(0, 80))}; log to stderr instead`);
      }
    },
  },
  {
    id: 'STDIO-STDIN-CLEAN', level: 'MUST NOT', obs: '1', era: 'all', transport: 'stdio', source: 'basic/transports/stdio.mdx',
    title: 'Every stdin line is an MCP message',
    on: ['other', 'nonjson'],
    check(o, report, state) {
      if (o.msg.channel === 'stdin' && !isMcp(o.msg.kind) && o.msg.kind !== 'batch' && !framingFragment(o, state)) {
        report('', `non-MCP input on stdin: ${JSON.stringify((o.msg.raw ?? '').slice(0, 80))}`);
      }
    },
  },
  {
    id: 'STDIO-NO-SERVER-REQ', level: 'MUST NOT', obs: '1', era: 'modern', transport: 'stdio', source: 'basic/transports/stdio.mdx §Receiving Messages',
    title: 'No JSON-RPC requests on a 2026-07-28 server\'s stdout',
    on: ['request'],
    check(o, report) {
      if (o.msg.channel === 'stdout' && o.msg.kind === 'request') {
        report('', `server→client request ${String((o.json ?? {}).method)}; on 2026-07-28 it belongs in an InputRequiredResult's inputRequests`);
      }
    },
  },
  {
    id: 'STDIO-NO-CLIENT-RESP', level: 'MUST NOT', obs: '1', era: 'modern', transport: 'stdio', source: 'basic/transports/stdio.mdx §Sending Messages',
    title: 'No JSON-RPC responses on a 2026-07-28 client\'s stdin',
    on: ['response'],
    check(o, report) {
      if (o.msg.channel === 'stdin' && (o.msg.kind === 'response' || o.msg.kind === 'error')) report('', 'client→server response on a 2026-07-28 connection');
    },
  },
];
