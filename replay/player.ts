/**
 * Plays the client side of one recorded session against a live connection and compares every
 * answer. Requests are sent in recorded order; before each client message the player waits for
 * the live answers to every request whose recorded answer came before that message (what the
 * client had seen when it sent it), so dependent steps (initialize → initialized, an MRTR retry,
 * the next page) run in the same causal order as recorded while independent requests may overlap
 * as they did. JSON-RPC ids are our own on the wire and never compared.
 *
 * Over Streamable HTTP the client's own GET (the listen stream of a 2025 sessionful server) and
 * DELETE (the session end) are steps too, placed among the messages by the time the client sent
 * them: the GET is opened with the live session id and closed where the client closed it, what
 * arrives on it is compared per stream, and the DELETE's status is judged (verdicts/http-status.ts).
 *
 * The parts: play-recording.ts reads the recording (pairs, exchanges, the plan), play-state.ts
 * holds the live side, play-live.ts handles what the server sends, play-steps.ts sends the
 * client's steps, play-waits.ts paces them, play-outcome.ts collects the results.
 */
import type { RecordedSession } from '../lib/cassette/cassette.js';
import type { LiveConnection } from './live/connection.js';
import type { PlayOptions, PlayOutcome } from './play-model.js';
import { listenToLive } from './play-live.js';
import { sessionOutcome } from './play-outcome.js';
import { planSteps, readRecording } from './play-recording.js';
import { newPlay, type SessionPlay } from './play-state.js';
import { fetchRemainingPages, playSteps } from './play-steps.js';
import { catchUp, waitForAnswers, waitUntil } from './play-waits.js';

export async function playSession(session: RecordedSession, conn: LiveConnection, options: PlayOptions): Promise<PlayOutcome> {
  const rec = readRecording(session, conn, options);
  const p = newPlay(rec, conn, options);
  listenToLive(p);
  await playSteps(p, planSteps(rec));
  if (p.refused) markNotSent(p);
  await finishSession(p);
  return sessionOutcome(p);
}

/** After a refused revision, what was not sent says why. */
function markNotSent(p: SessionPlay): void {
  const refused = p.refused!;
  const note = `not replayed: the server refused the recorded protocol revision at #${refused.recorded.seq} ${refused.method}`;
  for (const it of p.rec.interactions) if (it.liveId === undefined && !it.skipped) it.notSent = note;
  for (const x of p.rec.steps) if (x.sentAt === undefined && !x.skipped) x.notSent = note;
}

/** The last answers, the rest of the listings, what the server still sends on its own, and a
 * moment for late notifications. */
async function finishSession(p: SessionPlay): Promise<void> {
  if (!p.failure) await waitForAnswers(p, () => true, true);
  if (!p.failure && !p.refused) await fetchRemainingPages(p);
  // A server also asks on its own schedule (roots/list some time after initialize): before a
  // request the recording got is called missing, it gets the same grace as a listen stream.
  const unasked = () => [...p.rec.answers.values()].some((list) => list.some((a) => !a.served && !p.rec.onStream(a.request)));
  if (!p.failure && !p.refused && unasked()) await waitUntil(p, () => !unasked(), p.grace);
  if (!p.failure && !p.refused) await catchUp(p, 'end');
  if (!p.failure) await new Promise((r) => setTimeout(r, p.options.settleMs ?? 50));
}
