// The lint configuration of the code that does not ship: the tests, harness, sandbox, demo, benchmarks, the real-n8n
// runs and the scripts (`npm run lint:tooling`). That code is CommonJS TypeScript written as .cts, so that `*.ts` in
// this repository means what ships: n8n's stock configuration (eslint.config.mjs, which `npx n8n-node lint` uses)
// holds every .ts file to the rules for code that runs inside n8n (no Node.js modules, no process or timers), which
// code that starts servers, reads files and spawns n8n cannot follow; ESLint's and typescript-eslint's recommended
// rules apply to it here. See docs/development.md, "n8n's node CLI".
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
