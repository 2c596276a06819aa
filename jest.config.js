/**
 * The engine tests run twice: against the current n8n 2.x engine (n8n-core 2.41) and the last n8n 1.x line
 * (n8n-core 1.122.48 with n8n-workflow 1.120.31, as n8n 1.123 ships them), installed under the alias n8n-core-v1.
 * The 1.x project maps every import of n8n-core, n8n-workflow and @n8n/di, the node's own included, to that line.
 */
const v1 = '<rootDir>/node_modules/n8n-core-v1';

const shared = {
	// The tests type-check with the tooling configuration; tsconfig.json builds only what ships.
	transform: { '^.+\\.c?ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.tooling.json' }] },
	// The tooling is CommonJS TypeScript (.cts) and imports its own files by their full names; what ships is .ts.
	moduleFileExtensions: ['ts', 'cts', 'js', 'json'],
	testEnvironment: 'node',
	setupFiles: ['<rootDir>/harness/environment.cts'],
};

/** @type {import('jest').Config} */
module.exports = {
	testTimeout: 30000,
	// The package tests and the editor-view suite look at dist/, as n8n loads it: built once, before any test.
	globalSetup: '<rootDir>/harness/buildOnce.js',
	projects: [
		{
			...shared,
			displayName: 'n8n 2.x',
			testMatch: ['<rootDir>/test/**/*.test.cts'],
			globals: { expectedEngine: { core: '2.41.1', workflow: '2.41.0' } },
		},
		{
			...shared,
			displayName: 'n8n 1.x',
			globals: { expectedEngine: { core: '1.122.48', workflow: '1.120.31' } },
			testMatch: ['<rootDir>/test/**/*.test.cts'],
			testPathIgnorePatterns: ['/node_modules/', '/test/package/package.test.cts', '/test/package/scanner.test.cts'],
			setupFilesAfterEnv: ['<rootDir>/harness/n8nV1Cleanup.cts'],
			moduleNameMapper: {
				'^n8n-core$': v1,
				'^n8n-workflow$': `${v1}/node_modules/n8n-workflow`,
				'^@n8n/di$': `${v1}/node_modules/@n8n/di`,
			},
		},
	],
};
