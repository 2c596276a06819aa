const { execFileSync } = require('node:child_process');
const { join } = require('node:path');

/** Builds dist/ once per jest run, as `npm run build` does (also when a single test file is run). */
module.exports = function buildOnce() {
	execFileSync('npm', ['run', 'build'], { cwd: join(__dirname, '..'), stdio: ['ignore', 'ignore', 'inherit'] });
};
