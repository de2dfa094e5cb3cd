import { config as communityNodeConfig } from '@n8n/node-cli/eslint';
import tseslint from 'typescript-eslint';

const packCode = ['nodes/**/*.ts', 'credentials/**/*.ts'];
const devToolCode = ['sandbox/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'];
// The scripts that run before the dependencies are installed, the Jest helpers and the tool
// configs: plain Node.js, CommonJS or ESM.
const javaScript = ['**/*.js', '**/*.mjs'];

// n8n's community-node rules (and eslint-plugin-n8n-nodes-base) govern the code n8n loads and
// package.json; the sandbox, tests, benchmarks and scripts are repository tools and get plain TypeScript rules.
const scopedCommunityConfig = communityNodeConfig.map((block) =>
	Array.isArray(block.files) && block.files.includes('**/*.ts') ? { ...block, files: packCode } : block,
);

export default [
	{ ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'bench/results/**'] },
	...scopedCommunityConfig,
	...tseslint.configs.recommended.map((block) => ({ ...block, files: [...devToolCode, ...javaScript] })),
	{
		files: [...devToolCode, ...javaScript],
		rules: {
			'@typescript-eslint/no-explicit-any': 'off',
			'@typescript-eslint/no-require-imports': 'off',
			// `const { dropped, ...kept } = obj` is how the scripts leave fields out.
			'@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
		},
	},
];
