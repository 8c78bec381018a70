// Lint for what n8n checks before it verifies a community package: eslint-plugin-n8n-nodes-base's
// community (package.json), credentials and nodes rule sets, and @n8n/eslint-plugin-community-nodes.
import tsParser from '@typescript-eslint/parser';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';
import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';

const typescript = { parser: tsParser, parserOptions: { sourceType: 'module' } };

export default [
	{ ignores: ['dist/**', 'node_modules/**', 'coverage/**'] },
	{
		files: ['package.json'],
		languageOptions: { parser: tsParser, parserOptions: { extraFileExtensions: ['.json'] } },
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		rules: n8nNodesBase.configs.community.rules,
	},
	{
		files: ['credentials/**/*.ts'],
		languageOptions: typescript,
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		rules: {
			...n8nNodesBase.configs.credentials.rules,
			// Wants an n8n-docs slug; a community credential links a full URL, which
			// @n8n/community-nodes/credential-documentation-url requires (n8n-nodes-starter turns it off too).
			'n8n-nodes-base/cred-class-field-documentation-url-miscased': 'off',
		},
	},
	{
		files: ['nodes/**/*.ts'],
		languageOptions: typescript,
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		rules: {
			...n8nNodesBase.configs.nodes.rules,
			// These two demand the string literal ['main'] and a single output. They contradict
			// @n8n/community-nodes/node-connection-type-literal (NodeConnectionTypes.Main) and any node with
			// two outputs, as Registered / Not Registered needs.
			'n8n-nodes-base/node-class-description-inputs-wrong-regular-node': 'off',
			'n8n-nodes-base/node-class-description-outputs-wrong': 'off',
		},
	},
	{
		files: ['nodes/**/*.ts', 'credentials/**/*.ts'],
		languageOptions: typescript,
		...n8nCommunityNodesPlugin.configs.recommended,
	},
];
