// The lint configuration of the folders that do not ship (tests, harness, sandbox, demo, bench, real-n8n, scripts),
// each holds an eslint.config.mjs that names this file. They build, test and measure the package, so n8n's rules for
// community-node code (no Node.js modules, no process or timers) do not apply to them; ESLint's and
// typescript-eslint's recommended rules do.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config({
	files: ['**/*.cts'],
	extends: [js.configs.recommended, tseslint.configs.recommended],
	rules: {
		// The package suites load the built package with require(), as n8n does.
		'@typescript-eslint/no-require-imports': 'off',
		// Taking a key out of an object by destructuring it away is how the sandbox drops a field.
		'@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
	},
});
