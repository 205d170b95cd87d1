/** RULES.md §16: sampling (SAMP; deprecated in 2026-07-28). */
import { isObject, type Rule, since } from '../rule.js';
import { ASK_LEARNS, asked, asking, asks, recallAsks } from './support/memories.js';
import { clientCapabilities, type O, type S } from './support/messages.js';

/** The client capabilities a server ask must respect: the triggering request's (2026-07-28) or initialize's (2025). */
function capabilitiesFor(o: O, state: S): Record<string, unknown> | undefined {
  const t = recallAsks(o, state);
  if (o.request) return clientCapabilities(o.request.json);
  return o.era === 'legacy' ? t.initCaps : undefined;
}

export const samplingRules: Rule[] = [
  {
    id: 'SAMP-TOOLRESULT-PURE',
    level: 'MUST',
    obs: '1',
    era: 'all',
    source: 'client/sampling.mdx §Tool Result Messages',
    revisions: since('2025-11-25'),
    title: 'A user message with tool_result holds only tool_result blocks',
    on: asking('sampling/createMessage'),
    check(o, report) {
      for (const [p, at] of asks(o, 'sampling/createMessage')) {
        (Array.isArray(p.messages) ? p.messages : []).forEach((m, i) => {
          // A single block cannot mix; in an array each block beside the tool_results is one fault.
          if (!isObject(m) || m.role !== 'user' || !Array.isArray(m.content)) return;
          const blocks: unknown[] = m.content;
          if (!blocks.some((b) => isObject(b) && b.type === 'tool_result')) return;
          blocks.forEach((b, j) => {
            if (isObject(b) && b.type !== 'tool_result')
              report(`${at}/messages/${i}/content/${j}`, `a user message holding tool_result also holds a ${String(b.type)} block`);
          });
        });
      }
    },
  },
  {
    id: 'SAMP-TOOLUSE-BALANCE',
    level: 'MUST',
    obs: '1',
    era: 'all',
    source: 'client/sampling.mdx §Tool Use and Result Balance',
    revisions: since('2025-11-25'),
    title: 'Every tool_use is answered by tool_result in the next message',
    on: asking('sampling/createMessage'),
    check(o, report) {
      for (const [p, at] of asks(o, 'sampling/createMessage')) {
        const msgs = (Array.isArray(p.messages) ? p.messages : []).filter(isObject);
        msgs.forEach((m, i) => {
          const blocks = (Array.isArray(m.content) ? m.content : [m.content]).filter(isObject);
          const uses = blocks.filter((b) => b.type === 'tool_use').map((b) => String(b.id));
          if (m.role !== 'assistant' || uses.length === 0) return;
          const next = msgs[i + 1];
          const answered =
            next && next.role === 'user'
              ? (Array.isArray(next.content) ? next.content : [next.content])
                  .filter(isObject)
                  .filter((b) => b.type === 'tool_result')
                  .map((b) => String(b.toolUseId))
              : [];
          const missing = uses.filter((u) => !answered.includes(u));
          if (missing.length && i + 1 < msgs.length)
            report(`${at}/messages/${i + 1}`, `tool_use ${missing.join(', ')} not answered by the next message`);
        });
      }
    },
  },
  {
    id: 'SAMP-TOOLS-CAP',
    level: 'MUST NOT',
    obs: 'N',
    era: 'all',
    source: 'client/sampling.mdx §Tools in Sampling',
    revisions: since('2025-11-25'),
    title: 'tools and toolChoice in sampling only when the client declared sampling.tools',
    on: [...ASK_LEARNS, 'server-request sampling/createMessage', 'server-input_required'],
    check(o, report, state) {
      const caps = capabilitiesFor(o, state);
      for (const [p, path] of asked(o, 'sampling/createMessage')) {
        const field = 'tools' in p ? 'tools' : 'toolChoice' in p ? 'toolChoice' : undefined;
        // No sampling capability at all is MRTR-DECLARED-ONLY's (or the 2025 capability rules').
        if (!field || !caps || !isObject(caps.sampling) || 'tools' in caps.sampling) continue;
        report(`${path}/${field}`, `a sampling request with ${field}, but the client did not declare sampling.tools`);
      }
    },
  },
  {
    id: 'SAMP-CONTEXT',
    level: 'SHOULD NOT',
    obs: 'N',
    era: 'all',
    source: 'client/sampling.mdx §Capabilities',
    revisions: since('2025-11-25'),
    title: 'includeContext thisServer/allServers only when the client declared sampling.context',
    on: [...ASK_LEARNS, 'server-request sampling/createMessage', 'server-input_required'],
    check(o, report, state) {
      const caps = capabilitiesFor(o, state);
      // sampling.context and the deprecation came with 2025-11-25; before it the values were plain.
      if (!caps || !isObject(caps.sampling) || 'context' in caps.sampling || !o.revision || o.revision < '2025-11-25') return;
      for (const [p, path] of asked(o, 'sampling/createMessage')) {
        if (p.includeContext === 'thisServer' || p.includeContext === 'allServers')
          report(
            `${path}/includeContext`,
            `includeContext ${String(p.includeContext)}, but the client did not declare sampling.context; omit it or use "none"`,
          );
      }
    },
  },
];
