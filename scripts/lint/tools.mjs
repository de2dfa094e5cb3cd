// The ESLint configuration of the repository's own tools: the sandbox, the tests, the benchmarks
// and the scripts. Each of those folders has an eslint.config.mjs that exports this, and ESLint 9
// with the flag `npm run lint` sets (docs/decisions.md#d9) takes every file's configuration from the
// nearest eslint.config.mjs above it, so these rules
// never meet the pack's code and n8n's rules (the root eslint.config.mjs, left exactly as
// `n8n-node lint` in strict mode demands) never meet the tools. Patterns are relative to the
// folder whose eslint.config.mjs exports this.
import tseslint from 'typescript-eslint';

const code = ['**/*.ts', '**/*.js', '**/*.mjs'];

/** @param {{ ignores?: string[] }} [options] */
export function toolsConfig({ ignores = [] } = {}) {
	return [
		{ ignores },
		...tseslint.configs.recommended.map((block) => ({ ...block, files: code })),
		{
			files: code,
			rules: {
				'@typescript-eslint/no-explicit-any': 'off',
				// The scripts that run before the dependencies are installed are CommonJS.
				'@typescript-eslint/no-require-imports': 'off',
				// `const { dropped, ...kept } = obj` is how the scripts leave fields out.
				'@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
			},
		},
	];
}

export default toolsConfig();
