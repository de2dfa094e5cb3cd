/**
 * CPU profile of one per-call variant: `npx ts-node --transpile-only bench/profile.ts node|node8|nodeAll|helper|http|httpSequential|webhook [items]`.
 * Runs the variant in a child under `node --cpu-prof` against a sandbox in a third process, and
 * prints the top frames by self time and the self time per package. Profiles stay in
 * bench/results/profiles/.
 */
import './env';

import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { forkTs, nextMessage, SandboxProcess } from './processes';
import type { ProfileJob } from './profile-child';

interface ProfileNode {
	id: number;
	callFrame: { functionName: string; url: string; lineNumber: number };
	hitCount?: number;
	children?: number[];
}

interface CpuProfile {
	nodes: ProfileNode[];
	startTime: number;
	endTime: number;
	samples: number[];
	timeDeltas: number[];
}

/** Sample counts per node id, only for samples taken inside [fromUs, toUs] (all when no window). */
function hitsInWindow(profile: CpuProfile, fromUs?: number, toUs?: number): Map<number, number> {
	const hits = new Map<number, number>();
	let time = profile.startTime;
	for (let index = 0; index < profile.samples.length; index++) {
		time += profile.timeDeltas[index] ?? 0;
		if (fromUs !== undefined && (time < fromUs || time > (toUs ?? Infinity))) continue;
		hits.set(profile.samples[index], (hits.get(profile.samples[index]) ?? 0) + 1);
	}
	return hits;
}

function packageOf(url: string): string {
	if (url === '') return '(native/V8)';
	if (url.startsWith('node:')) return 'node core';
	const modules = url.lastIndexOf('node_modules/');
	if (modules >= 0) {
		const rest = url.slice(modules + 'node_modules/'.length).split('/');
		return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
	}
	if (url.includes('/dist/')) return 'n8n-nodes-money (dist)';
	if (url.includes('/bench/') || url.includes('/test/')) return 'bench harness';
	return url;
}

export function summarise(profile: CpuProfile, window: { fromUs?: number; toUs?: number } = {}, top = 25): string {
	const hitsById = hitsInWindow(profile, window.fromUs, window.toUs);
	let total = 0;
	for (const hits of hitsById.values()) total += hits;
	const selfByFrame = new Map<string, number>();
	const selfByPackage = new Map<string, number>();
	for (const node of profile.nodes) {
		const hits = hitsById.get(node.id) ?? 0;
		if (hits === 0) continue;
		const { functionName, url, lineNumber } = node.callFrame;
		const short = url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/main\//, '');
		const key = `${functionName || '(anonymous)'} ${short}:${lineNumber + 1}`;
		selfByFrame.set(key, (selfByFrame.get(key) ?? 0) + hits);
		const pkg = packageOf(url);
		selfByPackage.set(pkg, (selfByPackage.get(pkg) ?? 0) + hits);
	}
	const percent = (hits: number) => `${((100 * hits) / total).toFixed(1).padStart(5)}%`;
	const lines = [`${total} samples in the measured window; self time by package:`];
	for (const [pkg, hits] of [...selfByPackage].sort((a, b) => b[1] - a[1]).slice(0, 15)) lines.push(`  ${percent(hits)}  ${pkg}`);
	lines.push(`top ${top} frames by self time:`);
	for (const [frame, hits] of [...selfByFrame].sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`  ${percent(hits)}  ${frame}`);
	return lines.join('\n');
}

async function main(): Promise<void> {
	const variant = (process.argv[2] ?? 'node') as ProfileJob['variant'];
	const count = Number(process.argv[3] ?? 2000);
	const directory = path.join(__dirname, 'results', 'profiles');
	mkdirSync(directory, { recursive: true });
	const sandbox = await SandboxProcess.start();
	try {
		await sandbox.control.seed({ resource: 'charge', count, status: 'COMPLETED' });
		const references = (await sandbox.control.ledger()).charges.map((entry) => String(entry.reference));
		const started = Date.now();
		const job: ProfileJob = { info: sandbox.info, variant, references };
		const child = forkTs('profile-child.ts', [JSON.stringify(job)], ['--cpu-prof', `--cpu-prof-dir=${directory}`, `--cpu-prof-name=${variant}-${started}.cpuprofile`]);
		const { msPerCall, windowStartUs, windowEndUs } = await nextMessage<{ msPerCall: number; windowStartUs: number; windowEndUs: number }>(
			child,
			'done',
		);
		await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(null)));
		const file = readdirSync(directory)
			.filter((name) => name.startsWith(`${variant}-${started}`))
			.map((name) => path.join(directory, name))
			.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
		const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
		writeFileSync(`${file}.window.json`, JSON.stringify({ fromUs: windowStartUs, toUs: windowEndUs, calls: count, msPerCall }));
		process.stdout.write(`${variant}: ${msPerCall.toFixed(3)} ms/call over ${count} calls (profiled; only the measured run is summarised)\n`);
		process.stdout.write(`${summarise(profile, { fromUs: windowStartUs, toUs: windowEndUs })}\nprofile: ${path.relative(process.cwd(), file)}\n`);
	} finally {
		await sandbox.close();
	}
}

if (require.main === module) {
	main().then(
		() => process.exit(0),
		(error: unknown) => {
			process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
			process.exit(1);
		},
	);
}
