/** Verdicts on tools/call answers: a call that fails now, or failed and now succeeds, and the error texts in messages. */
import { deepEqual, isObject } from '../diff.js';
import type { Difference } from '../types.js';
import type { Json } from './index.js';

const isToolError = (result: unknown) => isObject(result) && result.isError === true;

/**
 * A `tools/call` where either side failed. A tool can fail two ways: with a JSON-RPC error (what
 * the v2 SDK answers for an unknown tool) or with a result whose `isError` is true (what the v1 SDK
 * and tmcp answer for the same). Both tell the caller and the model that the call failed, so
 * moving between them is a warning; failing where the recording succeeded breaks; succeeding
 * where it failed is a fix (a warning, so the cassette gets updated), never a content change.
 * `undefined` when both succeeded.
 */
export function toolCallFailure(r: Json, l: Json): Difference[] | undefined {
  const rErr = isObject(r.error) ? r.error : undefined;
  const lErr = isObject(l.error) ? l.error : undefined;
  const rTool = !rErr && isToolError(r.result);
  const lTool = !lErr && isToolError(l.result);
  const rFailed = Boolean(rErr) || rTool;
  const lFailed = Boolean(lErr) || lTool;
  if (!rFailed && !lFailed) return undefined;
  if (rErr && lErr) return undefined; // two JSON-RPC errors: judged as every other method's
  if (rFailed && lFailed) return stillFails(r, l, rErr, lErr, rTool && lTool);
  if (rFailed) {
    return [
      rErr
        ? {
            verdict: 'warning',
            kind: 'error-became-success',
            path: '/result',
            message: `the tool call used to fail (${String(rErr.code)} ${String(rErr.message)}) and now succeeds`,
            recorded: rErr,
            live: l.result,
          }
        : {
            verdict: 'warning',
            kind: 'tool-call-error-fixed',
            path: '/result/isError',
            message: `the tool call used to fail (isError${toolErrorText(r.result) ? `: "${toolErrorText(r.result)}"` : ''}) and now succeeds`,
            recorded: r.result,
            live: l.result,
          },
    ];
  }
  return [
    lErr
      ? {
          verdict: 'breaking',
          kind: 'success-became-error',
          path: '/error',
          message: `the tool call now fails: ${String(lErr.code)} ${String(lErr.message)}`,
          recorded: r.result,
          live: lErr,
        }
      : {
          verdict: 'breaking',
          kind: 'tool-call-is-error',
          path: '/result/isError',
          message: `the tool call now fails with isError: true${toolErrorText(l.result) ? ` ("${toolErrorText(l.result)}")` : ''}`,
          recorded: r.result,
          live: l.result,
        },
  ];
}

/** Both calls failed: with another message, or in the other form (a JSON-RPC error or isError). */
function stillFails(r: Json, l: Json, rErr: Json | undefined, lErr: Json | undefined, bothIsError: boolean): Difference[] {
  const described = (err: Json | undefined, result: unknown) =>
    err
      ? `a JSON-RPC error (${String(err.code)} ${String(err.message)})`
      : `an isError result${toolErrorText(result) ? ` ("${toolErrorText(result)}")` : ''}`;
  if (bothIsError) {
    const rText = normalisedContent(r.result);
    const lText = normalisedContent(l.result);
    return deepEqual(rText, lText)
      ? []
      : [
          {
            verdict: 'warning',
            kind: 'tool-error-message-changed',
            path: '/result/content',
            message: 'the tool call still fails (isError), with another message',
            recorded: rText,
            live: lText,
          },
        ];
  }
  return [
    {
      verdict: 'warning',
      kind: 'tool-error-form-changed',
      path: lErr ? '/error' : '/result/isError',
      message: `the tool call still fails, now with ${described(lErr, l.result)} instead of ${described(rErr, r.result)} (clients and models see a failure either way)`,
      recorded: rErr ?? r.result,
      live: lErr ?? l.result,
    },
  ];
}

/** The text of a failed call's first text content item, shortened, for messages. */
function toolErrorText(result: unknown): string | undefined {
  const content = isObject(result) && Array.isArray(result.content) ? result.content : [];
  const text = content.find((c): c is Json => isObject(c) && typeof c.text === 'string')?.text as string | undefined;
  if (text === undefined) return undefined;
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}

function normalisedContent(result: unknown): unknown {
  return isObject(result) ? result.content : undefined;
}

export function omit(o: Json, key: string): Json {
  const { [key]: _drop, ...rest } = o;
  return rest;
}
