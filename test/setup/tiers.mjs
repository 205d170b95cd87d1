// The e2e tier: tests whose subject is something outside this project, run by `npm run
// test:all` (and CI), not by `npm test`. Real third-party peers at their published versions,
// the packed tarball installed as a user would, the version corpus, fuzzing, a real browser and
// a real Prometheus. Every other test file is in the unit and integration tiers (`npm test`):
// our own code, against the official SDK's clients and servers and our test servers.
export const E2E = [
  // the README's install commands, run on the packed tarball (real installs from the registry)
  'test/lib/install.test.ts',
  // published server versions, fuzzing
  'test/corpus/**/*.test.ts',
  // third-party servers at two published versions each (@playwright/mcp with Chromium,
  // desktop-commander), recorded and replayed (also matched by the line above)
  'test/corpus/third-party.test.ts',
  'test/fuzz/**/*.test.ts',
  // a real browser (Chromium)
  'test/lib/view/view-browser.test.ts',
  'test/lib/view/view-first-paint.test.ts',
  'test/lib/view/view-large-message.test.ts',
  'test/lib/view/view-live.test.ts',
  'test/lib/view/view-replay.test.ts',
  'test/lib/view/view-hostile.test.ts',
  'test/lib/view/view-live-guard.test.ts',
  'test/lib/export/har-chromium.test.ts',
  // a real Prometheus
  'test/recorder/capture-metrics.test.ts',
  // real third-party peers: reference servers, tmcp, @ai-sdk/mcp, the Inspector, the official
  // conformance suite, mcp-proxy, Azure MCP, git-mcp-server, MCP Apps servers
  'test/check/real-servers.test.ts',
  'test/recorder/http-conformance.test.ts',
  'test/recorder/http-tmcp.test.ts',
  // a host's start-up budget with real clients (eight at once; @ai-sdk/mcp gives one second)
  'test/recorder/many-at-once.test.ts',
  'test/recorder/inspector.test.ts',
  'test/recorder/peers.test.ts',
  'test/recorder/otel-live.test.ts',
  'test/replay/serve/aisdk.test.ts',
  'test/replay/real-clock.test.ts',
  'test/validators/probes/real-peers.test.ts',
  'test/validators/real-*.test.ts',
  // fuzzing server-filesystem, server-memory and git-mcp-server (docs/fuzz.md §Results on real servers)
  'test/validators/fuzz/fuzz-real-servers.test.ts',
];

// The unit and integration files that take longest here (CPU seconds, measured one file at a
// time): started first, so that two files at a time end together instead of one long file
// running alone at the end.
export const LONGEST_FIRST = [
  'test/replay/calibrate.test.ts',
  'test/check/baseline.test.ts',
  'test/replay/verdict-kinds.test.ts',
  'test/check/base-vs-pr.test.ts',
  'test/recorder/deep-json.test.ts',
  'test/recorder/stdio-faults.test.ts',
  'test/lib/cli-failures.test.ts',
  'test/refactor/outputs.test.ts',
  'test/validators/probes/probe-server.test.ts',
  'test/recorder/lifecycle.test.ts',
];
