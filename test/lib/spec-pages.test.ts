import test from 'ava';
import { SPEC_BASE, SPEC_ROOT, specLink, specLinkFor } from '../../lib/spec-pages.js';

test("a rule's source links to the page of the traffic's revision when that revision has it, else to 2026-07-28", (t) => {
  t.is(specLink('server/tools.mdx §Error Handling', '2025-11-25'), `${SPEC_ROOT}2025-11-25/server/tools`);
  t.is(specLink('basic/index.mdx §Requests', '2024-11-05'), `${SPEC_ROOT}2024-11-05/basic`);
  t.is(specLink('basic/utilities/tasks.mdx', '2025-06-18'), `${SPEC_BASE}basic/utilities/tasks`, 'June 2025 has no tasks page');
  t.is(specLink('server/tools.mdx'), `${SPEC_BASE}server/tools`);
  t.is(specLink('server/tools.mdx', '2099-01-01'), `${SPEC_BASE}server/tools`);
});

test("a stored violation's link moves to the session's revision (the view), other links stay", (t) => {
  t.is(specLinkFor(`${SPEC_BASE}server/tools`, '2025-11-25'), `${SPEC_ROOT}2025-11-25/server/tools`);
  t.is(specLinkFor(`${SPEC_BASE}basic/utilities/tasks`, '2025-06-18'), `${SPEC_BASE}basic/utilities/tasks`);
  t.is(specLinkFor(`${SPEC_ROOT}2025-11-25/server/tools`, undefined), `${SPEC_ROOT}2025-11-25/server/tools`);
  t.is(specLinkFor('https://example.com/rule', '2025-11-25'), 'https://example.com/rule');
});
