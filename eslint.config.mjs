import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';
import { buildScanConfig } from '@n8n/scan-community-package/scanner/scanner.mjs';

/**
 * `npm run lint`: what ships (nodes/, credentials/, package.json) linted with the configuration of n8n's own
 * community-package scanner — taken from the scanner itself, so it is exactly the rules and the few exceptions n8n
 * makes (its `n8n-node lint` uses the same). Two things are stricter here: the community-node rules are those of the
 * newest @n8n/eslint-plugin-community-nodes (a superset of the scanner's), and shipped code may import nothing but
 * n8n-workflow and its own files. Disable comments are errors: no rule can be switched off inline.
 */
const scanConfig = await buildScanConfig();
const COMMUNITY_PLUGIN = '@n8n/community-nodes';

export default [
	{ ignores: ['dist/**', 'node_modules/**'] },
	...scanConfig.map((config) =>
		config.plugins?.[COMMUNITY_PLUGIN]
			? { ...config, plugins: { ...config.plugins, [COMMUNITY_PLUGIN]: n8nCommunityNodesPlugin } }
			: config,
	),
	{ rules: n8nCommunityNodesPlugin.configs.recommended.rules },
	{ linterOptions: { noInlineConfig: true, reportUnusedDisableDirectives: 'error' } },
	{
		files: ['nodes/**/*.ts', 'credentials/**/*.ts'],
		rules: {
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
];
