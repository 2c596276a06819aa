import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';
import tsParser from '@typescript-eslint/parser';

// Lints what ships (nodes/, credentials/, package.json) with n8n's community-node rules, the rule set of the
// package scanner. Disable comments are reported as errors so no rule can be switched off inline.
export default [
	{ ignores: ['dist/**', 'node_modules/**'] },
	{
		files: ['nodes/**/*.ts', 'credentials/**/*.ts'],
		languageOptions: { parser: tsParser },
		linterOptions: { noInlineConfig: true, reportUnusedDisableDirectives: 'error' },
		...n8nCommunityNodesPlugin.configs.recommended,
		rules: {
			...n8nCommunityNodesPlugin.configs.recommended.rules,
			'no-restricted-imports': [
				'error',
				{
					patterns: [
						{
							regex: '^(?!n8n-workflow$|\\.{1,2}/)',
							message: 'Shipped code imports only n8n-workflow and relative files.',
						},
					],
				},
			],
		},
	},
	{
		files: ['package.json'],
		languageOptions: { parser: tsParser, parserOptions: { extraFileExtensions: ['.json'] } },
		...n8nCommunityNodesPlugin.configs.recommended,
	},
];
