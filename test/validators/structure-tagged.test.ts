import test from 'ava';
import { tagged, type Check, type Problem } from '../../validators/structure/checks.js';

const ok: Check = () => {};

test('a tagged union finds only its own branches: a tag named like an Object.prototype member is no kind', (t) => {
  const check = tagged('method', { 'roots/list': ok });
  for (const method of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'nope']) {
    const out: Problem[] = [];
    check({ method }, ['x'], out);
    t.is(out.length, 1, method);
    t.regex(out[0]!.message, /none of the kinds allowed here/);
  }
  const out: Problem[] = [];
  check({ method: 'roots/list' }, [], out);
  t.deepEqual(out, []);
});
