import * as path from 'node:path';
import { spawnSync } from 'node:child_process';

const REPO = path.resolve(__dirname, '..', '..');

/**
 * The rules ESLint applies to each file, as `npm run lint` runs it (scripts/lint/n8n-node-lint.js:
 * the flag that takes each file's configuration from the nearest eslint.config.mjs), computed in a
 * child process: ESLint loads configurations with import(), which Jest's module system lacks.
 */
function rulesFor(files: string[]): Record<string, Record<string, unknown>> {
	const script = `
		const { ESLint } = require('eslint');
		const eslint = new ESLint({ cwd: process.cwd(), flags: ['unstable_config_lookup_from_file'] });
		(async () => {
			const out = {};
			for (const file of JSON.parse(process.argv[1])) {
				const config = await eslint.calculateConfigForFile(file);
				out[file] = config ? Object.fromEntries(Object.entries(config.rules || {}).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v])) : null;
			}
			process.stdout.write(JSON.stringify(out));
		})().catch((e) => { process.stderr.write(String(e && e.stack || e)); process.exit(1); });
	`;
	const res = spawnSync(process.execPath, ['-e', script, JSON.stringify(files)], { cwd: REPO, encoding: 'utf8' });
	if (res.status !== 0) throw new Error(res.stderr);
	return JSON.parse(res.stdout);
}

const N8N_RULE = '@n8n/community-nodes/no-restricted-globals';
const TOOLS_RULE = '@typescript-eslint/no-explicit-any';

describe('lint configuration: n8n rules for the pack, the tools rules for the tools (docs/decisions.md#d9)', () => {
	const pack = ['nodes/Money/Money.node.ts', 'nodes/transport/request.ts', 'credentials/MoneyApi.credentials.ts'];
	const tools = ['sandbox/index.ts', 'test/harness/engine.ts', 'test/unit/lint-config.test.ts', 'bench/run.ts', 'scripts/e2e.ts', 'scripts/n8n/install.ts'];
	let rules: Record<string, Record<string, unknown>>;
	beforeAll(() => {
		rules = rulesFor([...pack, ...tools, 'package.json']);
	}, 60_000);

	it.each(pack)("%s gets n8n's community-node rules", (file) => {
		expect(rules[file][N8N_RULE]).toBe(2);
	});

	it.each(tools)('%s gets the tools configuration, without n8n rules', (file) => {
		expect(rules[file][TOOLS_RULE]).toBe(0);
		expect(rules[file][N8N_RULE]).toBeUndefined();
	});

	it("package.json gets n8n's package rules (overrides refused)", () => {
		expect(rules['package.json']['@n8n/community-nodes/no-overrides-field']).toBe(2);
	});
});
