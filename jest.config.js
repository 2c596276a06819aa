/** @type {import('jest').Config} */
module.exports = {
	preset: 'ts-jest',
	testEnvironment: 'node',
	testMatch: ['<rootDir>/test/**/*.test.ts'],
	setupFiles: ['<rootDir>/engine/environment.ts'],
	testTimeout: 30000,
};
