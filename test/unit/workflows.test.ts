import * as fs from 'node:fs';
import * as path from 'node:path';

const REPO = path.resolve(__dirname, '..', '..');
// js-yaml comes with ESLint (@eslint/eslintrc); the workflows are YAML.
const yaml = require('js-yaml') as { load(text: string): unknown };

interface Step {
	run?: string;
	uses?: string;
	with?: Record<string, string>;
}
interface Job {
	steps: Step[];
	strategy?: { matrix: Record<string, unknown[]> };
}

const scripts: Record<string, string> = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')).scripts;
const jobsOf = (file: string) => (yaml.load(fs.readFileSync(path.join(REPO, '.github', 'workflows', file), 'utf8')) as { jobs: Record<string, Job> }).jobs;

/** Every combination of a job's matrix (one empty one without a matrix). */
function combinations(job: Job): Record<string, unknown>[] {
	return Object.entries(job.strategy?.matrix || {}).reduce<Record<string, unknown>[]>((all, [key, values]) => all.flatMap((c) => values.map((v) => ({ ...c, [key]: v }))), [{}]);
}

/** The commands a job runs, once per matrix combination, with `${{ matrix.a.b }}` filled in. */
function commands(job: Job): string[] {
	return combinations(job).flatMap((matrix) =>
		job.steps.flatMap((step) =>
			(step.run || '')
				.split('\n')
				.filter(Boolean)
				.map((line) => line.replace(/\$\{\{\s*matrix\.([\w.]+)\s*\}\}/g, (_m, key: string) => String(key.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown>)[k], matrix)))),
		),
	);
}

/** The commands an npm script runs: `npm run build && jest ...` → ['npm run build', 'npx jest ...'] (local binaries through npx, as a workflow calls them). */
const partsOf = (script: string) =>
	scripts[script]
		.split('&&')
		.map((part) => part.trim())
		.map((part) => (/^(npm|node) /.test(part) ? part : `npx ${part}`));

/** `jest --selectProjects a b [--shard=i/n]` → its projects and shard. */
function jestRun(command: string): { projects: string[]; shard: [number, number] } | null {
	const m = /^npx jest --selectProjects ((?:[\w-]+ ?)+?)(?: --shard=(\d+)\/(\d+))?$/.exec(command);
	return m ? { projects: m[1].trim().split(' '), shard: [Number(m[2] || 1), Number(m[3] || 1)] } : null;
}

describe('the GitHub workflows run what package.json defines', () => {
	const check = Object.values(jobsOf('check.yml')).flatMap(commands);
	const realServer = Object.values(jobsOf('real-server.yml')).flatMap(commands);

	it.each([
		['check.yml', check],
		['real-server.yml', realServer],
	])('every command of %s is npm ci, an npm script of package.json, or a command one of them runs (jest on some of its projects)', (_file, run) => {
		const known = new Set(Object.keys(scripts).flatMap(partsOf));
		const jestProjects = new Set([...known].flatMap((command) => jestRun(command)?.projects || []));
		for (const command of run) {
			const script = /^npm (?:run (\S+)|(test))\b/.exec(command);
			const jest = jestRun(command);
			if (command === 'npm ci') continue;
			if (script) expect(Object.keys(scripts)).toContain(script[1] || script[2]);
			else if (jest) for (const project of jest.projects) expect([...jestProjects]).toContain(project);
			else expect([...known]).toContain(command);
		}
	});

	it('the pull-request check runs lint, typecheck, the build, `npm test`’s jest projects (every shard) and `npm run scan`’s command', () => {
		const [build, jest] = partsOf('test');
		expect(build).toBe('npm run build');
		expect(partsOf('scan')[0]).toBe('npm run build');
		for (const command of ['npm ci', 'npm run lint', 'npm run typecheck', 'npm run build', partsOf('scan')[1]]) expect(check).toContain(command);
		const shards = new Map<string, Set<string>>();
		for (const run of check.map(jestRun)) {
			if (!run) continue;
			for (const project of run.projects) shards.set(project, (shards.get(project) || new Set()).add(run.shard.join('/')));
		}
		const wanted = (jestRun(jest) as { projects: string[] }).projects;
		expect([...shards.keys()].sort()).toEqual([...wanted].sort());
		for (const [, seen] of shards) {
			const of = Number([...seen][0].split('/')[1]);
			expect([...seen].sort()).toEqual(Array.from({ length: of }, (_v, i) => `${i + 1}/${of}`));
		}
	});

	it('the real-server workflow runs e2e on both tested n8n lines, queue mode and the browser test, with n8n cached per line on scripts/n8n/versions.ts', () => {
		const { TESTED_N8N } = require('../../scripts/n8n/versions') as typeof import('../../scripts/n8n/versions');
		for (const line of Object.keys(TESTED_N8N)) expect(realServer).toContain(`npm run test:e2e -- --n8n ${line}`);
		for (const script of ['test:queue', 'test:ui']) expect(realServer).toContain(`npm run ${script}`);
		const caches = Object.values(jobsOf('real-server.yml')).flatMap((job) => job.steps.filter((step) => step.uses && step.uses.startsWith('actions/cache@')));
		expect(caches.length).toBeGreaterThan(0);
		for (const cache of caches) {
			expect(cache.with).toMatchObject({ path: '~/.cache/n8n-nodes-money', key: expect.stringContaining("hashFiles('scripts/n8n/versions.ts')") });
		}
	});
});
