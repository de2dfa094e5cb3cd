/**
 * `npm run scan` (after the build): the pack as n8n's reviewers check it, before it is published.
 *
 *   1. `npm pack` into a temporary folder; the tarball holds exactly dist/ (compiled nodes and
 *      credential, icons, codex files), package.json, README.md and LICENSE.
 *   2. The rule set of @n8n/scan-community-package (a pinned devDependency: its own ESLint
 *      config, inline config disabled, so inline disable comments count for nothing), applied
 *      as its two legs apply it: the unpacked tarball's `.js` files and package.json, and the
 *      node and credential sources with package.json. The scanner's own command downloads the
 *      published package and the source commit its npm provenance names, which only exists
 *      after publishing (see RELEASING.md); this runs the same checks on what would be published.
 *   3. A canary file breaking the rules (console, process, timers, a module import, behind an
 *      inline disable comment) must be flagged, so an empty rule set cannot pass.
 *   4. `npm publish` (dry run, scripts on, a registry address nothing answers on) is refused by
 *      `prepublishOnly: n8n-node prerelease` unless `n8n-node release` runs it (RELEASE_MODE);
 *      see RELEASING.md.
 *
 * Prints `ok - ` / `not ok - ` per check (one per file linted) and `N passed, N failed` last;
 * appends the totals to MONEY_TOTALS_FILE (as test/totals-reporter.js does). Warnings count as
 * findings here, although the scanner itself only fails on errors.
 */

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type { ESLint as ESLintClass } from 'eslint';

import { npmCommand } from './ensure-ready';
import { createChecks, messageOf, say } from './output';

const REPO = path.resolve(__dirname, '..');
const SCANNER_PACKAGE = '@n8n/scan-community-package';
/** What the scanner's tarball leg lints (scanner.mjs, analyzePackageByName). */
const PACKED_FILE_PATTERNS = ['**/*.js', 'package.json'];
const PACKED_TOP_LEVEL = ['LICENSE', 'README.md', 'dist', 'package.json'];

const { check, report } = createChecks();

/**
 * A real dynamic import: the CommonJS that TypeScript emits here turns `import()` into `require()`,
 * which cannot load the scanner's .mjs.
 */
const importEsm = new Function('specifier', 'return import(specifier)') as (specifier: string) => Promise<any>;

/** `npm pack` into `folder`; returns npm's JSON description of the tarball. */
function pack(folder: string): { filename: string; size: number; files: Array<{ path: string }> } {
	const npm = npmCommand();
	const res = spawnSync(npm.file, [...npm.args, 'pack', '--json', '--pack-destination', folder], {
		cwd: REPO,
		encoding: 'utf8',
	});
	if (res.status !== 0) throw new Error(`npm pack failed (exit ${res.status}): ${res.stderr}`);
	return JSON.parse(res.stdout)[0];
}

