/**
 * The results the documentation quotes, read from the files that runs write. To quote a new
 * results file, add it here (one entry) and a resolver for its keys in figures.ts.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';

export const REPO = path.resolve(__dirname, '..', '..');

export interface BenchFigure {
	name: string;
	value: number;
	unit: string;
	ratio: number | null;
	runs: number;
	min: number;
	max: number;
	baseline?: string;
	note?: string;
}

export interface Sources {
	/** `npm run bench`'s full run: bench/results/latest.json, and its date and Node from latest.md. */
	bench: { figures: BenchFigure[]; date: string; node: string };
	/** `npm run test:queue`'s full run: bench/results/queue.json. */
	queue: Record<string, any>;
	/** The `queue` group of `npm run bench`'s full run: payouts per minute on two workers vs one, bench/results/queue-throughput.json. */
	queueThroughput: Record<string, any>;
	/**
	 * `npm run bench:webhook-server`'s run (bench/results/webhook-server.json), with the figures of its
	 * `--legacy-expressions`, `--lazy-isolates` and `--pool-size=4` runs (webhook-server-<variant>.json; their names
	 * say so).
	 */
	server: { figures: BenchFigure[]; date: string; counts: Record<string, Record<string, Record<string, number>>> };
}

function readJson(file: string): any {
	return JSON.parse(fs.readFileSync(path.join(REPO, file), 'utf8'));
}

export function loadSources(): Sources {
	const md = fs.readFileSync(path.join(REPO, 'bench', 'results', 'latest.md'), 'utf8');
	const run = md.match(/\((\d{4}-\d{2}-\d{2}), Node (v[\d.]+)\)/);
	if (!run) throw new Error('bench/results/latest.md has no "(date, Node vX)" line: was it written by npm run bench?');
	return {
		bench: { figures: readJson('bench/results/latest.json'), date: run[1], node: run[2] },
		queue: readJson('bench/results/queue.json'),
		queueThroughput: readJson('bench/results/queue-throughput.json'),
		server: serverResults(),
	};
}

function serverResults(): Sources['server'] {
	const run = readJson('bench/results/webhook-server.json');
	const variants = ['legacy-expressions', 'lazy-isolates', 'pool-4'].map((variant) => readJson(`bench/results/webhook-server-${variant}.json`));
	return { figures: [run, ...variants].flatMap((result) => result.figures), date: String(run.date).slice(0, 10), counts: run.counts };
}
