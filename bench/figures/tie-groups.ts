import { forkTs, nextMessage, SandboxProcess } from '../processes';
import type { ReturnAllJob, ReturnAllReading } from '../return-all-child';
import { figure, type FigureResult, median, progress } from '../stats';

const LIST_ROUTE = 'get_money_v1_charge_list';

/**
 * What a tie group costs Return All: list requests for a window of 1,000 charges of which `group`
 * were created at one instant, minus those for 1,000 created at distinct instants, against a
 * sandbox that shuffles ties on every request (listTieOrder `shuffled`, a database without a
 * tie-breaker at its worst). The instant is read by its own pages until each of its charges has
 * been read (nodes/transport/listWindow.ts). One fresh child process per run, windows interleaved.
 */
export async function tieGroupFigures(options: { runs: number }): Promise<FigureResult[]> {
	const sandbox = await SandboxProcess.start({ config: { listTieOrder: 'shuffled' } });
	const windows = [
		{ name: 'spread', group: 0, year: 2040 },
		{ name: '150', group: 150, year: 2041 },
		{ name: '1000', group: 1000, year: 2042 },
	];
	const requests = new Map<string, number[]>(windows.map((window) => [window.name, []]));
	const size = 1000;
	try {
		for (const window of windows) {
			const spread = size - window.group;
			if (spread > 0) {
				await sandbox.control.seed({ resource: 'charge', count: spread, status: 'COMPLETED', createdAtFrom: `${window.year}-01-01T00:00:00.000Z`, createdAtTo: `${window.year}-12-31T00:00:00.000Z` });
			}
			if (window.group > 0) {
				const instant = `${window.year}-06-15T12:00:00.000Z`;
				await sandbox.control.seed({ resource: 'charge', count: window.group, status: 'COMPLETED', createdAtFrom: instant, createdAtTo: instant });
			}
		}
		for (let run = 0; run < options.runs; run++) {
			for (const window of windows.map((_, index) => windows[(index + run) % windows.length])) {
				const job: ReturnAllJob = { info: sandbox.info, size, startDate: `${window.year}-01-01T00:00:00.000Z`, endDate: `${window.year}-12-31T23:59:59.999Z` };
				const before = (await sandbox.control.counters()).requests[LIST_ROUTE] ?? 0;
				const child = forkTs('return-all-child.ts', [JSON.stringify(job)]);
				await nextMessage<{ reading: ReturnAllReading }>(child, 'reading');
				await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(null)));
				// The child's warm-up reads one page with a Limit.
				const made = ((await sandbox.control.counters()).requests[LIST_ROUTE] ?? 0) - before - 1;
				requests.get(window.name)!.push(made);
				progress(`tie groups: run ${run + 1}/${options.runs} ${window.name}: ${made} list requests for ${size} charges`);
			}
		}
	} finally {
		await sandbox.close();
	}
	const base = requests.get('spread')!;
	const baseMedian = median(base);
	const results: FigureResult[] = [
		figure('return_all_requests_1k_no_ties', 'requests', base, { note: `Return All of ${size} charges created at distinct instants (pages of 100, and the count checked)` }),
	];
	for (const window of windows.filter((entry) => entry.group > 0)) {
		const extra = requests.get(window.name)!.map((made, run) => made - base[run]);
		results.push(
			figure(`return_all_tie_group_extra_requests_${window.name}`, 'requests', extra, {
				ratio: (value) => (value + baseMedian) / baseMedian,
				baseline: `the requests for ${size} charges without ties (${baseMedian})`,
				note: `${window.group} of the ${size} charges created at one instant, ties shuffled on every request: list requests beyond those without ties`,
			}),
		);
	}
	return results;
}
