/**
 * `serve --timing`: how the recorded gaps between frames are played.
 */

/** `fast`: no delays. `recorded`: the recorded gaps between frames. `{ factor }`: the recorded
 * gaps divided by `factor` (`x2` plays twice as fast, `x0.5` half as fast). */
export type Timing = 'fast' | 'recorded' | { factor: number };

export function parseTiming(text: string): Timing | undefined {
  if (text === 'fast' || text === 'recorded') return text;
  const m = /^x(\d+(?:\.\d+)?)$/.exec(text);
  if (m && Number(m[1]) > 0) return { factor: Number(m[1]) };
  return undefined;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** The wait between two recorded times, or undefined when there is none to wait. */
export function delay(timing: Timing, from: number, to: number): Promise<void> | undefined {
  if (timing === 'fast') return undefined;
  const gap = (to - from) / (timing === 'recorded' ? 1 : timing.factor);
  return gap >= 1 ? sleep(gap) : undefined;
}
