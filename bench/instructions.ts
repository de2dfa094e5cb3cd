/**
 * Instructions per call of the per-call variants, counted by valgrind's callgrind: user-space
 * instructions of the whole n8n process (every thread), which other work on a shared machine does
 * not change the way it changes CPU time.
 * `npx ts-node --transpile-only bench/instructions.ts [node,helper,http,...] [--calls=150] [--runs=5] [--warm-up=150]`
 * (build first; variants in bench/variants.ts). One child under callgrind loads the engine and warms
 * every variant up; then, round by round (the order rotating), after a full garbage collection the
 * counters are zeroed, one variant runs `calls` Charge Gets and the counters are dumped. The figure
 * leaves out V8's own work that falls in whichever round it happens to (optimising compilation,
 * deoptimisation, garbage collection: ENGINE_WORK in callgrind.ts) and prints the total beside it.
 * Ratios are taken within a round, to the first variant named. Under callgrind n8n runs some 50
 * times slower: at 400 calls a round, the HTTP Request node's requests (all started at once) ended
 * in a token request the sandbox answered 408; 150 a round run through. Dumps stay in
 * bench/results/callgrind/ for callgrind_annotate.
 */
import './env';

import { execFile, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

import { nextMessage, SandboxProcess } from './processes';
import type { ChildMessage, InstructionJob } from './instructions-child';
import { type Counted, engineWorkOf, totalOf } from './callgrind';
import { median } from './stats';
import { ENGINE_VARIANTS, type EngineVariant } from './variants';

const DIRECTORY = path.join(__dirname, 'results', 'callgrind');

/** One thread, garbage collections at fixed points of allocation: counts that vary less from round to round. */
const V8_FLAGS = ['--predictable', '--predictable-gc-schedule'];

function option(argv: string[], name: string, fallback: number): number {
	const raw = argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
	const value = raw === undefined ? fallback : Number(raw);
	if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} needs a positive whole number`);
	return value;
}

/** A callgrind monitor command (zero, dump) sent to the child through valgrind's gdbserver. */
function monitor(pid: number, command: string): Promise<void> {
	return new Promise((resolve, reject) => {
		execFile('vgdb', [`--pid=${pid}`, command], (error, _stdout, stderr) => (error ? reject(new Error(`vgdb ${command}: ${stderr}`)) : resolve()));
	});
}

function countsOf(file: string): Promise<Counted> {
	const total = totalOf(readFileSync(file, 'utf8'));
	return new Promise((resolve, reject) => {
		execFile('callgrind_annotate', ['--inclusive=yes', '--threshold=100', file], { maxBuffer: 256 * 1024 * 1024 }, (error, stdout) => {
			if (error) return reject(error);
			resolve({ total, calls: total - engineWorkOf(stdout) });
		});
	});
}

async function main(): Promise<void> {
	const argv = process.argv.slice(2);
	const variants = (argv.find((arg) => !arg.startsWith('--'))?.split(',') ?? ['node', 'helper', 'http']) as EngineVariant[];
	for (const variant of variants) if (!ENGINE_VARIANTS.includes(variant)) throw new Error(`unknown variant ${variant}; known: ${ENGINE_VARIANTS.join(', ')}`);
	const calls = option(argv, 'calls', 150);
	const runs = option(argv, 'runs', 5);
	const warmUpCalls = option(argv, 'warm-up', 150);
	rmSync(DIRECTORY, { recursive: true, force: true });
	mkdirSync(DIRECTORY, { recursive: true });
	const outFile = path.join(DIRECTORY, 'child.callgrind');

	const sandbox = await SandboxProcess.start();
	await sandbox.control.seed({ resource: 'charge', count: warmUpCalls + calls, status: 'COMPLETED' });
	const references = (await sandbox.control.ledger()).charges.map((entry) => String(entry.reference));
	const measured = references.slice(warmUpCalls, warmUpCalls + calls);
	const job: InstructionJob = { info: sandbox.info, variants, warmUp: references.slice(0, warmUpCalls) };
	const child = spawn(
		'valgrind',
		['--tool=callgrind', `--callgrind-out-file=${outFile}`, 'node', ...V8_FLAGS, '--expose-gc', '-r', 'ts-node/register/transpile-only', path.join(__dirname, 'instructions-child.ts'), JSON.stringify(job)],
		{ stdio: ['ignore', 'inherit', 'pipe', 'ipc'], env: { ...process.env, TS_NODE_TRANSPILE_ONLY: 'true' } },
	);
	let stderr = '';
	child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
	try {
		await nextMessage(child, 'ready');
		process.stderr.write(`instructions: child ${child.pid} ready\n`);

		const perCall = new Map<EngineVariant, number[]>(variants.map((variant) => [variant, []]));
		const totalPerCall = new Map<EngineVariant, number[]>(variants.map((variant) => [variant, []]));
		let dumps = 0;
		for (let run = 0; run < runs; run++) {
			for (let index = 0; index < variants.length; index++) {
				const variant = variants[(index + run) % variants.length];
				const collected = nextMessage(child, 'collected');
				child.send({ type: 'collect' } satisfies ChildMessage);
				await collected;
				await monitor(child.pid!, 'zero');
				const ran = nextMessage(child, 'ran');
				child.send({ type: 'run', variant, references: measured } satisfies ChildMessage);
				await ran;
				await monitor(child.pid!, 'dump');
				dumps++;
				const counted = await countsOf(`${outFile}.${dumps}`);
				perCall.get(variant)!.push(counted.calls / calls);
				totalPerCall.get(variant)!.push(counted.total / calls);
				process.stderr.write(`instructions: round ${run + 1}, ${variant}: ${Math.round(counted.calls / calls)} per call (${Math.round(counted.total / calls)} with V8's compiler, deoptimisation and GC)\n`);
			}
		}
		const format = (values: number[]) => `${Math.round(median(values))} (${Math.round(Math.min(...values))} .. ${Math.round(Math.max(...values))}; ${values.length})`;
		for (const variant of variants) {
			process.stdout.write(`instructions_per_call_${variant}: ${format(perCall.get(variant)!)}; with V8's compiler, deoptimisation and GC ${format(totalPerCall.get(variant)!)}\n`);
		}
		const [baseline, ...others] = variants;
		for (const variant of others) {
			const theirs = perCall.get(baseline)!;
			const ratios = perCall.get(variant)!.map((value, run) => value / theirs[run]);
			process.stdout.write(`instructions_${variant}_vs_${baseline}: ${median(ratios).toFixed(3)} x (${Math.min(...ratios).toFixed(3)} .. ${Math.max(...ratios).toFixed(3)}; ${ratios.length})\n`);
		}
		child.send({ type: 'exit' } satisfies ChildMessage);
	} catch (error) {
		child.kill();
		throw new Error(`${error instanceof Error ? error.message : String(error)}\nchild stderr: ${stderr}`);
	} finally {
		await sandbox.close();
	}
}

main().then(
	() => process.exit(0),
	(error: unknown) => {
		process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
		process.exit(1);
	},
);
