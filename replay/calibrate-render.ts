/** The console text of `replay --calibrate` (calibrate.ts learns and stores; this says what). */
import { relative } from 'node:path';
import { describeTemplate, parseTemplate } from './templates.js';
import type { ReplayResult } from './types.js';

/** The console text of a calibration: what was learned, per interaction, and what was not stored
 * because it is not volatility. */
export function renderCalibration(result: ReplayResult): string {
  const c = result.calibration!;
  const file = relative(process.cwd(), result.cassette) || result.cassette;
  const target = result.target.url ?? result.target.command?.join(' ') ?? '';
  const lines = [`calibrate ${file} against ${target}: ${c.runs} run${c.runs === 1 ? '' : 's'}`];
  if (result.error) lines.push(`ERROR ${result.error.code}: ${result.error.message}`);
  let learned = 0;
  for (const s of c.sessions) {
    const session = result.sessions.find((r) => r.index === s.index);
    lines.push(`session ${s.index}${session?.label ? ` (${session.label})` : ''}:`);
    for (const i of s.interactions) {
      lines.push(`  #${i.seq} ${i.method}${i.name ? ` ${i.name}` : ''}:`);
      for (const [at, source] of Object.entries(i.templates ?? {})) {
        learned++;
        const t = parseTemplate(source);
        lines.push(`    ${at || '/'} = "${t ? describeTemplate(t) : source}"`);
      }
      for (const at of i.paths) {
        learned++;
        lines.push(`    ${at} may come and go`);
      }
    }
  }
  if (c.notVolatile.length) {
    lines.push(
      '',
      'NOT VOLATILITY (not stored): these differences are real changes or a changed state, not values that vary between runs of one build; is the target the build that recorded the cassette, started from the same state (--reset <command>)?',
    );
    for (const n of c.notVolatile)
      lines.push(`  session ${n.session} #${n.seq} ${n.method}${n.name ? ` ${n.name}` : ''}: ${n.kind}: ${n.message}`);
  }
  for (const x of c.conflicts) lines.push(`session ${x.id} not calibrated: ${x.reason}; run the calibration again`);
  lines.push('');
  const interactions = c.sessions.reduce((n, s) => n + s.interactions.length, 0);
  if (c.written)
    lines.push(
      `calibrated ${file}: ${learned} volatile value${learned === 1 ? '' : 's'} in ${interactions} interaction${interactions === 1 ? '' : 's'}; later replays skip only their varying tokens, for those interactions only`,
    );
  else lines.push(`${file} not calibrated: ${c.note ?? 'nothing could be written'}`);
  return lines.join('\n') + '\n';
}
