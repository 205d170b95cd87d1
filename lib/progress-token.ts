/**
 * The progress token a request carries (`params._meta.progressToken`), read in one place: replay
 * pairs progress notifications with their request by it, the validators follow progress per
 * request, and telemetry links a progress span to its request's.
 */
import { isObject } from './plain-object.js';

/** `params._meta.progressToken` of a message, whatever its type; undefined when there is none. */
export function progressTokenOf(message: unknown): unknown {
  if (!isObject(message)) return undefined;
  const params = message.params;
  const meta = isObject(params) ? params._meta : undefined;
  return isObject(meta) ? meta.progressToken : undefined;
}
