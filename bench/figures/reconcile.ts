import { forkTs, nextMessage, SandboxProcess } from '../processes';
import type { ReconcileJob, ReconcileReading } from '../reconcile-child';
import { figure, type FigureResult, median, progress, unmeasured } from '../stats';

const label = (size: number): string => `${size / 1000}k`;

/** The figures of one size, by name and unit. */
function sizeFigures(size: number) {
	return {
		msPerRecord: { name: `reconcile_ms_per_record_${label(size)}`, unit: 'ms/record' },
		matchMsPerRecord: { name: `reconcile_match_ms_per_record_${label(size)}`, unit: 'ms/record' },
		peakMb: { name: `reconcile_peak_mb_${label(size)}`, unit: 'MB' },
	};
}

/** The figures of a size a run leaves out, each not measured for `reason`. */
export function reconcileUnmeasured(size: number, reason: string): FigureResult[] {
	return Object.values(sizeFigures(size)).map(({ name, unit }) => unmeasured(name, unit, reason));
}

/**
 * Charge → Reconcile of N records against the N charges of a period (each size in its own year of
 * one sandbox process), one fresh child process per size and run, sizes interleaved.
 */
export async function reconcileFigures(options: { sizes: number[]; runs: number }): Promise<FigureResult[]> {
	const sandbox = await SandboxProcess.start();
	const readings = new Map<number, ReconcileReading[]>(options.sizes.map((size) => [size, []]));
	const period = (index: number) => ({ startDate: `${2019 + index}-01-01T00:00:00.000Z`, endDate: `${2019 + index}-12-31T23:59:59.999Z` });
	try {
		for (const [index, size] of options.sizes.entries()) {
			const { startDate } = period(index);
			await sandbox.control.seed({ resource: 'charge', count: size, status: 'COMPLETED', createdAtFrom: startDate, createdAtTo: `${2019 + index}-12-31T00:00:00.000Z` });
		}
		progress(`reconcile: seeded ${options.sizes.map(label).join(', ')} charges`);
		for (let run = 0; run < options.runs; run++) {
			for (const size of options.sizes.map((_, index) => options.sizes[(index + run) % options.sizes.length])) {
				const job: ReconcileJob = { info: sandbox.info, size, ...period(options.sizes.indexOf(size)) };
				const child = forkTs('reconcile-child.ts', [JSON.stringify(job)]);
				const { reading } = await nextMessage<{ reading: ReconcileReading }>(child, 'reading');
				await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(null)));
				readings.get(size)!.push(reading);
				progress(
					`reconcile: run ${run + 1}/${options.runs} ${label(size)}: ${((reading.elapsedMs * 1000) / size).toFixed(1)} µs/record ` +
						`(matching alone ${((reading.matchMs * 1000) / size).toFixed(2)}), peak heap +${reading.peakHeapMb.toFixed(1)} MB, ` +
						`output JSON ${reading.outputJsonMb.toFixed(1)} MB`,
				);
			}
		}
	} finally {
		await sandbox.close();
	}

	const perRecord = (size: number, pick: (reading: ReconcileReading) => number) => readings.get(size)!.map((reading) => pick(reading) / size);
	const smallest = options.sizes[0];
	const baseNode = median(perRecord(smallest, (reading) => reading.elapsedMs));
	const baseMatch = median(perRecord(smallest, (reading) => reading.matchMs));
	const results: FigureResult[] = [];
	for (const size of options.sizes) {
		const json = median(readings.get(size)!.map((reading) => reading.outputJsonMb));
		const named = sizeFigures(size);
		results.push(
			figure(named.msPerRecord.name, named.msPerRecord.unit, perRecord(size, (reading) => reading.elapsedMs), {
				ratio: (value) => value / baseNode,
				baseline: `ms/record at ${label(smallest)} (flat = 1)`,
				note: `Money node Charge → Reconcile in n8n-core: ${size} records (fields by name) against ${size} charges read in pages of 100 and counted against the API's total`,
			}),
			figure(named.matchMsPerRecord.name, named.matchMsPerRecord.unit, perRecord(size, (reading) => reading.matchMs), {
				ratio: (value) => value / baseMatch,
				baseline: `ms/record at ${label(smallest)} (flat = 1)`,
				note: 'the matching alone (index, match, output items) over the envelopes the run read',
			}),
			figure(named.peakMb.name, named.peakMb.unit, readings.get(size)!.map((reading) => reading.peakHeapMb), {
				ratio: (value) => value / json,
				baseline: `the four outputs' own JSON (${json.toFixed(1)} MB)`,
				note: 'peak heapUsed growth over the node run (records already in memory), sampled every 2 ms, fresh process',
			}),
		);
	}
	return results;
}
