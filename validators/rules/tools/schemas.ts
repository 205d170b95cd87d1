/** TOOLS rules on input schemas: an object schema, valid, in a supported dialect, parameterless tools. */
import { dialectOf, schemaProblem } from '../../json-schema.js';
import { isObject, type Rule, since } from '../../rule.js';
import { listedTools } from './support.js';

export const schemaRules: Rule[] = [
  {
    id: 'TOOLS-INPUTSCHEMA-OBJ',
    level: 'MUST',
    obs: '1',
    era: 'all',
    source: 'server/tools.mdx §Tool',
    title: '`inputSchema` is a JSON Schema object whose root has type "object"',
    on: ['result tools/list'],
    resultOnly: true,
    check(o, report) {
      listedTools(o).forEach((t, i) => {
        const s = t.inputSchema;
        if (!isObject(s))
          report(
            `/result/tools/${i}/inputSchema`,
            `inputSchema of ${String(t.name)} is ${s === undefined ? 'missing' : JSON.stringify(s)}, not a JSON Schema object`,
          );
        else if (s.type !== 'object')
          report(
            `/result/tools/${i}/inputSchema/type`,
            `inputSchema of ${String(t.name)} has root type ${JSON.stringify(s.type)}, not "object"`,
          );
      });
    },
  },
  {
    id: 'TOOLS-SCHEMA-VALID',
    level: 'MUST',
    obs: '1',
    era: 'all',
    source: 'basic/index.mdx §JSON Schema Usage',
    title: '`inputSchema` and `outputSchema` are valid in their dialect (2020-12 by default)',
    on: ['result tools/list'],
    resultOnly: true,
    check(o, report) {
      listedTools(o).forEach((t, i) => {
        for (const key of ['inputSchema', 'outputSchema'] as const) {
          const s = t[key];
          if (!isObject(s)) continue;
          const problem = schemaProblem(s);
          if (problem) report(`/result/tools/${i}/${key}`, `${key} of ${String(t.name)}: ${problem}`);
        }
      });
    },
  },
  {
    id: 'TOOLS-DIALECT-UNSUPPORTED',
    level: 'MUST',
    obs: '1',
    era: 'all',
    source: 'basic/index.mdx §Implementation Requirements',
    revisions: since('2025-11-25'),
    title: 'Tool schemas use a JSON Schema dialect clients support (2020-12 must be supported)',
    on: ['result tools/list'],
    resultOnly: true,
    check(o, report) {
      listedTools(o).forEach((t, i) => {
        for (const key of ['inputSchema', 'outputSchema'] as const) {
          const s = t[key];
          if (isObject(s) && dialectOf(s) === 'unsupported')
            report(
              `/result/tools/${i}/${key}/$schema`,
              `${key} of ${String(t.name)} names dialect ${JSON.stringify(s.$schema)}, which clients are not required to support; use 2020-12`,
            );
        }
      });
    },
  },
  {
    id: 'TOOLS-NOPARAM',
    level: 'REC',
    obs: '1',
    era: 'all',
    source: 'server/tools.mdx §Tool',
    severity: 'info',
    revisions: since('2025-11-25'),
    title: 'A tool without parameters uses {"type":"object","additionalProperties":false}',
    on: ['result tools/list'],
    resultOnly: true,
    check(o, report) {
      listedTools(o).forEach((t, i) => {
        const s = t.inputSchema;
        if (
          isObject(s) &&
          s.type === 'object' &&
          (!isObject(s.properties) || Object.keys(s.properties).length === 0) &&
          s.additionalProperties !== false &&
          !['oneOf', 'anyOf', 'allOf', '$ref', 'patternProperties', 'if'].some((k) => k in s)
        ) {
          report(
            `/result/tools/${i}/inputSchema`,
            `${String(t.name)} takes no parameters; {"type":"object","additionalProperties":false} says so explicitly`,
          );
        }
      });
    },
  },
];