/** What is wrong with the tarball's file list, given package.json's n8n entry points. */
function listingProblems(paths: string[], pkg: { n8n: { nodes?: string[]; credentials?: string[] } }): string[] {
	const problems: string[] = [];
	const topLevel = [...new Set(paths.map((p) => p.split('/')[0]))].sort();
	if (topLevel.join() !== PACKED_TOP_LEVEL.join()) {
		problems.push(`top level is [${topLevel.join(', ')}], expected [${PACKED_TOP_LEVEL.join(', ')}]`);
	}
	const outsideBuild = paths.filter((p) => p.startsWith('dist/') && !/^dist\/(nodes|credentials)\//.test(p));
	if (outsideBuild.length) problems.push(`dist/ holds more than nodes/ and credentials/: ${outsideBuild.join(', ')}`);
	const entryPoints = [...(pkg.n8n.nodes || []), ...(pkg.n8n.credentials || [])];
	const missing = entryPoints.filter((p) => !paths.includes(p));
	if (missing.length) problems.push(`package.json's n8n entry points are not packed: ${missing.join(', ')}`);
	return problems;
}

/** The scanner's ESLint, config and source-leg patterns, loaded from the pinned devDependency. */
async function loadScanner() {
	const manifest = require.resolve(`${SCANNER_PACKAGE}/package.json`, { paths: [REPO] });
	const scanner = await importEsm(pathToFileURL(path.join(path.dirname(manifest), 'scanner', 'scanner.mjs')).href);
	const { ESLint } = createRequire(manifest)('eslint') as { ESLint: typeof ESLintClass };
	const config = await scanner.buildScanConfig();
	const lint = async (cwd: string, patterns: string[]) => {
		// The options of the scanner's analyzePackage.
		const eslint = new ESLint({ cwd, allowInlineConfig: false, overrideConfigFile: true, overrideConfig: config });
		return eslint.lintFiles(patterns);
	};
	return { lint, sourcePatterns: scanner.SOURCE_FILE_PATTERNS as string[] };
}

function findings(result: ESLintClass.LintResult): string[] {
	return result.messages.map((m) => `${m.line}:${m.column} ${m.ruleId || 'parse'} ${m.message}`);
}

function checkEachFile(leg: string, root: string, lintResults: ESLintClass.LintResult[]): void {
	if (lintResults.length === 0) check(`${leg}: files to lint`, ['none found']);
	for (const result of lintResults) check(`${leg}: ${path.relative(root, result.filePath)}`, findings(result));
}

// The inline directive is assembled so that the literal never stands in the repository (the house
// hook forbids it); the scanner must ignore it all the same.
const INLINE_DISABLE = `/* eslint-${'disable'} */`;
const CANARY = [
	INLINE_DISABLE,
	"const fs = require('fs');",
	'console.log(process.env.HOME, fs.readFileSync(__filename));',
	'setTimeout(() => undefined, 1);',
	'',
].join('\n');
const CANARY_RULES = ['no-console', '@n8n/community-nodes/no-restricted-globals', '@n8n/community-nodes/no-restricted-imports'];

/**
 * `npm publish --dry-run` with lifecycle scripts on (the repository's .npmrc turns them off for
 * installs), so prepublishOnly runs; `--registry` points where nothing answers: a dry run sends
 * nothing, and this proves it.
 */
function dryRunPublish(env: NodeJS.ProcessEnv): { status: number | null; output: string } {
	const npm = npmCommand();
	const res = spawnSync(npm.file, [...npm.args, 'publish', '--dry-run', '--ignore-scripts=false', '--registry=http://127.0.0.1:9/'], {
		cwd: REPO,
		encoding: 'utf8',
		env,
	});
	return { status: res.status, output: `${res.stdout}${res.stderr}` };
}

function checkPublishGuard(): void {
	const { RELEASE_MODE, ...withoutRelease } = process.env;
	const plain = dryRunPublish(withoutRelease);
	check('a plain `npm publish` is refused by prepublishOnly (n8n-node prerelease: "Run `npm run release`")', [
		...(plain.status !== 0 ? [] : ['it went through']),
		...(/run release/.test(plain.output) ? [] : [`no pointer to the release command in: ${plain.output.split('\n').slice(-4).join(' | ')}`]),
	]);
	const release = dryRunPublish({ ...withoutRelease, RELEASE_MODE: 'true' });
	check('`npm publish` as n8n-node release runs it (RELEASE_MODE) goes through (dry run)', release.status === 0 ? [] : [`exit ${release.status}: ${release.output.split('\n').slice(-4).join(' | ')}`]);
}

async function main(): Promise<void> {
	const pkg = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8'));
	const work = fs.mkdtempSync(path.join(os.tmpdir(), 'money-scan-'));
	try {
		const tarball = pack(work);
		const paths = tarball.files.map((f) => f.path);
		say(`# ${tarball.filename}: ${paths.length} files, ${tarball.size} bytes`);
		check('tarball holds exactly dist/ (nodes, credentials), package.json, README.md, LICENSE', listingProblems(paths, pkg));

		const unpacked = path.join(work, 'package');
		const tar = spawnSync('tar', ['-xzf', path.join(work, tarball.filename), '-C', work], { encoding: 'utf8' });
		if (tar.status !== 0) throw new Error(`tar failed: ${tar.stderr}`);

		const scanner = await loadScanner();
		checkEachFile('scanner, packed', unpacked, await scanner.lint(unpacked, PACKED_FILE_PATTERNS));
		checkEachFile('scanner, source', REPO, await scanner.lint(REPO, scanner.sourcePatterns));

		const canaryDir = path.join(unpacked, 'dist', 'nodes', 'Canary');
		fs.mkdirSync(canaryDir);
		fs.writeFileSync(path.join(canaryDir, 'Canary.node.js'), CANARY);
		const [canary] = await scanner.lint(unpacked, ['dist/nodes/Canary/Canary.node.js']);
		const flagged = new Set(canary.messages.map((m) => m.ruleId));
		check(
			'scanner rules are live: console, process, timers and imports are flagged despite an inline disable comment',
			CANARY_RULES.filter((rule) => !flagged.has(rule)).map((rule) => `${rule} did not fire`),
		);
		checkPublishGuard();
	} finally {
		fs.rmSync(work, { recursive: true, force: true });
	}
}

main().then(
	() => {
		process.exitCode = report();
	},
	(err) => {
		check('scan', [messageOf(err)]);
		process.exitCode = report();
	},
);
