// The import rule of lib/ (issue 40; docs/architecture.md draws it): files sit on floors, and a file imports only
// from its own floor or the floors below it; no import cycle, type-only imports included. `npm run lint` runs it
// (`npm run check:imports`), so CI fails on a new cycle or upward import.
//
// Floors, lowest first. A file on no floor is refused too, so a new folder must be given one here.
const FLOORS = [
  ['base', '^lib/(errors|own-value|node-support|package-root|version|concurrency-gate|worker-pool|secret-file|answer-cache|fixtures)\\.ts$|^lib/net/'],
  ['store', '^lib/store/'],
  ['git', '^lib/(git|highlight)/'],
  // GitHub's representation: domain rows and git objects turned into GitHub's JSON. Below events and services, which
  // fix a payload inside the write that records its event (see docs/architecture.md for why not above them).
  ['representation', '^lib/github/'],
  ['events', '^lib/events/'],
  ['services', '^lib/services/'],
  ['webhooks', '^lib/webhooks/'],
  ['wiring', '^lib/(options|context)\\.ts$'],
  // The doors. They may use each other's helpers (the API its HTTP plumbing, pages the LFS pointer reader); cycles
  // between them are refused like any other.
  ['doors', '^lib/(http|github-api|lfs|ssh|harness|admin)/'],
  ['host', '^lib/host\\.ts$'],
  ['entries', '^lib/(index\\.ts$|cli/)'],
];

const upward = FLOORS.slice(0, -1).map(([name, path], index) => ({
  name: `no-upward-from-${name}`,
  comment: `${name} imports only from its own floor or below (.dependency-cruiser.cjs: FLOORS)`,
  severity: 'error',
  from: { path },
  to: { path: FLOORS.slice(index + 1).map(([, higher]) => `(?:${higher})`).join('|') },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      comment: 'no import cycle, type-only imports included',
      severity: 'error',
      from: { path: '^lib/' },
      to: { circular: true },
    },
    {
      name: 'on-a-floor',
      comment: 'every file of lib/ is on a floor (.dependency-cruiser.cjs: FLOORS)',
      severity: 'error',
      from: { path: '^lib/', pathNot: FLOORS.map(([, path]) => `(?:${path})`).join('|') },
      to: {},
    },
    ...upward,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
